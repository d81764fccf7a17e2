"""The same benchmark scene in every run, and a fingerprint of its answers to show it (shared by the scene builders).

Blender's ``bmesh.ops.create_uvsphere`` lists the faces it makes in an order that changes from process to process
(the vertices and the faces themselves do not); the order decides how faces are split into triangles and the
trees built over them, so the answers' last bits changed between runs. ``mesh_from_bmesh`` sorts the faces.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import bpy

#: Report fields that are times, not answers (left out of the fingerprint).
TIMES = frozenset({"seconds", "elapsed", "time"})


def mesh_from_bmesh(bm, name: str) -> bpy.types.Mesh:
    """A new mesh of ``bm``'s geometry (``bm`` is freed), its faces sorted (``sort_faces``)."""
    import bpy  # here: ``answers_digest`` serves scripts run without Blender too
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    sort_faces(mesh)
    return mesh


def sort_faces(mesh: bpy.types.Mesh) -> None:
    """Put ``mesh``'s faces in the order of their vertex indices as tuples (each face's corners as they were), so
    that a mesh made the same way has the same faces in the same order in every process. Vertices keep their order;
    edges are made again from the faces; other layers (UVs, attributes) are dropped."""
    count = len(mesh.polygons)
    starts, sizes = np.empty(count, np.int32), np.empty(count, np.int32)
    mesh.polygons.foreach_get("loop_start", starts)
    mesh.polygons.foreach_get("loop_total", sizes)
    corners = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", corners)
    points = np.empty(3 * len(mesh.vertices), np.float32)
    mesh.vertices.foreach_get("co", points)
    within = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    table = np.full((count, int(sizes.max(initial=0))), -1, np.int64)  # shorter faces padded with -1: sort first
    table[np.repeat(np.arange(count), sizes), within] = corners[np.repeat(starts, sizes) + within]
    table = table[np.lexsort(table.T[::-1])]
    sizes = (table >= 0).sum(axis=1).astype(np.int32)
    mesh.clear_geometry()
    mesh.vertices.add(len(points) // 3)
    mesh.vertices.foreach_set("co", points)
    mesh.loops.add(int(sizes.sum()))
    mesh.loops.foreach_set("vertex_index", table[table >= 0].astype(np.int32))
    mesh.polygons.add(count)
    mesh.polygons.foreach_set("loop_start", (np.cumsum(sizes) - sizes).astype(np.int32))
    mesh.update(calc_edges=True)


def answers_digest(results: list[dict]) -> str:
    """The first 16 hex digits of the SHA-256 of a report's results (JSON rows, times left out, every float as
    Python writes it: all its digits): equal in two runs when every answer is equal to the last bit."""
    rows = [{key: value for key, value in row.items() if key not in TIMES} for row in results]
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16]
