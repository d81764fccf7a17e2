"""A separated mesh pair measured again after a pure translation, exactly, from its last full answer: only the kept
triangle pairs that can still be the closest are measured; starts are renewed a step at a time.
See docs/architecture.md, section "Dragging: separated pairs".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...steps import Steps, run_to_end
from ..bvh import BOUND_SLACK
from ..distance import MeshDistance, mesh_distance_steps, near_triangle_pair_steps
from ..solid import Solid
from .translated_contact import pair_translations
from ..triangle_distance import triangle_pair_distance

#: How far past the distance the kept triangle pairs reach, as a fraction of the pair's size: a start serves a
#: drag of up to about half that (B relative to A) before the pair is measured in full again.
HORIZON_FRACTION = 0.005
#: While the interface runs, a start is renewed ahead of time, a step at a time in what its updates have left, once
#: the drag has ``spent`` this much of it: the pair goes on being answered from it meanwhile.
RENEW_AHEAD = 0.6
#: Seconds a step of a renewal takes at most, about (10k-vertex objects): renewing ahead, none is started later than
#: that before an update's deadline, so that it never makes the update late.
RENEW_STEP_SECONDS = 0.003
#: Triangle pairs kept at most (those of the smallest gaps; the horizon shrinks to the first one left out):
#: about 3 MB per pair of objects.
MAX_KEPT_PAIRS = 16384


@dataclass(eq=False)
class SeparationStart:
    """What a separated mesh pair's full answer proved, with where both objects were (``Solid.placement``): the
    distance and closest points, the triangle pairs within ``horizon`` (corners (K, 3, 3) each) with their
    separating ``axes`` (K, 3) and ``gaps`` (K,), by increasing gap, a rounding margin for the bounds, the touch
    band and the overlap volume answered (0 or None); how many answers it has given since, and the last one's
    closest points with both objects where the start has them (``witness_a``, ``witness_b``: at first the start's
    own; surface points, so their distance with B moved bounds the next one, tightly while the drag goes on) and
    how far B had moved relative to A then (``witness_shift``); per kept pair once measured, a second separating
    axis and gap, along its closest points then (``measured_axes``, ``measured_gaps``; -inf before): far tighter
    than the first for a drag across the closest direction; and a pair of surface points found while the pair was
    dragged beyond what the start proves (``probe_a`` on A, ``probe_b`` on B, with both objects where the start has
    them; None until ``keep_probes``): carried along, their distance bounds the pair's above too."""

    placement_a: tuple
    placement_b: tuple
    distance: float
    point_a: np.ndarray
    point_b: np.ndarray
    corners_a: np.ndarray
    corners_b: np.ndarray
    axes: np.ndarray
    gaps: np.ndarray
    horizon: float
    margin: float
    touch_tolerance: float
    overlap_volume: float | None
    answered: int = 0
    witness_a: np.ndarray | None = None
    witness_b: np.ndarray | None = None
    witness_shift: np.ndarray | None = None
    measured_gaps: np.ndarray | None = None
    measured_axes: np.ndarray | None = None
    probe_a: np.ndarray | None = None
    probe_b: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.witness_a is None:
            self.witness_a, self.witness_b, self.witness_shift = self.point_a, self.point_b, np.zeros(3)
        if self.measured_gaps is None:
            self.measured_gaps, self.measured_axes = np.full(len(self.gaps), -np.inf), np.zeros((len(self.gaps), 3))


@dataclass(eq=False)
class Renewal:
    """A separated pair's start (``base``, answering meanwhile) being renewed a step at a time while the interface
    runs: the steps of the next one (``renewal_steps``), begun where the pair was then."""

    base: SeparationStart
    steps: Steps


def separation_start(a: Solid, b: Solid, found: MeshDistance, size: float, touch_tolerance: float,
                     overlap_volume: float | None, previous: SeparationStart | None = None) -> SeparationStart:
    """The start for a separated pair's next answers: its triangle pairs within the distance plus the reach
    (``_reach``; none for a first measurement or a drag too fast for a start to serve: the start then only tells
    where the pair was, and the next measurement looks at the pace)."""
    reach = 0.0 if previous is None else _reach(previous, drag_since(previous, a, b), size)
    return run_to_end(_start_at(a, b, found, reach, touch_tolerance, overlap_volume))


def start_after_translation(previous: SeparationStart, a: Solid, b: Solid, size: float, *,
                            at_rest: bool = False) -> SeparationStart | None:
    """A new start, with its exact distance and closest points, for a pair that moved beyond what ``previous`` keeps
    but only by a translation shorter than its distance: the surfaces stayed apart along the straight move, so
    neither object entered the other and only the distance is left to find, without looking for crossings.

    At a slow pace (``_reach``), after a move of at most the reach since the last answer, the distance is the least
    over the triangle pairs within the witnesses' distance ``U`` plus the reach, which the new start keeps (one
    tree search instead of two; ``U`` exceeds the distance by at most twice that move, so they stay few). Else the
    trees are searched for the closest pair within ``U`` (``mesh_distance(upper_bound=)``), then, at a slow pace,
    for the triangle pairs to keep. ``at_rest``: nothing moves now (the start is made for the next drag): triangle
    pairs are kept whatever the last pace. None when the pair turned, scaled or changed shape, moved as far as its
    distance, or came within the touch band (a full measurement decides)."""
    steps = renewal_steps(previous, a, b, size, at_rest=at_rest)
    return None if steps is None else run_to_end(steps)


def renewal_steps(previous: SeparationStart, a: Solid, b: Solid, size: float, *, at_rest: bool = False,
                  apart: bool = False) -> Steps[SeparationStart | None] | None:
    """``start_after_translation`` a step at a time (``core.steps``: a tree level or a few thousand triangle pairs
    per step), for the live update to spread over the time its updates have left; None at once when the pair turned,
    scaled or changed shape, or moved as far as its distance, unless it is known to be ``apart`` now with neither
    object inside the other (its convex hulls are apart)."""
    shifts = pair_translations(previous.placement_a, previous.placement_b, a, b)
    if shifts is None:
        return None
    relative = shifts[1] - shifts[0]
    drag = float(np.linalg.norm(relative))
    if not (drag < previous.distance or apart):
        return None
    reach = HORIZON_FRACTION * size if at_rest else _reach(previous, drag, size)
    near = float(np.linalg.norm(relative - previous.witness_shift)) <= reach
    return _renewal(previous, a, b, previous.witness_a + shifts[0], previous.witness_b + shifts[1], reach, near)


def _renewal(previous: SeparationStart, a: Solid, b: Solid, point_a: np.ndarray, point_b: np.ndarray,
             reach: float, near_witnesses: bool) -> Steps[SeparationStart | None]:
    """The steps of ``renewal_steps``: the witnesses now at ``point_a`` and ``point_b``, ``near_witnesses`` when
    the pair moved at most ``reach`` since they were found (the triangle pairs within their distance plus the reach
    then hold the closest one)."""
    upper = float(np.linalg.norm(point_b - point_a))  # surface points: the distance is at most this
    touch, volume = previous.touch_tolerance, previous.overlap_volume
    start = None
    if reach > 0.0 and near_witnesses:
        kept = yield from _kept_pair_steps(a, b, upper + reach)
        yield
        if kept["horizon"] >= upper:
            start = _closest_kept(SeparationStart(a.placement, b.placement, upper, point_a, point_b,
                                                  touch_tolerance=touch, overlap_volume=volume, **kept))
        else:  # too few kept pairs to hold the closest one: the trees searched, none kept
            reach = 0.0
    if start is None:
        found = yield from mesh_distance_steps(a.mesh, b.mesh, bvh_a=a.bvh, bvh_b=b.bvh, upper_bound=upper)
        start = yield from _start_at(a, b, found, reach, touch, volume)
    return start if start.distance > touch else None


def _start_at(a: Solid, b: Solid, found: MeshDistance, reach: float, touch_tolerance: float,
              overlap_volume: float | None) -> Steps[SeparationStart]:
    """The start where the pair is now, its distance ``found``: keeping the triangle pairs within the distance plus
    ``reach`` (none for 0), a step at a time."""
    if reach == 0.0:
        return _placement_only(a.placement, b.placement, found, touch_tolerance, overlap_volume)
    kept = yield from _kept_pair_steps(a, b, found.distance + reach)
    return SeparationStart(a.placement, b.placement, found.distance, found.point_a, found.point_b,
                           touch_tolerance=touch_tolerance, overlap_volume=overlap_volume, **kept)


def _closest_kept(start: SeparationStart) -> SeparationStart:
    """``start``, whose distance and points are surface points ``U`` apart and whose kept pairs hold every pair within
    ``U``, with its exact distance and closest points: the least over those pairs."""
    here = _MovedPair(np.zeros(3), np.zeros(3), start.distance, *_candidates(start, np.zeros(3), start.distance, 0.0))
    distance, on_a, on_b = _closest_candidates([start], [here])
    if distance[0] < start.distance:
        start.distance, start.point_a, start.point_b = float(distance[0]), on_a[0], on_b[0]
        start.witness_a, start.witness_b = start.point_a, start.point_b
    return start


def _reach(previous: SeparationStart, drag: float, size: float) -> float:
    """How far past the distance a new start keeps triangle pairs: ``HORIZON_FRACTION`` of the pair's ``size`` once
    the pair is seen moving slowly (its ``previous`` start answered, or B has moved less than half that since it);
    0 for a drag too fast for a start to serve."""
    reach = HORIZON_FRACTION * size
    return 0.0 if previous.answered == 0 and drag > 0.5 * reach else reach


def _kept_pair_steps(a: Solid, b: Solid, horizon: float) -> Steps[dict]:
    """The triangle pairs a start keeps, as its fields of those names: those within ``horizon``, by increasing gap,
    at most ``MAX_KEPT_PAIRS`` (of the smallest gaps: the horizon shrinks to the first one left out); a step at
    a time."""
    near = yield from near_triangle_pair_steps(a.bvh, b.bvh, horizon, MAX_KEPT_PAIRS + 1)
    kept = slice(None, MAX_KEPT_PAIRS)
    horizon = near.horizon
    if len(near.gaps) > MAX_KEPT_PAIRS:  # those left out are at least their gaps apart
        horizon = min(horizon, float(near.gaps[MAX_KEPT_PAIRS]) - near.margin)
    return {"corners_a": near.corners_a[kept], "corners_b": near.corners_b[kept], "axes": near.axes[kept],
            "gaps": near.gaps[kept], "horizon": horizon, "margin": near.margin}


def _placement_only(placement_a: tuple, placement_b: tuple, found: MeshDistance, touch_tolerance: float,
                    overlap_volume: float | None) -> SeparationStart:
    """A start that keeps no triangle pairs: where the pair was and its answer (it still answers a move straight
    toward the other object, and tells the next full measurement how far the pair has moved since)."""
    return SeparationStart(placement_a, placement_b, found.distance, found.point_a, found.point_b, np.zeros((0, 3, 3)),
                           np.zeros((0, 3, 3)), np.zeros((0, 3)), np.zeros(0), found.distance, 0.0, touch_tolerance,
                           overlap_volume)


def without_pairs(start: SeparationStart) -> SeparationStart:
    """``start`` without its triangle pairs (and its count of answers): what to keep of it once the pair stops
    moving, so that pairs dragged earlier do not hold memory; the next slow move keeps them again."""
    found = MeshDistance(start.distance, start.point_a, start.point_b, -1, -1)
    return _placement_only(start.placement_a, start.placement_b, found, start.touch_tolerance, start.overlap_volume)


def spent(start: SeparationStart, a: Solid, b: Solid) -> float:
    """How much of what ``start`` proves the drag has used since (``upper + drag`` must stay within the horizon): 0
    where it was made, 1 once it proves nothing more (inf when either object has turned, scaled or changed shape)."""
    moved = _moved_since(start, a, b)
    if moved is None:
        return np.inf
    return (moved.upper + moved.drag - start.distance) / max(start.horizon - start.distance, np.finfo(float).tiny)


def drag_since(start: SeparationStart, a: Solid, b: Solid) -> float:
    """How far B has moved relative to A since ``start`` (inf when either has turned, scaled or changed shape)."""
    moved = _moved_since(start, a, b)
    return np.inf if moved is None else moved.drag


class _Move(NamedTuple):
    """How a pair moved since its start: A's shift, B's relative to A and its length, and the witnesses' distance
    with B moved so (an upper bound on the pair's distance)."""

    shift_a: np.ndarray
    relative: np.ndarray
    drag: float
    upper: float


def _moved_since(start: SeparationStart, a: Solid, b: Solid) -> _Move | None:
    """How the pair moved since ``start``; None when either object has turned, scaled or changed shape."""
    shifts = pair_translations(start.placement_a, start.placement_b, a, b)
    if shifts is None:
        return None
    relative = shifts[1] - shifts[0]
    return _Move(shifts[0], relative, float(np.linalg.norm(relative)),
                 float(np.linalg.norm(start.witness_b - start.witness_a + relative)))


class BoundedDistance(NamedTuple):
    """A separated pair's distance after a translation, bounded from its last exact answer without a search: at most
    ``upper``, the distance of that answer's closest points carried along (``point_a`` on A, ``point_b`` on B, world
    space), and at least ``lower``."""

    upper: float
    lower: float
    point_a: np.ndarray
    point_b: np.ndarray


def distance_bounds_after_translation(start: SeparationStart, a: Solid, b: Solid, known_lower: float = 0.0
                                      ) -> BoundedDistance | None:
    """Bounds on the pair's distance now from ``start``'s last exact answer (its witnesses): the closest points then,
    carried along, are surface points ``upper`` apart, and a translation changes the distance by no more than its
    length, so it is at least the last distance less how far B has moved relative to A since (less rounding), or
    ``known_lower`` (a lower bound found otherwise, such as the convex hulls' distance) when that is more; its probes
    carried along (``keep_probes``) bound it above too, when closer than the witnesses. None when
    either object has turned, scaled or changed shape since, or the lower bound does not stay above the touch band
    (the pair may touch or overlap now: only a measurement can tell)."""
    moved = _moved_since(start, a, b)
    if moved is None:
        return None
    last_gap = start.witness_b + start.witness_shift - start.witness_a
    point_a, point_b = _carried(start.witness_a, start.witness_b, moved.shift_a, moved.shift_a + moved.relative)
    upper = moved.upper
    if start.probe_a is not None:
        probe_a, probe_b = _carried(start.probe_a, start.probe_b, moved.shift_a, moved.shift_a + moved.relative)
        probed = float(np.linalg.norm(probe_b - probe_a))
        if probed < upper:
            point_a, point_b, upper = probe_a, probe_b, probed
    rounding = 1e-13 * float(np.abs(point_a).max() + np.abs(point_b).max() + np.abs(last_gap).max())
    lower = max(float(np.linalg.norm(last_gap)) - float(np.linalg.norm(moved.relative - start.witness_shift)) -
                start.margin - rounding, min(known_lower, upper))
    if not lower > start.touch_tolerance:
        return None
    return BoundedDistance(upper, lower, point_a, point_b)


def keep_probes(start: SeparationStart, a: Solid, b: Solid, point_a: np.ndarray, point_b: np.ndarray) -> None:
    """Keep ``point_a`` (on A's surface) and ``point_b`` (on B's), with the objects where they are now, as
    ``start``'s probes when they are closer than its probes carried along (nothing when either object has turned,
    scaled or changed shape since the start)."""
    shifts = pair_translations(start.placement_a, start.placement_b, a, b)
    if shifts is None:
        return
    if start.probe_a is not None:
        kept_a, kept_b = _carried(start.probe_a, start.probe_b, *shifts)
        if float(np.linalg.norm(kept_b - kept_a)) <= float(np.linalg.norm(point_b - point_a)):
            return
    start.probe_a, start.probe_b = _carried(point_a, point_b, -shifts[0], -shifts[1])


def _carried(point_a: np.ndarray, point_b: np.ndarray, shift_a: np.ndarray, shift_b: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Points of A and of B with each object moved by its shift (still on its surface)."""
    return point_a + shift_a, point_b + shift_b


def distances_after_translation(starts: Sequence[SeparationStart], pairs: Sequence[tuple[Solid, Solid]]
                                ) -> list[MeshDistance | None]:
    """Each pair's exact surface distance and closest points now, from its start (see the module docstring),
    the candidate triangle pairs of all of them measured together; None for a pair when A or B has turned,
    scaled or changed shape since, moved beyond what its start proves, or the surfaces are now within the
    touch band. (``triangle_a``, ``triangle_b`` are -1: not kept.) Each start that answers counts it."""
    found: list[MeshDistance | None] = [None] * len(pairs)
    moved = [(k, _moved_pair(start, a, b)) for k, (start, (a, b)) in enumerate(zip(starts, pairs))]
    moved = [(k, pair) for k, pair in moved if pair is not None]
    distance, point_a, point_b = _closest_candidates([starts[k] for k, _ in moved], [pair for _, pair in moved])
    for (k, pair), gap, on_a, on_b in zip(moved, distance.tolist(), point_a, point_b):
        start = starts[k]
        if not gap < pair.upper:  # the moved closest points are still closest
            gap, on_a, on_b = pair.upper, start.witness_a, start.witness_b + pair.relative
        if gap > start.touch_tolerance:
            found[k] = MeshDistance(gap, on_a + pair.shift_a, on_b + pair.shift_a, -1, -1)
            start.answered += 1
            start.witness_a, start.witness_b, start.witness_shift = on_a, on_b - pair.relative, pair.relative
    return found


def _closest_candidates(starts: list[SeparationStart], moved: list[_MovedPair]):
    """Per moved pair, the least distance over its candidate triangle pairs (inf for none) and its closest points,
    with B where it is now relative to A; the candidates certainly apart (a separating axis) are measured without
    looking for crossings."""
    groups = np.repeat(np.arange(len(moved)), [len(pair.candidates) for pair in moved])
    tri_a = np.concatenate([start.corners_a[pair.candidates] for start, pair in zip(starts, moved)]
                           or [np.zeros((0, 3, 3))])
    tri_b = np.concatenate([start.corners_b[pair.candidates] + pair.relative for start, pair in zip(starts, moved)]
                           or [np.zeros((0, 3, 3))])
    apart = np.concatenate([pair.separated for pair in moved] or [np.zeros(0, dtype=bool)])
    distance, point_a, point_b = np.empty(len(groups)), np.empty((len(groups), 3)), np.empty((len(groups), 3))
    for rows, known_apart in ((apart, True), (~apart, False)):
        if rows.any():
            distance[rows], point_a[rows], point_b[rows] = triangle_pair_distance(tri_a[rows], tri_b[rows],
                                                                                  apart=known_apart)
    _remember_axes(starts, moved, distance, point_a, point_b)
    order = np.lexsort((distance, groups))
    first = order[np.r_[True, groups[order][1:] != groups[order][:-1]]] if len(order) else order
    best_distance, best_a, best_b = np.full(len(moved), np.inf), np.zeros((len(moved), 3)), np.zeros((len(moved), 3))
    best_distance[groups[first]], best_a[groups[first]], best_b[groups[first]] = (distance[first], point_a[first],
                                                                                  point_b[first])
    return best_distance, best_a, best_b


def _remember_axes(starts: list[SeparationStart], moved: list[_MovedPair], distance: np.ndarray, point_a: np.ndarray,
                   point_b: np.ndarray) -> None:
    """Keep each measured candidate's closest direction ``u`` as its measured axis: the triangles' projections on
    it are their distance apart (closest points of convex sets), so with B moved by ``t`` instead of ``d`` they are
    at least ``distance + u . (t - d)`` apart (less the rounding margin)."""
    ends = np.cumsum([len(pair.candidates) for pair in moved]).tolist()
    for start, pair, end in zip(starts, moved, ends):
        rows = slice(end - len(pair.candidates), end)
        apart = distance[rows] > start.margin
        gap = point_b[rows][apart] - point_a[rows][apart]
        axes = gap / distance[rows][apart][:, None]
        chosen = pair.candidates[apart]
        start.measured_axes[chosen] = axes
        start.measured_gaps[chosen] = distance[rows][apart] - axes @ pair.relative - start.margin


class _MovedPair(NamedTuple):
    """A pair moved within what its start proves: A's shift, B's relative to A, the distance's upper bound and
    the kept triangle pairs (rows) that may still be closer, and which of those are certainly apart (their
    projections on their axes are)."""

    shift_a: np.ndarray
    relative: np.ndarray
    upper: float
    candidates: np.ndarray
    separated: np.ndarray


def _moved_pair(start: SeparationStart, a: Solid, b: Solid) -> _MovedPair | None:
    """How the pair moved since ``start``, and its candidates; None when the start no longer proves the answer."""
    moved = _moved_since(start, a, b)
    if moved is None or not (moved.drag < start.distance and moved.upper + moved.drag <= start.horizon):
        return None
    return _MovedPair(moved.shift_a, moved.relative, moved.upper,
                      *_candidates(start, moved.relative, moved.upper, moved.drag))


def _candidates(start: SeparationStart, relative: np.ndarray, upper: float, drag: float) -> tuple:
    """The kept triangle pairs (rows) whose lower bounds, with B moved by ``relative`` (of length ``drag``) from
    where the start has it, do not exceed ``upper``, and which of those are certainly apart."""
    limit = upper * (1.0 + BOUND_SLACK) + start.margin
    reachable = int(np.searchsorted(start.gaps, limit + drag, side="right"))  # a bound falls by at most the drag
    lower = start.gaps[:reachable] + start.axes[:reachable] @ relative
    candidates = np.flatnonzero(lower <= limit)
    measured = start.measured_gaps[candidates] + start.measured_axes[candidates] @ relative  # tighter, once measured
    keep = measured <= limit
    return candidates[keep], np.maximum(lower[candidates[keep]], measured[keep]) > start.margin
