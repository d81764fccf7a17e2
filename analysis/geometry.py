"""Evaluated world-space geometry of Blender objects as numpy arrays (vertices and triangles).

Everything is read with ``foreach_get`` and transformed with one numpy matrix product, so modifiers,
parents, constraints and any (non-uniform, negative) scale are those Blender itself evaluated.
"""

from dataclasses import dataclass
from typing import Optional

import bpy
import numpy as np

# Object types whose evaluated data can be converted to a mesh (Object.to_mesh()).
GEOMETRY_TYPES = frozenset({'MESH', 'CURVE', 'SURFACE', 'FONT', 'META'})
#: Meshes with fewer faces read Blender's loop triangles (``mesh_arrays``): below about a thousand faces that
#: costs less than splitting the quads in numpy, above it more (2,048 faces: 1.2 against 0.9 ms).
SPLIT_MIN_FACES = 1024


def has_geometry(obj: bpy.types.Object) -> bool:
    """True for objects whose evaluated data is (or converts to) a mesh."""
    return obj.type in GEOMETRY_TYPES


class evaluated_mesh:  # noqa: N801 (a context manager, named as the function it was)
    """``with evaluated_mesh(obj, depsgraph) as (mesh, matrix_world)``: the evaluated object's mesh and its world
    matrix (4x4 float64); the temporary mesh is freed on exit. (A class: ``contextlib.contextmanager``'s generator
    costs several microseconds a use, and every small object of a check is read through it.)"""

    def __init__(self, obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph):
        self.evaluated = obj.evaluated_get(depsgraph)

    def __enter__(self) -> tuple:
        evaluated = self.evaluated
        mesh = evaluated.to_mesh()
        try:
            return mesh, np.array(evaluated.matrix_world, dtype=np.float64)
        except BaseException:
            evaluated.to_mesh_clear()
            raise

    def __exit__(self, *_exception) -> None:
        self.evaluated.to_mesh_clear()


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


def local_positions(mesh: Optional[bpy.types.Mesh]) -> np.ndarray:
    """(N,3) float32 vertex positions of ``mesh`` in its own space, as Blender stores them."""
    if mesh is None or len(mesh.vertices) == 0:
        return np.empty((0, 3), dtype=np.float32)
    return _corner_or_point_array(mesh, 'position', (mesh.vertices, 'co'), 3, np.float32).reshape(-1, 3)


def to_world(local: np.ndarray, matrix_world: np.ndarray) -> np.ndarray:
    """(N,3) float64 world-space positions of the (N,3) ``local`` ones under ``matrix_world`` (numpy alone)."""
    if len(local) == 0:
        return np.empty((0, 3), dtype=np.float64)
    return local.astype(np.float64) @ matrix_world[:3, :3].T + matrix_world[:3, 3]


def world_points(mesh: Optional[bpy.types.Mesh], matrix_world: np.ndarray) -> np.ndarray:
    """(N,3) float64 world-space vertex positions of ``mesh`` (empty when there is no mesh)."""
    return to_world(local_positions(mesh), matrix_world)


@dataclass(frozen=True)
class MeshArrays:
    """What reading an evaluated mesh copies out of Blender, in bulk (``mesh_arrays``, on the main thread); its
    triangles and world coordinates are computed from these copies with numpy alone (``triangles``, ``to_world``),
    so that work may run on a worker thread while the interface goes on.

    ``positions``: (N,3) float32 in the mesh's own space. For a mesh of triangles and quads, ``face_starts`` (F,)
    and ``corner_verts`` (C,), int32; for a mesh with n-gons or a small one, Blender's own split in
    ``loop_triangles`` (M,3) int32 instead (``face_starts`` and ``corner_verts`` empty)."""

    positions: np.ndarray
    face_starts: np.ndarray
    corner_verts: np.ndarray
    loop_triangles: Optional[np.ndarray] = None

    @property
    def triangle_count(self) -> int:
        """How many triangles ``triangles`` gives (without splitting the faces)."""
        if self.loop_triangles is not None:
            return len(self.loop_triangles)
        return len(self.corner_verts) - 2 * len(self.face_starts)

    def triangles(self) -> np.ndarray:
        """(M,3) int64 vertex indices of the triangles, faces split as Blender draws them, in its order (numpy
        alone: quads by Blender's own rule, ``quad_triangle_corners``)."""
        if self.loop_triangles is not None:
            return self.loop_triangles.astype(np.int64)
        if len(self.face_starts) == 0:
            return np.empty((0, 3), dtype=np.int64)
        sizes = np.diff(self.face_starts, append=len(self.corner_verts))
        corners = quad_triangle_corners(self.face_starts, sizes, self.corner_verts, self.positions)
        return self.corner_verts[corners].astype(np.int64)


def triangles_of_many(meshes: list[MeshArrays]) -> list[np.ndarray]:
    """``MeshArrays.triangles`` of each of ``meshes``, the quads of all those to be split in numpy split together
    (``quad_triangle_corners`` works face by face: the same triangles as each mesh's own)."""
    split = [k for k, arrays in enumerate(meshes) if arrays.loop_triangles is None and len(arrays.face_starts)]
    found = [None if arrays.loop_triangles is None and len(arrays.face_starts) else arrays.triangles()
             for arrays in meshes]
    if not split:
        return found
    chosen = [meshes[k] for k in split]
    corner_starts = np.cumsum([0] + [len(arrays.corner_verts) for arrays in chosen]).tolist()
    vertex_starts = np.cumsum([0] + [len(arrays.positions) for arrays in chosen]).tolist()
    starts = np.concatenate([arrays.face_starts.astype(np.int64) + start
                             for arrays, start in zip(chosen, corner_starts)])
    corner_verts = np.concatenate([arrays.corner_verts.astype(np.int64) + start
                                   for arrays, start in zip(chosen, vertex_starts)])
    sizes = np.diff(starts, append=len(corner_verts))
    positions = np.concatenate([arrays.positions for arrays in chosen])
    triangles = corner_verts[quad_triangle_corners(starts, sizes, corner_verts, positions)].astype(np.int64)
    ends = np.cumsum([arrays.triangle_count for arrays in chosen]).tolist()
    for k, start, end, vertex_start in zip(split, [0] + ends[:-1], ends, vertex_starts):
        found[k] = triangles[start:end] - vertex_start
    return found


def mesh_arrays(mesh: Optional[bpy.types.Mesh], triangles: bool = True,
                local: Optional[np.ndarray] = None) -> MeshArrays:
    """The mesh's arrays (``MeshArrays``), copied in bulk: the positions, the faces' first corners and the
    corners' vertices (an attribute copied at once), for ``MeshArrays.triangles`` to split the faces with Blender's
    own rule for quads; everything big meshes are made of (subdivided, sculpted, scanned) is triangles and quads.
    For a mesh with n-gons (or faces out of order), Blender's loop triangles, which ``foreach_get`` reads element by
    element, about five times as long on the main thread; for a mesh of fewer than ``SPLIT_MIN_FACES`` faces too:
    the split's numpy calls would cost it more (a 128-face sphere 0.35 against 0.07 ms; 2,000 small objects read
    0.5 s sooner). With ``triangles`` False, no face is read (``loop_triangles`` None and no faces: the caller reads
    them later, giving the positions read then as ``local``, or never)."""
    no_faces = np.empty(0, dtype=np.int32)
    local = local_positions(mesh) if local is None else local
    faces = 0 if mesh is None or not triangles else len(mesh.polygons)  # (asked once: each question goes to Blender)
    if faces == 0:
        return MeshArrays(local, no_faces, no_faces)
    if faces < SPLIT_MIN_FACES:
        return MeshArrays(local, no_faces, no_faces, loop_triangles(mesh))
    starts = np.empty(faces, dtype=np.int32)
    mesh.polygons.foreach_get('loop_start', starts)
    sizes = np.diff(starts, append=len(mesh.loops))
    if sizes.min() < 3 or sizes.max() > 4:  # n-gons (or faces out of order): Blender's own split
        return MeshArrays(local, no_faces, no_faces, loop_triangles(mesh))
    corner_verts = _corner_or_point_array(mesh, '.corner_vert', (mesh.loops, 'vertex_index'), 1, np.int32)
    return MeshArrays(local, starts, corner_verts)


def world_triangles(mesh: Optional[bpy.types.Mesh]) -> np.ndarray:
    """(M,3) int64 vertex indices of the mesh's triangles (faces split as Blender draws them, in its order)."""
    return mesh_arrays(mesh).triangles()


def loop_triangles(mesh: bpy.types.Mesh) -> np.ndarray:
    """(M,3) int32 vertex indices of Blender's own loop triangles."""
    mesh.calc_loop_triangles()
    indices = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get('vertices', indices)
    return indices.reshape(-1, 3)


def quad_triangle_corners(starts: np.ndarray, sizes: np.ndarray, corner_verts: np.ndarray,
                          positions: np.ndarray) -> np.ndarray:
    """(M,3) corner indices of the triangles of faces of 3 or 4 corners (``starts``, ``sizes``), in Blender's order
    and split (``mesh_tessellate``): a triangle as it is; a quad 0 1 2 3 as (0 1 2, 0 2 3), or as (0 1 3, 1 2 3)
    when corners 1 and 3 lie on the same side of the diagonal 0-2 (Blender's ``is_quad_flip_v3_first_third_fast``,
    in single precision and the same order of operations, so the same split)."""
    offsets = np.zeros(len(sizes), dtype=np.int64)
    np.cumsum(sizes[:-1] - 2, out=offsets[1:])
    corners = np.empty((int(offsets[-1]) + int(sizes[-1]) - 2, 3), dtype=np.int32)
    for k in range(3):  # each face's first triangle: 0 1 2 (a column at a time: far quicker than rows)
        corners[offsets, k] = starts + k
    quads = np.flatnonzero(sizes == 4)
    first, second = starts[quads], offsets[quads] + 1
    for k, corner in enumerate((0, 2, 3)):  # a quad's second: 0 2 3
        corners[second, k] = first + corner
    x, y, z = (np.ascontiguousarray(column) for column in positions.T)
    v1, v2, v3, v4 = (corner_verts[first + k] for k in range(4))
    d12 = (x[v2] - x[v1], y[v2] - y[v1], z[v2] - z[v1])
    d13 = (x[v3] - x[v1], y[v3] - y[v1], z[v3] - z[v1])
    d14 = (x[v4] - x[v1], y[v4] - y[v1], z[v4] - z[v1])
    cross_a, cross_b = _cross(d12, d13), _cross(d14, d13)
    flip = cross_a[0] * cross_b[0] + cross_a[1] * cross_b[1] + cross_a[2] * cross_b[2] > np.float32(0.0)
    flipped_first, flipped_second = offsets[quads[flip]], second[flip]
    corners[flipped_first, 2] = corners[flipped_second, 2]  # (0 1 3, 1 2 3), as Blender flips them
    corners[flipped_second, 0] = corners[flipped_first, 1]
    return corners


def _cross(a: tuple, b: tuple) -> tuple:
    """The cross product of two vectors given as (x, y, z) columns, in Blender's order of operations."""
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


class ObjectGeometryError(Exception):
    """An object's evaluated geometry cannot be analysed; the message names the object."""
