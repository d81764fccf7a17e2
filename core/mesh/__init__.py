"""Exact queries on triangle meshes (non-convex objects): distance, intersection, containment, volume.

Pure numpy, vectorised over triangles; meshes are ``TriangleMesh`` values (world-space float64
vertices and int64 triangle indices).
"""

from .trimesh import TriangleMesh

__all__ = ["TriangleMesh"]
