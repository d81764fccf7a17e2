"""Evaluated world-space geometry of Blender objects as numpy arrays, and how convex it is.

Everything is read with ``foreach_get`` and transformed with one numpy matrix product, so modifiers,
parents, constraints and any (non-uniform, negative) scale are those Blender itself evaluated.
"""

from contextlib import contextmanager
from typing import Iterator, Optional

import bmesh
import bpy
import numpy as np

# Object types whose evaluated data can be converted to a mesh (Object.to_mesh()).
GEOMETRY_TYPES = frozenset({'MESH', 'CURVE', 'SURFACE', 'FONT', 'META'})

# The hull check builds the convex hull of at most this many vertices (a strided sample of larger
# meshes); the sample's hull volume is a lower bound of the true one, so a note is never a false alarm.
HULL_SAMPLE_SIZE = 20_000
# A closed mesh whose convex hull has this much more volume is called non-convex.
HULL_VOLUME_EXCESS = 0.05


def has_geometry(obj: bpy.types.Object) -> bool:
    """True for objects whose evaluated data is (or converts to) a mesh."""
    return obj.type in GEOMETRY_TYPES


@contextmanager
def evaluated_mesh(obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph) -> Iterator[tuple]:
    """``(mesh, matrix_world)`` of the evaluated object; the temporary mesh is freed on exit."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        yield mesh, np.array(evaluated.matrix_world, dtype=np.float64)
    finally:
        evaluated.to_mesh_clear()


def world_points(mesh: Optional[bpy.types.Mesh], matrix_world: np.ndarray) -> np.ndarray:
    """(N,3) float64 world-space vertex positions of ``mesh`` (empty when there is no mesh)."""
    if mesh is None or len(mesh.vertices) == 0:
        return np.empty((0, 3), dtype=np.float64)
    local = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get('co', local)
    local = local.reshape(-1, 3).astype(np.float64)
    return local @ matrix_world[:3, :3].T + matrix_world[:3, 3]


def evaluated_world_points(obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph) -> np.ndarray:
    """(N,3) float64 world-space vertices of the object as evaluated (modifiers, parents, scale)."""
    with evaluated_mesh(obj, depsgraph) as (mesh, matrix_world):
        return world_points(mesh, matrix_world)


def closed_mesh_volume(mesh: bpy.types.Mesh, points: np.ndarray) -> Optional[float]:
    """Enclosed volume of ``mesh`` with vertices at ``points``; None when the mesh is not closed.

    Closed means every edge has exactly two faces; then the sum of signed tetrahedra over the
    triangulated faces is the volume whatever the origin (its sign flips with negative scale).
    """
    if len(mesh.polygons) == 0:
        return None
    edge_uses = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get('edge_index', edge_uses)
    if np.any(np.bincount(edge_uses, minlength=len(mesh.edges)) != 2):
        return None
    mesh.calc_loop_triangles()
    corners = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get('vertices', corners)
    a, b, c = (points[corners[i::3]] for i in range(3))
    return abs(float(np.einsum('ij,ij->', a, np.cross(b, c)))) / 6.0


def hull_volume_lower_bound(points: np.ndarray) -> float:
    """Volume of the convex hull of at most ``HULL_SAMPLE_SIZE`` evenly strided ``points``.

    Exact for meshes up to that size, a lower bound above it. Uses bmesh's convex hull on a
    temporary mesh filled with ``foreach_set``.
    """
    sample = points[:: max(1, -(-len(points) // HULL_SAMPLE_SIZE))]
    scratch = bpy.data.meshes.new("collision_inspector_hull")
    bm = bmesh.new()
    try:
        scratch.vertices.add(len(sample))
        scratch.vertices.foreach_set('co', sample.astype(np.float32).ravel())
        bm.from_mesh(scratch)
        bmesh.ops.convex_hull(bm, input=bm.verts[:])
        return abs(bm.calc_volume())
    finally:
        bm.free()
        bpy.data.meshes.remove(scratch)


def hull_note(name: str, mesh: Optional[bpy.types.Mesh], points: np.ndarray) -> str:
    """Non-empty when the object's convex hull is noticeably larger than the object itself.

    GJK/EPA measure convex hulls, so for such an object the numbers may describe empty space (a
    torus' hole, a cup's inside). Open meshes (no volume) and flat ones are not judged.
    """
    if mesh is None or len(points) < 4:
        return ""
    volume = closed_mesh_volume(mesh, points)
    if volume is None:
        return ""
    hull_volume = hull_volume_lower_bound(points)
    if hull_volume <= volume * (1.0 + HULL_VOLUME_EXCESS):
        return ""
    ratio = f"{hull_volume / volume:.2g}\u00d7 its volume" if volume > 0 else "volume where it has none"
    return f"{name} is not convex: its convex hull has {ratio}; the results are about the hull"
