"""Evaluated world-space geometry of Blender objects as numpy arrays (vertices and triangles).

Everything is read with ``foreach_get`` and transformed with one numpy matrix product, so modifiers,
parents, constraints and any (non-uniform, negative) scale are those Blender itself evaluated.
"""

from contextlib import contextmanager
from typing import Iterator, Optional

import bpy
import numpy as np

# Object types whose evaluated data can be converted to a mesh (Object.to_mesh()).
GEOMETRY_TYPES = frozenset({'MESH', 'CURVE', 'SURFACE', 'FONT', 'META'})


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


def world_triangles(mesh: Optional[bpy.types.Mesh]) -> np.ndarray:
    """(M,3) int64 vertex indices of the mesh's triangles (faces split as Blender draws them)."""
    if mesh is None or len(mesh.polygons) == 0:
        return np.empty((0, 3), dtype=np.int64)
    mesh.calc_loop_triangles()
    indices = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get('vertices', indices)
    return indices.reshape(-1, 3).astype(np.int64)


class ObjectGeometryError(Exception):
    """An object's evaluated geometry cannot be analysed; the message names the object."""
