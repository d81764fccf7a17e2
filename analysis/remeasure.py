"""Measure stored results again where their objects are now, in the modes they were analysed in, and store them.

The live update, resolving and the animation scan share it; whoever listens (``listen``) hears which results
changed: the live update's bookkeeping and, through it, the overlay.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import bpy

from ..core.mesh import HULL, collide_solid_pairs
from ..core.mesh.contact.result import answered_from_last
from ..core.steps import Steps, run_to_end
from .background import meanwhile, triangles_of
from .clash import clash_result, hull_note
from .clash_report import pair_status
from .geometry import ObjectGeometryError
from .inspect import MeasureModes, measure_in_mode, rigid_shape, stored_modes
from .shapes import INSTANCE_SEPARATOR, Source, current_name, instanced_sources
from .solid_cache import SolidCache
from .store import update_results

#: Called with the indices of the results ``remeasure`` just stored (the analysis layer does not import the
#: interface: the live update installs its listener, which refreshes the overlay).
_listeners: list[Callable[[set[int]], None]] = []


def listen(callback: Callable[[set[int]], None]) -> None:
    """Have ``callback(indices)`` called whenever ``remeasure`` stored the results at ``indices``."""
    _listeners.append(callback)


def stop_listening(callback: Callable[[set[int]], None]) -> None:
    """Undo ``listen(callback)`` (nothing when it is not listening)."""
    if callback in _listeners:
        _listeners.remove(callback)


def _source(obj: bpy.types.Object | None, name: str, shown: dict) -> Source | None:
    """A stored result's side as a Source: the object, or the instance its instancer shows now (looked up
    under the instancer's current name); None when the object is gone or the instance no longer shown."""
    if obj is None:
        return None
    if INSTANCE_SEPARATOR not in name:
        return Source(obj.name, obj, obj)
    return shown.get(current_name(obj, name))


def stored_sources(depsgraph: bpy.types.Depsgraph, results, indices: Iterable[int]) -> dict[int, tuple[Source, Source]]:
    """``{index: (source A, source B)}`` of the stored results at ``indices`` that can be measured now
    (see ``_source``); the instancers' instances are placed in one pass over the depsgraph."""
    sides = {index: ((results[index].object_a, results[index].name_a),
                     (results[index].object_b, results[index].name_b)) for index in indices}
    instancers = {obj for pair in sides.values() for obj, name in pair
                  if obj is not None and INSTANCE_SEPARATOR in name}
    shown = instanced_sources(instancers, depsgraph) if instancers else {}
    found = {}
    for index, pair in sides.items():
        sources = tuple(_source(obj, name, shown) for obj, name in pair)
        if None not in sources:
            found[index] = sources
    return found


def measure_pairs(pairs: list, shapes: list, modes: MeasureModes, options: dict, clearance: float,
                  volumes: bool = True, warm: list | None = None, deadline: float | None = None) -> list:
    """``[(SolidContact, note), ...]`` of ``(Solid, Solid)`` pairs, as the analysis measures them: in the
    plane or with their rigid-body ``shapes`` (``analysis.inspect.measure_in_mode``), the others together
    (``core.mesh.collide_solid_pairs``, convex pairs' overlap volumes left out unless ``volumes``, EPA
    started from and leaving its polytope in ``warm``'s slot per pair when given, no full measurement of a
    pair nor EPA of an overlapping convex pair started after ``deadline``: None for those), with a note on
    objects measured as their hull."""
    moded = [None if modes.default else measure_in_mode(a, b, shape, modes, options)
             for (a, b), shape in zip(pairs, shapes)]
    usual = [k for k, answer in enumerate(moded) if answer is None]
    slots = None if warm is None else [warm[k] for k in usual]
    contacts = (collide_solid_pairs([pairs[k] for k in usual], clearance=clearance, volumes=volumes, warm=slots,
                                    deadline=deadline, **options) if usual else ())
    for k, start in zip(usual, slots or ()):
        warm[k] = start
    for k, contact in zip(usual, contacts):
        if contact is None:
            continue
        notes = (hull_note(solid) for solid in pairs[k]) if contact.method == HULL else ()
        moded[k] = (contact, "; ".join(filter(None, notes)))
    return moded


def remeasure(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, indices: Iterable[int], cache: SolidCache,
              reread: set | None = None, volumes: bool = True, budget: float | None = None) -> list[int]:
    """``remeasure_steps`` run to the end at once."""
    return run_to_end(remeasure_steps(scene, depsgraph, indices, cache, reread, volumes, budget))


def remeasure_steps(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, indices: Iterable[int], cache: SolidCache,
                    reread: set | None = None, volumes: bool = True, budget: float | None = None) -> Steps[list[int]]:
    """As steps (``core.steps``): read the objects, then measure (big pairs on a worker thread,
    ``analysis.background``), then store. Closed before its end, nothing is stored.

    Measure the stored results at ``indices`` again, in the modes they were analysed in, and write them in
    place; the indices measured.

    ``reread``: pointers of objects whose geometry changed (read again once, then moved like the others).
    ``volumes`` False leaves convex pairs' overlap volumes out (``volume_pending``, see ``settle``) and answers
    dragged non-convex pairs from their last full answer (``core.mesh.drag.translated_contact``). With a ``budget``
    (seconds) no full measurement of a pair, nor EPA, starts after it (the pairs that waited longest go first): those
    left stay stale, ``volume_pending``, for the next update or ``settle`` (penetrating convex pairs and separated
    non-convex pairs only translated since their last exact answer are answered from it, bounded, and keep their
    place in the queue).
    Thresholds are the scene's (tolerance, clearance, iterations) and the results' touch tolerance. Nothing
    is measured when the modes cannot be (a 'View' plane without a viewport): the results turn stale.
    Then the listeners hear which results were stored (``listen``).
    """
    deadline = None if budget is None else time.perf_counter() + budget
    settings = scene.collision_inspector
    results = settings.results
    try:
        modes = stored_modes(scene)
    except ValueError:
        return []
    cache.forget(set(reread or ()))
    pairs, shapes, measured, sides = [], [], [], []
    found = list(stored_sources(depsgraph, results, indices).items())
    for index, sources in (found[k] for k in cache.waited_longest_first([sources for _index, sources in found])):
        try:
            solid_a = yield from cache.solid_steps(sources[0], depsgraph, settings.use_hulls)
            solids = solid_a, (yield from cache.solid_steps(sources[1], depsgraph, settings.use_hulls))
            rigid = tuple(rigid_shape(source, depsgraph) if modes.rigid_bodies else None for source in sources)
        except ObjectGeometryError:
            continue
        yield
        pairs.append(solids)
        shapes.append(rigid)
        measured.append(index)
        sides.append(sources)
    if not measured:
        return []
    options = {"tolerance": settings.tolerance, "touch_tolerance": results[measured[0]].tolerance,
               "max_iterations": settings.max_iterations or None}
    updates = {}
    warm = cache.warm_starts(sides)
    answers = yield from meanwhile(
        lambda: measure_pairs(pairs, shapes, modes, options, settings.clearance, volumes, warm, deadline),
        triangles_of([solid for pair in pairs for solid in pair]))
    cache.keep_warm_starts(sides, warm)
    # (a convex pair answered from its last answer still waits for its solve: it keeps its place in the queue)
    cache.measured([pair for pair, answer in zip(sides, answers)
                    if answer is not None and not answered_from_last(answer[0])])
    mark_waiting(results, [index for index, answer in zip(measured, answers) if answer is None])
    for index, solids, answer in zip(measured, pairs, answers):
        if answer is None:
            continue
        contact, note = answer
        status = pair_status(contact.signed_distance, contact.status, settings.clearance)
        updates[index] = clash_result(results[index].name_a, results[index].name_b, status, contact, solids, note)
    update_results(settings, updates)
    for callback in _listeners:
        callback(set(updates))
    return [index for index in measured if index in updates]


def mark_waiting(results, indices: Iterable[int]) -> None:
    """Leave the results at ``indices`` for later: stale (their objects changed) and pending for ``settle``."""
    for index in indices:
        results[index].stale = results[index].volume_pending = True
