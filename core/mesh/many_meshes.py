"""Many small meshes as one: triangles, boxes and vertices stacked with each mesh's first row, and the rows of every
pairing of their items (triangle pairs of mesh pairs, point–triangle pairs), so that a query over many small
meshes is a few vectorised passes instead of a few dozen numpy calls per mesh, reduced per segment afterwards."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

from .triangle_distance import unit_normals
from .trimesh import TriangleMesh


class Stack:
    """``meshes`` stacked: row ``first[m] + t`` of the triangle arrays is triangle ``t`` of mesh ``m``."""

    def __init__(self, meshes: Sequence[TriangleMesh]):
        self.meshes = list(meshes)
        self.counts = np.array([len(mesh.triangles) for mesh in self.meshes], dtype=np.int64)
        self.first = np.concatenate([[0], np.cumsum(self.counts)[:-1]]).astype(np.int64)

    @cached_property
    def corners(self) -> np.ndarray:
        return _joined([mesh.corners for mesh in self.meshes], (0, 3, 3))

    @cached_property
    def lows(self) -> np.ndarray:
        return _joined([mesh.lows for mesh in self.meshes], (0, 3))

    @cached_property
    def highs(self) -> np.ndarray:
        return _joined([mesh.highs for mesh in self.meshes], (0, 3))

    @cached_property
    def unit_normals(self) -> np.ndarray:
        """Unit normals of the triangles (``triangle_distance.unit_normals``, as a mesh's tree holds them)."""
        return unit_normals(self.corners)

    @cached_property
    def ids(self) -> np.ndarray:
        """Vertex ids of the triangles, each mesh's numbered on from the vertices of those before it (distinct)."""
        sizes = [len(mesh.vertices) for mesh in self.meshes]
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        return _joined([mesh.triangles + start for mesh, start in zip(self.meshes, starts.tolist())], (0, 3))

    @cached_property
    def scales(self) -> np.ndarray:
        """Each mesh's largest absolute coordinate (the scale of its rounding)."""
        return np.array([float(np.abs(mesh.vertices).max()) if len(mesh.vertices) else 0.0
                         for mesh in self.meshes])

    @cached_property
    def vertex_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """Each mesh's vertex box: (lows (M, 3), highs (M, 3))."""
        return (np.array([mesh.vertices.min(axis=0) for mesh in self.meshes]).reshape(-1, 3),
                np.array([mesh.vertices.max(axis=0) for mesh in self.meshes]).reshape(-1, 3))


def _joined(parts: list[np.ndarray], empty: tuple[int, ...]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(empty)


def pairings(counts_a: np.ndarray, counts_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair ``(i, j)``, i < counts_a[s], j < counts_b[s], of every segment ``s``, segment by segment and i-major
    within one: ``(segment, i, j, starts)``, ``starts`` each segment's first row (its length the segments')."""
    sizes = counts_a * counts_b
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    segment = np.repeat(np.arange(len(sizes)), sizes)
    local = np.arange(int(sizes.sum())) - starts[segment]
    width = counts_b[segment]
    return segment, local // width, local % width, starts


def segment_firsts(values: np.ndarray, segment: np.ndarray, count: int) -> np.ndarray:
    """Per segment (rows of a segment together, segments in increasing order), the first row holding the segment's
    smallest value, or -1 for a segment without rows."""
    first = np.full(count, -1, dtype=np.int64)
    if not len(values):
        return first
    breaks = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    smallest = np.minimum.reduceat(values, breaks)
    hits = np.flatnonzero(values == np.repeat(smallest, np.diff(np.r_[breaks, len(values)])))
    leading = hits[np.r_[True, segment[hits][1:] != segment[hits][:-1]]]
    first[segment[leading]] = leading
    return first
