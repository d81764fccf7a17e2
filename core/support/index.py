"""Sublinear exact support queries on large point clouds: a two-level branch and bound over voxel clusters bounded
by oriented boxes, behind the per-cell cache of ``support.cells``.
See docs/architecture.md, section "Support queries: the index for large clouds".
"""

from __future__ import annotations

import numpy as np

from ..steps import checkpoint
from .cells import CellCache


#: Points used to size the grid; the grid only needs to be about right, the index stays exact.
_SIZING_SAMPLE = 65_536
#: Voxels per group along each axis.
GROUP_CELLS = 4
#: Relative padding of every box, far above the rounding of the bound's arithmetic.
_BOUND_PADDING = 1e-9


def _cell_coordinates(points: np.ndarray, low: np.ndarray, extent: np.ndarray, cells: int) -> np.ndarray:
    return np.clip(((points - low) * (cells / extent)).astype(np.int64), 0, cells - 1)


def _linear(coordinates: np.ndarray, cells: int) -> np.ndarray:
    return (coordinates[:, 0] * cells + coordinates[:, 1]) * cells + coordinates[:, 2]


def _run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1))


def grid_cells(points: np.ndarray, cluster_size: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Grid origin, extent and resolution giving about ``cluster_size`` points per occupied voxel.

    Sized on an evenly strided sample (its box and occupancy); points outside the sample's box fall
    into the border voxels, which only makes those clusters' boxes larger.
    """
    sample = points[:: max(1, len(points) // _SIZING_SAMPLE)]
    low = sample.min(axis=0)
    extent = sample.max(axis=0) - low
    extent[extent <= 0.0] = 1.0  # a flat or linear cloud: one cell across that axis
    wanted = max(1, len(points) // cluster_size)
    cells = max(1, round(wanted ** (1.0 / 3.0)))
    occupied = len(np.unique(_linear(_cell_coordinates(sample, low, extent, cells), cells)))
    if occupied < wanted / 2:  # a surface: occupancy grows like cells**2
        cells = max(cells + 1, round(cells * np.sqrt(wanted / occupied)))
    return low, extent, cells


def cluster_order(points: np.ndarray, cluster_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Permutation grouping points by voxel (voxels by group), and the start offsets in the permuted
    points of each occupied voxel and of each occupied group."""
    low, extent, cells = grid_cells(points, cluster_size)
    coordinates = _cell_coordinates(points, low, extent, cells)
    groups = -(-cells // GROUP_CELLS)
    group = _linear(coordinates // GROUP_CELLS, groups)
    within = _linear(coordinates % GROUP_CELLS, GROUP_CELLS)
    keys = group * GROUP_CELLS ** 3 + within
    order = np.argsort(keys, kind="stable")
    return order, _run_starts(keys[order]), _run_starts(group[order])


#: The six products x_i x_j (i <= j) of a covariance, and where each of its nine entries reads them.
_UPPER = np.triu_indices(3)
_SYMMETRIC = np.array([[0, 1, 2], [1, 3, 4], [2, 4, 5]])


def oriented_boxes(points: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run of points: box centre (R,3), unit axes (R,3,3) as rows, half extents (R,3).

    Axes are the eigenvectors of the run's covariance; extents are measured along those axes from
    the points themselves, so the box holds every point whatever the axes' rounding.
    """
    counts = np.diff(np.append(starts, len(points)))
    run = np.repeat(np.arange(len(starts)), counts)
    means = np.add.reduceat(points, starts, axis=0) / counts[:, None]
    offsets = points - means[run]
    products = np.add.reduceat(offsets[:, _UPPER[0]] * offsets[:, _UPPER[1]], starts, axis=0)
    covariance = products[:, _SYMMETRIC]
    axes = np.linalg.eigh(covariance)[1].transpose(0, 2, 1)
    local = np.stack([np.einsum("nj,nj->n", offsets, axes[run, k]) for k in range(3)], axis=1)
    low = np.minimum.reduceat(local, starts, axis=0)
    high = np.maximum.reduceat(local, starts, axis=0)
    centers = means + np.einsum("nk,nkj->nj", 0.5 * (low + high), axes)
    # Pad by a relative margin (and by the centre's size) so that rounding in the bound, in the
    # axes' orthogonality and in the centre never prunes the true maximum.
    half = 0.5 * (high - low)
    size = np.linalg.norm(half, axis=1) + np.linalg.norm(centers, axis=1)
    return centers, axes, half + _BOUND_PADDING * size[:, None] + 1e-300


def ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The concatenated integer ranges ``starts[i] : starts[i] + counts[i]``."""
    return np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())


def products(directions: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``directions @ columns`` for one direction (3,) or K directions (K, 3) and M points as columns
    (3, M), one matrix-vector product per direction: a matrix product with an inner size of 3 goes
    to a multithreaded BLAS kernel that is ten to a hundred times slower on a busy machine."""
    if directions.ndim == 1:
        return directions @ columns
    return np.array([direction @ columns for direction in directions]).reshape(len(directions), columns.shape[1])


#: The eight sign patterns of a box's corners.
_CORNER_SIGNS = np.array([[x, y, z] for x in (1.0, -1.0) for y in (1.0, -1.0) for z in (1.0, -1.0)])


class _Boxes:
    """Oriented boxes bounding consecutive runs of items (points, or the boxes of a finer level).

    A box is kept as its eight corners: its bound along ``d`` is the largest ``corner·d``, one
    matrix product for all boxes. Corners are stored coordinate-major, (3, 8, boxes), so the bounds
    come out as rows and the maximum over a box's corners is an element-wise maximum of eight long
    rows (a reduction over a short last axis is an order of magnitude slower in numpy).
    """

    def __init__(self, points: np.ndarray, point_starts: np.ndarray, item_starts: np.ndarray, item_total: int):
        centers, axes, half = oriented_boxes(points, point_starts)
        self.corners = centers[None] + np.einsum("sk,ck,ckj->scj", _CORNER_SIGNS, half, axes)
        self.columns = np.ascontiguousarray(self.corners.transpose(2, 0, 1))
        self.starts = item_starts
        self.counts = np.diff(np.append(item_starts, item_total))

    def bounds(self, directions: np.ndarray, which=None) -> np.ndarray:
        """Upper bound of ``x·direction`` over the items of the boxes ``which`` (a slice or indices;
        None for all): (boxes,) for one direction (3,), (K, boxes) for K directions as rows (K, 3)."""
        if which is None:
            columns = self.columns
        else:
            columns = self.columns[:, :, which] if isinstance(which, slice) else self.columns.take(which, axis=2)
        return products(directions, columns.reshape(3, -1)).reshape(*directions.shape[:-1], 8, -1).max(axis=-2)

    def items(self, which: np.ndarray) -> np.ndarray:
        return ranges(self.starts[which], self.counts[which])


class SupportIndex:
    """Two levels of oriented boxes over a point cloud; ``points`` is the reordered copy."""

    def __init__(self, points: np.ndarray, cluster_size: int = 64):
        order, cluster_starts, group_starts = cluster_order(points, cluster_size)
        checkpoint()  # (a cancelled caller's worker stops here, and below)
        self.points = points[order]
        self._clusters = _Boxes(self.points, cluster_starts, cluster_starts, len(points))
        # A group's box is fitted to its clusters' corners (eight per cluster, far fewer than its
        # points): it holds the clusters' boxes, so it holds their points.
        checkpoint()
        first_clusters = np.searchsorted(cluster_starts, group_starts)
        corners = self._clusters.corners.transpose(1, 0, 2).reshape(-1, 3)
        self._groups = _Boxes(corners, 8 * first_clusters, first_clusters, len(cluster_starts))
        self._leaders = np.ascontiguousarray(self.points[cluster_starts].T)  # each cluster's first point, (3, C)
        self._cells = CellCache(self)

    def argmax(self, direction) -> int:
        """Index into ``self.points`` of a point maximising ``points @ direction`` (three floats)."""
        return self._cells.argmax(direction)

    def caps(self, directions: np.ndarray, slab: float, limit: int) -> tuple[list, np.ndarray]:
        """For each of the directions (K, 3): the rows of ``points`` whose value along it is above
        the largest one less ``slab``, and that largest value (K,); None and NaN for the directions
        whose clusters read would hold more than ``limit`` points (a big flat face along its normal).

        The clusters read are those whose boxes reach a floor along the direction: the best value of
        some clusters' first points (real points, so at most the support value) less ``slab``. They
        hold every point of the cap, as the support does. The floor is first taken over the clusters
        of the group of best bound, then over the clusters of the groups that reach that floor.
        """
        groups, clusters = self._groups, self._clusters
        group_bounds = groups.bounds(directions)
        leaders = self._leaders.take(groups.items(np.unique(group_bounds.argmax(axis=1))), axis=1)
        floor = (products(directions, leaders).max(axis=1) - slab)[:, None]
        members = groups.items(np.flatnonzero((group_bounds > floor).any(axis=0)))
        floor = np.maximum(floor, products(directions, self._leaders.take(members, axis=1)).max(axis=1)[:, None] - slab)
        near = clusters.bounds(directions, members) > floor
        small = np.flatnonzero(near @ clusters.counts[members] <= limit)
        rows = clusters.items(members[near[small].any(axis=0)])
        values = products(directions[small], self.points.take(rows, axis=0).T)
        tops = np.full(len(directions), np.nan)
        tops[small] = values.max(axis=1, initial=-np.inf)
        caps = [None] * len(directions)
        for k, row in zip(small.tolist(), values):
            caps[k] = rows[np.flatnonzero(row > tops[k] - slab)]
        return caps, tops

    def branch_and_bound(self, direction: np.ndarray) -> int:
        """``argmax`` by the two-level branch and bound over all boxes."""
        groups, clusters = self._groups, self._clusters
        group_bounds = groups.bounds(direction)
        first_group = int(np.argmax(group_bounds))
        start, count = int(groups.starts[first_group]), int(groups.counts[first_group])
        first = start + int(np.argmax(clusters.bounds(direction, slice(start, start + count))))
        start, count = int(clusters.starts[first]), int(clusters.counts[first])
        best_index = start + int(np.argmax(self.points[start:start + count] @ direction))
        best = self.points[best_index] @ direction
        candidates = groups.items(np.flatnonzero(group_bounds > best))
        candidates = candidates[clusters.bounds(direction, candidates) > best]
        candidates = candidates[candidates != first]
        if candidates.size == 0:
            return best_index
        rows = clusters.items(candidates)
        values = self.points.take(rows, axis=0) @ direction
        winner = int(np.argmax(values))
        return int(rows[winner]) if values[winner] > best else best_index
