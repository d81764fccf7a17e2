"""Results on the scene: store a finished check (review states carried over) and read them back as a report.

The scene's ``collision_inspector.results`` collection is written here only; the panel and the overlay
read it.
"""

from datetime import UTC, datetime

import bpy

from .clash_report import ClashReport, ClashResult
from .geometry import evaluated_mesh, hull_note, world_points
from .review import Previous, is_vanished_clash, review_states
from .tracking import forget


def object_hull_notes(names: set, depsgraph: bpy.types.Depsgraph) -> dict:
    """``{name: convex-hull note}`` of the named objects ('' for those close enough to convex; objects
    deleted since the check are left out)."""
    notes = {}
    for name in sorted(names):
        obj = bpy.data.objects.get(name)
        if obj is None:
            continue
        with evaluated_mesh(obj, depsgraph) as (mesh, matrix_world):
            notes[name] = hull_note(name, mesh, world_points(mesh, matrix_world))
    return notes


def result_pair(result) -> tuple:
    """``(name A, name B)`` of a stored result: current names, or those at analysis time once deleted."""
    return (result.object_a.name if result.object_a else result.name_a,
            result.object_b.name if result.object_b else result.name_b)


def stored_reviews(settings) -> list[Previous]:
    """Pair, status and review state of every stored result (what the next analysis carries over)."""
    return [Previous(result_pair(r), r.status, r.review_state) for r in settings.results]


def _stored_values(result) -> dict:
    """Every property of a stored result, to write it back after the collection is rebuilt."""
    values = {}
    for prop in result.bl_rna.properties:
        if prop.identifier != 'rna_type':
            value = getattr(result, prop.identifier)
            values[prop.identifier] = tuple(value) if getattr(prop, 'array_length', 0) else value
    return values


def store_results(settings, report: ClashReport, notes: dict, keep_vanished: bool) -> None:
    """Replace ``settings.results`` with the report's clashes (review states carried over), then, with
    ``keep_vanished`` (the same scope as before), the earlier clashes that vanished, marked 'resolved'.

    The report's counts and duration are stored too, so a report exported later from the panel has them.
    """
    clashes, touch_tolerance = report.results, report.touch_tolerance
    settings.possible_pairs = min(report.possible_pairs, 2**31 - 1)
    settings.candidate_pairs = min(report.candidate_pairs, 2**31 - 1)
    settings.analysis_seconds = report.seconds
    settings.analysed_objects = report.objects
    previous = stored_reviews(settings)
    kept = [_stored_values(r) for r in settings.results]
    states, vanished = review_states(previous, [((c.object_a, c.object_b), c.status) for c in clashes])
    settings.results.clear()
    for clash, state in zip(clashes, states):
        result = settings.results.add()
        result.object_a = bpy.data.objects.get(clash.object_a)
        result.object_b = bpy.data.objects.get(clash.object_b)
        result.name_a, result.name_b = clash.object_a, clash.object_b
        result.status = clash.status
        result.signed_distance = clash.signed_distance
        result.depth = max(-clash.signed_distance, 0.0)
        result.distance = max(clash.signed_distance, 0.0)
        result.tolerance = touch_tolerance
        result.normal = clash.normal
        result.point_a = clash.point_a
        result.point_b = clash.point_b
        result.solver_status = clash.solver_status
        result.hull_note = "; ".join(filter(None, (notes.get(clash.object_a), notes.get(clash.object_b))))
        result.review_state = state
        result.stale = False
    for index in vanished if keep_vanished else ():
        result = settings.results.add()
        for name, value in kept[index].items():
            setattr(result, name, value)
        result.review_state = 'resolved'
        result.stale = False
    if settings.active_result_index >= len(settings.results):
        settings.active_result_index = max(len(settings.results) - 1, 0)
    forget()


def stored_report(scene: bpy.types.Scene) -> ClashReport:
    """The scene's stored results as a ``ClashReport``: the clashes with their review states and the
    objects' current names; separated pairs and vanished clashes (review state 'resolved') only counted.
    Thresholds are those of the results (touch tolerance) and the scene; counts and duration those stored
    by the last analysis."""
    settings = scene.collision_inspector
    results = list(settings.results)
    pairs = [result_pair(r) for r in results]
    report = ClashReport(
        scope=settings.scope, clearance=settings.clearance,
        touch_tolerance=results[0].tolerance if results else settings.touch_tolerance,
        tolerance=settings.tolerance, max_iterations=settings.max_iterations, blend_file=bpy.data.filepath,
        blender_version=bpy.app.version_string, time=datetime.now(UTC).isoformat(timespec='seconds'),
        collection_a=settings.collection_a.name if settings.scope == 'COLLECTIONS' and settings.collection_a else '',
        collection_b=((settings.collection_b or settings.collection_a).name
                      if settings.scope == 'COLLECTIONS' and settings.collection_a else ''),
        objects=settings.analysed_objects or len({name for pair in pairs for name in pair}),
        possible_pairs=settings.possible_pairs, candidate_pairs=settings.candidate_pairs,
        seconds=settings.analysis_seconds,
        separated=sum(r.status == 'separated' for r in results),
        resolved=sum(r.review_state == 'resolved' for r in results),
    )
    report.results = [
        ClashResult(object_a=name_a, object_b=name_b, status=r.status, signed_distance=r.signed_distance,
                    normal=tuple(r.normal), point_a=tuple(r.point_a), point_b=tuple(r.point_b),
                    solver_status=r.solver_status, review_state=r.review_state)
        for r, (name_a, name_b) in zip(results, pairs)
        if r.status != 'separated' and not is_vanished_clash(r.status, r.review_state)
    ]
    return report
