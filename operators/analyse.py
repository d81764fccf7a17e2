"""The Analyse operator: run the panel's scope through the clash check (``analysis.clash``) and store the
results, review states carried over. From the panel it runs a slice at a time (Esc cancels, the previous
results stay); one analysis or scan runs at a time (docs/architecture.md, "Operators").
"""

import bpy
import numpy as np

from ..ui import overlay
from ..ui.properties.enums import STATUS_ITEMS
from ..ui.units import format_length
from ..analysis import analysed_shapes
from ..analysis.clash import start_check
from ..analysis.inspect import keep_modes, measure_modes, record_modes
from ..analysis.ordering import enum_column
from ..analysis.scope import scope_refusal, scope_signature
from ..analysis.store import store_results
from ..analysis.typed import typed_decimal
from .base import PROGRESS_STEPS, ProgressStepsMixin, ReplacesResultsMixin, StepwiseMixin, running_refusal

#: Scopes whose every pair is measured and listed (the user picked the objects one by one).
EVERY_PAIR_SCOPES = frozenset({'SELECTED', 'ACTIVE'})
#: Per-pair report lines are written up to this many results; above it only the summary.
MAX_REPORTED_PAIRS = 20


class COLLISION_INSPECTOR_OT_analyze(ReplacesResultsMixin, ProgressStepsMixin, StepwiseMixin, bpy.types.Operator):
    """Measure penetration depth or distance, contact normal and witness points of the pairs in the scope"""

    bl_idname = "collision_inspector.analyze"
    bl_label = "Analyse"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        refusal = running_refusal(context) or scope_refusal(context)
        if refusal:
            cls.poll_message_set(refusal)
            return False
        return True

    cancelled_message = "Analysis cancelled; the previous results are kept"

    def start(self, context: bpy.types.Context) -> bool:
        """Begin the check of the panel's scope and the progress indicator; False (reported) if refused."""
        settings = context.scene.collision_inspector
        self._scene, self._view_layer = context.scene, context.view_layer  # where the results will go
        try:
            modes = measure_modes(context.scene, context)
            self._report, self.steps = start_check(
                context.scene, context.evaluated_depsgraph_get(), scope=settings.scope,
                collection_a=settings.collection_a, collection_b=settings.collection_b,
                clearance=typed_decimal(settings.clearance), every_pair=settings.scope in EVERY_PAIR_SCOPES,
                modes=modes,
            )
            record_modes(self._report, settings, modes)
        except ValueError as error:
            self.report({'ERROR'}, str(error))
            return False
        self._signature = scope_signature(context)  # what the results will cover, whatever changes meanwhile
        context.window_manager.progress_begin(0, PROGRESS_STEPS)
        return True

    def status(self) -> str:
        """What the analysis is doing ('reading Suzanne'; how far it is shows on the mouse cursor)."""
        return f"Analysing: {self._report.activity}" if self._report.activity else "Analysing"

    def finish(self, _context: bpy.types.Context) -> set:
        """Store the finished check's results (review states carried over) in the scene it started in
        (the user may have switched scenes meanwhile) and report them."""
        try:
            scene = self._scene
            settings = scene.collision_inspector
        except ReferenceError:
            self.report({'ERROR'}, "The analysed scene was deleted during the analysis")
            return {'CANCELLED'}
        report = self._report
        store_results(settings, report, keep_vanished=self._signature == settings.analysed_scope)
        keep_modes(settings, report)
        analysed_shapes.keep(report.shapes)  # for Resolve: moved, not read again
        settings.analysed_scope = self._signature
        overlay.refresh()
        self.report_results(scene, settings.results, measured=report.candidate_pairs, count=report.listed)
        for name, reason in sorted(report.skipped.items()):
            self.report({'WARNING'}, f"Skipped {name}: {reason}")
        return {'FINISHED'}

    def report_results(self, scene: bpy.types.Scene, results, measured: int | None = None,
                       count: int | None = None) -> None:
        """One line per pair in scene units (for a few pairs), then how many pairs have each status.

        ``results`` are the stored results, of which the first ``count`` (default: all) are this
        analysis' (vanished clashes kept as resolved follow them). ``measured`` is the number of pairs
        measured (default: ``count``); those not listed were separated (whole-scene checks list clashes
        only). Read a column at a time: tens of thousands of results cost milliseconds."""
        count = len(results) if count is None else count
        measured = count if measured is None else measured
        if count <= MAX_REPORTED_PAIRS:
            for result in list(results)[:count]:
                self.report(
                    {'WARNING'} if result.hull_note else {'INFO'},
                    f"{result.label}: {result.status} {format_length(result.value, scene)}"
                    + (f" ({result.hull_note})" if result.hull_note else "")
                    + (f" ({result.mesh_note})" if result.mesh_note else ""),
                )
        statuses = enum_column(results, "status")[:count]
        counts = {status: int(np.count_nonzero(statuses == status)) for status, *_rest in STATUS_ITEMS}
        counts['separated'] += measured - count
        summary = ", ".join(f"{number} {status}" for status, number in counts.items() if number)
        self.report({'INFO'}, f"Analysed {measured} pair{'s' if measured != 1 else ''}: "
                              f"{summary or 'no two objects are close enough to clash'}")
        stopped = np.flatnonzero(np.isin(enum_column(results, "solver_status")[:count],
                                         np.array(['iteration_limit', 'stalled'], dtype=object)))
        if len(stopped):
            shown = [results[int(index)].label for index in stopped[:MAX_REPORTED_PAIRS]]
            more = f" and {len(stopped) - len(shown)} more" if len(stopped) > len(shown) else ""
            self.report(
                {'WARNING'},
                f"The solver stopped early for {', '.join(shown)}{more}: depths are upper bounds; "
                "raise Max Iterations or loosen the Tolerance",
            )


