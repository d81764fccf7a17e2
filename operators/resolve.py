"""Resolve operators: move object B of a penetrating result (or of every one) out of A, measuring B's pairs again
a slice at a time from the panel (Esc puts a B being moved back; Resolve All keeps the moves made before)."""

import time

import bpy
from bpy.props import FloatProperty, IntProperty

from ..analysis.resolve import MAX_ROUNDS, ResolveRefused, start_resolve, start_resolve_all
from ..core.steps import run_until
from ..ui.units import format_length
from .base import PROGRESS_STEPS, SLICE_SECONDS, ExclusiveRunMixin, StepwiseMixin


class COLLISION_INSPECTOR_OT_resolve(StepwiseMixin, ExclusiveRunMixin, bpy.types.Operator):
    """Move object B of the pair out of A by the push-out (depth along the normal), plus a clearance"""

    bl_idname = "collision_inspector.resolve"
    bl_label = "Resolve"
    bl_options = {'REGISTER', 'UNDO'}

    index: IntProperty(name="Result", description="Index of the result to resolve (-1: the active one)", default=-1,
                       min=-1)
    clearance: FloatProperty(name="Clearance", description="Move B this much farther, leaving a gap",
                             subtype='DISTANCE', default=0.0, min=0.0, soft_max=1.0, precision=4)

    no_results = "Analyse first: there are no results to resolve"

    cancelled_message = "Resolve cancelled: the object is back where it was and the results are kept"

    def start(self, context: bpy.types.Context) -> bool:
        """Move B and begin measuring its pairs again; False (reported) when the pair cannot be resolved."""
        settings = context.scene.collision_inspector
        self._index = settings.active_result_index if self.index < 0 else self.index
        try:
            self._offset, self._undo, self.steps = start_resolve(context, self._index, self.clearance)
        except ResolveRefused as error:
            self.report({'ERROR'}, str(error))
            return False
        self._finished = False
        context.window_manager.progress_begin(0, PROGRESS_STEPS)
        return True

    def status(self) -> str:
        return "Resolve: measuring the moved object's pairs again"

    def stop(self, context: bpy.types.Context) -> None:
        """End the progress indicator and the timer; abandoned before the end, B goes back where it was."""
        self.steps.close()
        if not self._finished:
            self._undo()
        context.window_manager.progress_end()
        self.end_timer(context)

    def step(self, context: bpy.types.Context) -> set | None:
        """Measure for a slice of time; the outcome once B's pairs are measured again, else None."""
        finished, _measured = run_until(self.steps, time.perf_counter() + SLICE_SECONDS)
        if not finished:
            return None
        self._finished = True
        self.stop(context)
        result = context.scene.collision_inspector.results[self._index]
        moved = ", ".join(format_length(value, context.scene) for value in self._offset)
        self.report({'INFO'}, f"Moved {result.object_b.name} by ({moved}); {result.label} is now {result.status}")
        return {'FINISHED'}


class COLLISION_INSPECTOR_OT_resolve_all(StepwiseMixin, ExclusiveRunMixin, bpy.types.Operator):
    """Move object B of every penetrating pair out of A, round after round, until none penetrates"""

    bl_idname = "collision_inspector.resolve_all"
    bl_label = "Resolve All"
    bl_options = {'REGISTER', 'UNDO'}

    clearance: FloatProperty(name="Clearance", description="Move each B this much farther, leaving a gap",
                             subtype='DISTANCE', default=0.0, min=0.0, soft_max=1.0, precision=4)
    max_rounds: IntProperty(name="Max Rounds", description="Give up after this many rounds", default=MAX_ROUNDS,
                            min=1, soft_max=100)

    no_results = "Analyse first: there are no results to resolve"

    cancelled_message = "Resolve All stopped: the moves made so far are kept, with their pairs measured again"

    def start(self, context: bpy.types.Context) -> bool:
        """Begin the rounds of moves."""
        self._tally, self.steps = start_resolve_all(context, self.clearance, self.max_rounds)
        context.window_manager.progress_begin(0, PROGRESS_STEPS)
        return True

    def status(self) -> str:
        return "Resolve All: moving objects out and measuring their pairs again"

    def stop(self, context: bpy.types.Context) -> None:
        """End the progress indicator and the timer; a B being moved goes back where it was."""
        self.steps.close()
        context.window_manager.progress_end()
        self.end_timer(context)

    def step(self, context: bpy.types.Context) -> set | None:
        """Move and measure for a slice of time; the outcome once no round is left, else None."""
        finished, _nothing = run_until(self.steps, time.perf_counter() + SLICE_SECONDS)
        if not finished:
            return None
        self.stop(context)
        moves, remaining, refusals = self._tally.moves, self._tally.remaining, self._tally.refusals
        for label, reason in refusals.items():
            self.report({'WARNING'}, f"{label}: {reason}")
        if remaining:
            self.report({'WARNING'}, f"{moves} move{'s' if moves != 1 else ''}; still penetrating after "
                                     f"{self.max_rounds} rounds or refused: {', '.join(remaining)}")
        else:
            self.report({'INFO'}, f"{moves} move{'s' if moves != 1 else ''}: no pair penetrates any more")
        return {'FINISHED'}


CLASSES = (COLLISION_INSPECTOR_OT_resolve, COLLISION_INSPECTOR_OT_resolve_all)
