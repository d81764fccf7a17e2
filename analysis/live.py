"""Live update: with ``scene.collision_inspector.live_update`` on, the stored pairs are measured again
whenever one of their objects moves or changes shape (grab, N-panel, drivers, constraints, scripts).

A ``depsgraph_update_post`` handler collects the objects the update moved (``is_updated_transform``) or
reshaped (``is_updated_geometry``) and re-measures the stored results that point to them, in place
(``store.update_results``). Shapes are prepared once per object (``SolidCache``): a moved object's
prepared shape is moved with it (``core.mesh.Solid.transformed``), only an object whose geometry changed
is read again. Pairs with an instanced object ("Instancer ▸ Object") or a deleted one are left as they
are (tracking marks them stale). The handler's own writes to the results cause another depsgraph update
(of the scene, not of objects); a guard keeps it from re-entering anyway.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import bpy
import numpy as np
from bpy.app.handlers import persistent

from ..core.mesh import Solid, collide_solid_pairs
from .clash import _status, clash_result
from .geometry import ObjectGeometryError
from .shapes import INSTANCE_SEPARATOR, Source, read_solid
from .store import update_results
from . import tracking

#: A matrix whose linear part has a smaller determinant is treated as singular (the object is read again).
SINGULAR = 1e-12


@dataclass
class _Entry:
    """An object's Solid as read at ``matrix`` (and its inverse), and the last moved copy handed out."""

    matrix: np.ndarray
    inverse: np.ndarray
    solid: Solid
    use_hull: bool
    data: int
    last_matrix: np.ndarray
    last_solid: Solid


class SolidCache:
    """Each object's prepared ``Solid``, read once and moved to wherever the object is now."""

    def __init__(self) -> None:
        self._entries: dict[int, _Entry] = {}

    def solid(self, obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph, use_hull: bool,
              reread: bool = False) -> Solid:
        """``obj``'s evaluated shape in world space; read again when ``reread`` (its geometry changed),
        else the cached one moved by the object's current matrix. Raises ObjectGeometryError."""
        matrix = np.array(obj.evaluated_get(depsgraph).matrix_world, dtype=np.float64)
        entry = self._entries.get(obj.as_pointer())
        data = obj.data.as_pointer() if obj.data is not None else 0
        if reread or entry is None or entry.use_hull != use_hull or entry.data != data:
            solid = read_solid(Source(obj.name, obj, obj), depsgraph, use_hull)
            if abs(np.linalg.det(matrix[:3, :3])) > SINGULAR:
                self._entries[obj.as_pointer()] = _Entry(matrix, np.linalg.inv(matrix), solid, use_hull, data,
                                                           matrix, solid)
            return solid
        if not np.array_equal(matrix, entry.last_matrix):
            if abs(np.linalg.det(matrix[:3, :3])) <= SINGULAR:
                return self.solid(obj, depsgraph, use_hull, reread=True)
            entry.last_matrix, entry.last_solid = matrix, entry.solid.transformed(matrix @ entry.inverse)
        return entry.last_solid

    def clear(self) -> None:
        self._entries.clear()


#: The shapes of the live update (dropped when it is switched, and with the handlers).
_cache = SolidCache()
#: Called after results were re-measured (the overlay's refresh, installed by ``add_handlers``; the
#: analysis layer does not import the interface).
_on_results_changed: list = []
#: True while the handler measures: the depsgraph updates its own writes cause are not edits.
_busy = [False]


@contextmanager
def paused():
    """No live update inside (an animation scan steps through frames; its results come after)."""
    previous, _busy[0] = _busy[0], True
    try:
        yield
    finally:
        _busy[0] = previous


def measurable(result) -> bool:
    """Both objects exist and neither is an instanced object (those are measured through their instancer)."""
    return (result.object_a is not None and result.object_b is not None
            and INSTANCE_SEPARATOR not in result.name_a + result.name_b)


def remeasure(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, indices, cache: SolidCache,
              reread: set | None = None) -> list[int]:
    """Measure the stored results at ``indices`` again and write them in place; the indices measured.

    ``reread``: pointers of objects whose geometry changed (read again once, then moved like the others).
    Thresholds are the scene's (tolerance, clearance, iterations) and the results' touch tolerance.
    Then the callback given to ``add_handlers`` (the overlay's refresh) is called.
    """
    settings = scene.collision_inspector
    results = settings.results
    reread = set() if reread is None else set(reread)
    pairs, measured = [], []
    for index in indices:
        result = results[index]
        if not measurable(result):
            continue
        try:
            solids = []
            for obj in (result.object_a, result.object_b):
                solids.append(cache.solid(obj, depsgraph, settings.use_hulls, obj.as_pointer() in reread))
                reread.discard(obj.as_pointer())
        except ObjectGeometryError:
            continue
        pairs.append(tuple(solids))
        measured.append(index)
    if not measured:
        return []
    touch = results[measured[0]].tolerance
    contacts = collide_solid_pairs(pairs, tolerance=settings.tolerance, touch_tolerance=touch,
                                   max_iterations=settings.max_iterations or None, clearance=settings.clearance)
    updates = {}
    for index, contact in zip(measured, contacts):
        result = results[index]
        status = _status(contact.signed_distance, contact.status, settings.clearance)
        updates[index] = clash_result(result.name_a, result.name_b, status, contact)
    update_results(settings, updates)
    for refresh in _on_results_changed:
        refresh()
    return measured


def changed_objects(depsgraph: bpy.types.Depsgraph) -> tuple[set, set]:
    """``(moved, reshaped)`` pointers of the original objects this update moved or changed the geometry of."""
    moved, reshaped = set(), set()
    for update in depsgraph.updates:
        data = update.id
        if isinstance(data, bpy.types.Object):
            if update.is_updated_geometry:
                reshaped.add(data.original.as_pointer())
            elif update.is_updated_transform:
                moved.add(data.original.as_pointer())
    return moved, reshaped


@persistent
def on_depsgraph_update(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph) -> None:
    """Re-measure the stored pairs of moved or reshaped objects (live update on)."""
    settings = getattr(scene, "collision_inspector", None)
    if _busy[0] or settings is None or not settings.live_update or not len(settings.results):
        return
    moved, reshaped = changed_objects(depsgraph)
    if not moved and not reshaped:
        return
    objects = tracking.objects_of_results(scene, settings.results)
    indices = sorted({index for pointer in moved | reshaped if pointer in objects for index in objects[pointer][1]})
    if not indices:
        return
    _busy[0] = True
    try:
        remeasure(scene, depsgraph, indices, _cache, reshaped)
    finally:
        _busy[0] = False


def switched(settings) -> None:
    """The live update was switched: forget the prepared shapes; switched on, measure every pair now."""
    _cache.clear()
    if not settings.live_update or not len(settings.results) or _busy[0]:
        return
    scene = settings.id_data
    _busy[0] = True
    try:
        remeasure(scene, bpy.context.evaluated_depsgraph_get(), range(len(settings.results)), _cache)
    finally:
        _busy[0] = False


@persistent
def on_data_replaced(*_args) -> None:
    """File loaded, undo or redo: objects are new data, their prepared shapes go."""
    _cache.clear()


def _handler_lists() -> tuple:
    handlers = bpy.app.handlers
    return ((handlers.depsgraph_update_post, on_depsgraph_update),
            *((handler_list, on_data_replaced) for handler_list in (handlers.load_post, handlers.undo_post,
                                                                    handlers.redo_post)))


def add_handlers(on_results_changed=None) -> None:
    """Install the handlers once (after tracking's, so a re-measured result is not left stale);
    ``on_results_changed()`` is called whenever re-measured results were stored (the overlay's refresh)."""
    remove_handlers()
    if on_results_changed is not None:
        _on_results_changed.append(on_results_changed)
    for handler_list, function in _handler_lists():
        handler_list.append(function)


def remove_handlers() -> None:
    """Remove what ``add_handlers`` installed (safe to call twice) and drop the prepared shapes."""
    for handler_list, function in _handler_lists():
        for existing in list(handler_list):
            if (getattr(existing, "__qualname__", None), getattr(existing, "__module__", None)) == (
                    function.__qualname__, function.__module__):
                handler_list.remove(existing)
    _on_results_changed.clear()
    _cache.clear()
