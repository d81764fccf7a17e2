"""``TriangleBVH``: a box tree over a mesh's triangles (axis-aligned and oriented boxes per node), built a level at a
time, and traversals over whole frontiers of node pairs that keep every pair that can hold the minimum.
See docs/architecture.md, section "Mesh: the triangle tree".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ..steps import Steps, checkpoint, run_to_end
from ..vector.arrays import REDUCE_ROWS, column_extremes, dot, largest3, reduce_in_chunks, row_chunks, smallest3
from .trimesh import TriangleMesh

#: Relative slack on squared bounds: a pair is dropped only when rounding cannot explain the gap.
BOUND_SLACK = 1e-12
#: Inside ``close_leaf_pair_steps``' descent, a level's node pairs are screened by their oriented boxes only when more
#: than this many pass the aligned ones: for fewer, the oriented test (some 25 array operations, about 0.2 ms) costs
#: more than the pairs it would drop cost at the next level. The leaf pairs it returns are always screened by both.
ORIENTED_SCREEN_MIN_PAIRS = 512
#: A node's run of the Morton order is split where its codes' highest differing bit changes (a plane halving its
#: cell) when each side keeps at least this share of its triangles, else at its middle.
BALANCE = 0.15
#: With a focus (``TriangleBVH.build``), nodes that cannot reach into it stop splitting at this many triangles.
FAR_LEAF_SIZE = 256


def box_distance_sq(lows_a: np.ndarray, highs_a: np.ndarray, lows_b: np.ndarray, highs_b: np.ndarray) -> np.ndarray:
    """Squared distances between axis-aligned boxes (broadcast (..., 3)); 0 where they touch or overlap."""
    gap = np.maximum(np.maximum(lows_b - highs_a, lows_a - highs_b), 0.0)
    return gap[..., 0] ** 2 + gap[..., 1] ** 2 + gap[..., 2] ** 2


def point_box_distance_sq(points: np.ndarray, lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
    """Squared distances from points to boxes (broadcast (..., 3)); 0 inside."""
    gap = np.maximum(np.maximum(lows - points, points - highs), 0.0)
    return gap[..., 0] ** 2 + gap[..., 1] ** 2 + gap[..., 2] ** 2


def oriented_box_distance_sq(bvh_a: "TriangleBVH", nodes_a: np.ndarray, bvh_b: "TriangleBVH", nodes_b: np.ndarray,
                             bound_sq: float = np.inf) -> np.ndarray:
    """Squared lower bounds on the distance between the triangles of node pairs, from their oriented boxes.

    The largest gap along the separating axes that cost no cross products: the line between the box
    centres, then (only for pairs that this line leaves within ``bound_sq``) the 3 + 3 box axes.
    """
    axes_a, axes_b = bvh_a.axes[nodes_a], bvh_b.axes[nodes_b]
    halves_a, halves_b = bvh_a.halves[nodes_a], bvh_b.halves[nodes_b]
    offset = bvh_b.centres[nodes_b] - bvh_a.centres[nodes_a]
    along_a = np.abs(np.matmul(offset[:, None, :], axes_a)[:, 0])
    along_b = np.abs(np.matmul(offset[:, None, :], axes_b)[:, 0])
    length = np.sqrt(_squared_norm(offset))
    reach = (dot(halves_a, along_a) + dot(halves_b, along_b)) / np.where(length > 0.0, length, 1.0)
    gap = length - reach
    near = np.flatnonzero(_within(np.maximum(gap, 0.0) ** 2, bound_sq))
    axes_a, axes_b, halves_a, halves_b = axes_a[near], axes_b[near], halves_a[near], halves_b[near]
    rotation = np.abs(np.matmul(axes_a.transpose(0, 2, 1), axes_b))
    gap_a = along_a[near] - halves_a - np.matmul(rotation, halves_b[:, :, None])[:, :, 0]
    gap_b = along_b[near] - halves_b - np.matmul(halves_a[:, None, :], rotation)[:, 0]
    gap[near] = np.maximum(gap[near], np.maximum(largest3(gap_a), largest3(gap_b)))
    return np.maximum(gap, 0.0) ** 2


def point_node_distance_sq(bvh: "TriangleBVH", points: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Squared lower bounds on the distance from points to the triangles of nodes (both box kinds)."""
    aligned = point_box_distance_sq(points, bvh.lows[nodes], bvh.highs[nodes])
    local = np.abs(np.einsum("nij,ni->nj", bvh.axes[nodes], points - bvh.centres[nodes]))
    return np.maximum(aligned, _squared_norm(np.maximum(local - bvh.halves[nodes], 0.0)))


def _padding(mesh: TriangleMesh) -> float:
    """The rounding allowance of a tree's oriented boxes: 1e-13 of the largest vertex coordinate's size (read from
    the mesh's box: the largest size is its least or largest coordinate's)."""
    low, high = mesh.box
    return 1e-13 * max(abs(float(low.min())), abs(float(high.max())))


def _squared_norm(v: np.ndarray) -> np.ndarray:
    return v[..., 0] ** 2 + v[..., 1] ** 2 + v[..., 2] ** 2


def _within(lower_sq: np.ndarray, bound_sq) -> np.ndarray:
    """Pairs whose lower bound does not exceed the upper bound (with rounding slack)."""
    return lower_sq <= bound_sq * (1.0 + BOUND_SLACK)


def _ranges(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All positions of the ranges [start, end), and for each the index of its range."""
    lengths = ends - starts
    owner = np.repeat(np.arange(len(starts)), lengths)
    first = np.cumsum(lengths) - lengths
    return starts[owner] + np.arange(lengths.sum()) - first[owner], owner


def _range_reduce(ufunc: np.ufunc, values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``ufunc`` reduced over each range [start, end) of the rows of ``values`` (ranges sorted, disjoint, not
    empty), in chunks that let other threads run between them (``reduce_in_chunks``)."""
    if len(starts) == 0:
        return np.empty((0,) + values.shape[1:], values.dtype)
    bounds = np.column_stack([starts, ends]).ravel()[:-1]  # the last range runs to the end of the rows kept
    return reduce_in_chunks(ufunc, values[:ends[-1]], bounds)[::2]


@dataclass(frozen=True, eq=False)
class TriangleBVH:
    """Box tree over ``mesh``'s triangles; build once with ``TriangleBVH.build`` and reuse.

    Arrays per node (``N`` nodes, root 0): ``lows``, ``highs`` (N, 3) axis-aligned boxes; ``axes``
    (N, 3, 3), ``centres`` (N, 3), ``halves`` (N, 3): oriented boxes (axes are the columns, along the
    principal directions of the node's corners; for a flat patch the thin axis is its normal);
    ``children`` (N, 2), -1 for leaves; ``starts``, ``ends`` (N,): the node's triangles are
    ``order[start:end]``; ``anchors`` (N, 3): a corner of one of its triangles. ``focused``: built fine only
    around focus boxes (``build``), so slower to query far from them.
    """

    mesh: TriangleMesh
    order: np.ndarray
    lows: np.ndarray
    highs: np.ndarray
    axes: np.ndarray
    centres: np.ndarray
    halves: np.ndarray
    children: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    anchors: np.ndarray
    focused: bool = False

    @classmethod
    def build(cls, mesh: TriangleMesh, leaf_size: int = 4, focus: tuple[np.ndarray, np.ndarray] | None = None
              ) -> "TriangleBVH":
        """Tree of ``mesh`` with leaves of at most ``leaf_size`` (>= 1) triangles (median splits).

        With ``focus`` ((K, 3) lows, (K, 3) highs: boxes), only the nodes that may reach into a focus box are
        split down to ``leaf_size``; the others stop at ``FAR_LEAF_SIZE`` and keep their aligned box as their
        oriented one. The tree holds every triangle and every box bounds its triangles, so each query is as exact
        as on the whole tree; only queries far from the focus visit bigger leaves.
        """
        if leaf_size < 1:
            raise ValueError(f"leaf_size must be at least 1, got {leaf_size}")
        count = len(mesh.triangles)
        if count == 0:
            raise ValueError("a BVH needs a mesh with at least one triangle")
        grid = _MortonGrid(0.5 * (mesh.lows + mesh.highs))
        order = np.argsort(grid.codes, kind="stable")
        codes = grid.codes[order]
        reach = 0.5 * column_extremes(mesh.highs - mesh.lows)[1] if focus is not None else None
        starts, ends = np.array([0]), np.array([count])
        levels = []
        while len(starts):
            checkpoint()  # (a cancelled caller's worker stops here)
            sizes = ends - starts
            fine = np.ones(len(starts), dtype=bool) if focus is None else grid.reaches(codes, starts, ends, reach,
                                                                                      *focus)
            split = (sizes > leaf_size) & (fine | (sizes > FAR_LEAF_SIZE))
            levels.append((starts, ends, split, fine))
            middles = _split_positions(codes, starts[split], ends[split], 2 * leaf_size)
            starts = np.column_stack([starts[split], middles]).ravel()
            ends = np.column_stack([middles, ends[split]]).ravel()
        return cls._from_levels(mesh, order, levels, focus is not None)

    @classmethod
    def _from_levels(cls, mesh: TriangleMesh, order: np.ndarray, levels, focused: bool) -> "TriangleBVH":
        """Node arrays from the per-level (starts, ends, split, fine) ranges of the finished ``order``: nodes whose
        leaves are all fine get oriented boxes along their principal axes, the others their aligned boxes."""
        starts = np.concatenate([level[0] for level in levels])
        ends = np.concatenate([level[1] for level in levels])
        split = np.concatenate([level[2] for level in levels])
        first_child = 1 + 2 * (np.cumsum(split) - split)
        children = np.where(split[:, None], first_child[:, None] + np.array([0, 1]), -1)
        leaves = np.flatnonzero(~split)
        leaves = leaves[np.argsort(starts[leaves])]
        internal = _internal_nodes_deepest_first(levels)
        checkpoint()  # (a cancelled caller's worker stops here, and below)
        lows = _bottom_up(np.minimum, _range_reduce(np.minimum, mesh.lows[order], starts[leaves], ends[leaves]),
                          leaves, internal, children)
        highs = _bottom_up(np.maximum, _range_reduce(np.maximum, mesh.highs[order], starts[leaves], ends[leaves]),
                           leaves, internal, children)
        checkpoint()
        fine = np.concatenate([level[3] for level in levels])
        for nodes in internal:  # fine all the way down
            fine[nodes] &= fine[children[nodes, 0]] & fine[children[nodes, 1]]
        axes = np.broadcast_to(np.eye(3), (len(starts), 3, 3)).copy()
        low, high = lows.copy(), highs.copy()  # along the identity's axes: the aligned box
        oriented_leaves = leaves[fine[leaves]]
        oriented_internal = [nodes[fine[nodes]] for nodes in internal]
        if len(oriented_leaves):
            positions, _owner = _ranges(starts[oriented_leaves], ends[oriented_leaves])
            corners = mesh.corners[order[positions]]
            counts = ends[oriented_leaves] - starts[oriented_leaves]
            local_starts = np.cumsum(counts) - counts
            local_ends = local_starts + counts
            corner_sums = corners[:, 0] + corners[:, 1] + corners[:, 2]  # (``sum(axis=1)``'s order, sooner)
            sums = _bottom_up(np.add, _range_reduce(np.add, corner_sums, local_starts, local_ends),
                              oriented_leaves, oriented_internal, children)
            checkpoint()
            moments = _bottom_up(np.add, _range_reduce(np.add, np.matmul(corners.transpose(0, 2, 1), corners),
                                                       local_starts, local_ends),
                                 oriented_leaves, oriented_internal, children)
            checkpoint()
            nodes = np.concatenate([oriented_leaves] + oriented_internal)
            triangles = (3.0 * (ends[nodes] - starts[nodes]))
            mean = sums[nodes] / triangles[:, None]
            covariance = moments[nodes] / triangles[:, None, None] - mean[:, :, None] * mean[:, None, :]
            for first in range(0, len(nodes), REDUCE_ROWS):  # (each matrix's own eigenvectors, chunk by chunk)
                checkpoint()
                axes[nodes[first:first + REDUCE_ROWS]] = np.linalg.eigh(covariance[first:first + REDUCE_ROWS])[1]
            _oriented_extents(corners, axes, local_starts, local_ends, oriented_leaves, oriented_internal, children,
                              low, high)
        # Padding for the rounding of the projections, so the oriented boxes surely hold their corners.
        pad = _padding(mesh)
        centres = np.einsum("nij,nj->ni", axes, 0.5 * (low + high))
        anchors = mesh.corners[order[(starts + ends - 1) // 2], 0]  # see anchor_triangle
        return cls(mesh, order, lows, highs, axes, centres, 0.5 * (high - low) + pad, children, starts, ends,
                   anchors, focused)

    def moved(self, mesh: TriangleMesh, matrix: np.ndarray) -> "TriangleBVH":
        """The tree of ``mesh``, which is this tree's mesh under the invertible affine ``matrix`` (4x4), without
        building one: the tree keeps its shape and its boxes move.

        With the map written as a rotation (or mirror) R times a stretch P (its polar decomposition, P's
        eigenvalues between ``s - e`` and ``s + e``), an oriented box's axes turn with R and its half extents
        become ``s * halves + e * sum(halves)``, which bounds the moved box (exactly ``s * halves`` for a
        rotation, uniform scale or mirror). An axis-aligned box becomes the box around the moved one, cut down
        to the box around the moved oriented box. Both are padded for rounding like a built tree's; anchors
        are ``mesh``'s own corners.
        """
        linear, offset = matrix[:3, :3], matrix[:3, 3]
        anchors = mesh.vertices[mesh.triangles[self.order[(self.starts + self.ends - 1) // 2], 0]]
        if (linear == np.eye(3)).all():
            return self._translated(mesh, offset, anchors)
        left, stretch, right = np.linalg.svd(linear)
        rotation = left @ right
        scale, spread = 0.5 * (stretch[0] + stretch[-1]), 0.5 * (stretch[0] - stretch[-1])
        pad = _padding(mesh)
        axes = np.matmul(rotation, self.axes)  # each box's axes (its columns) turned
        halves = scale * self.halves + (spread * self.halves.sum(axis=1) + pad)[:, None]
        centres = self.centres @ linear.T + offset
        middle = 0.5 * (self.lows + self.highs) @ linear.T + offset
        reach = 0.5 * (self.highs - self.lows) @ np.abs(linear).T + pad
        around_oriented = np.abs(axes[:, :, 0]) * halves[:, :1] + np.abs(axes[:, :, 1]) * halves[:, 1:2] \
            + np.abs(axes[:, :, 2]) * halves[:, 2:] + pad
        return TriangleBVH(mesh, self.order, np.maximum(middle - reach, centres - around_oriented),
                           np.minimum(middle + reach, centres + around_oriented), axes, centres, halves,
                           self.children, self.starts, self.ends, anchors, self.focused)

    def _translated(self, mesh: TriangleMesh, offset: np.ndarray, anchors: np.ndarray) -> "TriangleBVH":
        """``moved`` by a translation: every box shifts. Rounding is monotone, so a shifted aligned box still
        holds the shifted (rounded) vertices; oriented boxes, whose centres round on their own, are padded."""
        pad = _padding(mesh)
        return TriangleBVH(mesh, self.order, self.lows + offset, self.highs + offset, self.axes, self.centres + offset,
                           self.halves + pad, self.children, self.starts, self.ends, anchors, self.focused)

    @cached_property
    def is_leaf(self) -> np.ndarray:
        """(N,) bool: the node has no children."""
        return self.children[:, 0] < 0

    def anchor_triangle(self, node: int) -> int:
        """The triangle whose first corner is ``node``'s anchor."""
        return int(self.order[(self.starts[node] + self.ends[node] - 1) // 2])


class _MortonGrid:
    """Z-order keys of ``points`` through their box (21 bits per axis), ``codes`` (M,) uint64: a run of consecutive
    keys is a compact cluster of points, so one sort orders the whole tree. ``reaches`` tells which runs of the
    sorted keys may hold a point near given boxes, from the keys alone."""

    def __init__(self, points: np.ndarray):
        half = 0.5 * points  # halved: the differences below cannot overflow
        self.low, high = column_extremes(half)
        extent = float((high - self.low).max())
        self.scale = (2**21 - 1) / extent if extent > 0.0 else 0.0
        self.slack = 1e-9 * extent  # the rounding of a point's cell
        half -= self.low  # (in place, here and below: the same numbers without a fresh array per step)
        half *= self.scale
        cells = np.minimum(half, 2**21 - 1, out=half).astype(np.uint64)
        self.codes = np.zeros(len(points), dtype=np.uint64)
        for axis in range(3):
            spread = _spread_bits(cells[:, axis])
            spread <<= np.uint64(2 - axis)
            self.codes |= spread

    def reaches(self, codes: np.ndarray, starts: np.ndarray, ends: np.ndarray, reach: np.ndarray,
                lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
        """(R,) bool: whether a triangle of each run [start, end) of the sorted ``codes`` may reach into one of the
        boxes (``lows``, ``highs``: (K, 3)), its centre in the cells the run's common key prefix spans and each
        triangle within ``reach`` (3,) of its centre on each axis. (Only a guide for where to refine.)"""
        if self.scale == 0.0:
            return np.ones(len(starts), dtype=bool)
        first, last = codes[starts], codes[ends - 1]
        smeared = first ^ last
        for shift in (1, 2, 4, 8, 16, 32):
            smeared |= smeared >> np.uint64(shift)
        cell_low = np.column_stack([_compact_bits((first & ~smeared) >> np.uint64(2 - axis)) for axis in range(3)])
        cell_high = np.column_stack([_compact_bits((first | smeared) >> np.uint64(2 - axis)) for axis in range(3)])
        margin = reach + self.slack
        low = 2.0 * (self.low + cell_low / self.scale) - margin
        high = 2.0 * (self.low + (cell_high + 1.0) / self.scale) + margin
        return ((low[:, None] <= highs) & (lows <= high[:, None])).all(axis=2).any(axis=1)


def _split_positions(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray, halved: int) -> np.ndarray:
    """Where to split each range [start, end) of the sorted ``codes``: at the first code past the plane of its
    highest differing bit, or at its middle when that leaves one side with less than ``BALANCE`` of it or the
    range has at most ``halved`` entries (two full leaves)."""
    first, last = codes[starts], codes[ends - 1]
    smeared = first ^ last
    for shift in (1, 2, 4, 8, 16, 32):
        smeared |= smeared >> np.uint64(shift)
    highest = smeared ^ (smeared >> np.uint64(1))
    plane = last & ~(highest - np.uint64(1))
    positions = np.searchsorted(codes, plane)
    middles = (starts + ends) // 2
    least = BALANCE * (ends - starts)
    balanced = ((first != last) & (positions - starts >= least) & (ends - positions >= least)
                & (ends - starts > halved))
    return np.where(balanced, positions, middles)


def _spread_bits(values: np.ndarray) -> np.ndarray:
    """The 21 low bits of each value moved to every third bit (bit i to bit 3i)."""
    values = values & np.uint64(0x1FFFFF)
    shifted = np.empty_like(values)
    for shift, mask in ((32, 0x1F00000000FFFF), (16, 0x1F0000FF0000FF), (8, 0x100F00F00F00F00F),
                        (4, 0x10C30C30C30C30C3), (2, 0x1249249249249249)):
        values |= np.left_shift(values, np.uint64(shift), out=shifted)
        values &= np.uint64(mask)
    return values


def _compact_bits(values: np.ndarray) -> np.ndarray:
    """The inverse of ``_spread_bits``: every third bit (bit 3i) moved to bit i, as floats."""
    values = values & np.uint64(0x1249249249249249)
    for shift, mask in ((2, 0x10C30C30C30C30C3), (4, 0x100F00F00F00F00F), (8, 0x1F0000FF0000FF),
                        (16, 0x1F00000000FFFF), (32, 0x1FFFFF)):
        values = (values | (values >> np.uint64(shift))) & np.uint64(mask)
    return values.astype(np.float64)


def _bottom_up(ufunc: np.ufunc, at_leaves: np.ndarray, leaves, internal, children) -> np.ndarray:
    """Per node, ``ufunc`` reduced over its triangles: ``at_leaves`` (one row per leaf of ``leaves``), then parents
    (``internal``: node ids per level, deepest first; rows of other nodes are left unset)."""
    result = np.empty((len(children),) + at_leaves.shape[1:])
    result[leaves] = at_leaves
    for nodes in internal:
        result[nodes] = ufunc(result[children[nodes, 0]], result[children[nodes, 1]])
    return result


def _oriented_extents(corners, axes, starts, ends, leaves, internal, children, low, high) -> None:
    """Set, per node of ``leaves`` and ``internal``, the interval of its corners' coordinates along its own axes in
    ``low`` and ``high`` ((N, 3) each). Leaves project their corners (rows [start, end) of ``corners``) exactly; a
    parent bounds its children's oriented boxes. Leaves go a chunk of rows at a time (``row_chunks``: ``np.repeat``
    keeps the interpreter for the whole call)."""
    cuts = row_chunks(starts)
    for begin, end in zip(cuts[:-1], cuts[1:]):
        checkpoint()  # (a cancelled caller's worker stops here, and below)
        first, last = starts[begin], ends[end - 1]
        leaf_axes = np.repeat(axes[leaves[begin:end]], ends[begin:end] - starts[begin:end], axis=0)
        projected = np.matmul(corners[first:last], leaf_axes).transpose(0, 2, 1)
        local_starts, local_ends = starts[begin:end] - first, ends[begin:end] - first
        low[leaves[begin:end]] = _range_reduce(np.minimum, smallest3(projected), local_starts, local_ends)
        high[leaves[begin:end]] = _range_reduce(np.maximum, largest3(projected), local_starts, local_ends)
    for nodes in internal:
        checkpoint()
        parent = axes[nodes]
        bounds = []
        for child in children[nodes].T:
            rotation = np.matmul(parent.transpose(0, 2, 1), axes[child])
            centre = np.matmul(rotation, 0.5 * (low[child] + high[child])[:, :, None])[:, :, 0]
            radius = np.matmul(np.abs(rotation), 0.5 * (high[child] - low[child])[:, :, None])[:, :, 0]
            bounds.append((centre - radius, centre + radius))
        low[nodes] = np.minimum(bounds[0][0], bounds[1][0])
        high[nodes] = np.maximum(bounds[0][1], bounds[1][1])


def _internal_nodes_deepest_first(levels):
    """Ids of each level's split nodes, deepest level first (children's boxes are known before parents')."""
    offsets = np.cumsum([0] + [len(level[0]) for level in levels])
    return [offsets[i] + np.flatnonzero(level[2]) for i, level in reversed(list(enumerate(levels)))]


def _split_pairs(bvh_a: TriangleBVH, bvh_b: TriangleBVH, nodes_a: np.ndarray, nodes_b: np.ndarray):
    """Children pairs of node pairs: both nodes split when both are internal, else the internal one."""
    options_a = np.where(bvh_a.is_leaf[nodes_a, None], np.column_stack([nodes_a, np.full_like(nodes_a, -1)]),
                         bvh_a.children[nodes_a])
    options_b = np.where(bvh_b.is_leaf[nodes_b, None], np.column_stack([nodes_b, np.full_like(nodes_b, -1)]),
                         bvh_b.children[nodes_b])
    pairs_a = np.repeat(options_a, 2, axis=1).ravel()
    pairs_b = np.tile(options_b, (1, 2)).ravel()
    keep = (pairs_a >= 0) & (pairs_b >= 0)
    return pairs_a[keep], pairs_b[keep]


def _descend(bvh_a: TriangleBVH, bvh_b: TriangleBVH, nodes_a: np.ndarray, nodes_b: np.ndarray, done_a: list,
             done_b: list) -> tuple[np.ndarray, np.ndarray]:
    """A level of a simultaneous traversal of both trees: the pairs of two leaves are put in ``done_a`` and ``done_b``,
    the others' children pairs (``_split_pairs``) returned."""
    both_leaves = bvh_a.is_leaf[nodes_a] & bvh_b.is_leaf[nodes_b]
    done_a.append(nodes_a[both_leaves])
    done_b.append(nodes_b[both_leaves])
    return _split_pairs(bvh_a, bvh_b, nodes_a[~both_leaves], nodes_b[~both_leaves])


class LeafPairs(NamedTuple):
    """Result of ``close_leaf_pair_steps``: candidate leaf pairs and the best upper bound with its witnesses."""

    leaves_a: np.ndarray
    leaves_b: np.ndarray
    bound: float
    triangle_a: int  # triangles whose corners are ``bound`` apart (-1 when the bound is the caller's)
    triangle_b: int


def close_leaf_pair_steps(bvh_a: TriangleBVH, bvh_b: TriangleBVH, bound: float = np.inf) -> Steps[LeafPairs]:
    """Leaf pairs that may hold the closest pair of triangles, and an upper bound on that distance; a tree level per
    step (``core.steps``).

    Simultaneous traversal of both trees, one frontier of node pairs per level. The returned bound (at
    most ``bound``) is the distance between corners of ``triangle_a`` and ``triangle_b``, or ``bound``
    itself; every pair of triangles closer than it lies in one of the returned leaf pairs. A bound of
    0 (two corners coincide) ends the search at once: nothing can be closer.
    """
    bound_sq, witness = float(bound) ** 2, (-1, -1)
    nodes_a, nodes_b = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    done_a, done_b = [none], [none]
    while len(nodes_a) and bound_sq > 0.0:
        yield
        nodes_a, nodes_b = _descend(bvh_a, bvh_b, nodes_a, nodes_b, done_a, done_b)
        if len(nodes_a):
            gaps = _squared_norm(bvh_a.anchors[nodes_a] - bvh_b.anchors[nodes_b])
            best = int(np.argmin(gaps))
            if gaps[best] < bound_sq:
                bound_sq, witness = float(gaps[best]), (bvh_a.anchor_triangle(nodes_a[best]),
                                                        bvh_b.anchor_triangle(nodes_b[best]))
        nodes_a, nodes_b = _near_node_pairs(bvh_a, nodes_a, bvh_b, nodes_b, bound_sq, ORIENTED_SCREEN_MIN_PAIRS)
    if bound_sq == 0.0:
        return LeafPairs(none, none, 0.0, *witness)
    leaves_a, leaves_b = _near_node_pairs(bvh_a, np.concatenate(done_a), bvh_b, np.concatenate(done_b), bound_sq)
    return LeafPairs(leaves_a, leaves_b, float(np.sqrt(bound_sq)), *witness)


def near_leaf_pairs(bvh_a: TriangleBVH, bvh_b: TriangleBVH, bound: float) -> tuple[np.ndarray, np.ndarray]:
    """Every leaf pair whose triangles may lie within ``bound`` of each other (their boxes, aligned and
    oriented, no further apart): a simultaneous traversal of both trees, one frontier per level."""
    return run_to_end(near_leaf_pair_steps(bvh_a, bvh_b, bound))


def near_leaf_pair_steps(bvh_a: TriangleBVH, bvh_b: TriangleBVH, bound: float) -> Steps[tuple[np.ndarray, np.ndarray]]:
    """``near_leaf_pairs`` a tree level per step (``core.steps``)."""
    bound_sq = float(bound) ** 2
    nodes_a, nodes_b = _near_node_pairs(bvh_a, np.zeros(1, dtype=np.int64), bvh_b, np.zeros(1, dtype=np.int64),
                                        bound_sq)
    done_a, done_b = [], []
    while len(nodes_a):
        yield
        nodes_a, nodes_b = _descend(bvh_a, bvh_b, nodes_a, nodes_b, done_a, done_b)
        nodes_a, nodes_b = _near_node_pairs(bvh_a, nodes_a, bvh_b, nodes_b, bound_sq)
    return (np.concatenate(done_a), np.concatenate(done_b)) if done_a else (nodes_a, nodes_b)


def _near_node_pairs(bvh_a: TriangleBVH, nodes_a: np.ndarray, bvh_b: TriangleBVH, nodes_b: np.ndarray,
                     bound_sq: float, oriented_from: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The node pairs whose lower bounds do not exceed the bound: aligned boxes first (cheap), then oriented, when
    more than ``oriented_from`` pairs are left (else those few are kept as they are: a looser screen, still sound)."""
    keep = _within(box_distance_sq(bvh_a.lows[nodes_a], bvh_a.highs[nodes_a], bvh_b.lows[nodes_b],
                                   bvh_b.highs[nodes_b]), bound_sq)
    nodes_a, nodes_b = nodes_a[keep], nodes_b[keep]
    if len(nodes_a) <= oriented_from:
        return nodes_a, nodes_b
    keep = _within(oriented_box_distance_sq(bvh_a, nodes_a, bvh_b, nodes_b, bound_sq), bound_sq)
    return nodes_a[keep], nodes_b[keep]


def leaf_triangles(bvh: TriangleBVH, leaves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The triangles of ``leaves``: (owner, triangle) with ``owner`` the index into ``leaves``."""
    positions, owner = _ranges(bvh.starts[leaves], bvh.ends[leaves])
    return owner, bvh.order[positions]


def leaf_pair_triangles(bvh_a: TriangleBVH, leaves_a: np.ndarray, bvh_b: TriangleBVH, leaves_b: np.ndarray):
    """All triangle pairs (triangles_a, triangles_b) of the leaf pairs (leaves_a[i], leaves_b[i])."""
    counts_b = bvh_b.ends[leaves_b] - bvh_b.starts[leaves_b]
    owner_a, triangles_a = leaf_triangles(bvh_a, leaves_a)
    # Each triangle of A's leaf meets every triangle of the paired leaf of B.
    rows = np.repeat(np.arange(len(owner_a)), counts_b[owner_a])
    starts = bvh_b.starts[leaves_b][owner_a]
    first = np.cumsum(counts_b[owner_a]) - counts_b[owner_a]
    positions_b = starts[rows] + np.arange(len(rows)) - first[rows]
    return triangles_a[rows], bvh_b.order[positions_b]


def close_point_leaves(bvh: TriangleBVH, points: np.ndarray, bounds_sq: np.ndarray):
    """(point, leaf) pairs that may hold each point's closest triangle, and per-point squared upper bounds.

    ``bounds_sq`` (P,) is the starting squared upper bound of each point (``inf`` for none); the
    returned bounds are distances to surface points (anchors) or the given ones, whichever is smaller.
    """
    bounds_sq = np.array(bounds_sq, dtype=float)
    owners, nodes = np.arange(len(points)), np.zeros(len(points), dtype=np.int64)
    done_owner, done_node = [], []
    while len(nodes):
        leaf = bvh.is_leaf[nodes]
        done_owner.append(owners[leaf])
        done_node.append(nodes[leaf])
        owners = np.repeat(owners[~leaf], 2)
        nodes = bvh.children[nodes[~leaf]].ravel()
        np.minimum.at(bounds_sq, owners, _squared_norm(points[owners] - bvh.anchors[nodes]))
        keep = _within(point_node_distance_sq(bvh, points[owners], nodes), bounds_sq[owners])
        owners, nodes = owners[keep], nodes[keep]
    owners, nodes = np.concatenate(done_owner), np.concatenate(done_node)
    keep = _within(point_node_distance_sq(bvh, points[owners], nodes), bounds_sq[owners])
    return owners[keep], nodes[keep], bounds_sq
