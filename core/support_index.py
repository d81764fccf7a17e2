"""Sublinear exact support queries on large point clouds.

Points are bucketed into a voxel grid sized so that occupied voxels hold about ``cluster_size``
points each (the grid is refined once more for clouds that live on a surface, where occupancy grows
with the square of the resolution). Each occupied voxel keeps the bounding sphere of its points. A
support query scores every voxel by the upper bound ``c·d + r|d|``, scans the best voxel exactly,
then scans only the voxels whose bound beats that value. The answer is the exact argmax over all
points; on a sphere of 1M points a query reads a few percent of them.
"""

from __future__ import annotations

import numpy as np


#: Points used to size the grid; the grid only needs to be about right, the index stays exact.
_SIZING_SAMPLE = 65_536


def _voxel_ids(points: np.ndarray, low: np.ndarray, extent: np.ndarray, cells: int) -> np.ndarray:
    index = np.clip(((points - low) * (cells / extent)).astype(np.int64), 0, cells - 1)
    return (index[:, 0] * cells + index[:, 1]) * cells + index[:, 2]


def cluster_order(points: np.ndarray, cluster_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Permutation grouping points by voxel, and the start offset of each occupied voxel.

    The grid is sized on an evenly strided sample (its box and occupancy); points outside the
    sample's box fall into the border voxels, which only makes those clusters' spheres larger.
    """
    sample = points[:: max(1, len(points) // _SIZING_SAMPLE)]
    low = sample.min(axis=0)
    extent = sample.max(axis=0) - low
    extent[extent <= 0.0] = 1.0  # a flat or linear cloud: one cell across that axis
    wanted = max(1, len(points) // cluster_size)
    cells = max(1, round(wanted ** (1.0 / 3.0)))
    occupied = len(np.unique(_voxel_ids(sample, low, extent, cells)))
    if occupied < wanted / 2:  # a surface: occupancy grows like cells**2
        cells = max(cells + 1, round(cells * np.sqrt(wanted / occupied)))
    ids = _voxel_ids(points, low, extent, cells)
    order = np.argsort(ids)
    sorted_ids = ids[order]
    starts = np.concatenate(([0], np.flatnonzero(sorted_ids[1:] != sorted_ids[:-1]) + 1))
    return order, starts


class SupportIndex:
    """Voxel clusters with bounding spheres over a point cloud; ``points`` is the reordered copy."""

    def __init__(self, points: np.ndarray, cluster_size: int = 256):
        order, starts = cluster_order(points, cluster_size)
        self.points = points[order]
        self._starts = starts
        self._counts = np.diff(np.append(starts, len(points)))
        low = np.minimum.reduceat(self.points, starts, axis=0)
        high = np.maximum.reduceat(self.points, starts, axis=0)
        self._centers = 0.5 * (low + high)
        offsets = self.points - np.repeat(self._centers, self._counts, axis=0)
        radii = np.sqrt(np.maximum.reduceat(np.einsum("ij,ij->i", offsets, offsets), starts))
        # Inflate by a few ulps so rounding in the bound never prunes the true maximum.
        self._radii = radii * (1.0 + 1e-12) + 1e-300

    def argmax(self, direction: np.ndarray) -> int:
        """Index into ``self.points`` of a point maximising ``points @ direction``."""
        bounds = self._centers @ direction + self._radii * float(np.sqrt(direction @ direction))
        first = int(np.argmax(bounds))
        start, count = int(self._starts[first]), int(self._counts[first])
        values = self.points[start:start + count] @ direction
        best_index = start + int(np.argmax(values))
        best = self.points[best_index] @ direction
        others = np.flatnonzero(bounds > best)
        others = others[others != first]
        if others.size == 0:
            return best_index
        counts = self._counts[others]
        rows = np.repeat(self._starts[others] - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        values = self.points[rows] @ direction
        winner = int(np.argmax(values))
        return int(rows[winner]) if values[winner] > best else best_index
