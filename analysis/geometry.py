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

# The convexity check costs about 0.3 s per million vertices (mesh volume from every face); above this
# size it is skipped, and the note says so, to keep large analyses fast.
HULL_CHECK_MAX_VERTICES = 250_000
# The hull volume is that of at most this many evenly strided vertices: a lower bound of the true one,
# so a note is never a false alarm.
HULL_SAMPLE_SIZE = 4_096
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


def _corner_or_point_array(mesh: bpy.types.Mesh, attribute: str, fallback: tuple, components: int,
                           dtype: type) -> np.ndarray:
    """One mesh attribute as a flat array, read through its attribute layer.

    ``mesh.attributes[...].data.foreach_get`` copies the layer in one go; the older per-element RNA
    path (``fallback`` = collection, property) is about 100 times slower, so it is used only when a
    Blender version lacks the attribute (``position``, ``.corner_vert``, ``.corner_edge``).
    """
    layer = mesh.attributes.get(attribute)
    if layer is not None:
        values = np.empty(len(layer.data) * components, dtype=dtype)
        layer.data.foreach_get('vector' if components == 3 else 'value', values)
        return values
    collection, name = fallback
    values = np.empty(len(collection) * components, dtype=dtype)
    collection.foreach_get(name, values)
    return values


def world_points(mesh: Optional[bpy.types.Mesh], matrix_world: np.ndarray) -> np.ndarray:
    """(N,3) float64 world-space vertex positions of ``mesh`` (empty when there is no mesh)."""
    if mesh is None or len(mesh.vertices) == 0:
        return np.empty((0, 3), dtype=np.float64)
    local = _corner_or_point_array(mesh, 'position', (mesh.vertices, 'co'), 3, np.float32)
    local = local.reshape(-1, 3).astype(np.float64)
    return local @ matrix_world[:3, :3].T + matrix_world[:3, 3]


class ObjectGeometryError(Exception):
    """An object's evaluated geometry cannot be analysed; the message names the object."""


def require_measurable(name: str, points: np.ndarray) -> np.ndarray:
    """``points`` when there are some and all are finite, else ObjectGeometryError naming the object."""
    if len(points) == 0:
        raise ObjectGeometryError(f"{name} has no vertices to analyse")
    if not np.isfinite(points).all():
        raise ObjectGeometryError(f"{name} has non-finite vertex coordinates (NaN or infinity)")
    return points


def evaluated_world_points(obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph) -> np.ndarray:
    """(N,3) float64 world-space vertices of the object as evaluated (modifiers, parents, scale)."""
    with evaluated_mesh(obj, depsgraph) as (mesh, matrix_world):
        return world_points(mesh, matrix_world)


def is_closed(mesh: bpy.types.Mesh) -> bool:
    """True when the mesh has faces and every edge has exactly two face corners (it encloses a volume)."""
    if len(mesh.polygons) == 0 or len(mesh.edges) == 0:
        return False
    corner_edges = _corner_or_point_array(mesh, '.corner_edge', (mesh.loops, 'edge_index'), 1, np.int32)
    return bool(np.all(np.bincount(corner_edges, minlength=len(mesh.edges)) == 2))


def closed_mesh_volume(mesh: bpy.types.Mesh, points: np.ndarray) -> float:
    """Enclosed volume of a closed ``mesh`` (see ``is_closed``) with vertices at ``points``.

    The sum of signed tetrahedra over the fan-triangulated faces is the volume whatever the origin
    (its sign flips with negative scale, hence the absolute value).
    """
    corner_verts = _corner_or_point_array(mesh, '.corner_vert', (mesh.loops, 'vertex_index'), 1, np.int32)
    face_starts = np.empty(len(mesh.polygons), dtype=np.int32)
    mesh.polygons.foreach_get('loop_start', face_starts)
    # A face's fan of tetrahedra from the origin sums to p0 . sum_i (p_i x p_i+1) over its corner loop.
    # float32 components relative to one vertex, as contiguous rows, keep the per-corner arrays cheap.
    next_corner = np.arange(1, len(corner_verts) + 1)
    next_corner[np.append(face_starts[1:], len(corner_verts)) - 1] = face_starts
    x, y, z = (points - points[0]).astype(np.float32).T.copy()[:, corner_verts]
    xn, yn, zn = x[next_corner], y[next_corner], z[next_corner]
    crosses = (y * zn - z * yn, z * xn - x * zn, x * yn - y * xn)
    cross_sums = (np.add.reduceat(c, face_starts) for c in crosses)
    volume = sum(np.dot(p[face_starts].astype(np.float64), c) for p, c in zip((x, y, z), cross_sums))
    return abs(float(volume)) / 6.0


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
    if mesh is None or len(points) < 4 or not is_closed(mesh):
        return ""
    if len(points) > HULL_CHECK_MAX_VERTICES:
        return (
            f"{name} has {len(points):,} vertices, too many for the convexity check; "
            "the results are about its convex hull"
        )
    volume = closed_mesh_volume(mesh, points)
    hull_volume = hull_volume_lower_bound(points)
    if hull_volume <= volume * (1.0 + HULL_VOLUME_EXCESS):
        return ""
    ratio = f"{hull_volume / volume:.2g}\u00d7 its volume" if volume > 0 else "volume where it has none"
    return f"{name} is not convex: its convex hull has {ratio}; the results are about the hull"
