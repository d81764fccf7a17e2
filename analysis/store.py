"""Results on the scene: store a finished check (review states carried over) and read them back as a report.

The scene's ``collision_inspector.results`` collection is written here only; the panel and the overlay
read it.
"""

from datetime import UTC, datetime

import bpy

from .clash_report import ClashReport, ClashResult
from .review import Previous, review_states
from .shapes import INSTANCE_SEPARATOR


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


def scene_object(name: str) -> bpy.types.Object | None:
    """The scene object a result name points at: the object itself, or the instancer of "Instancer ▸ Object"."""
    return bpy.data.objects.get(name.split(INSTANCE_SEPARATOR)[0])


def store_curves(result, curves: tuple) -> None:
    """The intersection curves as ID properties of the result (float64, saved with the .blend)."""
    result["curve_points"] = [coordinate for curve in curves for point in curve for coordinate in point]
    result["curve_sizes"] = [len(curve) for curve in curves]


def stored_curves(result) -> list:
    """The result's intersection curves as (K, 3) lists of points ([] when it has none)."""
    flat, sizes = result.get("curve_points", ()), result.get("curve_sizes", ())
    curves, start = [], 0
    for size in sizes:
        curves.append([tuple(flat[3 * k:3 * k + 3]) for k in range(start, start + size)])
        start += size
    return curves


def store_results(settings, clashes: list[ClashResult], touch_tolerance: float, keep_vanished: bool) -> None:
    """Replace ``settings.results`` with ``clashes`` (review states carried over), then, with
    ``keep_vanished`` (the same scope as before), the earlier clashes that vanished, marked 'resolved'."""
    previous = stored_reviews(settings)
    kept = [_stored_values(r) for r in settings.results]
    states, vanished = review_states(previous, [((c.object_a, c.object_b), c.status) for c in clashes])
    settings.results.clear()
    for clash, state in zip(clashes, states):
        result = settings.results.add()
        result.object_a = scene_object(clash.object_a)
        result.object_b = scene_object(clash.object_b)
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
        result.hull_note = clash.note
        result.method = clash.method
        result.has_volume = clash.overlap_volume is not None
        result.overlap_volume = clash.overlap_volume or 0.0
        result.depth_lower_bound = clash.depth_lower_bound
        result.depth_is_estimate = clash.depth_is_estimate
        store_curves(result, clash.curves)
        result.review_state = state
    for index in vanished if keep_vanished else ():
        result = settings.results.add()
        for name, value in kept[index].items():
            setattr(result, name, value)
        result.review_state = 'resolved'
    if settings.active_result_index >= len(settings.results):
        settings.active_result_index = max(len(settings.results) - 1, 0)


def stored_report(scene: bpy.types.Scene) -> ClashReport:
    """The scene's stored results as a ``ClashReport`` (clashes listed with their review states,
    separated pairs counted); thresholds are those of the results (touch tolerance) and the scene."""
    settings = scene.collision_inspector
    results = list(settings.results)
    report = ClashReport(
        scope=settings.scope, clearance=settings.clearance,
        touch_tolerance=results[0].tolerance if results else settings.touch_tolerance,
        tolerance=settings.tolerance, max_iterations=settings.max_iterations, blend_file=bpy.data.filepath,
        blender_version=bpy.app.version_string, time=datetime.now(UTC).isoformat(timespec='seconds'),
        collection_a=settings.collection_a.name if settings.scope == 'COLLECTIONS' and settings.collection_a else '',
        collection_b=((settings.collection_b or settings.collection_a).name
                      if settings.scope == 'COLLECTIONS' and settings.collection_a else ''),
        objects=len({name for r in results for name in (r.name_a, r.name_b)}),
        separated=sum(r.status == 'separated' for r in results),
    )
    report.results = [
        ClashResult(object_a=r.name_a, object_b=r.name_b, status=r.status, signed_distance=r.signed_distance,
                    normal=tuple(r.normal), point_a=tuple(r.point_a), point_b=tuple(r.point_b),
                    solver_status=r.solver_status, review_state=r.review_state)
        for r in results if r.status != 'separated'
    ]
    return report
