"""Separated mesh pairs answered while dragged: from their starts' kept triangle pairs, renewed a step at a time
within the update's time (ahead of need when they can be), or bounded by probes and the convex hulls' distance
while they wait."""

from __future__ import annotations

import time
from collections.abc import MutableSequence, Sequence

import numpy as np

from ...contact import SEPARATED
from ...narrowphase.collide import collide
from ...steps import run_to_end, run_until
from ..contact.mesh_pairs import apart_answer
from ..contact.result import SolidContact, pair_size
from ..distance import MeshDistance, nearest_on_surface
from ..solid import MESH, Solid
from .starts import PairStart
from .translated_distance import (RENEW_AHEAD, BoundedDistance, Renewal, SeparationStart,
                                  distance_bounds_after_translation, distances_after_translation, drag_since,
                                  keep_probes, renewal_steps, spent, start_after_translation)

#: The share of the time to a deadline that separated mesh pairs dragged past their last answers may spend finding
#: surface points near their convex hulls' closest points (a tight upper bound while they wait; the rest of the time
#: renews their starts, for exact answers).
HULL_SHARE = 0.5


def start_answer(start: SeparationStart) -> SolidContact:
    """The answer a separated mesh pair's start was made with, where the pair is now."""
    return apart_answer(MeshDistance(start.distance, start.point_a, start.point_b, -1, -1),
                         start.point_b - start.point_a, start.touch_tolerance, start.overlap_volume)


def start_for_next_drag(start: SeparationStart, a: Solid, b: Solid) -> SeparationStart | None:
    """A separated mesh pair's ``start`` made ready, while nothing moves, for the pair's next drag: with the triangle
    pairs near its closest ones where the pair is now (``translated_distance.start_after_translation`` at rest), so
    that the drag's first updates need no tree search. None when ``start`` cannot give one (the pair turned since,
    or moved as far as its distance): the next update measures it in full."""
    return start_after_translation(start, a, b, pair_size(a, b), at_rest=True)


def separated_warm(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: Sequence[PairStart | None],
                    answers: list[SolidContact | None]) -> None:
    """Answer the ``chosen`` separated mesh pairs whose starts (the one a renewal renews) still prove their exact
    distance, all together (``translated_distance.distances_after_translation``); the others are left None."""
    starts = {k: warm[k].base if isinstance(warm[k], Renewal) else warm[k] for k in chosen}
    found = distances_after_translation([starts[k] for k in chosen], [pairs[k] for k in chosen])
    for k, distance in zip(chosen, found):
        if distance is not None:
            answers[k] = apart_answer(distance, distance.point_b - distance.point_a, starts[k].touch_tolerance,
                                       starts[k].overlap_volume)


def _start_of(slot: PairStart | None) -> SeparationStart | None:
    """The separated mesh pair's start a slot holds (the one a renewal under way renews), or None."""
    start = slot.base if isinstance(slot, Renewal) else slot
    return start if isinstance(start, SeparationStart) else None


def find_hull_gaps(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: Sequence[PairStart | None],
               options: dict, deadline: float) -> tuple[dict[int, float], dict[int, tuple]]:
    """``({k: a lower bound on the distance}, {k: the hulls' closest points})`` of those ``chosen`` separated mesh
    pairs whose convex hulls are apart, among the ones only translated since their starts by half their distance or
    more (their last answer proves little now), until ``deadline``: GJK on the hulls (0.1-0.4 ms for a pair of
    10k-vertex objects, against a 9 ms tree search). The hulls apart, neither object can be inside the other."""
    gaps, closest = {}, {}
    for k in chosen:
        start = _start_of(warm[k])
        if start is None or not np.inf > drag_since(start, *pairs[k]) >= 0.5 * start.distance:
            continue
        if time.perf_counter() >= deadline:
            break
        hulls = collide(pairs[k][0].hull, pairs[k][1].hull, **options)
        if hulls.bounds[0] > hulls.tolerance:
            gaps[k], closest[k] = hulls.bounds[0], (hulls.point_a, hulls.point_b)
    return gaps, closest


def probe_hull_points(pairs: Sequence[tuple[Solid, Solid]], hull_gaps: dict[int, float], closest: dict[int, tuple],
           warm: Sequence[PairStart | None], deadline: float) -> None:
    """In ``HULL_SHARE`` of the time left before ``deadline``, give the pairs of ``hull_gaps`` whose bounds are
    loosest the surface points nearest their hulls' ``closest`` points as their starts' probes (about 2 ms a pair,
    ``keep_probes``): near the closest pair while the objects are nearly convex where they face each other, they
    bound the distance tightly above while the pair waits for its renewal."""
    now = time.perf_counter()
    share = now + HULL_SHARE * (deadline - now)
    starts = {k: _start_of(warm[k]) for k in hull_gaps}  # (renewing since begin_renewals: their bases)
    for k in sorted(hull_gaps, key=lambda k: -_looseness(starts[k], *pairs[k], hull_gaps[k])):
        if time.perf_counter() >= share:
            break
        a, b = pairs[k]
        on_a = nearest_on_surface(a.mesh, closest[k][0][None], bvh=a.bvh)[1][0]
        on_b = nearest_on_surface(b.mesh, closest[k][1][None], bvh=b.bvh)[1][0]
        keep_probes(starts[k], a, b, on_a, on_b)


def _looseness(start: SeparationStart, a: Solid, b: Solid, lower: float) -> float:
    """How far apart the bounds on a pair's distance are now (inf when nothing bounds it)."""
    bounds = distance_bounds_after_translation(start, a, b, known_lower=lower)
    return np.inf if bounds is None else bounds.upper - bounds.lower


def begin_renewals(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: MutableSequence[PairStart | None],
                    hull_gaps: dict[int, float]) -> set[int]:
    """Begin renewing the starts of the ``chosen`` separated mesh pairs that their starts no longer answer (the drag
    outran them), where they can be renewed (``translated_distance.renewal_steps``: not after a turn, nor a move as
    long as the distance unless their hulls are apart, ``hull_gaps``; the others are left to a full measurement): a
    ``Renewal`` in their slots (a renewal under way, begun ahead or at an earlier update, goes on). The pairs whose
    renewals were begun here."""
    return {k for k in chosen if _renewing(pairs, k, warm, apart=k in hull_gaps)}


def _renewing(pairs: Sequence[tuple[Solid, Solid]], k: int, warm: MutableSequence[PairStart | None],
              apart: bool = False) -> bool:
    """Put in pair ``k``'s slot a ``Renewal`` of the start it holds, when that can be renewed
    (``translated_distance.renewal_steps``, told whether the pair is known to be ``apart``); whether it did."""
    if not isinstance(warm[k], SeparationStart):
        return False
    steps = renewal_steps(warm[k], *pairs[k], pair_size(*pairs[k]), apart=apart)
    if steps is None:
        return False
    warm[k] = Renewal(warm[k], steps)
    return True


def catch_up(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: MutableSequence[PairStart | None],
              answers: list[SolidContact | None], deadline: float, begun: set[int]) -> None:
    """Run, a step at a time until ``deadline``, the renewals in the slots of the ``chosen`` pairs
    (``begin_renewals``), in the order given: one that ends answers its pair at once when it was ``begun`` at this
    call (it renewed the start where the pair is now), else when the renewed start proves where the pair is now
    (``separated_warm``); if not, the pair is renewed again from there. A pair still renewing when the time is up
    waits (None), its ``Renewal`` in its slot, so that no update is held for a whole renewal (a tree search, 9-22 ms
    at 10k vertices); a renewal that found the pair within the touch band empties its slot (a full measurement
    follows)."""
    for k in chosen:
        fresh = k in begun
        while answers[k] is None and time.perf_counter() < deadline:
            if isinstance(warm[k], SeparationStart):
                if not _renewing(pairs, k, warm):
                    break
                fresh = True
            if not isinstance(warm[k], Renewal):
                break
            done, renewed = run_until(warm[k].steps, deadline)
            if not done:
                return
            warm[k] = renewed
            if renewed is None:
                break
            if fresh:
                answers[k] = start_answer(renewed)
            else:
                separated_warm(pairs, [k], warm, answers)


def bounded_warm(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: Sequence[PairStart | None],
                  answers: list[SolidContact | None], hull_gaps: dict[int, float]) -> None:
    """Answer the ``chosen`` separated mesh pairs no time was left to measure from their last exact answers, when only
    translated since and still certainly apart (``translated_distance.distance_bounds_after_translation``, with the
    convex hulls' distance as a lower bound where ``hull_gaps`` has it): the closer of the last closest points and
    the probes, carried along, and a lower bound (``distance_is_estimate``, pending for a measurement once the
    objects stop); the others are left None."""
    for k in chosen:
        start = _start_of(warm[k])
        bounds = None if start is None else distance_bounds_after_translation(start, *pairs[k],
                                                                              known_lower=hull_gaps.get(k, 0.0))
        if bounds is not None:
            answers[k] = _bounded_answer(bounds, start.touch_tolerance)


def _bounded_answer(bounds: BoundedDistance, touch: float) -> SolidContact:
    """A separated mesh pair's answer from bounds on its distance: the upper one, between surface points."""
    return SolidContact(status=SEPARATED, signed_distance=bounds.upper, normal=(bounds.point_b - bounds.point_a) /
                        bounds.upper, point_a=bounds.point_a, point_b=bounds.point_b, method=MESH, tolerance=touch,
                        distance_lower_bound=bounds.lower, distance_is_estimate=True, volume_pending=True)


def renew_ahead(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: MutableSequence[PairStart | None],
                 deadline: float) -> None:
    """Renew, a step at a time in the time left before ``deadline``, the starts of the ``chosen`` separated mesh
    pairs (answered from their starts now) that the drag has ``spent`` more than ``RENEW_AHEAD`` of
    (``translated_distance.renewal_steps``): they go on answering meanwhile, so that a drag of a few pairs never
    outruns them (and never stops for a renewal). A renewal the drag outruns anyway goes on (``catch_up``)."""
    # (a start that keeps no triangle pairs, made at a fast pace, has nothing to renew ahead)
    due = [k for k in chosen
           if isinstance(warm[k], Renewal) or len(warm[k].gaps) and spent(warm[k], *pairs[k]) > RENEW_AHEAD]
    for k in due:  # each renewal begun only once there is time for it (its moved meshes cost a millisecond or two)
        if time.perf_counter() >= deadline:
            return
        if isinstance(warm[k], SeparationStart):
            steps = renewal_steps(warm[k], *pairs[k], pair_size(*pairs[k]))
            if steps is None:
                continue
            warm[k] = Renewal(warm[k], steps)
        done, start = run_until(warm[k].steps, deadline)
        if done:
            warm[k] = start if start is not None else warm[k].base


def finish_renewals(chosen: list[int], warm: MutableSequence[PairStart | None]) -> None:
    """Run the renewals in the ``chosen`` slots to their end (a caller with time for them): the renewed start, or
    the one renewed when the renewal found the pair within the touch band (its pair is then measured in full)."""
    for k in chosen:
        if isinstance(warm[k], Renewal):
            warm[k] = run_to_end(warm[k].steps) or warm[k].base
