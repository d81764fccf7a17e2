"""``mesh_distances`` and ``nearest_distances``: ``distance.mesh_distance`` and ``distance.nearest_on_surface``'s
distances for many small meshes at once, without trees: every pairing's rows stacked (``stacked``), screened by
their boxes against an exact upper bound, then by separating axes, measured exactly and reduced per pair or point.
The arithmetic of each measured row is the trees' (element-wise), so every distance is the same number; of tied
closest triangle pairs the one with the smallest indices is kept, as ``mesh_distance`` keeps it (apart surfaces).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

from .bvh import BOUND_SLACK, box_distance_sq, point_box_distance_sq
from .distance import MeshDistance, mesh_distance
from .row_groups import RowGroups
from .stacked import StackedMeshes, pairings, segment_firsts
from .triangle_distance import (facing_lower_bound_sq, point_triangle_closest, separation_lower_bound,
                                triangle_pair_distance, unit_vectors)
from .trimesh import CornerBoxes, TriangleMesh
from ..vector.arrays import dot, largest3, smallest3

#: Rows (triangle pairs, or point–triangle pairs) of one stacked pass at most: bounds the memory (some 100 bytes a
#: row), while the numpy calls of a pass are shared by thousands of small meshes.
BLOCK_ROWS = 1 << 19
#: Mesh pairs with more triangle pairs than this are measured down their trees (``mesh_distance``).
STACKED_TRIANGLE_PAIRS = 1 << 16
#: Relative rounding of the triangles' projections and boxes (``distance``'s rounding margin).
ROUNDING = 1e-13
#: Rows of each pair measured in the first round of ``_first_least``; each later round measures twice as many.
FIRST_ROUND_ROWS = 8


def mesh_distances(pairs: Sequence[tuple[TriangleMesh, TriangleMesh]],
                   upper_bounds: Sequence[float | None] | None = None,
                   offsets: np.ndarray | None = None, axes: np.ndarray | None = None) -> list[MeshDistance]:
    """``mesh_distance(a, b, upper_bound=u)`` of every pair ``(a, b)`` with its upper bound (only a hint that prunes
    the search, as there); pairs of small meshes are measured together in stacked passes, others down their trees.
    ``offsets`` (N, 3): each pair's B measured moved by its offset, as ``Solid.translated`` moves it (the same
    numbers), without a moved mesh for each small pair. ``axes`` (N, 3): a direction per pair along which the
    triangles' extents screen the stacked pairs' triangle pairs first (``_axis_screen``; a push-out's normal for its
    moved pair): it only prunes, the distances are the same."""
    hints = np.array([np.inf if upper_bounds is None or upper_bounds[k] is None else float(upper_bounds[k])
                      for k in range(len(pairs))])
    offsets = None if offsets is None else np.asarray(offsets, dtype=np.float64).reshape(-1, 3)
    axes = None if axes is None else unit_vectors(np.asarray(axes, dtype=np.float64).reshape(-1, 3))
    sizes = [len(a.triangles) * len(b.triangles) for a, b in pairs]
    answers: list = [None] * len(pairs)
    small = [k for k, size in enumerate(sizes) if 0 < size <= STACKED_TRIANGLE_PAIRS]
    for block in _blocks(small, [sizes[k] for k in small]):
        side_a = StackedMeshes([pairs[k][0] for k in block])
        side_b = StackedMeshes([pairs[k][1] for k in block]) if offsets is None else \
            MovedMeshes([pairs[k][1] for k in block], offsets[block])
        for k, distance in zip(block, _stacked_distances(side_a, side_b, hints[block],
                                                         None if axes is None else axes[block])):
            answers[k] = distance
    for k, answer in enumerate(answers):
        if answer is None:
            a, b = pairs[k]
            if offsets is not None:
                b = TriangleMesh.from_arrays(moved_vertices(b.vertices, offsets[k]), b.triangles)
            answers[k] = mesh_distance(a, b, upper_bound=None if np.isinf(hints[k]) else hints[k])
    return answers


def moved_vertices(vertices: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``vertices`` moved by ``offsets`` as ``Solid.translated`` moves them (``vertices @ identity + offset``: the
    product turns -0.0 into 0.0, the rest is exact)."""
    return (vertices + 0.0) + offsets


class MovedMeshes(CornerBoxes, StackedMeshes):
    """``StackedMeshes`` of the meshes moved by ``offsets`` (n, 3), one each: their vertices, corners, boxes and
    scales those of the moved meshes ``Solid.translated`` makes, bit for bit, without making them."""

    def __init__(self, meshes: Sequence[TriangleMesh], offsets: np.ndarray):
        super().__init__(meshes)
        self.offsets = np.asarray(offsets, dtype=np.float64).reshape(-1, 3)

    @cached_property
    def vertices(self) -> np.ndarray:
        return moved_vertices(np.concatenate([mesh.vertices for mesh in self.meshes]).reshape(-1, 3),
                              self.offsets[self.vertex_owner])

    @cached_property
    def corners(self) -> np.ndarray:
        return self.vertices[self.ids]


def _blocks(items: list[int], sizes: list[int]) -> list[list[int]]:
    """``items`` in runs whose sizes add up to at most ``BLOCK_ROWS`` (a larger item alone)."""
    if sum(sizes) <= BLOCK_ROWS:
        return [items] if items else []
    blocks, current, total = [], [], 0
    for item, size in zip(items, sizes):
        if current and total + size > BLOCK_ROWS:
            blocks.append(current)
            current, total = [], 0
        current.append(item)
        total += size
    return blocks + [current] if current else blocks


def _stacked_distances(side_a: StackedMeshes, side_b: StackedMeshes, hints: np.ndarray,
                       axes: np.ndarray | None = None) -> list[MeshDistance]:
    """The closest triangle pair of every pair (mesh k of ``side_a``, mesh k of ``side_b``), all in a few passes.

    Only triangles whose boxes come within a pair's bound of the other mesh's box are paired (rounding is monotone:
    a triangle farther from the box is farther from each of its triangles). The bound is the hint, or without one the
    exact distance of one triangle pair (each side's triangle with the box nearest the other mesh's box): which bound
    a search starts from only prunes, the closest pair it finds is the same; so do the ``axes`` (``_axis_screen``).
    A pair with nothing within its hint is searched again within that exact distance."""
    count = len(hints)
    margin = ROUNDING * np.maximum(side_a.scales, side_b.scales)
    near_a = _box_gaps_sq(side_a, side_b)
    near_b = _box_gaps_sq(side_b, side_a)
    probe_a, probe_b = segment_firsts(near_a, side_a.owner, count), segment_firsts(near_b, side_b.owner, count)
    upper = np.full(count, np.inf)

    def probed(pairs: np.ndarray) -> None:  # upper[pairs]: the distance of their triangles with the nearest boxes
        upper[pairs] = triangle_pair_distance(side_a.corners[probe_a[pairs]], side_b.corners[probe_b[pairs]])[0]

    unhinted = np.flatnonzero(np.isinf(hints))
    if len(unhinted):
        probed(unhinted)
    bound = np.minimum(upper, hints)
    every = np.arange(count)
    found = _closest_within(side_a, side_b, near_a, near_b, every, margin, bound, axes)
    redo = np.flatnonzero(~(found[0] <= bound))  # nothing within the hint: every pair within the exact bound
    if len(redo):
        lacking = redo[np.isfinite(hints[redo])]
        if len(lacking):
            probed(lacking)
        refound = _closest_within(side_a, side_b, near_a, near_b, redo, margin, upper, axes)
        for column, values in zip(found, refound):
            column[redo] = values[redo]
    distance, point_a, point_b, row_a, row_b = found
    return [MeshDistance(float(distance[k]), point_a[k].copy(), point_b[k].copy(),
                         int(row_a[k] - side_a.first[k]), int(row_b[k] - side_b.first[k])) for k in range(count)]


def _box_gaps_sq(side: StackedMeshes, other: StackedMeshes) -> np.ndarray:
    """(M,) squared distance of each row's box to the box of the other mesh of its pair (``other``'s mesh of the same
    index): a lower bound on the row's box distance to each triangle of that mesh, as ``box_distance_sq`` rounds it."""
    low, high = other.triangle_box
    return box_distance_sq(side.lows, side.highs, low[side.owner], high[side.owner])


def _near_rows(side: StackedMeshes, gaps_sq: np.ndarray, limit_sq: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Rows of ``side``'s meshes ``pairs`` (sorted) whose ``gaps_sq`` are within their pair's ``limit_sq``, in order."""
    chosen = np.zeros(len(limit_sq), dtype=bool)
    chosen[pairs] = True
    owner = side.owner
    return np.flatnonzero(chosen[owner] & (gaps_sq <= limit_sq[owner]))


def _closest_within(side_a: StackedMeshes, side_b: StackedMeshes, near_a: np.ndarray, near_b: np.ndarray,
                    pairs: np.ndarray, margin: np.ndarray, bound: np.ndarray, axes: np.ndarray | None = None):
    """Per pair of ``pairs``, the closest of its triangle pairs whose lower bounds do not exceed its ``bound``:
    (distance, point_a, point_b, row_a, row_b) columns over all pairs, distance inf where none is left (and for
    pairs not asked). ``near_a``, ``near_b``: each side's rows' ``_box_gaps_sq``; ``axes``: ``_axis_screen``'s."""
    count = len(bound)
    reach = bound + margin
    limit_sq = reach * reach * (1.0 + BOUND_SLACK)
    bound_sq = bound * bound * (1.0 + BOUND_SLACK)
    rows_a, rows_b = _near_rows(side_a, near_a, limit_sq, pairs), _near_rows(side_b, near_b, limit_sq, pairs)
    screen = None if axes is None else _axis_screen(side_a, rows_a, side_b, rows_b, axes, margin, bound_sq)
    if screen is not None:
        rows_a, rows_b, extent_a, extent_b = screen
    counts_a = np.bincount(side_a.owner[rows_a], minlength=count)
    counts_b = np.bincount(side_b.owner[rows_b], minlength=count)
    owner, i, j, _starts = pairings(counts_a, counts_b)
    i, j = (np.cumsum(counts_a) - counts_a)[owner] + i, (np.cumsum(counts_b) - counts_b)[owner] + j
    rows_a, rows_b = rows_a[i], rows_b[j]
    axis_lower = None
    if screen is not None:
        axis_lower = _axis_lower(extent_a, i, extent_b, j, margin[owner])
        keep = np.flatnonzero(axis_lower * axis_lower <= bound_sq[owner])
        owner, rows_a, rows_b, axis_lower = owner[keep], rows_a[keep], rows_b[keep], axis_lower[keep]
    gap_sq = box_distance_sq(side_a.lows[rows_a], side_a.highs[rows_a], side_b.lows[rows_b], side_b.highs[rows_b])
    keep = np.flatnonzero(gap_sq <= limit_sq[owner])
    owner, rows_a, rows_b = owner[keep], rows_a[keep], rows_b[keep]
    axis_lower = None if axis_lower is None else axis_lower[keep]
    corners_a, corners_b = side_a.corners[rows_a], side_b.corners[rows_b]
    gap = separation_lower_bound(corners_a, corners_b, side_a.unit_normals[rows_a], side_b.unit_normals[rows_b],
                                 reach[owner])
    lower_sq = np.maximum(gap - margin[owner], 0.0) ** 2
    if axis_lower is not None:
        lower_sq = np.maximum(lower_sq, axis_lower * axis_lower)
    keep = np.flatnonzero(lower_sq <= bound_sq[owner])
    rows = _Rows(owner[keep], rows_a[keep], rows_b[keep], lower_sq[keep], corners_a[keep], corners_b[keep])
    # A tighter bound: the exact distance of each pair's triangle pair with the smallest lower bound. Where that is
    # 0 at a lower bound of 0 the pair is settled: every row before it has a positive lower bound (so a positive
    # distance), and measured in order it would be the first row and the first zero.
    probe = segment_firsts(rows.lower_sq, rows.owner, count)
    probed = np.flatnonzero(probe >= 0)
    measured = triangle_pair_distance(rows.corners_a[probe[probed]], rows.corners_b[probe[probed]])
    bound = bound.copy()
    bound[probed] = np.minimum(bound[probed], measured[0])
    settled = (measured[0] == 0.0) & (rows.lower_sq[probe[probed]] == 0.0)
    first = probe[probed[settled]]
    found = (measured[0][settled], measured[1][settled], measured[2][settled], rows.rows_a[first], rows.rows_b[first])
    bound_sq = bound * bound * (1.0 + BOUND_SLACK)
    open_rows = np.ones(count, dtype=bool)
    open_rows[probed[settled]] = False
    rows = rows.kept(np.flatnonzero((rows.lower_sq <= bound_sq[rows.owner]) & open_rows[rows.owner]))
    # The rows left get the tighter ``facing_lower_bound_sq`` (worth its cost only on them: most are faces that lie
    # sideways of the closest ones).
    rows.lower_sq = np.maximum(rows.lower_sq, facing_lower_bound_sq(
        rows.corners_a, rows.corners_b, side_a.unit_normals[rows.rows_a], side_b.unit_normals[rows.rows_b],
        margin[rows.owner]))
    columns = _first_least(rows.kept(np.flatnonzero(rows.lower_sq <= bound_sq[rows.owner])), count)
    for column, values in zip(columns, found):
        column[probed[settled]] = values
    return columns


def _axis_screen(side_a: StackedMeshes, rows_a: np.ndarray, side_b: StackedMeshes, rows_b: np.ndarray,
                 axes: np.ndarray, margin: np.ndarray, bound_sq: np.ndarray):
    """The rows of each side (``rows_a``, ``rows_b``, each in order) that may come within their pair's bound of a row
    of the other side, judged along the pair's unit axis (``axes`` (n, 3)): a triangle whose extent along it lies
    farther than the bound from the other side's rows' whole extent is farther from each of them. Returns
    (rows_a, rows_b, extent_a, extent_b), each side's kept rows' extents (lows, highs) for ``_axis_lower``.

    A projection on a unit axis never lengthens a distance, and the extents' rounding (a few ulps of the
    coordinates) is far below the ``margin`` taken off, as ``separation_lower_bound``'s gaps are judged. For a pair
    pushed out along the axis (a push-out's witnesses: B just touching A) this drops each side's triangles that lie
    back from the contact, which the axis-aligned boxes of slanted triangles keep."""
    owner_a, owner_b = side_a.owner[rows_a], side_b.owner[rows_b]
    extent_a, extent_b = _extents(side_a, rows_a, axes), _extents(side_b, rows_b, axes)
    hull_a, hull_b = _hulls(owner_a, extent_a, len(axes)), _hulls(owner_b, extent_b, len(axes))
    lower_a = _axis_lower(extent_a, slice(None), (hull_b[0][owner_a], hull_b[1][owner_a]), slice(None),
                          margin[owner_a])
    lower_b = _axis_lower((hull_a[0][owner_b], hull_a[1][owner_b]), slice(None), extent_b, slice(None),
                          margin[owner_b])
    keep_a = np.flatnonzero(lower_a * lower_a <= bound_sq[owner_a])
    keep_b = np.flatnonzero(lower_b * lower_b <= bound_sq[owner_b])
    return (rows_a[keep_a], rows_b[keep_b], (extent_a[0][keep_a], extent_a[1][keep_a]),
            (extent_b[0][keep_b], extent_b[1][keep_b]))


def _extents(side: StackedMeshes, rows: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lows, highs) of the ``rows``' corners projected on their pair's axis."""
    along = dot(side.corners[rows], axes[side.owner[rows]][:, None])
    return smallest3(along), largest3(along)


def _hulls(owner: np.ndarray, extent: tuple[np.ndarray, np.ndarray], count: int) -> tuple[np.ndarray, np.ndarray]:
    """(count,) the least low and the largest high of each pair's extents (``owner`` sorted; none: inf, -inf)."""
    low, high = np.full(count, np.inf), np.full(count, -np.inf)
    if len(owner):
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        low[owner[starts]] = np.minimum.reduceat(extent[0], starts)
        high[owner[starts]] = np.maximum.reduceat(extent[1], starts)
    return low, high


def _axis_lower(extent_a, i, extent_b, j, margin: np.ndarray) -> np.ndarray:
    """Lower bounds on the distances between A's extents ``i`` and B's extents ``j`` (index arrays, or all): their
    gap along the axis less ``margin``, at least 0."""
    gap = np.maximum(extent_b[0][j] - extent_a[1][i], extent_a[0][i] - extent_b[1][j])
    return np.maximum(gap - margin, 0.0)


@dataclass
class _Rows:
    """Triangle pairs of ``_first_least``, row by row: the pair, each side's row, the squared lower bound, each side's
    corners."""
    owner: np.ndarray
    rows_a: np.ndarray
    rows_b: np.ndarray
    lower_sq: np.ndarray
    corners_a: np.ndarray
    corners_b: np.ndarray

    def kept(self, keep: np.ndarray) -> "_Rows":
        return _Rows(*(getattr(self, field.name)[keep] for field in fields(self)))


def _first_least(rows: _Rows, count: int):
    """Per pair, the first of its rows (``owner`` sorted, rows in order) with the least exact distance: (distance,
    point_a, point_b, row_a, row_b) columns, distance inf for a pair without rows. Measured a few rows of every pair a
    round, in order (``FIRST_ROUND_ROWS``, doubling each round): a pair whose least so far is 0 is done (no later row
    is less, and of equal ones the first counts: touching pairs, such as a pair pushed out to a gap's end, often
    have dozens of rows at 0), and rows whose lower bounds exceed their pair's least so far are dropped. The answer is
    that of measuring every row."""
    columns = (np.full(count, np.inf), np.zeros((count, 3)), np.zeros((count, 3)), np.zeros(count, dtype=np.int64),
               np.zeros(count, dtype=np.int64))
    least = columns[0]
    rank = np.arange(len(rows.owner)) - np.searchsorted(rows.owner, rows.owner)
    end = FIRST_ROUND_ROWS
    while len(rank):
        now = rank < end
        take = np.flatnonzero(now)
        distance, point_a, point_b = triangle_pair_distance(rows.corners_a[take], rows.corners_b[take])
        best = segment_firsts(distance, rows.owner[take], count)
        found = np.flatnonzero(best >= 0)
        found = found[distance[best[found]] < least[found]]  # an earlier round's equal row comes first
        for column, values in zip(columns, (distance, point_a, point_b, rows.rows_a[take], rows.rows_b[take])):
            column[found] = values[best[found]]
        limit_sq = least * least * (1.0 + BOUND_SLACK)
        rest = np.flatnonzero(~now & (least[rows.owner] > 0.0) & (rows.lower_sq <= limit_sq[rows.owner]))
        rows, rank = rows.kept(rest), rank[rest]
        end *= 2
    return columns


def nearest_distances(meshes: Sequence[TriangleMesh] | StackedMeshes, points: np.ndarray,
                      owners: np.ndarray) -> np.ndarray:
    """(P,) distance of each of the (P, 3) ``points`` to the surface of ``meshes[owners[p]]`` (small meshes, none
    empty; or their ``StackedMeshes``, shared by several calls): ``nearest_on_surface``'s distances, the same
    numbers."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    owners = np.asarray(owners, dtype=np.int64)
    distances = np.empty(len(points))
    stack = meshes if isinstance(meshes, StackedMeshes) else StackedMeshes(meshes)
    groups = RowGroups(stack)
    counts = stack.counts[owners]
    for block in _blocks(list(range(len(points))), counts.tolist()):
        block = np.asarray(block, dtype=np.int64)
        distances[block] = _stacked_nearest(stack, groups, points[block], owners[block])
    return distances


def _stacked_nearest(stack: StackedMeshes, groups: RowGroups, points: np.ndarray, owners: np.ndarray) -> np.ndarray:
    """The distances, the triangles' boxes tested a group at a time (``row_groups``). The upper bound a point starts
    from (any triangle's exact distance) only prunes: the least distance, the answer, is the same number. Where every
    point's mesh is one group (meshes of up to ``GROUP`` triangles) its rows' box gaps, found for the upper bound,
    are the near groups' rows' too (a group farther than the bound has each of its rows farther)."""
    count = len(points)
    query, group = groups.pairs(owners)
    group_gap_sq = point_box_distance_sq(points[query], groups.lows[group], groups.highs[group])
    # An upper bound per point: its exact distance to the triangle with the closest box of the closest group.
    point, rows = groups.rows(np.arange(count), group[segment_firsts(group_gap_sq, query, count)])
    gap_sq = point_box_distance_sq(points[point], stack.lows[rows], stack.highs[rows])
    upper, _closest = point_triangle_closest(points, stack.corners[rows[segment_firsts(gap_sq, point, count)]])
    reach = upper + ROUNDING * np.maximum(stack.scales[owners], np.abs(points).max(axis=1))
    limit_sq = reach * reach * (1.0 + BOUND_SLACK)
    if len(query) > count:  # some mesh of several groups: the near groups' rows
        near = group_gap_sq <= limit_sq[query]
        point, rows = groups.rows(query[near], group[near])
        gap_sq = point_box_distance_sq(points[point], stack.lows[rows], stack.highs[rows])
    keep = np.flatnonzero(gap_sq <= limit_sq[point])
    distance, _closest = point_triangle_closest(points[point[keep]], stack.corners[rows[keep]])
    best = segment_firsts(distance, point[keep], count)
    return np.minimum(upper, np.where(best >= 0, distance[best], np.inf))
