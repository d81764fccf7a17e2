"""A penetrating mesh pair answered again after a pure translation, from what its last full answer proved: a
push-out carried along bounds the depth from above, a ball inside both objects from below.
See docs/architecture.md, section "Dragging: penetrating pairs".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..solid import Solid


@dataclass(frozen=True)
class TranslationStart:
    """What a penetrating mesh pair's full answer proved, with where both objects were (``Solid.placement``):
    the checked push-out of B (3,), a ball inside both (centre (3,), radius), the answer's ``point_b``, and its
    touch band and solver tolerance."""

    placement_a: tuple
    placement_b: tuple
    pushout: np.ndarray
    ball_centre: np.ndarray
    ball_radius: float
    point_b: np.ndarray
    touch_tolerance: float
    tolerance: float

    @property
    def lower(self) -> float:
        """The depth proven where the start was made: the ball's diameter."""
        return 2.0 * self.ball_radius


@dataclass(frozen=True)
class ProvenDepth:
    """What an exact answer of an overlapping convex pair proved, with where both objects were
    (``Solid.placement``): the push-out of B (``depth * normal``, checked), the depth's certain ``lower`` bound, the
    answer's ``point_b``, and its touch band and solver tolerance. A depth changes by no more than the relative move:
    after a translation ``d`` it is at least ``lower - |d|``, and ``p - d`` is still a push-out (see the module
    docstring), so ``depth_after_translation`` answers from it as from a ``TranslationStart``."""

    placement_a: tuple
    placement_b: tuple
    pushout: np.ndarray
    lower: float
    point_b: np.ndarray
    touch_tolerance: float
    tolerance: float


def translation_start(a: Solid, b: Solid, point_b: np.ndarray, pushout: np.ndarray,
                      ball: tuple[np.ndarray, float] | None, touch_tolerance: float,
                      tolerance: float) -> TranslationStart | None:
    """The start for the pair's next answers; None without a ball inside both (nothing certain to go on)."""
    if ball is None:
        return None
    return TranslationStart(a.placement, b.placement, np.asarray(pushout, dtype=np.float64), ball[0], ball[1],
                            np.asarray(point_b, dtype=np.float64), touch_tolerance, tolerance)


class TranslatedDepth(NamedTuple):
    """The depth bounds after the move: the push-out's length ``depth`` along the unit ``normal``, the proven
    ``lower`` bound, and ``point_b`` (the last answer's, moved with B)."""

    depth: float
    normal: np.ndarray
    lower: float
    point_b: np.ndarray


def depth_after_translation(start: TranslationStart | ProvenDepth, a: Solid, b: Solid) -> TranslatedDepth | None:
    """The pair's depth from ``start`` (see the module docstring); None when A or B has turned, scaled or
    changed shape since, or moved so far that the pair is no longer certainly penetrating."""
    shifts = pair_translations(start.placement_a, start.placement_b, a, b)
    if shifts is None:
        return None
    shift_a, shift_b = shifts
    relative = shift_b - shift_a
    lower = start.lower - float(np.linalg.norm(relative))
    pushout = start.pushout - relative
    length = float(np.linalg.norm(pushout))
    if not lower > start.touch_tolerance or length == 0.0:
        return None
    return TranslatedDepth(max(length, lower), pushout / length, lower, start.point_b + shift_b)


def pair_translations(start_a: tuple, start_b: tuple, a: Solid, b: Solid) -> tuple[np.ndarray, np.ndarray] | None:
    """How far A and B moved since the placements ``start_a``, ``start_b`` (``Solid.placement``): (3,) each; None
    unless both only moved (the same prepared source, the same linear part)."""
    shift_a, shift_b = _translation(start_a, a.placement), _translation(start_b, b.placement)
    return None if shift_a is None or shift_b is None else (shift_a, shift_b)


def _translation(before: tuple, after: tuple) -> np.ndarray | None:
    """How far an object moved between two placements ``(source, 4x4 matrix)`` of the same prepared source with
    the same linear part (3,); None for another source or any other change."""
    (source, matrix), (source_now, matrix_now) = before, after
    if source is not source_now or not np.array_equal(matrix[:3, :3], matrix_now[:3, :3]):
        return None
    return matrix_now[:3, 3] - matrix[:3, 3]


def renewed_start(start: TranslationStart, a: Solid, b: Solid, ball: tuple[np.ndarray, float],
                  hull_pushout: np.ndarray | None) -> TranslationStart | None:
    """A start where the translated pair is now, from ``start``'s push-out carried along (see the module docstring)
    or ``hull_pushout`` (a move of B that separates the convex hulls), whichever is shorter, and ``ball`` (a ball
    found inside both objects now); None when A or B has turned, scaled or changed shape since."""
    shifts = pair_translations(start.placement_a, start.placement_b, a, b)
    if shifts is None:
        return None
    pushout = start.pushout - (shifts[1] - shifts[0])
    if hull_pushout is not None and np.linalg.norm(hull_pushout) < np.linalg.norm(pushout):
        pushout = hull_pushout
    return TranslationStart(a.placement, b.placement, pushout, ball[0], ball[1], start.point_b + shifts[1],
                            start.touch_tolerance, start.tolerance)
