"""Live update: with ``live_update`` on, the stored pairs of objects that move or change shape are measured
again at each depsgraph update; while the interface runs, within a time budget per update, the rest in idle
time (``settle``), so a drag never freezes it (docs/architecture.md, "Live update").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import bpy
import numpy as np
from bpy.app.handlers import persistent

from .app_handlers import DATA_REPLACED, add_handler, remove_handler
from .geometry import ObjectGeometryError
from .remeasure import listen, mark_waiting, remeasure, stop_listening, stored_sources
from .solid_cache import SolidCache
from . import solid_cache, tracking

#: Seconds without a further live update after which the overlap volumes left out are measured.
SETTLE_SECONDS = 0.2
#: Seconds a ``settle`` call may go on measuring pending pairs before it lets the interface draw and take input
#: (it measures at least one; the rest follow at its next call, ``SETTLE_STEP_SECONDS`` later).
SETTLE_BUDGET_SECONDS = 0.05
SETTLE_STEP_SECONDS = 0.01
#: Seconds an update while the interface runs may spend before it starts no further full measurement of a pair
#: (non-convex pairs their last answers no longer prove) and no further EPA of an overlapping convex pair: those
#: left wait (stale, or answered from their last answers, bounded) for the next update or ``settle``, so that a drag
#: of many pairs never freezes the interface.
UPDATE_BUDGET_SECONDS = 0.012

#: The shapes of the live update (dropped when it is switched, and with the handlers).
_cache = SolidCache()
#: Called after results were re-measured (the overlay's refresh, installed by ``add_handlers``; the
#: analysis layer does not import the interface).
_on_results_changed: list = []
#: True while the handler measures: the depsgraph updates its own writes cause are not edits.
_busy = [False]


def prepared_shapes() -> SolidCache:
    """The live update's solid cache: the shapes it has read and prepared, and its pairs' warm starts."""
    return _cache


@contextmanager
def paused() -> Iterator[None]:
    """No live update inside (an animation scan steps through frames; its results come after)."""
    previous, _busy[0] = _busy[0], True
    try:
        yield
    finally:
        _busy[0] = previous


def _results_changed() -> None:
    """Call the callback given to ``add_handlers`` (the overlay's refresh)."""
    for refresh in _on_results_changed:
        refresh()


def _remeasured(indices: set[int]) -> None:
    """Results were measured again and stored (``remeasure``): nothing is left to prepare for them; refresh."""
    if _unprimed:
        _unprimed[:] = [index for index in _unprimed if index not in indices]
    _results_changed()


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
    indices = tracking.results_of_changed(scene, settings.results, moved | reshaped)
    if not indices:
        return
    later = solid_cache.measures_volumes_later()
    deferred = reshaped & _slow_edits if later else set()
    if deferred:  # still being edited, too slow to measure at every update: its pairs wait for ``settle``
        _cache.forget(deferred)
        waiting = set(tracking.results_of_changed(scene, settings.results, deferred))
        mark_waiting(settings.results, waiting)
        _results_changed()
        indices = [index for index in indices if index not in waiting]
    started = time.perf_counter()
    _busy[0] = True
    try:
        remeasure(scene, depsgraph, indices, _cache, reshaped - deferred, volumes=not later,
                  budget=UPDATE_BUDGET_SECONDS if later else None)
    finally:
        _busy[0] = False
    if later:
        if reshaped - deferred and time.perf_counter() - started > UPDATE_BUDGET_SECONDS:
            _slow_edits.update(reshaped - deferred)
        _settle_later()


def _settle_later() -> None:
    """(Re)start the countdown to ``settle``: it runs once no update came for ``SETTLE_SECONDS``."""
    _settle_queue.clear()
    if bpy.app.timers.is_registered(settle):
        bpy.app.timers.unregister(settle)
    bpy.app.timers.register(settle, first_interval=SETTLE_SECONDS, persistent=True)


#: The pending results ``settle`` has yet to measure in this round (indices; empty when a round starts).
_settle_queue: list[int] = []
#: The results ``settle`` has yet to measure since the live update was switched on while the interface runs.
_unprimed: list[int] = []
#: Pointers of objects whose geometry changed and whose pairs then took longer than ``UPDATE_BUDGET_SECONDS`` to
#: measure, or that took as long to read, prepare and measure a pair of after switching on (``_note_slow_edits``):
#: when they are edited (again), their pairs wait for ``settle`` (until live update is switched again).
_slow_edits: set[int] = set()
#: Seconds each object (pointer) took to read and prepare after live update was switched on (``_prepared_one``).
_preparing_seconds: dict[int, float] = {}


def settle() -> float | None:
    """Measure in full the current scene's results a live update left pending, and those not measured since the live
    update was switched on (``switched``: their objects read and prepared first, one per step), a pair at a time,
    then ready the separated non-convex pairs' starts for the next drag (``SolidCache.prepare_separation_starts``)
    and build the support tables the shapes read meanwhile wait for (``SolidCache.build_support_tables``), for at
    most ``SETTLE_BUDGET_SECONDS`` per call (at least one pair, object, start or table). The timer's callback: None
    once the round has measured every result pending when it started and every one switching on left, readied every
    start and built every table, ``SETTLE_STEP_SECONDS`` to go on with the rest, ``SETTLE_SECONDS`` to try again
    while a measurement or a scan is running."""
    if _busy[0]:
        return SETTLE_SECONDS
    # Evaluated before anything is measured, and not while busy: an edit made since the last evaluation (a script's
    # timer may move an object right before this call) reaches the live update like any other, instead of being
    # evaluated by a measurement below and ignored as the measurement's own write, its pair left stale.
    depsgraph = bpy.context.evaluated_depsgraph_get()
    scene = bpy.context.scene
    settings = getattr(scene, "collision_inspector", None)
    count = len(settings.results) if settings is not None else 0
    pending = np.zeros(count, dtype=bool)
    if count:
        settings.results.foreach_get("volume_pending", pending)
    if not _settle_queue:
        _settle_queue.extend(np.flatnonzero(pending).tolist())
    deadline = time.perf_counter() + SETTLE_BUDGET_SECONDS
    _busy[0] = True
    try:
        measured = False
        for queue, only_pending in ((_settle_queue, True), (_unprimed, False)):
            while queue and not (measured and time.perf_counter() >= deadline):
                index = queue.pop(0)
                if index >= count or not (pending[index] or not only_pending):  # the results may have changed since
                    continue
                if not only_pending and _prepared_one(settings, depsgraph, index):
                    queue.insert(0, index)  # its other object, or its measurement, at a later call
                else:
                    started = time.perf_counter()
                    remeasure(scene, depsgraph, [index], _cache)
                    if not only_pending:
                        _note_slow_edits(settings, depsgraph, index, time.perf_counter() - started)
                measured = True
        if not _settle_queue and not _unprimed and not (measured and time.perf_counter() >= deadline):
            readied = _cache.prepare_separation_starts(deadline)
            if not _cache.separation_starts_pending and not ((measured or readied) and time.perf_counter() >= deadline):
                _cache.build_support_tables(deadline)
    finally:
        _busy[0] = False
    more = _settle_queue or _unprimed or _cache.separation_starts_pending or _cache.support_tables_pending
    return SETTLE_STEP_SECONDS if more else None


def _prepared_one(settings, depsgraph: bpy.types.Depsgraph, index: int) -> bool:
    """Read and prepare (``SolidCache.prepare``) one object of the result at ``index`` that is not read yet, if any:
    after switching live update on, a timer call reads one object or measures one pair, not both (a 10k-vertex
    object takes 50-150 ms to read and prepare, its pair as much again to measure). Whether one was."""
    for source in stored_sources(depsgraph, settings.results, [index]).get(index, ()):
        if not _cache.has_read(source, settings.use_hulls):
            started = time.perf_counter()
            try:
                _cache.prepare(source, depsgraph, settings.use_hulls)
            except ObjectGeometryError:  # the measurement says which object, and why
                return False
            _preparing_seconds[source.obj.as_pointer()] = time.perf_counter() - started
            return _cache.has_read(source, settings.use_hulls)  # (not kept when its matrix is singular: measure it)
    return False


def _note_slow_edits(settings, depsgraph: bpy.types.Depsgraph, index: int, measuring: float) -> None:
    """Mark as slow to edit (``_slow_edits``) the objects of the result at ``index``, just measured in ``measuring``
    seconds after switching live update on, that an edit could not re-read and re-measure within the update budget:
    their first edit then waits for ``settle`` too, instead of holding the interface once to find that out."""
    for source in stored_sources(depsgraph, settings.results, [index]).get(index, ()):
        pointer = source.obj.as_pointer()
        if _preparing_seconds.get(pointer, 0.0) + measuring > UPDATE_BUDGET_SECONDS:
            _slow_edits.add(pointer)


def _forget_everything() -> None:
    """Drop the prepared shapes and what waits on them (live update switched, file loaded, handlers removed)."""
    _cache.clear()
    _unprimed.clear()
    _slow_edits.clear()
    _preparing_seconds.clear()


def switched(settings) -> None:
    """The live update was switched: forget the prepared shapes; switched on, measure every pair (which reads and
    prepares the objects' shapes, and non-convex pairs' triangle trees, before the first drag): at once in
    background mode; while the interface runs, by ``settle`` in idle time, the stale results first, an object or a
    pair at a time, so that ticking the box does not hold the interface while every object is read and prepared."""
    _forget_everything()
    if not settings.live_update or not len(settings.results) or _busy[0]:
        return
    if solid_cache.measures_volumes_later():
        _prime_later(settings)
        return
    _busy[0] = True
    try:
        remeasure(settings.id_data, bpy.context.evaluated_depsgraph_get(), range(len(settings.results)), _cache)
    finally:
        _busy[0] = False


def preparing() -> bool:
    """Whether ``settle`` still has objects to prepare and pairs to measure since live update was switched on or
    the file loaded (while the interface runs)."""
    return bool(_unprimed)


def _prime_later(settings) -> None:
    """Have ``settle`` read and prepare the objects of every result and measure its pair in idle time, the stale
    results first (``_unprimed``), so that the first drag reads no object."""
    stale = np.zeros(len(settings.results), dtype=bool)
    settings.results.foreach_get("stale", stale)
    _unprimed[:] = np.argsort(~stale, kind="stable").tolist()
    _settle_later()


@persistent
def on_data_replaced(*_args) -> None:
    """File loaded, undo or redo: objects are new data, their prepared shapes go; while the interface runs, volumes
    still pending in what came back are measured soon and, with live update on, the objects are prepared again in
    idle time (as when it is switched on: else the first drag would read every object, 50-150 ms each at 10k
    vertices)."""
    _forget_everything()
    if solid_cache.measures_volumes_later():
        settings = getattr(bpy.context.scene, "collision_inspector", None)
        if settings is not None and settings.live_update and len(settings.results):
            _prime_later(settings)
        else:
            _settle_later()


def add_handlers(on_results_changed: Callable[[], None] | None = None) -> None:
    """Install the handlers once (after tracking's, so a re-measured result is not left stale);
    ``on_results_changed()`` is called whenever re-measured results were stored (the overlay's refresh)."""
    remove_handlers()
    if on_results_changed is not None:
        _on_results_changed.append(on_results_changed)
    add_handler(on_depsgraph_update, "depsgraph_update_post")
    add_handler(on_data_replaced, *DATA_REPLACED)
    listen(_remeasured)


def remove_handlers() -> None:
    """Remove what ``add_handlers`` installed (safe to call twice) and drop the prepared shapes."""
    remove_handler(on_depsgraph_update, "depsgraph_update_post")
    remove_handler(on_data_replaced, *DATA_REPLACED)
    if bpy.app.timers.is_registered(settle):
        bpy.app.timers.unregister(settle)
    stop_listening(_remeasured)
    _on_results_changed.clear()
    _forget_everything()
