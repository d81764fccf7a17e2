"""Keep stored results honest while the scene changes: objects that move or change shape make their results
stale, and objects the user deleted are released from the results' pointers (docs/architecture.md, "Stale
results and deleted objects").
"""

from __future__ import annotations

import bpy
import numpy as np
from bpy.app.handlers import persistent

from .app_handlers import DATA_REPLACED, add_handler, remove_handler
from . import analysed_shapes
from .shapes import instanced_objects, is_collection_instancer

_index: dict = {"key": None, "objects": {}, "generation": 0}
#: After a file load, undo or redo the next update re-evaluates objects that did not move: skip it.
_skip_next_update = [False]


def forget() -> None:
    """The stored results changed (stored, cleared, or replaced by undo or a file load): index them again
    on the next update, and let caches keyed on ``results_generation`` go."""
    _index["key"] = None
    _index["objects"] = {}
    _index["generation"] += 1


def results_generation() -> int:
    """A number that changes whenever ``forget`` is called: caches of anything derived from the stored
    results (their order, say) are valid while it stays the same."""
    return _index["generation"]


def objects_of_results(scene: bpy.types.Scene, results) -> dict:
    """``{object pointer: (object, [result indices])}`` of the objects the results point to."""
    key = (scene.as_pointer(), len(results))
    if _index["key"] != key:
        objects: dict = {}
        for index, result in enumerate(results):
            for obj in (result.object_a, result.object_b):
                if obj is not None:
                    objects.setdefault(obj.as_pointer(), (obj, []))[1].append(index)
        _index["key"], _index["objects"] = key, objects
    return _index["objects"]


def results_of_changed(scene: bpy.types.Scene, results, changed: set) -> list[int]:
    """Indices of the results that the objects at ``changed`` (pointers) belong to, directly or as objects
    that a result's instancer shows (looked for only when a changed object is not a result's own)."""
    objects = objects_of_results(scene, results)
    indices = {index for pointer in changed if pointer in objects for index in objects[pointer][1]}
    if not changed <= objects.keys():
        unknown = changed - objects.keys()
        for obj, owned in objects.values():
            try:
                if is_collection_instancer(obj) and unknown & instanced_objects(obj):
                    indices.update(owned)
            except ReferenceError:
                continue
    return sorted(indices)


def mark_stale(results, indices: np.ndarray) -> None:
    """Set ``stale`` on the results at ``indices`` (one ``foreach_get``/``foreach_set``, no per-result loop)."""
    stale = np.empty(len(results), dtype=bool)
    results.foreach_get("stale", stale)
    if not stale[indices].all():
        stale[indices] = True
        results.foreach_set("stale", stale)


def release_deleted(results, objects: dict) -> int:
    """Clear the pointers to objects that only the results keep alive outside every collection, and remove
    those objects (see the module's docstring); how many were removed."""
    removed = 0
    for obj, indices in list(objects.values()):
        try:
            kept_by_results_only = (not obj.users_collection and not obj.use_fake_user and obj.library is None
                                    and obj.users <= len(indices))
        except ReferenceError:
            continue
        if not kept_by_results_only:
            continue
        for index in indices:
            result = results[index]
            if result.object_a == obj:
                result.object_a = None
            if result.object_b == obj:
                result.object_b = None
        if obj.users == 0:
            bpy.data.objects.remove(obj)
            removed += 1
    if removed:
        forget()
    return removed


@persistent
def on_depsgraph_update(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph) -> None:
    """Mark the results of moved or reshaped objects stale; release deleted objects."""
    if _skip_next_update[0]:
        _skip_next_update[0] = False
        return
    analysed_shapes.forget({update.id.original.as_pointer() for update in depsgraph.updates
                            if isinstance(update.id, bpy.types.Object) and update.is_updated_geometry})
    settings = getattr(scene, "collision_inspector", None)
    if settings is None or not len(settings.results):
        return
    changed, relinked = set(), False
    for update in depsgraph.updates:
        data = update.id
        if isinstance(data, bpy.types.Object) and (update.is_updated_transform or update.is_updated_geometry):
            changed.add(data.original.as_pointer())
        elif isinstance(data, bpy.types.Collection):
            relinked = True
    if not changed and not relinked:
        return
    hits = results_of_changed(scene, settings.results, changed)
    if hits:
        mark_stale(settings.results, np.asarray(hits, dtype=np.int64))
    if relinked:
        release_deleted(settings.results, objects_of_results(scene, settings.results))


@persistent
def on_data_replaced(*_args) -> None:
    """File loaded, undo or redo: the results and objects are new data; the next update is no edit."""
    forget()
    analysed_shapes.clear()
    _skip_next_update[0] = True


def add_handlers() -> None:
    """Install the handlers once (a reloaded module replaces its earlier copies)."""
    remove_handlers()
    add_handler(on_depsgraph_update, "depsgraph_update_post")
    add_handler(on_data_replaced, *DATA_REPLACED)


def remove_handlers() -> None:
    """Remove what ``add_handlers`` installed (safe to call twice)."""
    remove_handler(on_depsgraph_update, "depsgraph_update_post")
    remove_handler(on_data_replaced, *DATA_REPLACED)
    forget()
    analysed_shapes.clear()
