"""``TriangleMesh``: the one mesh value every triangle-level query takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from ..vector.arrays import column_extremes, cross, reduce_in_chunks
from ..validation import MAX_COORDINATE, as_points


class CornerBoxes:
    """Each triangle's box from its ``corners`` (M, 3, 3), computed once: ``lows`` and ``highs`` (M, 3)."""

    @cached_property
    def lows(self) -> np.ndarray:
        """(M, 3): each triangle's box minimum."""
        return corner_lows(self.corners)

    @cached_property
    def highs(self) -> np.ndarray:
        """(M, 3): each triangle's box maximum."""
        return corner_highs(self.corners)


@dataclass(frozen=True, eq=False)
class TriangleMesh(CornerBoxes):
    """World-space triangles: ``vertices`` (N, 3) float64 and ``triangles`` (M, 3) int64 indices.

    Built through ``TriangleMesh.from_arrays``, which validates and copies; the arrays are then read
    only. Derived arrays (corners, normals, boxes) are computed once, on first use.
    """

    vertices: np.ndarray
    triangles: np.ndarray

    @classmethod
    def from_arrays(cls, vertices: ArrayLike, triangles: ArrayLike, name: str = "mesh") -> "TriangleMesh":
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

    @classmethod
    def many_from_arrays(cls, vertices: np.ndarray, triangles: np.ndarray, vertex_counts: ArrayLike,
                         triangle_counts: ArrayLike, names: Sequence[str]) -> list["TriangleMesh"]:
        """``from_arrays`` of consecutive slices of ``vertices`` (N, 3) and ``triangles`` (M, 3), ``vertex_counts``
        and ``triangle_counts`` rows each (indices counted from each mesh's first vertex), validated together: a
        few numpy calls for thousands of small meshes instead of a dozen each. The same meshes (views of one copy
        of each array); a bad one raises ``from_arrays``'s ``ValueError`` naming it (``names``)."""
        points = np.array(vertices, dtype=np.float64, order="C", copy=True)
        faces = np.array(triangles, dtype=np.int64, order="C", copy=True)
        vertex_ends = np.cumsum(vertex_counts, dtype=np.int64)
        triangle_ends = np.cumsum(triangle_counts, dtype=np.int64)
        good = (points.ndim == 2 and points.shape[1:] == (3,) and faces.ndim == 2 and faces.shape[1:] == (3,)
                and len(points) == (vertex_ends[-1] if len(vertex_ends) else 0)
                and len(faces) == (triangle_ends[-1] if len(triangle_ends) else 0)
                and (len(vertex_ends) == 0 or np.min(vertex_counts) > 0)
                and bool(np.isfinite(points).all()) and not (points.size and np.abs(points).max() > MAX_COORDINATE))
        if good and faces.size:
            limits = np.repeat(np.asarray(vertex_counts, dtype=np.int64), triangle_counts)
            good = faces.min() >= 0 and bool((faces.max(axis=1) < limits).all())
        vertex_starts, triangle_starts = vertex_ends - vertex_counts, triangle_ends - triangle_counts
        slices = list(zip(vertex_starts.tolist(), vertex_ends.tolist(), triangle_starts.tolist(),
                          triangle_ends.tolist()))
        if not good:  # one of them is bad: its own check names it
            return [cls.from_arrays(vertices[a:b], triangles[c:d], name)
                    for (a, b, c, d), name in zip(slices, names)]
        points.flags.writeable = False
        faces.flags.writeable = False
        meshes = [cls(points[a:b], faces[c:d]) for a, b, c, d in slices]
        if meshes:  # every mesh's ``box`` in two calls (the same numbers: a minimum is exact in any order)
            lows, highs = (reduce_in_chunks(ufunc, points, vertex_starts) for ufunc in (np.minimum, np.maximum))
            for mesh, low, high in zip(meshes, lows, highs):
                mesh.__dict__["box"] = (low, high)
        return meshes

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
    def box(self) -> tuple[np.ndarray, np.ndarray]:
        """The vertices' box: their lowest and highest coordinates, (3,) each."""
        return column_extremes(self.vertices)

    @cached_property
    def used(self) -> np.ndarray:
        """(N,) bool: the vertices some triangle uses (a loose vertex is no part of the surface)."""
        used = np.zeros(len(self.vertices), dtype=bool)
        used[self.triangles.ravel()] = True
        used.flags.writeable = False
        return used

    @cached_property
    def size(self) -> float:
        """The largest extent of the vertices' box (the scale for relative tolerances)."""
        return float((self.box[1] - self.box[0]).max()) if len(self.vertices) else 0.0  # (``np.ptp``'s numbers)


def corner_lows(corners: np.ndarray) -> np.ndarray:
    """(M, 3): the box minimum of each triangle's corners (M, 3, 3)."""
    return np.minimum(np.minimum(corners[:, 0], corners[:, 1]), corners[:, 2])


def corner_highs(corners: np.ndarray) -> np.ndarray:
    """(M, 3): the box maximum of each triangle's corners (M, 3, 3)."""
    return np.maximum(np.maximum(corners[:, 0], corners[:, 1]), corners[:, 2])
