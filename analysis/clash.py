"""Scene-wide clash check: which objects penetrate, touch or come closer than a clearance distance.

``check_scene`` reads every object's evaluated world-space vertices once, asks the broad phase
(``core.overlapping_pairs``, sort-and-sweep on world bounding boxes inflated by the clearance) for
candidate pairs, prepares one ``core.Polytope`` per object that has any, and runs GJK/EPA
(``core.collide``) on those pairs only: N objects cost O(N log N + candidates), not N². No UI here; the
panel, the operator and the command line (``cli.py``) all call ``check_scene``.
"""

from __future__ import annotations

import time
from itertools import combinations
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime

import bpy
import numpy as np

from ..core import Polytope, collide, overlapping_pairs
from .clash_report import ClashReport, ClashResult
from .geometry import ObjectGeometryError, evaluated_world_points, has_geometry, require_measurable

SCOPES = ('SELECTED', 'ACTIVE', 'COLLECTIONS', 'ALL')

#: ``progress(done, total)``; returning False cancels the check (see ``check_scene``).
ProgressCallback = Callable[[int, int], bool | None]

__all__ = ['SCOPES', 'ClashReport', 'ClashResult', 'ObjectGeometryError', 'check_scene', 'start_check']


def _geometry_objects(objects: Iterable[bpy.types.Object]) -> list:
    """Objects with geometry, each once, sorted by name (names are unique within a file)."""
    return sorted({obj for obj in objects if has_geometry(obj)}, key=lambda obj: obj.name)


def _read_points(obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph) -> np.ndarray:
    """World-space vertices of the evaluated object; ObjectGeometryError names an unusable one."""
    return require_measurable(obj.name, evaluated_world_points(obj, depsgraph))


def _scope_sides(scene, depsgraph, scope, objects, active, collection_a, collection_b) -> tuple[list, list]:
    """``(side A, side B)`` objects for the scope; the same list twice means all pairs among them."""
    view_layer = scene.view_layers[depsgraph.view_layer.name]  # the original: selection is current there
    if scope == 'ALL':
        everything = _geometry_objects(scene.objects)
        return everything, everything
    if scope == 'COLLECTIONS':
        if collection_a is None:
            raise ValueError("scope 'COLLECTIONS' needs collection_a")
        side_a = _geometry_objects(collection_a.all_objects)
        if collection_b is None or collection_b == collection_a:
            return side_a, side_a
        return side_a, _geometry_objects(collection_b.all_objects)
    chosen = _geometry_objects(view_layer.objects.selected if objects is None else objects)
    if scope == 'SELECTED':
        return chosen, chosen
    if scope == 'ACTIVE':
        active = view_layer.objects.active if active is None else active
        if active is None or not has_geometry(active):
            return [], []
        return [active], [obj for obj in chosen if obj != active]
    raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")


def _allowed_pairs(candidates: np.ndarray, in_a: np.ndarray, in_b: np.ndarray) -> list[tuple[int, int]]:
    """Candidate index pairs ``i < j`` (objects sorted by name) that the scope allows, as ``(a, b)``.

    A pair is kept when one object is on side A and the other on side B; the A-side object becomes
    ``object_a``. When both objects are on both sides (all pairs among one set) the earlier name is A.
    """
    pairs = []
    for i, j in candidates.tolist():
        if in_a[i] and in_b[j]:
            pairs.append((i, j))
        elif in_a[j] and in_b[i]:
            pairs.append((j, i))
    return pairs


def _possible_pairs(side_a: list, side_b: list) -> int:
    """How many distinct unordered pairs of different objects the two sides allow (a brute-force count)."""
    set_a, set_b = set(side_a), set(side_b)
    both, only_a, only_b = len(set_a & set_b), len(set_a - set_b), len(set_b - set_a)
    return both * (both - 1) // 2 + both * (only_a + only_b) + only_a * only_b


def _status(signed_distance: float, core_status: str, clearance: float) -> str:
    """'penetrating' / 'touching' come from the core; a separated pair closer than the clearance is 'clearance'."""
    if core_status == 'separated' and signed_distance < clearance:
        return 'clearance'
    return core_status


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

    ``progress(done, total)`` is called after each object read and each pair measured
    (``total`` = objects + candidate pairs, known once the broad phase has run; before that it counts
    the objects only). Returning False cancels: the report comes back with ``cancelled = True`` and
    the clashes found so far. Exceptions raised by the callback propagate.
    """
    report, steps = start_check(scene, depsgraph, **options)
    for done, total in steps:
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
) -> tuple[ClashReport, Iterator[tuple[int, int]]]:
    """``(report, steps)``: the check as a generator, for callers that run it a slice at a time
    (the panel's cancellable analysis); ``check_scene`` simply runs it to the end.

    Each ``next(steps)`` reads one object or measures one pair and yields ``(done, total)`` (see
    ``check_scene``'s progress); once exhausted, or closed early, ``report`` holds the clashes found,
    sorted, and its duration.

    Scopes (objects without geometry are left out; names sort the pairs, A before B):
    * 'SELECTED': all pairs among ``objects`` (default: the view layer's selected objects);
    * 'ACTIVE': ``active`` (default: the view layer's active object) against the other ones of
      ``objects`` (default: selected); the active object is always object A;
    * 'COLLECTIONS': every object of ``collection_a`` (with its child collections) against every one of
      ``collection_b``, A side as object A; all pairs within ``collection_a`` when B is None or the same;
    * 'ALL': all pairs among the scene's objects.

    Thresholds, in world units: ``touch_tolerance`` (|signed distance| <= it is 'touching'),
    ``clearance`` (apart but closer than it is a 'clearance' violation; raising it only adds results),
    ``tolerance`` and ``max_iterations`` (the core's accuracy and iteration cap). None takes the
    value stored in ``scene.collision_inspector``.

    ``every_pair`` skips the broad phase: every pair the scope allows is measured and separated
    pairs are listed in ``results`` too (the panel's few-object scopes show every pair's distance).

    Stepping raises ``ObjectGeometryError`` (message names the object) for an object with no vertices
    or with non-finite coordinates; ``start_check`` raises ``ValueError`` for an unknown scope or a
    negative threshold.
    """
    settings = scene.collision_inspector
    touch_tolerance = settings.touch_tolerance if touch_tolerance is None else float(touch_tolerance)
    tolerance = settings.tolerance if tolerance is None else float(tolerance)
    max_iterations = settings.max_iterations if max_iterations is None else int(max_iterations)
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
    side_a, side_b = _scope_sides(scene, depsgraph, scope, objects, active, collection_a, collection_b)
    members = _geometry_objects([*side_a, *side_b])
    report.objects = len(members)
    report.possible_pairs = _possible_pairs(side_a, side_b)
    return report, _steps(report, members, set(side_a), set(side_b), depsgraph, every_pair, started)


def _steps(report: ClashReport, members: list, side_a: set, side_b: set, depsgraph, every_pair: bool,
           started: float) -> Iterator[tuple[int, int]]:
    """Sort the results and time the check however the stepping ends (``_measure`` does the work)."""
    try:
        yield from _measure(report, members, side_a, side_b, depsgraph, every_pair)
    finally:
        report.results.sort(key=lambda result: (result.object_a, result.object_b))
        report.seconds = time.perf_counter() - started


def _measure(report: ClashReport, members: list, side_a: set, side_b: set, depsgraph,
             every_pair: bool) -> Iterator[tuple[int, int]]:
    """Read every object once, broad phase on their world boxes, then GJK/EPA on the allowed candidates.

    With ``every_pair`` every allowed pair is a candidate and separated ones are listed as well.

    Each object's ``Polytope`` is prepared once, on its first candidate pair: objects that no box
    comes near (often most of a scene) are never prepared.
    """
    points = []
    for done, obj in enumerate(members, start=1):
        points.append(_read_points(obj, depsgraph))
        yield done, len(members)
    if len(members) < 2:
        return
    lows = np.array([cloud.min(axis=0) for cloud in points])
    highs = np.array([cloud.max(axis=0) for cloud in points])
    margin = max(report.clearance, report.touch_tolerance)
    in_a = np.array([obj in side_a for obj in members])
    in_b = np.array([obj in side_b for obj in members])
    candidates = (np.array(list(combinations(range(len(members)), 2)), dtype=np.int64) if every_pair
                  else overlapping_pairs(lows, highs, margin=margin))
    pairs = _allowed_pairs(candidates, in_a, in_b)
    report.candidate_pairs = len(pairs)
    shapes: dict[int, Polytope] = {}

    def shape(index: int) -> Polytope:
        if index not in shapes:
            shapes[index] = Polytope(points[index])
        return shapes[index]

    for done, (i, j) in enumerate(pairs, start=len(members) + 1):
        contact = collide(shape(i), shape(j), tolerance=report.tolerance,
                          touch_tolerance=report.touch_tolerance, max_iterations=report.max_iterations)
        status = _status(contact.signed_distance, contact.status, report.clearance)
        if status == 'separated':
            report.separated += 1
        if status != 'separated' or every_pair:
            report.results.append(ClashResult(
                object_a=members[i].name, object_b=members[j].name, status=status,
                signed_distance=float(contact.signed_distance),
                normal=tuple(map(float, contact.normal)), point_a=tuple(map(float, contact.point_a)),
                point_b=tuple(map(float, contact.point_b)), solver_status=contact.solver_status,
            ))
        yield done, len(members) + len(pairs)
