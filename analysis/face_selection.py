"""Select faces of a mesh object by the indices of its evaluated triangles (for Edit Mode).

The evaluated triangles map to the object's own faces only when its modifiers keep its faces as they are
(same faces, same triangles): then each triangle's face is the one its loop triangle belongs to. Otherwise
there is nothing to select in the object's own mesh, and ``select_faces`` says why.
"""

from __future__ import annotations

import bmesh
import bpy
import numpy as np

from .geometry import evaluated_mesh


def triangle_faces(mesh: bpy.types.Mesh) -> np.ndarray:
    """(M,) the face of each of the mesh's loop triangles."""
    mesh.calc_loop_triangles()
    faces = np.empty(len(mesh.loop_triangles), dtype=np.int32)
    mesh.loop_triangles.foreach_get("polygon_index", faces)
    return faces


def select_faces(obj: bpy.types.Object, triangles: np.ndarray, depsgraph: bpy.types.Depsgraph,
                 triangle_count: int | None = None) -> str:
    """Select exactly the faces of ``obj`` holding its evaluated ``triangles`` (everything else deselected), in
    Edit Mode if it is in it; '' when done, else why not. ``triangle_count``: how many evaluated triangles it had
    when ``triangles`` were found (an object edited since then is left alone)."""
    if obj.type != 'MESH':
        return f"{obj.name} is not a mesh: its faces cannot be selected"
    mesh = obj.data
    with evaluated_mesh(obj, depsgraph) as (evaluated, _matrix):
        same = len(evaluated.polygons) == len(mesh.polygons) and len(evaluated.vertices) == len(mesh.vertices)
        if same:
            evaluated_faces = triangle_faces(evaluated)
    if obj.mode == 'EDIT':
        obj.update_from_editmode()
    if not same or len(evaluated_faces) != len(triangle_faces(mesh)):
        return f"{obj.name}'s modifiers change its faces: apply them to select the faces"
    if triangle_count is not None and len(evaluated_faces) != triangle_count:
        return f"{obj.name} changed during the check: check it again to select its faces"
    chosen = np.zeros(len(mesh.polygons), dtype=bool)
    chosen[evaluated_faces[triangles]] = True
    editing = obj.mode == 'EDIT'
    faces = bmesh.from_edit_mesh(mesh) if editing else bmesh.new()
    if not editing:
        faces.from_mesh(mesh)
    for elements in (faces.verts, faces.edges, faces.faces):
        for element in elements:
            element.select = False
    faces.select_mode = {'FACE'}  # (in vertex mode a face whose corners are all selected would be selected too)
    faces.faces.ensure_lookup_table()
    for index in np.flatnonzero(chosen).tolist():
        faces.faces[index].select_set(True)
    faces.select_flush_mode()
    if editing:
        bmesh.update_edit_mesh(mesh, loop_triangles=False, destructive=False)
    else:
        faces.to_mesh(mesh)
        faces.free()
        mesh.update()
    return ""
