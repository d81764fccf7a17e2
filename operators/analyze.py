"""Analyse the panel's scope with the clash engine (``clash.check_scene``) and store the scene's results.

One engine for the panel, the command line and scripts. The few-object scopes (selected, active vs
selected) measure every pair and list separated ones too; collections and the whole scene list the
clashes the broad phase lets through. Review states carry over between runs (``review.review_states``).

From the panel the analysis runs modally, a slice per timer tick, with the window manager's progress
indicator; Esc cancels and keeps the previous results. From scripts and in background mode it runs to
the end at once.
"""

import time
from collections.abc import Iterator

import bpy

from ..ui import overlay
from ..ui.properties import STATUS_ITEMS
from ..ui.units import format_length
from .clash import start_check
from .clash_report import ClashResult
from .geometry import ObjectGeometryError, evaluated_mesh, has_geometry, hull_note, world_points
from .review import Previous, review_states

#: Scopes whose every pair is measured and listed (the user picked the objects one by one). Only these
#: get convex-hull notes: the check costs ~10 ms per 1k-vertex object, ten times a whole-scene check's
#: share per object.
EVERY_PAIR_SCOPES = frozenset({'SELECTED', 'ACTIVE'})
#: Per-pair report lines are written up to this many results; above it only the summary.
MAX_REPORTED_PAIRS = 20
#: Seconds of work per timer tick of the modal analysis: the interface stays responsive to Esc.
SLICE_SECONDS = 0.05
#: Interval of the modal analysis' timer: the slices follow each other with this pause.
TIMER_SECONDS = 0.01
#: The progress indicator counts in thousandths.
PROGRESS_STEPS = 1000


def advance(steps: Iterator[tuple[int, int]], seconds: float) -> tuple[int, int] | None:
    """Run ``steps`` for about ``seconds``; the last ``(done, total)``, or None once the check has finished."""
    deadline = time.perf_counter() + seconds
    latest = (0, 1)
    for latest in steps:
        if time.perf_counter() >= deadline:
            return latest
    return None


def selected_geometry_objects(context: bpy.types.Context) -> list:
    """Selected objects that have geometry, sorted by name (pair order: A is the earlier name)."""
    return sorted((obj for obj in context.selected_objects if has_geometry(obj)), key=lambda obj: obj.name)


def scope_refusal(context: bpy.types.Context) -> str:
    """Why the scope set in the panel cannot be analysed now ('' when it can)."""
    settings = context.scene.collision_inspector
    if settings.scope == 'COLLECTIONS':
        return "" if settings.collection_a is not None else "Choose collection A (and B, or none for A against itself)"
    if settings.scope == 'ALL':
        count = sum(has_geometry(obj) for obj in context.scene.objects)
        return "" if count >= 2 else f"The scene needs at least two objects with geometry; it has {count}"
    count = len(selected_geometry_objects(context))
    if settings.scope == 'ACTIVE':
        active = context.active_object
        if active is None or not has_geometry(active) or not active.select_get():
            return "Make a selected object with geometry active"
        if count < 2:
            return f"Select at least one more object with geometry besides the active one; {count} selected"
        return ""
    if count < 2:
        return (f"Select at least two objects with geometry (meshes, curves, text, surfaces, metaballs); "
                f"{count} selected")
    return ""


def scope_signature(context: bpy.types.Context) -> str:
    """What the panel's scope covers now: the scope with its collections or its objects' names."""
    settings = context.scene.collision_inspector
    if settings.scope == 'COLLECTIONS':
        names = [c.name for c in (settings.collection_a, settings.collection_b) if c is not None]
    elif settings.scope == 'ALL':
        names = [context.scene.name]
    else:
        names = [obj.name for obj in selected_geometry_objects(context)]
        if settings.scope == 'ACTIVE':
            names.insert(0, context.active_object.name)
    return "\n".join([settings.scope, *names])


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


class COLLISION_INSPECTOR_OT_analyze(bpy.types.Operator):
    """Measure penetration depth or distance, contact normal and witness points of the pairs in the scope"""

    bl_idname = "collision_inspector.analyze"
    bl_label = "Analyse"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        refusal = scope_refusal(context)
        if refusal:
            cls.poll_message_set(refusal)
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set:
        """Analyse to the end at once (scripts, background mode, redo)."""
        if not self.start(context):
            return {'CANCELLED'}
        while True:
            outcome = self.step(context, SLICE_SECONDS)
            if outcome is not None:
                return outcome

    def invoke(self, context: bpy.types.Context, _event) -> set:
        """From the interface: analyse a slice per timer tick; Esc cancels."""
        if bpy.app.background or context.window is None:
            return self.execute(context)
        if not self.start(context):
            return {'CANCELLED'}
        self._timer = context.window_manager.event_timer_add(TIMER_SECONDS, window=context.window)
        context.window_manager.modal_handler_add(self)
        return {'RUNNING_MODAL'}

    def modal(self, context: bpy.types.Context, event) -> set:
        if event.type == 'ESC':
            self.stop(context)
            self.report({'WARNING'}, "Analysis cancelled; the previous results are kept")
            return {'CANCELLED'}
        if event.type != 'TIMER':
            return {'PASS_THROUGH'}
        return self.step(context, SLICE_SECONDS) or {'RUNNING_MODAL'}

    def start(self, context: bpy.types.Context) -> bool:
        """Begin the check of the panel's scope and the progress indicator; False (reported) if refused."""
        settings = context.scene.collision_inspector
        try:
            self._report, self._steps = start_check(
                context.scene, context.evaluated_depsgraph_get(), scope=settings.scope,
                collection_a=settings.collection_a, collection_b=settings.collection_b,
                clearance=settings.clearance, every_pair=settings.scope in EVERY_PAIR_SCOPES,
            )
        except ValueError as error:
            self.report({'ERROR'}, str(error))
            return False
        self._signature = scope_signature(context)  # what the results will cover, whatever changes meanwhile
        self._timer = None
        context.window_manager.progress_begin(0, PROGRESS_STEPS)
        return True

    def stop(self, context: bpy.types.Context) -> None:
        """End the progress indicator and the timer; abandon the check's remaining steps."""
        self._steps.close()
        context.window_manager.progress_end()
        if self._timer is not None:
            context.window_manager.event_timer_remove(self._timer)

    def step(self, context: bpy.types.Context, seconds: float) -> set | None:
        """Advance the check for about ``seconds``; the operator's outcome once it is over, else None."""
        try:
            progress = advance(self._steps, seconds)
        except (ObjectGeometryError, ReferenceError) as error:  # ReferenceError: an object was deleted meanwhile
            self.stop(context)
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        if progress is not None:
            done, total = progress
            context.window_manager.progress_update(PROGRESS_STEPS * done // max(total, 1))
            return None
        self.stop(context)
        return self.finish(context, self._report)

    def finish(self, context: bpy.types.Context, report) -> set:
        """Store the finished check's results (review states carried over) and report them."""
        scene = context.scene
        settings = scene.collision_inspector
        depsgraph = context.evaluated_depsgraph_get()
        measured = {name for r in report.results for name in (r.object_a, r.object_b)}
        notes = object_hull_notes(measured, depsgraph) if report.scope in EVERY_PAIR_SCOPES else {}
        store_results(settings, report.results, notes, report.touch_tolerance,
                      keep_vanished=self._signature == settings.analysed_scope)
        settings.analysed_scope = self._signature
        overlay.refresh()
        self.report_results(scene, list(settings.results)[:len(report.results)])
        return {'FINISHED'}

    def report_results(self, scene: bpy.types.Scene, results) -> None:
        """One line per pair in scene units (for a few pairs), then how many pairs have each status."""
        if len(results) <= MAX_REPORTED_PAIRS:
            for result in results:
                self.report(
                    {'WARNING'} if result.hull_note else {'INFO'},
                    f"{result.label}: {result.status} {format_length(result.value, scene)}"
                    + (f" ({result.hull_note})" if result.hull_note else ""),
                )
        counts = [(status, sum(r.status == status for r in results)) for status, *_rest in STATUS_ITEMS]
        summary = ", ".join(f"{count} {status}" for status, count in counts if count)
        self.report({'INFO'}, f"Analysed {len(results)} pair{'s' if len(results) != 1 else ''}: {summary}")
        unfinished = [result.label for result in results if result.solver_status in {'iteration_limit', 'stalled'}]
        if unfinished:
            self.report(
                {'WARNING'},
                f"The solver stopped early for {', '.join(unfinished)}: depths are upper bounds; "
                "raise Max Iterations or loosen the Tolerance",
            )


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


def store_results(settings, clashes: list[ClashResult], notes: dict, touch_tolerance: float,
                  keep_vanished: bool) -> None:
    """Replace ``settings.results`` with ``clashes`` (review states carried over), then, with
    ``keep_vanished`` (the same scope as before), the earlier clashes that vanished, marked 'resolved'."""
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
    for index in vanished if keep_vanished else ():
        result = settings.results.add()
        for name, value in kept[index].items():
            setattr(result, name, value)
        result.review_state = 'resolved'
    if settings.active_result_index >= len(settings.results):
        settings.active_result_index = max(len(settings.results) - 1, 0)
