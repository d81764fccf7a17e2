"""``TriangleMesh``: the one mesh value every triangle-level query takes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..vector.arrays import cross
from ..validation import as_points


@dataclass(frozen=True, eq=False)
class TriangleMesh:
    """World-space triangles: ``vertices`` (N, 3) float64 and ``triangles`` (M, 3) int64 indices.

    Built through ``TriangleMesh.from_arrays``, which validates and copies; the arrays are then read
    only. Derived arrays (corners, normals, boxes) are computed once, on first use.
    """

    vertices: np.ndarray
    triangles: np.ndarray

    @classmethod
    def from_arrays(cls, vertices, triangles, name: str = "mesh") -> "TriangleMesh":
        """Validated mesh; ``ValueError`` names ``name`` for bad shapes, indices or coordinates."""
        points = as_points(vertices, f"{name} vertices")
        try:
            faces = np.array(triangles, dtype=np.int64, order="C", copy=True)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"{name} triangles must be an (M, 3) array of vertex indices: {exc}") from None
        if faces.ndim != 2 or faces.shape[1] != 3:
            raise ValueError(f"{name} triangles must have shape (M, 3), got {faces.shape}")
        if faces.size and (faces.min() < 0 or faces.max() >= len(points)):
            raise ValueError(f"{name} triangles index vertices outside 0..{len(points) - 1}")
        points.flags.writeable = False
        faces.flags.writeable = False
        return cls(points, faces)

    @cached_property
    def corners(self) -> np.ndarray:
        """(M, 3, 3): the three corner positions of every triangle."""
        return self.vertices[self.triangles]

    def corners_of(self, triangles: np.ndarray) -> np.ndarray:
        """(K, 3, 3): the corners of the triangles at ``triangles`` (without computing every triangle's
        corners when only a few are asked for)."""
        if "corners" in self.__dict__:
            return self.corners[triangles]
        return self.vertices[self.triangles[triangles]]

    @cached_property
    def area_normals(self) -> np.ndarray:
        """(M, 3): cross products of the edges, |n| = 2 x area, pointing by the right-hand rule."""
        c = self.corners
        return cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0])

    def area_normals_of(self, triangles: np.ndarray) -> np.ndarray:
        """(K, 3): ``area_normals`` of the triangles at ``triangles`` (the same numbers, without computing every
        triangle's when only a few are asked for)."""
        if "area_normals" in self.__dict__:
            return self.area_normals[triangles]
        c = self.corners_of(triangles)
        return cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0])

    @cached_property
    def lows(self) -> np.ndarray:
        """(M, 3): each triangle's box minimum."""
        c = self.corners
        return np.minimum(np.minimum(c[:, 0], c[:, 1]), c[:, 2])

    @cached_property
    def highs(self) -> np.ndarray:
        """(M, 3): each triangle's box maximum."""
        c = self.corners
        return np.maximum(np.maximum(c[:, 0], c[:, 1]), c[:, 2])

    @cached_property
    def size(self) -> float:
        """The largest extent of the vertices' box (the scale for relative tolerances)."""
        return float(np.ptp(self.vertices, axis=0).max()) if len(self.vertices) else 0.0
