"""Scene-wide clash check: which objects penetrate, touch or come closer than a clearance distance.

``check_scene`` reads each object once, lets the broad phase pick candidate pairs and measures only those, so N
objects cost O(N log N + candidates); the panel, the operator and the command line all call it
(docs/architecture.md, "The clash check").
"""

from __future__ import annotations

import time
from functools import cache
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime

import bpy
import numpy as np

from ..core import overlapping_pairs
from ..core.mesh import CONVEX, HULL, Solid, measure_solid_pairs
from ..core.mesh.classify import classify_solids
from ..core.mesh.contact.batch import lockstep_chunks
from ..core.mesh.contact.containment import BATCHED_TRIANGLE_PAIRS
from .clash_report import ClashReport, ClashResult, pair_status
from .analysed_shapes import placement
from .background import (BACKGROUND_TRIANGLES, Announced, collection_paused, meanwhile, triangle_count,
                         triangles_of)
from .geometry import ObjectGeometryError
from .mesh_notes import pair_note, parts_note, rows_certainty_and_notes, volume_certainty
from .inspect import MeasureModes, broad_phase_bounds, measure_in_mode, measure_modes, rigid_shape
from .scope import SCOPES, allowed_pairs, possible_pairs, scope_sides
from .separated import SeparatedRows
from .shard import shard_pairs
from .shapes import (ReadSource, Source, Unread, meshes_from_many, may_be_slow_to_read, read_arrays,
                     read_solid_steps, scope_sources, with_triangles)
from .shared_shapes import SharedShapes, moved_copies
from .typed import typed_decimal

#: Pairs of convex objects measured together (``core.mesh.measure_solid_pairs``): large enough for the
#: batch to pay, small enough that progress and Esc still come several times a second ...
BATCH_PAIRS = 4096
#: ... and that the batch's padded vertex arrays (pairs x the most vertices of a hull) stay a few megabytes.
BATCH_VERTICES = 1 << 18

#: Small objects read together (``_read_together``): Blender's arrays of up to this many (or of fewer, with
#: ``analysis.background.BACKGROUND_TRIANGLES`` triangles together), then the numpy work on all of them at once.
READ_TOGETHER = 256

#: ``progress(done, total)``; returning False cancels the check (see ``check_scene``).
ProgressCallback = Callable[[int, int], bool | None]

__all__ = ['SCOPES', 'ClashReport', 'ClashResult', 'ObjectGeometryError', 'check_scene', 'start_check']


def check_scene(
    scene: bpy.types.Scene,
    depsgraph: bpy.types.Depsgraph,
    *,
    progress: ProgressCallback | None = None,
    **options,
) -> ClashReport:
    """Check the scope's object pairs for clashes and return a ``ClashReport`` of those found.

    The keyword options (``scope``, ``objects``, ``clearance``, ...) are those of ``start_check``;
    ``progress`` is described below.

    ``progress(done, total)`` is called after each object read and each pair (or batch of pairs) measured
    (``total`` = objects + candidate pairs, known once the broad phase has run; before that it counts
    the objects only). Returning False cancels: the report comes back with ``cancelled = True`` and
    the clashes found so far. Exceptions raised by the callback propagate.
    """
    report, steps = start_check(scene, depsgraph, **options)
    with collection_paused():  # (every step at once: nothing else runs meanwhile)
        for step in steps:
            if isinstance(step, Announced):
                continue  # for the interface: nothing was done since the last call
            done, total = step
            if progress is not None and progress(done, total) is False:
                report.cancelled = True
                steps.close()
                break
    return report


def start_check(
    scene: bpy.types.Scene,
    depsgraph: bpy.types.Depsgraph,
    *,
    scope: str,
    objects: Iterable[bpy.types.Object] | None = None,
    active: bpy.types.Object | None = None,
    collection_a: bpy.types.Collection | None = None,
    collection_b: bpy.types.Collection | None = None,
    clearance: float = 0.0,
    touch_tolerance: float | None = None,
    tolerance: float | None = None,
    max_iterations: int | None = None,
    every_pair: bool = False,
    use_hulls: bool | None = None,
    modes: MeasureModes | None = None,
    shard: tuple[int, int] | None = None,
) -> tuple[ClashReport, Iterator[tuple[int, int]]]:
    """``(report, steps)``: the check as a generator, for callers that run it a slice at a time
    (the panel's cancellable analysis); ``check_scene`` simply runs it to the end.

    Each ``next(steps)`` reads one object or measures one pair (convex pairs and pairs of small meshes: a batch,
    see ``_batches``) and yields ``(done, total)`` (see ``check_scene``'s progress); once exhausted, or closed early,
    ``report`` holds the clashes found, sorted, and its duration.

    Scopes (objects without geometry are left out; names sort the pairs, A before B):
    * 'SELECTED': all pairs among ``objects`` (default: the view layer's selected objects);
    * 'ACTIVE': ``active`` (default: the view layer's active object) against the other ones of
      ``objects`` (default: selected); the active object is always object A;
    * 'COLLECTIONS': every object of ``collection_a`` (with its child collections) against every one of
      ``collection_b``, A side as object A; all pairs within ``collection_a`` when B is None or the same;
    * 'ALL': all pairs among the scene's objects.

    Thresholds, in world units: ``touch_tolerance`` (|signed distance| <= it is 'touching'),
    ``clearance`` (apart but closer than it is a 'clearance' violation; raising it only adds results),
    ``tolerance`` and ``max_iterations`` (the core's accuracy and iteration cap, 0 automatic). None takes the
    value stored in ``scene.collision_inspector``.

    ``every_pair`` skips the broad phase: every pair the scope allows is measured and separated
    pairs are listed too (the panel's few-object scopes show every pair's distance): in ``results``, or
    as columns in ``report.separated_rows`` where a batch found them apart.
    ``use_hulls`` measures every object's convex hull (the physics engines' proxy) instead of its
    real surfaces. ``modes`` (default: the scene's, ``analysis.inspect.measure_modes``) measures pairs in
    a plane or with rigid-body shapes. ``shard`` ``(K, N)`` measures only shard K's share of the candidate
    pairs (``analysis.shard``; ``report.candidate_pairs`` still counts them all, the other numbers are K's).

    Objects the view layer does not evaluate or show, and objects without measurable geometry, are
    left out and listed in ``report.skipped`` with the reason. Only objects named in ``objects`` are
    required: for one of those, stepping raises ``ObjectGeometryError`` naming it.
    ``start_check`` raises ``ValueError`` for an unknown scope or a negative threshold.
    """
    settings = scene.collision_inspector
    touch_tolerance = typed_decimal(settings.touch_tolerance) if touch_tolerance is None else float(touch_tolerance)
    tolerance = typed_decimal(settings.tolerance) if tolerance is None else float(tolerance)
    max_iterations = settings.max_iterations if max_iterations is None else int(max_iterations)
    use_hulls = settings.use_hulls if use_hulls is None else bool(use_hulls)
    modes = measure_modes(scene) if modes is None else modes
    clearance = float(clearance)
    for name, value in (('clearance', clearance), ('touch_tolerance', touch_tolerance)):
        if not value >= 0.0 or not np.isfinite(value):
            raise ValueError(f"{name} must be a finite length >= 0, got {value}")

    started = time.perf_counter()
    report = ClashReport(
        scope=scope, clearance=clearance, touch_tolerance=touch_tolerance, tolerance=tolerance,
        max_iterations=max_iterations, blend_file=bpy.data.filepath,
        blender_version=bpy.app.version_string,
        time=datetime.now(UTC).isoformat(timespec='seconds'),
        collection_a=collection_a.name if collection_a is not None else '',
        collection_b=(collection_b or collection_a).name if collection_a is not None else '',
    )
    side_a, side_b = scope_sides(scene, depsgraph, scope, objects, active, collection_a, collection_b)
    view_layer = scene.view_layers[depsgraph.view_layer.name]
    skipped: dict[str, str] = {}
    sources_a = scope_sources(side_a, view_layer, depsgraph, skipped)
    sources_b = sources_a if side_b is side_a else scope_sources(side_b, view_layer, depsgraph, skipped)
    members = sorted({source.name: source for source in (*sources_a, *sources_b)}.values(),
                     key=lambda source: source.name)
    required = {obj.name for obj in objects} if objects is not None else set()
    named = sorted(name for name in skipped if name in required)
    if named:
        raise ObjectGeometryError(f"{named[0]} cannot be measured: {skipped[named[0]]}")
    report.skipped = skipped
    report.shard = None if shard is None else {'index': shard[0], 'count': shard[1]}
    report.objects = len(members)
    report.possible_pairs = possible_pairs([s.name for s in sources_a], [s.name for s in sources_b])
    sides = ({s.name for s in sources_a}, {s.name for s in sources_b})
    return report, _steps(report, members, sides, depsgraph, every_pair, use_hulls, required, started, modes, shard)


def _steps(report: ClashReport, members: list[Source], sides: tuple[set, set], depsgraph, every_pair: bool,
           use_hulls: bool, required: set, started: float, modes: MeasureModes,
           shard: tuple[int, int] | None) -> Iterator[tuple[int, int]]:
    """Sort the results and time the check however the stepping ends (``_measure`` does the work)."""
    try:
        yield from _measure(report, members, sides, depsgraph, every_pair, use_hulls, required, modes, shard)
    finally:
        report.results.sort(key=lambda result: (result.object_a, result.object_b))
        report.seconds = time.perf_counter() - started


def _read(members: list[Source], depsgraph, use_hulls: bool, required: set, report: ClashReport,
          read: list, defer: bool = False) -> Iterator[tuple[int, int] | Announced]:
    """Each member read once as a Solid, appended to ``read`` as ``(source, solid, placement)`` (a geometry several
    members show: read and classified once for all of them, ``SharedShapes``; consecutive small ones read together,
    ``_read_together``); unmeasurable ones are skipped with the reason (raised if required). With ``defer``, a small
    mesh object's triangles are left unread (``shapes.Unread`` in place of its Solid, ``_read_triangles``). Yields
    ``(done, total)`` after each member and while a big one's numpy work runs on a worker thread; before a member
    that may be slow to read, an ``Announced`` step (its ``activity`` named on the report)."""
    shapes = SharedShapes(members, use_hulls)
    together: list[tuple[Source, tuple, ReadSource | Solid | ObjectGeometryError]] = []
    triangles = 0
    for done, source in enumerate(members):
        slow = may_be_slow_to_read(source)
        if not slow:
            placed = placement(source, depsgraph)  # where it is as read
            entry = (yield from shapes.local_steps(source, depsgraph, (done, len(members)))) if shapes.shares(
                source) else None  # the geometry it shares, to be moved to it
            if entry is not None:
                triangles += triangle_count(entry)
            else:
                try:
                    entry = read_arrays(source, depsgraph, triangles=not defer)
                    triangles += entry.triangle_count
                except ObjectGeometryError as error:
                    entry = error
            together.append((source, placed, entry))
            if len(together) == READ_TOGETHER or triangles >= BACKGROUND_TRIANGLES:
                yield from _read_together(together, triangles, shapes, depsgraph, required, report, read,
                                          done + 1 - len(together), len(members))
                together, triangles = [], 0
            continue
        yield from _read_together(together, triangles, shapes, depsgraph, required, report, read,
                                  done - len(together), len(members))
        together, triangles = [], 0
        report.activity = f"reading {source.name}"
        yield Announced((done, len(members)))  # the interface names it before the read holds it
        try:
            placed = placement(source, depsgraph)  # where it is as read (it may move while the worker builds it)
            solid = yield from shapes.solid_steps(source, depsgraph, (done, len(members)))
            read.append((source, solid, placed))
        except ObjectGeometryError as error:
            _skip(source, error, required, report)
        yield done + 1, len(members)
    yield from _read_together(together, triangles, shapes, depsgraph, required, report, read,
                              len(members) - len(together), len(members))


def _read_together(together: list[tuple[Source, tuple, ReadSource | Solid | ObjectGeometryError]], triangles: int,
                   shapes: SharedShapes, depsgraph, required: set, report: ClashReport, read: list, done: int,
                   total: int) -> Iterator[tuple[int, int]]:
    """The members read or shared (``together``, after ``done`` members; their work about ``triangles``) made Solids
    in one go: those whose arrays were read by ``shapes.meshes_from_many``, those showing a shared geometry moved to
    them by ``shared_shapes.moved_copies`` (the same as reading each alone; a copy it cannot place is read on its
    own), appended to ``read`` in order; yields ``(done, total)`` after each, as ``_read`` does."""
    if not together:
        return
    reads = [entry for *_rest, entry in together if isinstance(entry, ReadSource)]
    copies: dict[int, tuple[Solid, list[int]]] = {}  # each shared geometry's members
    for k, (_source, _placed, entry) in enumerate(together):
        if isinstance(entry, Solid):
            copies.setdefault(id(entry), (entry, []))[1].append(k)

    def work() -> tuple[list, dict[int, Solid | None]]:
        moved = {}
        for local, members in copies.values():
            moved.update(zip(members, moved_copies(local, np.array([together[k][1][0] for k in members]))))
        return meshes_from_many(reads), moved

    meshes, moved = yield from meanwhile(work, triangles, (done, total))
    meshes = iter(meshes)
    for k, (source, placed, entry) in enumerate(together):
        report.activity = f"reading {source.name}"
        if isinstance(entry, Solid):
            solid = moved[k]
            try:
                if solid is None:  # read on its own
                    solid = yield from read_solid_steps(source, depsgraph, shapes.use_hull, (done, total))
                solid.name = source.name
                read.append((source, solid, placed))
            except ObjectGeometryError as error:
                _skip(source, error, required, report)
        else:
            mesh = next(meshes) if isinstance(entry, ReadSource) else entry
            if isinstance(mesh, ObjectGeometryError):
                _skip(source, mesh, required, report)
            elif isinstance(mesh, Unread):
                read.append((source, mesh, placed))
            else:
                read.append((source, Solid(mesh, use_hull=shapes.use_hull, name=source.name), placed))
        done += 1
        yield done, total


def _read_triangles(indices: list[int], read: list, solids: list, depsgraph, use_hull: bool,
                    progress: tuple[int, int]) -> Iterator[tuple[int, int]]:
    """The objects at ``indices`` (``shapes.Unread``: read but for their triangles) made Solids, in ``read`` and
    ``solids``: their triangles read (``shapes.with_triangles``, ``READ_TOGETHER`` objects a step, yielding
    ``progress`` between steps), then their meshes made together from the vertices already read
    (``meshes_from_many``), the same Solids as reading them whole. A mesh that can no longer be measured (edited
    meanwhile) raises."""
    for first in range(0, len(indices), READ_TOGETHER):
        if first:
            yield progress
        chunk = indices[first:first + READ_TOGETHER]
        reads = [with_triangles(solids[index].read, read[index][0], depsgraph) for index in chunk]
        points = [solids[index].points if again.arrays.positions is solids[index].read.arrays.positions else None
                  for index, again in zip(chunk, reads)]  # (read again in full: its own points)
        meshes = yield from meanwhile(lambda: meshes_from_many(reads, points),
                                      sum(again.triangle_count for again in reads), progress)
        for index, mesh in zip(chunk, meshes):
            if isinstance(mesh, ObjectGeometryError):
                raise mesh
            source, _unread, placed = read[index]
            solids[index] = Solid(mesh, use_hull=use_hull, name=source.name)
            read[index] = (source, solids[index], placed)


def _skip(source: Source, error: ObjectGeometryError, required: set, report: ClashReport) -> None:
    """Leave out a member that cannot be measured, with the reason; raise the error if the member is required."""
    if source.owner.name in required:
        raise error
    report.skipped[source.name] = str(error).removeprefix(source.name).strip()


def _measure(report: ClashReport, members: list[Source], sides: tuple[set, set], depsgraph, every_pair: bool,
             use_hulls: bool, required: set, modes: MeasureModes,
             shard: tuple[int, int] | None) -> Iterator[tuple[int, int]]:
    """Read every object once, broad phase on their world boxes, then measure the allowed candidates.

    With ``every_pair`` every allowed pair is a candidate and separated ones are listed as well.
    A Solid classifies itself (parts, convexity) and prepares its hull or tree on its first pair:
    objects that no box comes near (often most of a scene) cost only their reading.
    """
    read: list[tuple[Source, Solid | Unread, tuple]] = []
    defer = not every_pair and modes.plane_normal is None  # (the broad phase needs only the boxes of the vertices)
    yield from _read(members, depsgraph, use_hulls, required, report, read, defer)
    report.objects = len(read)
    if len(read) < 2:
        return
    names = [source.name for source, _solid, _placed in read]
    solids = [solid for _source, solid, _placed in read]
    shapes = [rigid_shape(source, depsgraph) if modes.rigid_bodies else None for source, _solid, _placed in read]
    lows, highs = broad_phase_bounds(solids, shapes, modes)
    margin = max(report.clearance, report.touch_tolerance)
    in_a = np.array([name in sides[0] for name in names])
    in_b = np.array([name in sides[1] for name in names])
    candidates = (np.column_stack(np.triu_indices(len(read), 1)) if every_pair
                  else overlapping_pairs(lows, highs, margin=margin))
    pairs = allowed_pairs(candidates, in_a, in_b)
    report.candidate_pairs = len(pairs)
    yield from _read_triangles(sorted({index for pair in pairs for index in pair if isinstance(solids[index], Unread)}),
                               read, solids, depsgraph, use_hulls, (len(members), len(members) + len(pairs)))
    if shard is not None:
        pairs = shard_pairs(pairs, solids, shard)
    done = len(members)
    options = {"tolerance": report.tolerance, "touch_tolerance": report.touch_tolerance,
               "max_iterations": report.max_iterations or None}  # 0: the core's automatic cap
    note_of = cache(lambda index: hull_note(solids[index]))  # asked for hull pairs only: it classifies the object
    involved = sorted({index for pair in pairs for index in pair})
    kept: dict[int, tuple] = {}
    report.activity = "classifying the objects"
    yield from meanwhile(lambda: classify_solids([solids[index] for index in involved]),  # (the long part)
                         triangles_of([solids[index] for index in involved]), (done, len(members) + len(pairs)))
    for chunk in _batches(pairs, solids):
        report.activity = (f"measuring {names[chunk[0][0]]} \u2194 {names[chunk[0][1]]}" if len(chunk) == 1 else
                           f"measuring {len(chunk)} pairs")
        moded = {(i, j): measure_in_mode(solids[i], solids[j], (shapes[i], shapes[j]), modes, options)
                 for i, j in chunk} if not modes.default else {}
        usual = [(i, j) for i, j in chunk if moded.get((i, j)) is None]
        apart, answers = yield from meanwhile(
            lambda: measure_solid_pairs([(solids[i], solids[j]) for i, j in usual], clearance=report.clearance,
                                        **options),
            triangles_of([solids[index] for pair in usual for index in pair]), (done, len(members) + len(pairs)))
        report.separated += len(apart.index)
        if every_pair and len(apart.index):
            listed = [usual[k] for k in apart.index.tolist()]
            notes = ["; ".join(filter(None, (note_of(i), note_of(j)))) if method == HULL else ""
                     for (i, j), method in zip(listed, apart.methods)]
            report.separated_rows.append(SeparatedRows(
                [names[i] for i, _j in listed], [names[j] for _i, j in listed], apart, notes,
                *rows_certainty_and_notes(solids, np.array(listed).reshape(-1, 2), apart.has_volume)))
        contacts = dict(zip(usual, answers))
        for i, j in chunk:
            contact, mode_note = moded.get((i, j)) or (contacts[(i, j)], None)
            if contact is None:
                continue  # apart beyond the clearance: counted (and listed) as columns above
            status = pair_status(contact.signed_distance, contact.status, report.clearance)
            if status == 'separated':
                report.separated += 1
            if status != 'separated' or every_pair:
                note = mode_note if mode_note is not None else "; ".join(
                    filter(None, (note_of(i), note_of(j)))) if contact.method == HULL else ""
                report.results.append(clash_result(names[i], names[j], status, contact, (solids[i], solids[j]), note))
            if status == 'penetrating':
                kept.update((index, (read[index][0], solids[index], *read[index][2])) for index in (i, j))
        report.shapes = list(kept.values())
        done += len(chunk)
        yield done, len(members) + len(pairs)


def _batches(pairs: list[tuple[int, int]], solids: list[Solid]) -> Iterator[list[tuple[int, int]]]:
    """The pairs in measuring order: pairs of convex objects (or hulls: ``core.mesh.pair_method``) together,
    at most ``BATCH_PAIRS`` and ``BATCH_VERTICES`` padded vertices at a time, for the core's batch; then pairs of
    meshes short of sculpts (``BATCHED_TRIANGLE_PAIRS``) in the chunks the core steps in lockstep
    (``lockstep_chunks``: smaller ones would pay its per-step numpy calls more often, about twice the time on a
    kitbashed roof at 16 pairs a chunk; a second or two each, and Esc stops the worker between its steps); then every
    other pair alone (each may take a while: progress and Esc come between them)."""
    involved = {index for pair in pairs for index in pair}  # the others are never classified
    methods = {index: solids[index].method for index in involved}
    batched = [(i, j) for i, j in pairs if HULL in (methods[i], methods[j]) or methods[i] == methods[j] == CONVEX]
    sizes = {index: len(solids[index].mesh.vertices) for index in involved}  # at least the hull's vertex count
    batch: list[tuple[int, int]] = []
    widest = 0
    for i, j in batched:
        width = max(widest, sizes[i], sizes[j])
        if batch and (len(batch) == BATCH_PAIRS or (len(batch) + 1) * width > BATCH_VERTICES):
            yield batch
            batch, width = [], max(sizes[i], sizes[j])
        batch.append((i, j))
        widest = width
    if batch:
        yield batch
    alone = set(batched)
    rest = [pair for pair in pairs if pair not in alone]
    small = [(i, j) for i, j in rest
             if len(solids[i].mesh.triangles) * len(solids[j].mesh.triangles) <= BATCHED_TRIANGLE_PAIRS]
    for chunk in lockstep_chunks([len(solids[i].mesh.triangles) + len(solids[j].mesh.triangles) for i, j in small]):
        yield [small[row] for row in chunk]
    grouped = set(small)
    yield from ([pair] for pair in rest if pair not in grouped)


def hull_note(solid: Solid) -> str:
    """A note for an object measured as its convex hull although it is not convex ('' when it is)."""
    if all(part.convex for part in solid.parts) and len(solid.parts) == 1:
        return ""
    return f"{solid.name} is not convex: the answer is about its convex hull"


def clash_result(name_a: str, name_b: str, status: str, contact, solids: tuple[Solid, Solid],
                 note: str = '') -> ClashResult:
    """A ``ClashResult`` from a ``core.mesh.SolidContact`` (plain floats and tuples, float64) of the pair
    ``solids``, with how sure its volume is and what repairing them changed (``analysis.mesh_notes``)."""
    region = contact.region
    has_volume = contact.overlap_volume is not None or contact.volume_pending
    certainty, error = volume_certainty(*solids, has_volume, contact.volume_error)
    return ClashResult(
        name_a, name_b, status, float(contact.signed_distance), tuple(contact.normal.tolist()),
        tuple(contact.point_a.tolist()), tuple(contact.point_b.tolist()), contact.solver_status,
        method=contact.method, overlap_volume=contact.overlap_volume,
        depth_lower_bound=float(contact.depth_lower_bound), depth_is_estimate=bool(contact.depth_is_estimate),
        distance_lower_bound=float(contact.distance_lower_bound),
        distance_is_estimate=bool(contact.distance_is_estimate),
        curves=tuple(tuple(map(tuple, curve.tolist())) for curve in contact.curves) if contact.curves else (),
        note=note,
        region=() if region is None else tuple(map(tuple, region.points_a.tolist())),
        region_area=0.0 if region is None else float(region.area),
        volume_pending=contact.volume_pending, volume_certainty=certainty, volume_error=error,
        mesh_note="; ".join(filter(None, (pair_note(*solids), parts_note(*solids, contact.volume_error)))),
    )
