"""Live update: with ``scene.collision_inspector.live_update`` on, the stored pairs are measured again
whenever one of their objects moves or changes shape (grab, N-panel, drivers, constraints, scripts).

A ``depsgraph_update_post`` handler collects the objects the update moved (``is_updated_transform``) or
reshaped (``is_updated_geometry``) and re-measures the stored results that point to them, in place
(``store.update_results``), as the analysis measured them: in its plane, or with rigid-body shapes
(``analysis.inspect.stored_modes``). Instanced objects ("Instancer ▸ Object") follow their instancer, and
the object they instance (its mesh edited or moved in its collection). Shapes are prepared once per object
(``SolidCache``): a moved object's prepared shape is moved with it (``core.mesh.Solid.transformed``), only
an object whose geometry changed is read again. Pairs with a deleted object are left as they are (tracking
marks them stale). The handler's own writes to the results cause another depsgraph update (of the scene,
not of objects); a guard keeps it from re-entering anyway.

While the interface runs, an update leaves out the overlap volumes of convex pairs (for finely tessellated
objects most of the cost; ``volume_pending`` on the result) and measures them once no further update came
for ``SETTLE_SECONDS``: a drag shows depth, normal and contact at every step, the volume when it stops. A
penetrating non-convex pair that is only translated is answered from its last full answer while its proven
lower bound lasts (``core.mesh.drag.translated_contact``: the push-out carried along, a bounded depth, volume and
crossing curves pending), and measured in full once it stops. That runs a pair at a time, for at most
``SETTLE_BUDGET_SECONDS`` per timer call, so the interface keeps drawing and answering while a drag of many
large objects is measured in full; then the support tables of the shapes read meanwhile are built, one at a
time (``core.shapes.convex.Polytope.defer_support_table``: built by the core after 64 queries, they would land in the
middle of a drag). An update while the interface runs starts no full measurement of a pair (nor the EPA of an
overlapping convex pair) after ``UPDATE_BUDGET_SECONDS``: the pairs that waited longest go first, a separated
non-convex pair its start no longer answers is renewed a step at a time until then (and at the next updates), a
penetrating convex pair or a separated non-convex pair left that was only moved is answered from its last exact
answer (a checked push-out and a lower bound on the depth; a distance between the carried closest points and a
lower bound), the rest stay stale and pending for the next update or ``settle``, and an object whose edit took
longer than that to measure is left to ``settle`` at its further edits; what is left of the budget renews dragged
non-convex pairs' starts ahead, a step at a time. Switching the live update on measures every pair in idle time
too (``switched``). In background mode (scripts, tests, the command line) every update, and switching on, is
complete at once.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

import bpy
import numpy as np
from bpy.app.handlers import persistent

from ..core.mesh import HULL, MESH, PARTS, Solid, collide_solid_pairs
from ..core.mesh.contact.result import answered_from_last
from ..core.mesh.drag.separated_pairs import start_for_next_drag
from ..core.mesh.drag.starts import PairStart
from ..core.mesh.drag.translated_distance import Renewal, SeparationStart, without_pairs
from ..core.shapes.convex import Polytope
from .clash import _status, clash_result, hull_note
from .geometry import ObjectGeometryError
from .inspect import MeasureModes, measure_in_mode, rigid_shape, stored_modes
from .shapes import INSTANCE_SEPARATOR, Source, current_name, instanced_sources, read_solid
from .store import update_results
from . import tracking

#: A matrix whose linear part has a smaller determinant is treated as singular (the object is read again).
SINGULAR = 1e-12
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
#: Bytes of triangle pairs the separated non-convex pairs' starts keep while nothing moves, ready for the next drag
#: (``SolidCache.prepare_separation_starts``; about 1 MB per pair of 10k-vertex objects): the most recently
#: measured pairs keep theirs, the others drop them.
KEPT_PAIRS_BUDGET_BYTES = 64 * 2 ** 20


@dataclass
class _Entry:
    """A source's Solid as read at ``matrix`` (and its inverse), and the last moved copy handed out."""

    matrix: np.ndarray
    inverse: np.ndarray
    solid: Solid
    use_hull: bool
    data: int
    last_matrix: np.ndarray
    last_solid: Solid


def _kept_bytes(start: SeparationStart) -> int:
    """Memory held by a start's triangle pairs."""
    return sum(array.nbytes for array in (start.corners_a, start.corners_b, start.axes, start.gaps,
                                          start.measured_axes, start.measured_gaps))


def _data(source: Source) -> int:
    """Which mesh data ``source``'s object has (0 for none): a shape read from other data is read again."""
    return source.obj.data.as_pointer() if source.obj.data is not None else 0


def _key(source: Source) -> tuple:
    """What a cached shape belongs to: the owner, the object read, and an instance's name (one object may be
    instanced several times)."""
    return source.owner.as_pointer(), source.obj.as_pointer(), '' if source.matrix is None else source.name


def _determinant(matrix: np.ndarray) -> float:
    """Determinant of the 4x4 affine ``matrix``'s linear part (in floats: ``np.linalg.det`` costs more than
    the scan's per-frame matrix checks can afford)."""
    (a, b, c, _), (d, e, f, _), (g, h, i, _) = matrix[:3].tolist()
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def _move(read: np.ndarray, inverse: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The 4x4 map from where an object was read (``read``, its ``inverse``) to ``matrix``: an exact translation
    when the linear part is unchanged (a turned object only moved: ``matrix @ inverse`` would leave a linear part
    an ulp off the identity, which makes every later query on the shape pay for a turn and keeps a drag from
    being recognised as one)."""
    if (matrix[:3, :3] == read[:3, :3]).all():
        move = np.eye(4)
        move[:3, 3] = matrix[:3, 3] - read[:3, 3]
        return move
    return matrix @ inverse


class SolidCache:
    """Each source's prepared ``Solid``, read once and moved to wherever the source is now, and each pair's
    warm start: an overlapping convex pair's EPA polytope (``core.narrowphase.warm_epa``: its next update starts from there,
    a step or two instead of dozens), or what a non-convex pair's last full answer proved: penetrating
    (``core.mesh.drag.translated_contact``: while it is dragged, its depth follows without a triangle test), or apart
    (``core.mesh.drag.translated_distance``: its exact distance is found among a few triangle pairs kept near the
    closest ones)."""

    def __init__(self) -> None:
        self._entries: dict[tuple, _Entry] = {}
        self._warm: dict[tuple, PairStart | None] = {}
        #: When each pair was last measured (a count of measurements): an update short of time starts with the
        #: pairs that waited longest.
        self._measured: dict[tuple, int] = {}
        self._measurements = 0
        #: Per pair, the separation start ``prepare_separation_starts`` left as it is (it could not ready it, or
        #: the budget was spent): not tried again.
        self._left: dict[tuple, SeparationStart] = {}

    def solid(self, source: Source, depsgraph: bpy.types.Depsgraph, use_hull: bool) -> Solid:
        """The source's evaluated shape in world space: read the first time (and after ``forget``, or when its
        mesh data or ``use_hull`` changed), else the cached one moved by the source's current matrix (an
        instance's, or the object's). Raises ObjectGeometryError."""
        matrix = (source.matrix if source.matrix is not None else
                  np.array(source.obj.evaluated_get(depsgraph).matrix_world, dtype=np.float64))
        key = _key(source)
        entry = self._entries.get(key)
        read = self._read_as(entry, source, use_hull)
        if read and (matrix == entry.last_matrix).all():
            return entry.last_solid  # not moved since the last call: no need to check its matrix again
        invertible = abs(_determinant(matrix)) > SINGULAR
        if not read or not invertible:
            solid = read_solid(source, depsgraph, use_hull)
            if invertible:
                if measures_volumes_later():  # its support tables built when idle, not in the middle of a drag
                    solid.defer_support_tables()
                self._entries[key] = _Entry(matrix, np.linalg.inv(matrix), solid, use_hull, _data(source), matrix,
                                            solid)
            return solid
        entry.last_matrix = matrix
        entry.last_solid = entry.solid.transformed(_move(entry.matrix, entry.inverse, matrix))
        return entry.last_solid

    @staticmethod
    def _read_as(entry: _Entry | None, source: Source, use_hull: bool) -> bool:
        """``entry`` holds ``source``'s shape as it is now (the same mesh data, read as asked: hull or not)."""
        return entry is not None and entry.use_hull == use_hull and entry.data == _data(source)

    def has_read(self, source: Source, use_hull: bool) -> bool:
        """Whether ``source``'s shape is read (as ``solid`` would hand it out without reading it)."""
        return self._read_as(self._entries.get(_key(source)), source, use_hull)

    def prepare(self, source: Source, depsgraph: bpy.types.Depsgraph, use_hull: bool) -> None:
        """Read ``source``'s shape and prepare it for measuring: classified, and its hulls (convex objects) or its
        triangle tree and convex hull (the others: a drag asks the hull for bounds and push-outs) built, so that
        measuring a pair of prepared shapes costs no more than that. Raises ObjectGeometryError."""
        solid = self.solid(source, depsgraph, use_hull)
        solid.prepared_polytopes()
        if solid.method in (MESH, PARTS):
            solid.bvh, solid.hull  # built now, not at the pair's measurement

    def forget(self, pointers: set) -> None:
        """Drop the shapes of the objects at ``pointers`` (their geometry changed), whether they own the
        shape or are instanced: they are read again on their next use."""
        if pointers:
            self._entries = {key: entry for key, entry in self._entries.items()
                             if key[0] not in pointers and key[1] not in pointers}
            self._warm, self._measured, self._left = (
                {pair: value for pair, value in per_pair.items()
                 if not pointers.intersection(pair[0][:2] + pair[1][:2])}
                for per_pair in (self._warm, self._measured, self._left))

    def warm_starts(self, pairs: list[tuple[Source, Source]]) -> list[PairStart | None]:
        """The warm start slot of each pair of sources (None where it has none yet)."""
        return [self._warm.get((_key(a), _key(b))) for a, b in pairs]

    def keep_warm_starts(self, pairs: list[tuple[Source, Source]],
                         starts: list[PairStart | None]) -> None:
        """Keep ``starts`` (``warm_starts``' slots, as measuring left them) for the next update."""
        for (a, b), start in zip(pairs, starts):
            self._warm[_key(a), _key(b)] = start

    def waited_longest_first(self, pairs: list[tuple[Source, Source]]) -> list[int]:
        """Positions of ``pairs`` ordered from the one measured longest ago (never measured first)."""
        last = [self._measured.get((_key(a), _key(b)), -1) for a, b in pairs]
        return sorted(range(len(pairs)), key=last.__getitem__)

    def measured(self, pairs: list[tuple[Source, Source]]) -> None:
        """Note that ``pairs`` were just measured."""
        self._measurements += 1
        for a, b in pairs:
            self._measured[_key(a), _key(b)] = self._measurements

    def unbuilt_support_tables(self) -> list[Polytope]:
        """The polytopes of the shapes read while the interface runs that still wait for their support tables
        (``Solid.defer_support_tables``: the hulls of convex objects and of parts, read then, and a non-convex
        object's hull, made at its first penetrating measurement)."""
        return [polytope for entry in self._entries.values() for polytope in entry.solid.pending_support_tables()]

    @property
    def support_tables_pending(self) -> bool:
        """Some shape read while the interface runs still waits for a support table."""
        return bool(self.unbuilt_support_tables())

    def build_support_tables(self, deadline: float) -> None:
        """Build the deferred support tables of the shapes read while the interface runs, at least one, until
        ``time.perf_counter()`` passes ``deadline``."""
        for polytope in self.unbuilt_support_tables():
            polytope.build_support_table()
            if time.perf_counter() >= deadline:
                return

    def prepare_separation_starts(self, deadline: float) -> bool:
        """Ready the separated non-convex pairs' starts for the next drag while nothing moves
        (``core.mesh.drag.separated_pairs.start_for_next_drag``: the triangle pairs near their closest ones where they are now,
        so that a drag's first updates search no tree), most recently measured first, until ``time.perf_counter()``
        passes ``deadline`` (at least one). Starts beyond ``KEPT_PAIRS_BUDGET_BYTES`` of triangle pairs drop theirs
        (``translated_distance.without_pairs``). A renewal the drag left under way is dropped for the start it
        renews (its steps hold memory, and the pair stands still now). Whether any was readied."""
        order = sorted((pair for pair, start in self._warm.items() if isinstance(start, (SeparationStart, Renewal))),
                       key=lambda pair: -self._measured.get(pair, -1))
        used, readied = 0, False
        for pair in order:
            start = self._warm[pair]
            if isinstance(start, Renewal):
                start = start.base
            if used < KEPT_PAIRS_BUDGET_BYTES and self._waits(pair, start):
                if readied and time.perf_counter() >= deadline:
                    return readied
                start, readied = self._ready(pair, start), True
            if used >= KEPT_PAIRS_BUDGET_BYTES:
                start = self._left[pair] = without_pairs(start) if len(start.gaps) else start
            self._warm[pair] = start
            used += _kept_bytes(start)
        return readied

    @property
    def separation_starts_pending(self) -> bool:
        """Some separated non-convex pair's start still waits for ``prepare_separation_starts``."""
        return any(isinstance(start, SeparationStart) and self._waits(pair, start)
                   for pair, start in self._warm.items())

    def _waits(self, pair: tuple, start: SeparationStart) -> bool:
        """``start`` keeps no triangle pairs and was not left as it is (see ``_left``)."""
        return not len(start.gaps) and self._left.get(pair) is not start

    def _ready(self, pair: tuple, start: SeparationStart) -> SeparationStart:
        """``start_for_next_drag`` of ``pair`` where its solids were last handed out; ``start`` itself, left as it
        is, when it cannot give one (or a solid is gone)."""
        a, b = self._entries.get(pair[0]), self._entries.get(pair[1])
        ready = None if a is None or b is None else start_for_next_drag(start, a.last_solid, b.last_solid)
        if ready is None:
            self._left[pair] = start
            return start
        return ready

    def clear(self) -> None:
        self._entries.clear()
        self._warm.clear()
        self._measured.clear()
        self._left.clear()


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


def _source(obj: bpy.types.Object | None, name: str, shown: dict) -> Source | None:
    """A stored result's side as a Source: the object, or the instance its instancer shows now (looked up
    under the instancer's current name); None when the object is gone or the instance no longer shown."""
    if obj is None:
        return None
    if INSTANCE_SEPARATOR not in name:
        return Source(obj.name, obj, obj)
    return shown.get(current_name(obj, name))


def stored_sources(depsgraph: bpy.types.Depsgraph, results, indices) -> dict[int, tuple[Source, Source]]:
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


def remeasure(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, indices, cache: SolidCache,
              reread: set | None = None, volumes: bool = True, budget: float | None = None) -> list[int]:
    """Measure the stored results at ``indices`` again, in the modes they were analysed in, and write them in
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
    Then the callback given to ``add_handlers`` (the overlay's refresh) is called.
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
            solids = tuple(cache.solid(source, depsgraph, settings.use_hulls) for source in sources)
            rigid = tuple(rigid_shape(source, depsgraph) if modes.rigid_bodies else None for source in sources)
        except ObjectGeometryError:
            continue
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
    answers = measure_pairs(pairs, shapes, modes, options, settings.clearance, volumes, warm, deadline)
    cache.keep_warm_starts(sides, warm)
    # (a convex pair answered from its last answer still waits for its solve: it keeps its place in the queue)
    cache.measured([pair for pair, answer in zip(sides, answers)
                    if answer is not None and not answered_from_last(answer[0])])
    _wait(results, [index for index, answer in zip(measured, answers) if answer is None])
    for index, answer in zip(measured, answers):
        if answer is None:
            continue
        contact, note = answer
        status = _status(contact.signed_distance, contact.status, settings.clearance)
        updates[index] = clash_result(results[index].name_a, results[index].name_b, status, contact, note)
    update_results(settings, updates)
    if _unprimed:  # measured: nothing left to prepare for them
        _unprimed[:] = [index for index in _unprimed if index not in updates]
    _results_changed()
    return [index for index in measured if index in updates]


def _results_changed() -> None:
    """Call the callback given to ``add_handlers`` (the overlay's refresh)."""
    for refresh in _on_results_changed:
        refresh()


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
    later = measures_volumes_later()
    deferred = reshaped & _slow_edits if later else set()
    if deferred:  # still being edited, too slow to measure at every update: its pairs wait for ``settle``
        _cache.forget(deferred)
        waiting = set(tracking.results_of_changed(scene, settings.results, deferred))
        _wait(settings.results, waiting)
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


def _wait(results, indices) -> None:
    """Leave the results at ``indices`` for later: stale (their objects changed) and pending for ``settle``."""
    for index in indices:
        results[index].stale = results[index].volume_pending = True


def measures_volumes_later() -> bool:
    """Whether live updates leave overlap volumes for when the objects stop moving: while the interface runs
    (a drag sends an update per mouse move); in background mode nothing waits, so every update is complete."""
    return not bpy.app.background


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
        depsgraph = bpy.context.evaluated_depsgraph_get()
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
    if measures_volumes_later():
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
    if measures_volumes_later():
        settings = getattr(bpy.context.scene, "collision_inspector", None)
        if settings is not None and settings.live_update and len(settings.results):
            _prime_later(settings)
        else:
            _settle_later()


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
    if bpy.app.timers.is_registered(settle):
        bpy.app.timers.unregister(settle)
    _on_results_changed.clear()
    _forget_everything()
