"""Results on the scene: store a finished check (review states carried over) and read them back as a report.

The scene's ``collision_inspector.results`` collection is written here only; the panel and the overlay
read it.
"""

from datetime import UTC, datetime
from typing import NamedTuple

import bpy
import numpy as np

from .clash_report import ClashReport, ClashResult, intervals_text
from .exact_numbers import EXACT_LAYOUT, exact_rows, write_exact
from .ordering import enum_column
from .review import Previous, is_vanished_clash, review_states
from .separated import SeparatedRows, joined
from .shapes import INSTANCE_SEPARATOR, current_name
from .tracking import forget
from .typed import typed_decimal


def result_pair(result) -> tuple:
    """``(name A, name B)`` of a stored result: current names ("Instancer ▸ Object" under the instancer's
    current name), or those at analysis time once deleted."""
    return current_name(result.object_a, result.name_a), current_name(result.object_b, result.name_b)


def stored_reviews(settings) -> list[Previous]:
    """Pair, status and review state of the stored results a review carries over (clashes and pairs marked
    'resolved': a separated pair never reviewed tells the next analysis nothing), read a column at a time."""
    results = settings.results
    statuses, states = enum_column(results, "status"), enum_column(results, "review_state")
    relevant = ((statuses != 'separated') | (states == 'resolved')).tolist()
    return [Previous(result_pair(result), status, state) for result, status, state, kept
            in zip(results, statuses, states, relevant) if kept]  # one pass: results[index] walks the list


#: Per-result properties written one result at a time (``foreach_set`` has no strings or pointers).
_ITEM_PROPERTIES = ('object_a', 'object_b', 'name_a', 'name_b', 'hull_note', 'contact_frames', 'mesh_note')


class _Column(NamedTuple):
    """A result property written a column at a time: its ``foreach`` dtype, length, default, and for an
    enum the value of each identifier."""

    dtype: type
    size: int
    default: object
    enum_values: dict | None = None


def _column_properties(settings) -> dict[str, _Column]:
    """The result properties written a column at a time: every number, boolean and (single) enum."""
    columns = {}
    for prop in settings.bl_rna.properties['results'].fixed_type.properties:
        if prop.identifier == 'rna_type' or prop.is_readonly or prop.type not in {'FLOAT', 'INT', 'BOOLEAN', 'ENUM'}:
            continue
        if prop.type == 'ENUM':
            if not prop.is_enum_flag:
                values = {item.identifier: item.value for item in prop.enum_items}
                columns[prop.identifier] = _Column(np.int32, 1, values[prop.default], values)
            continue
        size = max(getattr(prop, 'array_length', 0), 1)
        dtype = {'FLOAT': np.float64, 'INT': np.int32, 'BOOLEAN': bool}[prop.type]
        columns[prop.identifier] = _Column(dtype, size, prop.default_array if size > 1 else prop.default)
    return columns


def _clash_columns(clashes: list[ClashResult]) -> dict:
    """The values of the result columns that clashes give (the others take their defaults)."""
    return {
        'signed_distance_view': np.array([c.signed_distance for c in clashes], dtype=np.float64),
        'normal_view': [c.normal for c in clashes], 'point_a_view': [c.point_a for c in clashes],
        'point_b_view': [c.point_b for c in clashes], 'status': [c.status for c in clashes],
        'solver_status': [c.solver_status for c in clashes], 'method': [c.method for c in clashes],
        'has_volume': [c.overlap_volume is not None for c in clashes],
        'volume_certainty': [c.volume_certainty for c in clashes],
        'overlap_volume_view': [c.overlap_volume or 0.0 for c in clashes],
        'depth_is_estimate': [c.depth_is_estimate for c in clashes],
        'distance_is_estimate': [c.distance_is_estimate for c in clashes],
        'scanned': [c.max_depth is not None for c in clashes],
        'first_contact_frame': [c.first_contact_frame or 0 for c in clashes],
        'deepest_frame': [c.deepest_frame or 0 for c in clashes],
        'measured_frame': [c.measured_frame or 0 for c in clashes],
        'frame_bound': [c.measured_frame is not None for c in clashes],
        'max_depth': [c.max_depth or 0.0 for c in clashes],
    }


def _row_columns(rows: SeparatedRows) -> dict:
    """The values of the result columns that separated rows give (the others take their defaults)."""
    pairs = rows.columns.pairs
    return {'signed_distance_view': pairs.signed_distance, 'normal_view': pairs.normal,
            'point_a_view': pairs.point_a, 'point_b_view': pairs.point_b, 'status': ['separated'] * len(rows),
            'solver_status': pairs.solver_statuses(), 'method': rows.columns.methods,
            'has_volume': rows.columns.has_volume, 'volume_certainty': rows.volume_certainty}


def _column_values(given: list[dict], count: int, states: list[str], touch_tolerance: float,
                   columns: dict[str, _Column]) -> dict:
    """Every column's values, ``(count, size)`` each: the ``given`` parts one after another (a column a
    part does not give takes its default there), then the review states, tolerance and 'not stale'."""
    shared = {'tolerance': np.full(count, touch_tolerance), 'review_state': states,
              'stale': np.zeros(count, dtype=bool)}
    return {name: np.concatenate([_piece(part, name, column) for part in ([shared] if name in shared else given)])
            for name, column in columns.items()}


def _piece(part: dict, name: str, column: _Column) -> np.ndarray:
    """Column ``name`` of one part, ``(rows, size)``: its values (enums as their numbers) or the default."""
    if name not in part:
        default = np.asarray(column.default, dtype=column.dtype)
        return np.tile(default, (len(part['signed_distance_view']), 1)).reshape(-1, column.size)
    value = part[name]
    if column.enum_values is not None:
        value = [column.enum_values[identifier] for identifier in value]
    return np.asarray(value, dtype=column.dtype).reshape(-1, column.size)


def scene_object(name: str) -> bpy.types.Object | None:
    """The scene object a result name points at: the object itself, or the instancer of "Instancer ▸ Object"."""
    return bpy.data.objects.get(name.split(INSTANCE_SEPARATOR)[0])


#: The polylines stored with the results, as ID properties of the settings (float64, saved with the .blend):
#: flat points, points per polyline, and the result each belongs to.
GEOMETRY_KINDS = ("curve", "region")


def store_contact_geometry(settings, clashes: list[ClashResult], positions: list[int]) -> None:
    """The results' intersection curves and contact regions, all results in a few flat arrays.

    ``settings["curve_points"]`` holds every curve's points (x, y, z, ...), ``["curve_sizes"]`` the
    number of points of each curve and ``["curve_results"]`` the result index it belongs to (clash ``k`` is
    result ``positions[k]``); likewise ``region_*`` for the contact regions' corners. Flat
    arrays keep reading them loop-free.
    """
    for kind, polylines in (("curve", [(k, curve) for k, c in zip(positions, clashes) for curve in c.curves]),
                            ("region", [(k, c.region) for k, c in zip(positions, clashes) if c.region])):
        settings[f"{kind}_points"] = [x for _k, line in polylines for point in line for x in point]
        settings[f"{kind}_sizes"] = [len(line) for _k, line in polylines]
        settings[f"{kind}_results"] = [k for k, _line in polylines]


def stored_polylines(settings, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points (P, 3), sizes (C,), results (C,))`` of the stored ``kind`` ('curve' or 'region')."""
    points = np.asarray(settings.get(f"{kind}_points", ()), dtype=np.float64).reshape(-1, 3)
    sizes = np.asarray(settings.get(f"{kind}_sizes", ()), dtype=np.int64)
    return points, sizes, np.asarray(settings.get(f"{kind}_results", ()), dtype=np.int64)


def polylines_by_result(settings, kind: str) -> dict[int, tuple]:
    """``{result index: polylines}`` of the stored ``kind``, each polyline a tuple of points."""
    points, sizes, results = stored_polylines(settings, kind)
    grouped: dict[int, tuple] = {}
    for index, line in zip(results.tolist(), np.split(points, np.cumsum(sizes)[:-1]) if len(sizes) else ()):
        grouped[index] = (*grouped.get(index, ()), tuple(map(tuple, line.tolist())))
    return grouped


def clash_numbers(clash: ClashResult) -> dict:
    """A clash's float64 numbers by their names in ``exact_numbers.EXACT_LAYOUT``."""
    return {"signed_distance": clash.signed_distance, "normal": clash.normal, "point_a": clash.point_a,
            "point_b": clash.point_b, "overlap_volume": clash.overlap_volume or 0.0,
            "depth_lower_bound": clash.depth_lower_bound, "region_area": clash.region_area,
            "distance_lower_bound": clash.distance_lower_bound, "volume_error": clash.volume_error}


def _clash_rows(clashes: list[ClashResult]) -> list[list[float]]:
    """The clashes' float64 numbers as rows of a result's ``exact`` ID property."""
    numbers = [clash_numbers(clash) for clash in clashes]
    return exact_rows({name: [n[name] for n in numbers] for name in EXACT_LAYOUT}, len(clashes)).tolist()


def _vanished_values(results, vanished: list[int], columns: dict[str, _Column]) -> tuple[dict, list]:
    """``(column values, per-result values)`` of the earlier results at ``vanished``, marked 'resolved'
    and not stale (the analysis just looked at them)."""
    values = {}
    for name, column in columns.items():
        everything = np.empty(len(results) * column.size, dtype=column.dtype)
        results.foreach_get(name, everything)
        values[name] = everything.reshape(len(results), column.size)[vanished]
    values['review_state'][:] = columns['review_state'].enum_values['resolved']
    values['stale'][:] = False
    wanted = set(vanished)
    items = {index: (*(getattr(r, name) for name in _ITEM_PROPERTIES), list(r.get("exact", ())))
             for index, r in enumerate(results) if index in wanted}
    return values, [items[index] for index in vanished]


def store_results(settings, report: ClashReport, keep_vanished: bool) -> None:
    """Replace ``settings.results`` with the report's clashes and separated rows, sorted by pair (review
    states carried over), then, with ``keep_vanished`` (the same scope as before), the earlier clashes that
    vanished, marked 'resolved'.

    The report's counts and duration are stored too, so a report exported later from the panel has them.
    Numbers, states and flags are written a column at a time (``foreach_set``); names, object pointers and
    the float64 numbers one result at a time, the objects looked up once each.
    """
    clashes, results, rows = report.results, settings.results, joined(report.separated_rows)
    settings.possible_pairs = min(report.possible_pairs, 2**31 - 1)
    settings.candidate_pairs = min(report.candidate_pairs, 2**31 - 1)
    settings.analysis_seconds = report.seconds
    settings.analysed_objects = report.objects
    names_a = [c.object_a for c in clashes] + (rows.object_a if rows else [])
    names_b = [c.object_b for c in clashes] + (rows.object_b if rows else [])
    statuses = [c.status for c in clashes] + ['separated'] * (len(rows) if rows else 0)
    states, vanished = review_states(stored_reviews(settings), list(zip(zip(names_a, names_b), statuses)))
    columns = _column_properties(settings)
    parts = [_clash_columns(clashes)] + ([_row_columns(rows)] if rows else [])
    values = _column_values(parts, len(names_a), states, report.touch_tolerance, columns)
    objects = {name: scene_object(name) for name in {*names_a, *names_b}}
    extras = [(c.note, intervals_text(c.contact_intervals) if c.contact_intervals else '', c.mesh_note)
              for c in clashes]
    extras += [(note, '', mesh_note) for note, mesh_note in zip(rows.notes, rows.mesh_notes)] if rows else []
    exact = _clash_rows(clashes) + (rows.exact_numbers().tolist() if rows else [])
    order = np.lexsort((np.array(names_b), np.array(names_a))) if names_a else np.empty(0, dtype=np.int64)
    values = {name: column[order] for name, column in values.items()}
    items = [(objects[names_a[k]], objects[names_b[k]], names_a[k], names_b[k], *extras[k], exact[k])
             for k in order.tolist()]
    if keep_vanished and vanished:
        kept_values, kept_items = _vanished_values(results, vanished, columns)
        values = {name: np.concatenate([column, kept_values[name]]) for name, column in values.items()}
        items += kept_items
    results.clear()
    for _item in items:
        results.add()
    for name, column in values.items():
        if not (column == np.asarray(columns[name].default, dtype=columns[name].dtype)).all():
            results.foreach_set(name, column.ravel())  # new items read as the default until written
    for result, (object_a, object_b, name_a, name_b, note, frames, mesh_note, numbers) in zip(results, items):
        result.object_a, result.object_b, result.name_a, result.name_b = object_a, object_b, name_a, name_b
        if note:
            result.hull_note = note
        if mesh_note:
            result.mesh_note = mesh_note
        if frames:
            result.contact_frames = frames
        if numbers:
            result["exact"] = numbers  # float64, read back through the result's ExactNumber properties
    positions = np.argsort(order)[:len(clashes)].tolist()
    store_contact_geometry(settings, clashes, positions)
    store_depth_series(settings, clashes, positions, len(items))
    if settings.active_result_index >= len(results):
        settings["active_result_index"] = max(len(results) - 1, 0)  # no update: the selection stays
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
        scope=settings.scope, clearance=typed_decimal(settings.clearance),
        touch_tolerance=typed_decimal(results[0].tolerance if results else settings.touch_tolerance),
        tolerance=typed_decimal(settings.tolerance), max_iterations=settings.max_iterations,
        blend_file=bpy.data.filepath,
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
    curves, regions = polylines_by_result(settings, "curve"), polylines_by_result(settings, "region")
    report.results = [
        ClashResult(object_a=name_a, object_b=name_b, status=r.status, signed_distance=r.signed_distance,
                    normal=tuple(r.normal), point_a=tuple(r.point_a), point_b=tuple(r.point_b),
                    solver_status=r.solver_status, review_state=r.review_state, method=r.method,
                    overlap_volume=r.overlap_volume if r.has_volume and not r.volume_pending else None,
                    volume_certainty=r.volume_certainty, volume_error=r.volume_error, mesh_note=r.mesh_note,
                    depth_lower_bound=r.depth_lower_bound, depth_is_estimate=r.depth_is_estimate,
                    distance_lower_bound=r.distance_lower_bound, distance_is_estimate=r.distance_is_estimate,
                    curves=curves.get(index, ()), note=r.hull_note, region=regions.get(index, ((),))[0],
                    region_area=r.region_area, volume_pending=r.volume_pending, **scan_fields(r))
        for index, (r, (name_a, name_b)) in enumerate(zip(results, pairs))
        if r.status != 'separated' and not is_vanished_clash(r.status, r.review_state)
    ]
    return report


def scan_fields(result) -> dict:
    """The animation-scan fields of a stored result as ``ClashResult`` keywords (none when not scanned)."""
    if not result.scanned:
        return {}
    intervals = tuple(tuple(int(frame) for frame in (part.split("-") * 2)[:2])
                      for part in result.contact_frames.split())
    return {'first_contact_frame': result.first_contact_frame if intervals else None,
            'deepest_frame': result.deepest_frame if result.max_depth > 0.0 else None,
            'max_depth': result.max_depth, 'contact_intervals': intervals,
            'measured_frame': result.measured_frame if result.frame_bound else None}


def store_depth_series(settings, clashes: list[ClashResult], positions: list[int], count: int) -> None:
    """The scanned depth at each frame, per result: ``settings["scan_depths"]`` flat, ``["scan_counts"]``
    the number of frames of each of the ``count`` results (0 when not scanned), for the panel's plot.
    Clash ``k`` is result ``positions[k]``."""
    series: list[tuple] = [()] * count
    for position, clash in zip(positions, clashes):
        series[position] = clash.depth_series
    settings["scan_depths"] = [depth for depths in series for depth in depths]
    settings["scan_counts"] = [len(depths) for depths in series]


def depth_series(settings, index: int) -> np.ndarray:
    """The depth at each scanned frame of result ``index`` (empty when it was not scanned)."""
    counts = np.asarray(settings.get("scan_counts", ()), dtype=np.int64)
    if index >= len(counts):
        return np.empty(0)
    start = int(counts[:index].sum())
    return np.asarray(settings.get("scan_depths", ()), dtype=np.float64)[start:start + counts[index]]


def update_results(settings, updates: dict[int, ClashResult]) -> None:
    """Write re-measured pairs over the stored results at their indices (``{index: clash}``), in place:
    numbers, status, method, note, curves and regions; review states and scan fields stay, but the numbers are no
    longer those of a scanned frame (``frame_bound`` off: drawn where the objects are now). Not stale any more."""
    results = settings.results
    for index, clash in updates.items():
        result = results[index]
        result.status = clash.status
        write_exact(result, clash_numbers(clash))  # depth and distance follow the signed distance
        result.solver_status, result.method = clash.solver_status, clash.method
        result.has_volume = clash.overlap_volume is not None or clash.volume_pending
        result.volume_pending = clash.volume_pending
        result.depth_is_estimate = clash.depth_is_estimate
        result.distance_is_estimate = clash.distance_is_estimate
        result.hull_note = clash.note
        result.volume_certainty = clash.volume_certainty
        result.mesh_note = clash.mesh_note
        result.stale = result.frame_bound = False
    _replace_contact_geometry(settings, updates)
    forget()


def _replace_contact_geometry(settings, updates: dict[int, ClashResult]) -> None:
    """Swap the stored curves and regions of the results in ``updates`` for theirs (see ``store_contact_geometry``)."""
    for kind in GEOMETRY_KINDS:
        points, sizes, owners = stored_polylines(settings, kind)
        kept = ~np.isin(owners, np.fromiter(updates, dtype=np.int64, count=len(updates)))
        new = [(index, line) for index, clash in updates.items()
               for line in (clash.curves if kind == "curve" else (clash.region,) if clash.region else ())]
        new_points = np.array([point for _index, line in new for point in line], dtype=np.float64).reshape(-1, 3)
        settings[f"{kind}_points"] = np.concatenate([points[np.repeat(kept, sizes)], new_points]).ravel().tolist()
        settings[f"{kind}_sizes"] = [*sizes[kept].tolist(), *(len(line) for _index, line in new)]
        settings[f"{kind}_results"] = [*owners[kept].tolist(), *(index for index, _line in new)]
