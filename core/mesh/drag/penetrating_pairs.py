"""Penetrating pairs answered while dragged, from what their last exact answers proved: convex pairs' push-outs
carried along, mesh pairs' starts carried or renewed with a new ball inside both objects."""

from __future__ import annotations

from collections.abc import Iterator, MutableSequence, Sequence

import numpy as np

from ...contact import PENETRATING, Contact
from ...narrowphase.collide import collide
from ...narrowphase.warm_epa import WarmStart
from ..contact.pushout import common_ball, largest_ball
from ..contact.result import SolidContact, pair_method
from ..solid import MESH, Solid
from .starts import ConvexStart, PairStart
from .translated_contact import (ProvenDepth, TranslatedDepth, TranslationStart, depth_after_translation,
                                 pair_translations, renewed_start)

#: A dragged penetrating mesh pair whose ball is used up is answered from a renewed start while its push-out is at
#: most this many times the new ball's lower bound (else it is measured in full: a better push-out is wanted).
RENEWED_DEPTH_RATIO = 2.0


def keep_convex_starts(pairs: Sequence[tuple[Solid, Solid]], convex: list[int], screened: list[Contact | None],
                        polytopes: list[WarmStart | None], warm: MutableSequence[PairStart | None],
                        answers: list[SolidContact | None], carry: bool) -> None:
    """Leave in the slots of the ``convex`` pairs solved (``screened``) their EPA ``polytopes`` with what their answers
    proved (``ConvexStart``); a pair the deadline left unsolved keeps its slot and, when ``carry`` (while the
    interface runs), is answered from what its last answer proved if it was only translated since and still
    certainly penetrates (``translated_contact.depth_after_translation``: a checked push-out and a lower bound,
    ``answered_from_last``)."""
    for row, k in enumerate(convex):
        if screened[row] is not None:
            answer = answers[k]
            proved = None if answer.status != PENETRATING else \
                ProvenDepth(pairs[k][0].placement, pairs[k][1].placement, answer.depth * answer.normal,
                            answer.depth_lower_bound - answer.tolerance, answer.point_b, answer.tolerance,
                            answer.tolerance)
            warm[k] = None if polytopes[row] is None else ConvexStart(polytopes[row], proved)
        elif carry and answers[k] is None and isinstance(warm[k], ConvexStart) and warm[k].proved is not None:
            moved = depth_after_translation(warm[k].proved, *pairs[k])
            if moved is not None:
                answers[k] = _translated_answer(moved, warm[k].proved, pair_method(*pairs[k]))


def translated_warm(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: Sequence[PairStart | None],
                     answers: list[SolidContact | None]) -> None:
    """Answer the ``chosen`` penetrating mesh pairs whose starts still prove their overlap
    (``translated_contact.depth_after_translation``); the others are left None."""
    for k in chosen:
        moved = depth_after_translation(warm[k], *pairs[k])
        if moved is not None:
            answers[k] = _translated_answer(moved, warm[k])


def renewed_penetrating(a: Solid, b: Solid, start: TranslationStart) -> tuple[SolidContact, TranslationStart] | None:
    """A penetrating mesh pair dragged past what its start's ball proves, answered without a full measurement: a new
    ball inside both objects where they are now proves the overlap, and the shorter of the carried push-out and
    the convex hulls' (``translated_contact.renewed_start``) bounds the depth. None (measure it in full) when the
    pair turned or scaled, no ball is found, or the push-out is over ``RENEWED_DEPTH_RATIO`` times the ball's
    bound: the full measurement's push-out would be much nearer the shortest."""
    hull_pushout = _hull_pushout(a, b)
    for ball in _renewal_balls(a, b, start):
        if not 2.0 * ball[1] > start.touch_tolerance:
            continue
        renewed = renewed_start(start, a, b, ball, hull_pushout)
        moved = None if renewed is None else depth_after_translation(renewed, a, b)
        if moved is not None and moved.depth <= RENEWED_DEPTH_RATIO * moved.lower:
            return _translated_answer(moved, renewed), renewed
    return None


def _renewal_balls(a: Solid, b: Solid, start: TranslationStart) -> Iterator[tuple[np.ndarray, float]]:
    """Balls inside both objects to renew ``start`` with, the cheaper first: its own ball carried along
    (``carried_ball``), then the largest ``common_ball`` finds (about twice as long: sampled vertices)."""
    carried = carried_ball(a, b, start)
    if carried is not None:
        yield carried
    found = common_ball(a, b, None)
    if found is not None:
        yield found


def _hull_pushout(a: Solid, b: Solid) -> np.ndarray | None:
    """A move of B that leaves the convex hulls touching or apart (so the objects too), along the hulls' contact
    normal ``n``: by ``max over A of n.x - min over B of n.y``, from two exact support points; None when the hulls
    do not overlap (by more than rounding)."""
    hull = collide(a.hull, b.hull)
    if hull.status != PENETRATING:
        return None
    normal = hull.normal
    reach = float(normal @ np.asarray(a.hull.support(tuple(normal.tolist())))) - \
        float(normal @ np.asarray(b.hull.support(tuple((-normal).tolist()))))
    return reach * normal if reach > 0.0 else None  # (not positive only by rounding, for hulls barely touching)


def _translated_answer(moved: TranslatedDepth, start: TranslationStart | ProvenDepth, method: str = MESH
                       ) -> SolidContact:
    """A pair's answer after a translation: penetrating, the push-out carried along, volume pending."""
    return SolidContact(
        status=PENETRATING, signed_distance=-moved.depth, normal=moved.normal,
        point_a=moved.point_b + moved.depth * moved.normal, point_b=moved.point_b, method=method,
        tolerance=start.touch_tolerance, depth_lower_bound=moved.lower,
        depth_is_estimate=moved.depth > moved.lower + start.tolerance, volume_pending=True)


def carried_ball(a: Solid, b: Solid, start: TranslationStart) -> tuple[np.ndarray, float] | None:
    """The largest ball inside both objects centred where a drag may have taken ``start``'s ball (the objects only
    moved since): its copy in A, its copy in B, or halfway between (two spheres' overlap moves halfway, a ball
    sliding on a face takes it along), often far larger than the copies' overlap proves. ``(centre, radius)``, from
    three points' winding numbers and distances; None when no such centre is inside both."""
    shifts = pair_translations(start.placement_a, start.placement_b, a, b)
    if shifts is None:
        return None
    shift_a, shift_b = shifts
    return largest_ball(a, b, start.ball_centre + np.array([0.5 * (shift_a + shift_b), shift_a, shift_b]))
