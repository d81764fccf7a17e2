"""The active penetrating result's overlap solid for the overlay, computed outside the draw callbacks.

The draw callbacks ask ``current`` (a cheap key: the result, its numbers, both objects' placement and data); when
the cached solid is not for that key they get None and an idle-time ``update`` is asked for, which runs the exact
Boolean (``analysis.overlap_object.overlap_mesh``) once and redraws. So a redraw never measures anything.
"""

from __future__ import annotations

import bpy

from ..analysis.overlap_object import NoOverlap, OverlapMesh, overlap_mesh
from ..analysis.shapes import subdivided_faces_at_least
from ..analysis.solid_cache import data_identity

#: Pairs whose evaluated meshes have more faces than this together get no solid drawn: the Boolean runs in the
#: interface's idle time and would hold it (about 0.8 s for 32k faces, 2.4 s for 127k); Make Overlap Object still
#: makes it on request.
MAX_FACES = 40_000

_cache: dict = {"key": None, "mesh": None}


def pair_key(scene: bpy.types.Scene) -> tuple | None:
    """What the active result's overlap solid depends on, or None when there is none to draw (no active
    penetrating result with a measured overlap volume, or Overlap switched off)."""
    settings = getattr(scene, "collision_inspector", None)
    if settings is None or not settings.show_overlap:
        return None
    index = settings.active_result_index
    if not 0 <= index < len(settings.results):
        return None
    result = settings.results[index]
    if result.status != 'penetrating' or result.volume_pending or result.overlap_volume <= 0.0:
        return None
    objects = (result.object_a, result.object_b)
    if None in objects:
        return None
    return (scene.as_pointer(), index, result.name_a, result.name_b, result.overlap_volume,
            *(data_identity(obj) for obj in objects),
            *(tuple(value for row in obj.matrix_world for value in row) for obj in objects))


def current(scene: bpy.types.Scene) -> OverlapMesh | None:
    """The cached overlap solid of the active result when it is up to date; otherwise None, and an ``update`` is
    asked for (when there is a solid to compute)."""
    key = pair_key(scene)
    if key is None:
        return None
    if _cache["key"] == key:
        return _cache["mesh"]
    if not bpy.app.timers.is_registered(_update_later):
        bpy.app.timers.register(_update_later, first_interval=0.0)
    return None


def update(context: bpy.types.Context) -> OverlapMesh | None:
    """Compute the active result's overlap solid of ``context.scene`` unless the cached one is up to date; returns
    it (None when there is none). The user's objects and data are left as they were."""
    scene = context.scene
    key = pair_key(scene)
    if key is not None and _cache["key"] != key:
        result = scene.collision_inspector.results[key[1]]
        mesh = None
        if pair_faces(context, result) <= MAX_FACES:
            try:
                mesh = overlap_mesh(context, result)
            except NoOverlap:
                pass
        _cache.update(key=key, mesh=mesh)
    return _cache["mesh"] if key is not None else None


def pair_faces(context: bpy.types.Context, result) -> int:
    """How many faces the evaluated meshes of ``result``'s two objects have together; or, when their own faces and
    subdivision levels already make more than ``MAX_FACES``, at least how many (``subdivided_faces_at_least``: the
    evaluated meshes are not asked for, which would have Blender subdivide on the CPU what the viewport subdivides
    on the GPU, in the interface's idle time after every move)."""
    at_least = sum(subdivided_faces_at_least(obj) for obj in (result.object_a, result.object_b))
    if at_least > MAX_FACES:
        return at_least
    depsgraph = context.evaluated_depsgraph_get()
    evaluated = (obj.evaluated_get(depsgraph) for obj in (result.object_a, result.object_b))
    return sum(len(obj.data.polygons) if obj.type == 'MESH' else 0 for obj in evaluated)


def clear() -> None:
    """Forget the cached solid and any asked-for update (add-on switched off)."""
    _cache.update(key=None, mesh=None)
    if bpy.app.timers.is_registered(_update_later):
        bpy.app.timers.unregister(_update_later)


def _update_later() -> None:
    """Timer: compute what ``current`` asked for and redraw the viewports."""
    from .overlay import tag_redraw

    if update(bpy.context) is not None:
        tag_redraw()
