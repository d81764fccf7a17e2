"""``mesh_distances`` and ``nearest_distances``: ``distance.mesh_distance`` and ``distance.nearest_on_surface``'s
distances for many small meshes at once, without trees: every pairing's rows stacked (``stacked``), screened by
their boxes against an exact upper bound, then by separating axes, measured exactly and reduced per pair or point.
The arithmetic of each measured row is the trees' (element-wise), so every distance is the same number; of tied
closest triangle pairs the one with the smallest indices is kept, as ``mesh_distance`` keeps it (apart surfaces).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .bvh import BOUND_SLACK, box_distance_sq, point_box_distance_sq
from .distance import MeshDistance, mesh_distance
from .stacked import StackedMeshes, pairings, segment_firsts
from .triangle_distance import point_triangle_closest, separation_lower_bound, triangle_pair_distance
from .trimesh import TriangleMesh

#: Rows (triangle pairs, or point–triangle pairs) of one stacked pass at most: bounds the memory (some 100 bytes a
#: row), while the numpy calls of a pass are shared by thousands of small meshes.
BLOCK_ROWS = 1 << 19
#: Mesh pairs with more triangle pairs than this are measured down their trees (``mesh_distance``).
STACKED_TRIANGLE_PAIRS = 1 << 16
#: Relative rounding of the triangles' projections and boxes (``distance``'s rounding margin).
ROUNDING = 1e-13


def mesh_distances(pairs: Sequence[tuple[TriangleMesh, TriangleMesh]],
                   upper_bounds: Sequence[float | None] | None = None) -> list[MeshDistance]:
    """``mesh_distance(a, b, upper_bound=u)`` of every pair ``(a, b)`` with its upper bound (only a hint that prunes
    the search, as there); pairs of small meshes are measured together in stacked passes, others down their trees."""
    hints = np.array([np.inf if upper_bounds is None or upper_bounds[k] is None else float(upper_bounds[k])
                      for k in range(len(pairs))])
    sizes = [len(a.triangles) * len(b.triangles) for a, b in pairs]
    answers: list = [None] * len(pairs)
    small = [k for k, size in enumerate(sizes) if 0 < size <= STACKED_TRIANGLE_PAIRS]
    for block in _blocks(small, [sizes[k] for k in small]):
        found = _stacked_distances([pairs[k] for k in block], hints[block])
        for k, distance in zip(block, found):
            answers[k] = distance
    for k, answer in enumerate(answers):
        if answer is None:
            answers[k] = mesh_distance(*pairs[k], upper_bound=None if np.isinf(hints[k]) else hints[k])
    return answers


def _blocks(items: list[int], sizes: list[int]) -> list[list[int]]:
    """``items`` in runs whose sizes add up to at most ``BLOCK_ROWS`` (a larger item alone)."""
    blocks, current, total = [], [], 0
    for item, size in zip(items, sizes):
        if current and total + size > BLOCK_ROWS:
            blocks.append(current)
            current, total = [], 0
        current.append(item)
        total += size
    return blocks + [current] if current else blocks


def _stacked_distances(pairs: list[tuple[TriangleMesh, TriangleMesh]], hints: np.ndarray) -> list[MeshDistance]:
    """The closest triangle pair of every pair, all pairs' triangle pairs in one pass."""
    side_a, side_b = StackedMeshes([a for a, _b in pairs]), StackedMeshes([b for _a, b in pairs])
    owner, i, j, _starts = pairings(side_a.counts, side_b.counts)
    rows_a, rows_b = side_a.first[owner] + i, side_b.first[owner] + j
    gap_sq = box_distance_sq(side_a.lows[rows_a], side_a.highs[rows_a], side_b.lows[rows_b], side_b.highs[rows_b])
    margin = ROUNDING * np.maximum(side_a.scales, side_b.scales)
    # An upper bound per pair: the exact distance of its triangle pair with the closest boxes.
    first = segment_firsts(gap_sq, owner, len(pairs))
    upper, _point_a, _point_b = triangle_pair_distance(side_a.corners[rows_a[first]], side_b.corners[rows_b[first]])
    bound = np.minimum(upper, hints)
    found = _closest_within(side_a, side_b, owner, rows_a, rows_b, gap_sq, margin, bound)
    distance = found[0]
    redo = np.flatnonzero(~(distance <= bound))  # nothing within the hint: every pair within the exact bound
    if len(redo):
        bound[redo] = upper[redo]
        again = np.isin(owner, redo)
        refound = _closest_within(side_a, side_b, owner[again], rows_a[again], rows_b[again], gap_sq[again],
                                  margin, bound)
        for column, values in zip(found, refound):
            column[redo] = values[redo]
    distance, point_a, point_b, row_a, row_b = found
    return [MeshDistance(float(distance[k]), point_a[k].copy(), point_b[k].copy(),
                         int(row_a[k] - side_a.first[k]), int(row_b[k] - side_b.first[k])) for k in range(len(pairs))]


def _closest_within(side_a: StackedMeshes, side_b: StackedMeshes, owner: np.ndarray, rows_a: np.ndarray, rows_b: np.ndarray,
                    gap_sq: np.ndarray, margin: np.ndarray, bound: np.ndarray):
    """Per pair, the closest of its triangle pairs (rows ``owner``, ``rows_a``, ``rows_b``, box gaps ``gap_sq``) whose
    lower bounds do not exceed its ``bound``: (distance, point_a, point_b, row_a, row_b) columns, distance inf where
    none is left."""
    count = len(bound)
    reach = bound + margin
    keep = np.flatnonzero(gap_sq <= (reach * reach * (1.0 + BOUND_SLACK))[owner])
    owner, rows_a, rows_b = owner[keep], rows_a[keep], rows_b[keep]
    corners_a, corners_b = side_a.corners[rows_a], side_b.corners[rows_b]
    gap = separation_lower_bound(corners_a, corners_b, side_a.unit_normals[rows_a], side_b.unit_normals[rows_b],
                                 reach[owner])
    lower_sq = np.maximum(gap - margin[owner], 0.0) ** 2
    keep = np.flatnonzero(lower_sq <= (bound * bound * (1.0 + BOUND_SLACK))[owner])
    owner, rows_a, rows_b, lower_sq = owner[keep], rows_a[keep], rows_b[keep], lower_sq[keep]
    corners_a, corners_b = corners_a[keep], corners_b[keep]
    # A tighter bound: the exact distance of each pair's triangle pair with the smallest lower bound.
    probe = segment_firsts(lower_sq, owner, count)
    probed = np.flatnonzero(probe >= 0)
    bound = bound.copy()
    bound[probed] = np.minimum(bound[probed], triangle_pair_distance(corners_a[probe[probed]],
                                                                     corners_b[probe[probed]])[0])
    keep = np.flatnonzero(lower_sq <= (bound * bound * (1.0 + BOUND_SLACK))[owner])
    owner, rows_a, rows_b = owner[keep], rows_a[keep], rows_b[keep]
    distance, point_a, point_b = triangle_pair_distance(corners_a[keep], corners_b[keep])
    best = segment_firsts(distance, owner, count)
    has = best >= 0
    columns = (np.full(count, np.inf), np.zeros((count, 3)), np.zeros((count, 3)), np.zeros(count, dtype=np.int64),
               np.zeros(count, dtype=np.int64))
    for column, values in zip(columns, (distance, point_a, point_b, rows_a, rows_b)):
        column[has] = values[best[has]]
    return columns


def nearest_distances(meshes: Sequence[TriangleMesh], points: np.ndarray, owners: np.ndarray) -> np.ndarray:
    """(P,) distance of each of the (P, 3) ``points`` to the surface of ``meshes[owners[p]]`` (small meshes, none
    empty): ``nearest_on_surface``'s distances, the same numbers."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    owners = np.asarray(owners, dtype=np.int64)
    distances = np.empty(len(points))
    stack = StackedMeshes(meshes)
    counts = stack.counts[owners]
    for block in _blocks(list(range(len(points))), counts.tolist()):
        block = np.asarray(block, dtype=np.int64)
        distances[block] = _stacked_nearest(stack, points[block], owners[block])
    return distances


def _stacked_nearest(stack: StackedMeshes, points: np.ndarray, owners: np.ndarray) -> np.ndarray:
    point, _one, t, _starts = pairings(np.ones(len(points), dtype=np.int64), stack.counts[owners])
    rows = stack.first[owners[point]] + t
    gap_sq = point_box_distance_sq(points[point], stack.lows[rows], stack.highs[rows])
    # An upper bound per point: its exact distance to the triangle with the closest box.
    first = segment_firsts(gap_sq, point, len(points))
    upper, _closest = point_triangle_closest(points, stack.corners[rows[first]])
    reach = upper + ROUNDING * np.maximum(stack.scales[owners], np.abs(points).max(axis=1))
    keep = np.flatnonzero(gap_sq <= (reach * reach * (1.0 + BOUND_SLACK))[point])
    distance, _closest = point_triangle_closest(points[point[keep]], stack.corners[rows[keep]])
    best = segment_firsts(distance, point[keep], len(points))
    return np.minimum(upper, np.where(best >= 0, distance[best], np.inf))
