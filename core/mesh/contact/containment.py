"""Whether two solids share interior: surfaces crossing or sharing faces, or one inside the other (exact
winding numbers on sampled vertices); also for a batch of translations of one of them at once
(``shares_interior_after``, what a push-out's search asks)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...broadphase.sort_and_sweep import overlapping_pairs_between
from ...vector.arrays import cross, dot
from ..distance import nearest_on_surface
from ..intersection import FLAT_PAIRS, RELATIVE_TOLERANCE, default_tolerance, surfaces_overlap
from ..inside import crossing_windings
from ..solid import Solid
from ..trimesh import TriangleMesh
from ..triangle_intersection import (apart_on_common_line, coplanar_heights, coplanar_overlap_areas, pair_crossings,
                                     pair_heights, proper_mask, straddling)

#: Vertices sampled per object for the containment test (winding numbers).
CONTAINMENT_SAMPLES = 16
#: Pairs of meshes with at most this many triangle pairs have a push-out's batches of offsets answered in one pass
#: (``shares_interior_after``; 8 tori against 2,000-triangle blobs: 0.6-0.7 s where offset by offset took 1.0-1.2 s);
#: larger ones, sculpts, offset by offset down their trees, the smaller object moved (``share_interior_moved``).
BATCHED_TRIANGLE_PAIRS = 1 << 22
#: ``shares_interior_after`` tests every offset's candidates in one pass while there are at most this many (triangle
#: pair, offset) candidates; beyond, the offsets are tested one at a time (``share_interior_moved``, down the trees).
BATCH_CANDIDATES = 200_000


def boxes_apart(a: Solid, b: Solid) -> bool:
    """The objects' boxes are further apart than ``surface_intersection``'s tolerance: no two triangles can
    cross or touch there, and no vertex of one can lie inside the other."""
    (low_a, high_a), (low_b, high_b) = a.bounds, b.bounds
    gap = float(np.maximum(low_b - high_a, low_a - high_b).max())
    return gap > default_tolerance(a.mesh, b.mesh, None)


def share_interior(a: Solid, b: Solid, crossing=None) -> bool:
    """The objects share interior: surfaces cross, coplanar faces overlap with both solids on the same side,
    or one object lies inside the other. Surfaces that only touch are not overlapping."""
    if crossing is None:
        shared = surfaces_overlap(a.mesh, b.mesh, trees=(a.bvh, b.bvh))
    else:
        shared = crossing.shares_interior
    return shared or _contained(a, b)


def share_interior_moved(a: Solid, b: Solid, offset: np.ndarray) -> bool:
    """``share_interior`` of A and B moved by ``offset``, the smaller object moved (A by -offset when it has fewer
    triangles): a moved copy's triangles, boxes and tree are computed again, which for a sculpt of a million
    triangles costs about half a second per test."""
    return share_interior(*_moved_pair(a, b, offset))


def _moved_pair(a: Solid, b: Solid, offset: np.ndarray) -> tuple[Solid, Solid]:
    if len(a.mesh.triangles) < len(b.mesh.triangles):
        return a.translated(-offset), b
    return a, b.translated(offset)


def shares_interior_after(a: Solid, b: Solid, offsets: np.ndarray) -> np.ndarray:
    """``[share_interior_moved(a, b, offset) for offset in offsets]`` ((K, 3) offsets), the same answers, with the
    triangle pairs of every offset tested in one pass when there are few enough (``BATCH_CANDIDATES``).

    Each offset's candidate pairs are those ``intersection.candidate_pairs`` keeps without trees (boxes within the
    tolerance; the trees only drop pairs that can neither cross nor share faces), found among the pairs whose boxes
    meet the moved object's boxes swept over all the offsets; its moved corners and normals are computed as its
    moved mesh's are, so every pair's exact test sees the same numbers. Containment is asked, offset by offset, only
    where the surfaces do not overlap and one moved box may lie within the other."""
    return shares_interior_after_many([(a, b, offsets)])[0]


def shares_interior_after_many(requests: list[tuple[Solid, Solid, np.ndarray]]) -> list[np.ndarray]:
    """``shares_interior_after`` of several pairs (``(a, b, offsets)`` each), their triangle pairs tested together in
    one pass: the batches of many pairs' push-out searches cost about what one does."""
    answers, batches = [], []
    for index, (a, b, offsets) in enumerate(requests):
        offsets = np.asarray(offsets, dtype=np.float64).reshape(-1, 3)
        answers.append(np.zeros(len(offsets), dtype=bool))
        batch = _OffsetPairs.of(a, b, offsets)
        if batch is None:
            answers[index][:] = [share_interior_moved(a, b, offset) for offset in offsets]
        else:
            batches.append((index, batch))
    if batches:
        first = np.cumsum([0] + [len(batch.tolerance) for _index, batch in batches])
        shared = _shared_offsets(_OffsetPairs.joined([batch for _index, batch in batches], first[:-1]), first[-1])
        for (index, _batch), low, high in zip(batches, first[:-1], first[1:]):
            answers[index][:] = shared[low:high]
    for (a, b, offsets), shared in zip(requests, answers):
        offsets = np.asarray(offsets, dtype=np.float64).reshape(-1, 3)
        for index in np.flatnonzero(~shared & _may_nest(a, b, offsets)):
            shared[index] = _contained(*_moved_pair(a, b, offsets[index]))
    return answers


class _OffsetPairs(NamedTuple):
    """The triangle pairs of a batch of offsets of B, as ``shares_interior_after`` tests them: corners, area normals
    and vertex ids of A's and of B's moved triangles, the offset each row belongs to (``offset``), and per offset the
    tolerance and the size it is relative to."""

    corners_a: np.ndarray
    normals_a: np.ndarray
    ids_a: np.ndarray
    corners_b: np.ndarray
    normals_b: np.ndarray
    ids_b: np.ndarray
    offset: np.ndarray
    tolerance: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, a: Solid, b: Solid, offsets: np.ndarray) -> _OffsetPairs | None:
        """The pairs of ``offsets`` (K, 3), each offset's kept by the box test of ``intersection.candidate_pairs``,
        the smaller object moved as ``share_interior_moved`` moves it; None when there are too many
        (``BATCH_CANDIDATES``)."""
        move_a = len(a.mesh.triangles) < len(b.mesh.triangles)
        still, moving = (b.mesh, a.mesh) if move_a else (a.mesh, b.mesh)
        shifts = -offsets if move_a else offsets
        low, high = moving.vertices.min(axis=0), moving.vertices.max(axis=0)
        sizes = np.maximum(still.size, ((high + shifts) - (low + shifts)).max(axis=1))
        tolerance = RELATIVE_TOLERANCE * sizes
        candidates = _swept_candidates(still, moving, shifts, float(tolerance.max()))
        if candidates is None:
            return None
        i, j = candidates
        lows, highs = moving.lows[j][:, None] + shifts, moving.highs[j][:, None] + shifts
        margin = tolerance[:, None]
        near = ((still.lows[i][:, None] - margin <= highs + margin)
                & (lows - margin <= still.highs[i][:, None] + margin)).all(axis=2)
        rows, k = np.nonzero(near)
        i, j = i[rows], j[rows]
        corners = moving.corners[j] + shifts[k][:, None]
        moved = (corners, cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]), moving.triangles[j])
        kept = (still.corners[i], still.area_normals[i], still.triangles[i])
        first, second = (moved, kept) if move_a else (kept, moved)
        return cls(*first, *second, k, tolerance, sizes)

    @classmethod
    def joined(cls, batches: list[_OffsetPairs], first_offsets: np.ndarray) -> _OffsetPairs:
        """Several batches as one, their offsets numbered on from ``first_offsets`` (one per batch)."""
        columns = [np.concatenate(column) for column in zip(*batches)]
        columns[6] = np.concatenate([batch.offset + first for batch, first in zip(batches, first_offsets)])
        return cls(*columns)


def _shared_offsets(pairs: _OffsetPairs, count: int) -> np.ndarray:
    """Which of the ``count`` offsets some triangle pair of theirs makes share interior: crossing for real, or faces
    in one plane overlapping with both solids on the same side (containment aside)."""
    # Only pairs straddling each other's planes can cross for real, only pairs in one plane can share faces: the
    # crossing test runs on the first alone (less those whose crossings of each other's planes are clearly apart),
    # the overlap of faces on the second.
    corners_a, normals_a, corners_b, normals_b, k = (pairs.corners_a, pairs.normals_a, pairs.corners_b,
                                                     pairs.normals_b, pairs.offset)
    heights, tolerance = pair_heights(corners_a, normals_a, corners_b, normals_b), pairs.tolerance[k]
    shared = np.zeros(count, dtype=bool)
    crossing = np.flatnonzero(straddling(*heights, tolerance))
    apart = apart_on_common_line(corners_a[crossing], normals_a[crossing], heights[0][crossing], corners_b[crossing],
                                 normals_b[crossing], heights[1][crossing], tolerance[crossing],
                                 pairs.sizes[k[crossing]])
    crossing = crossing[~apart]
    if len(crossing):
        found = pair_crossings(corners_a[crossing], pairs.ids_a[crossing], normals_a[crossing], corners_b[crossing],
                               pairs.ids_b[crossing], normals_b[crossing])
        shared[k[crossing[proper_mask(found, *found.segments(), tolerance[crossing])]]] = True
    flat = np.flatnonzero(coplanar_heights(*heights, tolerance) & ~shared[k])
    if len(flat):
        area, _centroid = coplanar_overlap_areas(corners_a[flat], corners_b[flat], normals_a[flat])
        facing = dot(normals_a[flat], normals_b[flat])
        shared[k[flat[(area > tolerance[flat] * pairs.sizes[k[flat]]) & (facing > 0.0)]]] = True
    return shared


def _swept_candidates(still: TriangleMesh, moving: TriangleMesh, shifts: np.ndarray, reach: float
                      ) -> tuple[np.ndarray, np.ndarray] | None:
    """Triangle pairs (of ``still``, of ``moving``) whose boxes, widened by ``reach``, meet the moving boxes swept over
    ``shifts`` (every pair any shift's test can need), sorted: only the triangles whose boxes meet the other side's
    whole box take part (no other can), all their pairs screened at once when they are few (``FLAT_PAIRS``), else by a
    sort and sweep; None when those times the shifts exceed ``BATCH_CANDIDATES``."""
    swept_lows, swept_highs = moving.lows + shifts.min(axis=0), moving.highs + shifts.max(axis=0)
    near_still = _meeting(still.lows, still.highs, swept_lows.min(axis=0), swept_highs.max(axis=0), reach)
    near_moving = _meeting(swept_lows, swept_highs, still.lows.min(axis=0), still.highs.max(axis=0), reach)
    if len(near_still) * len(near_moving) <= FLAT_PAIRS:
        i, j = np.nonzero(((still.lows[near_still, None] - reach <= swept_highs[near_moving] + reach)
                           & (swept_lows[near_moving] - reach <= still.highs[near_still, None] + reach)).all(axis=2))
        i, j = near_still[i], near_moving[j]
    else:
        i, j = overlapping_pairs_between(still.lows, still.highs, swept_lows, swept_highs, margin=reach).T
    return (i, j) if len(i) * len(shifts) <= BATCH_CANDIDATES else None


def _meeting(lows: np.ndarray, highs: np.ndarray, low: np.ndarray, high: np.ndarray, reach: float) -> np.ndarray:
    """Indices of the boxes that meet the box [``low``, ``high``] once both are widened by ``reach`` (compared as the
    pair screen compares two boxes, so a box failing here fails against every box inside that one)."""
    return np.flatnonzero(((lows - reach <= high + reach) & (low - reach <= highs + reach)).all(axis=1))


def _may_nest(a: Solid, b: Solid, offsets: np.ndarray) -> np.ndarray:
    """Offsets after which one object's box may lie within the other's (with room for the containment test's
    margin and rounding): only there can ``_contained`` find anything."""
    (low_a, high_a), low_b, high_b = a.bounds, b.mesh.vertices.min(axis=0), b.mesh.vertices.max(axis=0)
    room = 2.0 * default_tolerance(a.mesh, b.mesh, None) + 1e-12 * np.abs(offsets).max(axis=1, keepdims=True)
    moved_low, moved_high = low_b + offsets, high_b + offsets
    a_in_b = ((low_a >= moved_low - room) & (high_a <= moved_high + room)).all(axis=1)
    b_in_a = ((moved_low >= low_a - room) & (moved_high <= high_a + room)).all(axis=1)
    return a_in_b | b_in_a


def indices_in_box(vertices: np.ndarray, box: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Indices of the vertices inside ``box`` (only those can be inside the object it bounds)."""
    low, high = box
    return np.flatnonzero(((vertices >= low) & (vertices <= high)).all(axis=1))


def strided_sample(indices: np.ndarray, count: int) -> np.ndarray:
    """Up to ``count`` evenly strided entries of ``indices``."""
    return indices[:: max(1, len(indices) // count)][:count]


def points_inside(outer: Solid, points: np.ndarray) -> np.ndarray:
    """Which points ``outer`` (a closed object) winds around (``rays.crossing_windings``, exact; a point on its
    surface as the perturbation moves it)."""
    return crossing_windings(outer.mesh, points, bvh=outer.bvh) > 0


def _strictly_inside(outer: Solid, points: np.ndarray) -> np.ndarray:
    """Which points lie inside ``outer`` (a closed object) and off its surface."""
    inside = points_inside(outer, points)
    if inside.any():
        inside[inside] = nearest_on_surface(outer.mesh, points[inside], bvh=outer.bvh)[0] > 0.0
    return inside


def _contained(a: Solid, b: Solid) -> bool:
    """Some vertex of one object lies strictly inside the other (closed objects only), asked when the surfaces
    do not cross: then one object is wholly inside the other or neither is, so only an object whose box lies
    within the other's (to the crossing search's tolerance) is looked at."""
    margin = default_tolerance(a.mesh, b.mesh, None)
    for inner, outer in ((a, b), (b, a)):
        (low_in, high_in), (low_out, high_out) = inner.bounds, outer.bounds
        if outer.closed and (low_in >= low_out - margin).all() and (high_in <= high_out + margin).all():
            picked = strided_sample(indices_in_box(inner.mesh.vertices, outer.bounds), CONTAINMENT_SAMPLES)
            if _strictly_inside(outer, inner.mesh.vertices[picked]).any():
                return True
    return False
