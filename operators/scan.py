"""The Scan Animation operator: measure the panel's scope at every frame of the scene's range; and Go to Frame,
which shows a scanned result's worst or first-contact frame.

Like Analyse, the scan runs modally from the panel (a slice per timer tick, progress, Esc cancels and keeps the
previous results) and at once from scripts and in background mode. The live update is paused while it
steps through the frames; the current frame is restored. A scanned result's numbers are those of its worst
frame, and the viewport draws it at that frame only: Go to Frame takes the scene there.
"""

import bpy

from ..analysis import live
from ..analysis.inspect import keep_modes, measure_modes
from ..analysis.scan import mark_first_contacts, start_scan
from ..analysis.scope import scope_refusal
from ..analysis.store import store_results
from ..analysis.typed import typed_decimal
from ..ui import overlay
from ..ui.units import format_length
from .analyse import EVERY_PAIR_SCOPES
from .base import (PROGRESS_STEPS, SLICE_SECONDS, NeedsResultsMixin, ReplacesResultsMixin, StepwiseMixin, advance,
                   chosen_result, running_refusal)


class COLLISION_INSPECTOR_OT_scan(ReplacesResultsMixin, StepwiseMixin, bpy.types.Operator):
    """Measure the pairs of the scope at every frame of the scene's frame range: when they touch, when and
    how deep they penetrate most"""

    bl_idname = "collision_inspector.scan"
    bl_label = "Scan Animation"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        refusal = running_refusal(context) or scope_refusal(context)
        if refusal:
            cls.poll_message_set(refusal)
            return False
        return True

    cancelled_message = "Scan cancelled; the previous results are kept"

    def start(self, context: bpy.types.Context) -> bool:
        scene = context.scene
        settings = scene.collision_inspector
        try:
            self._report, self.steps = start_scan(
                scene, context.evaluated_depsgraph_get(), frame_start=scene.frame_start, frame_end=scene.frame_end,
                scope=settings.scope, collection_a=settings.collection_a, collection_b=settings.collection_b,
                clearance=typed_decimal(settings.clearance), every_pair=settings.scope in EVERY_PAIR_SCOPES,
                modes=measure_modes(scene, context))
        except ValueError as error:
            self.report({'ERROR'}, str(error))
            return False
        self._scene = scene
        context.window_manager.progress_begin(0, PROGRESS_STEPS)
        return True

    def stop(self, context: bpy.types.Context) -> None:
        with live.paused():
            self.steps.close()  # restores the frame
        context.window_manager.progress_end()
        self.end_timer(context)

    def step(self, context: bpy.types.Context, seconds: float = SLICE_SECONDS) -> set | None:
        with live.paused():
            progress = advance(self.steps, seconds)
        if progress is not None:
            done, total = progress
            context.window_manager.progress_update(PROGRESS_STEPS * done // max(total, 1))
            return None
        self.stop(context)
        scene, report = self._scene, self._report
        settings = scene.collision_inspector
        store_results(settings, report, keep_vanished=False)
        keep_modes(settings, report)
        settings.analysed_scope = ""
        overlay.refresh()
        markers = mark_first_contacts(scene, report.results) if settings.scan_markers else 0
        touching = sum(r.first_contact_frame is not None for r in report.results)
        deepest = max(report.results, key=lambda r: r.max_depth or 0.0, default=None)
        summary = (f"; deepest: {deepest.object_a} \u2194 {deepest.object_b}, {format_length(deepest.max_depth, scene)} at frame "
                   f"{deepest.deepest_frame}" if deepest is not None and deepest.deepest_frame is not None else "")
        self.report({'INFO'}, f"Scanned frames {scene.frame_start}-{scene.frame_end}: {touching} pair"
                              f"{'s' if touching != 1 else ''} in contact{summary}"
                              + (f" ({markers} marker{'s' if markers != 1 else ''})" if markers else ""))
        for name, reason in sorted(report.skipped.items()):
            self.report({'WARNING'}, f"Skipped {name}: {reason}")
        return {'FINISHED'}


#: Go to Frame's choices: the worst frame (whose numbers the result shows) or the first contact.
FRAME_ITEMS = (
    ('DEEPEST', "Deepest", "The pair's worst scanned frame: its deepest penetration (its closest approach when it "
                           "never penetrates), the frame the result's numbers and arrow describe"),
    ('FIRST', "First Contact", "The first scanned frame where the pair touches or penetrates"),
)


class COLLISION_INSPECTOR_OT_go_to_frame(NeedsResultsMixin, bpy.types.Operator):
    """Go to a scanned result's deepest (worst) frame or its first contact"""

    bl_idname = "collision_inspector.go_to_frame"
    bl_label = "Go to Frame"
    bl_options = {'REGISTER'}

    index: bpy.props.IntProperty(name="Index", default=-1, min=-1,
                                 description="Result whose frame to show (-1: the active one)")
    which: bpy.props.EnumProperty(name="Frame", items=FRAME_ITEMS, default='DEEPEST',
                                  description="Which of the result's scanned frames")

    @classmethod
    def description(cls, _context: bpy.types.Context, properties) -> str:
        return next(text for name, _label, text in FRAME_ITEMS if name == properties.which)

    def execute(self, context: bpy.types.Context) -> set:
        result = chosen_result(self, context)
        if result is None:
            return {'CANCELLED'}
        if not result.scanned:
            self.report({'ERROR'}, f"{result.label} was not scanned: Scan Animation first")
            return {'CANCELLED'}
        if self.which == 'FIRST' and not result.contact_frames:
            self.report({'ERROR'}, f"{result.label} never touches in the scanned frames")
            return {'CANCELLED'}
        frame = result.first_contact_frame if self.which == 'FIRST' else result.measured_frame
        context.scene.frame_set(frame)
        what = "first contact" if self.which == 'FIRST' else (
            "deepest" if result.max_depth > 0.0 else "closest")
        self.report({'INFO'}, f"Frame {frame}: {result.label}, {what}")
        return {'FINISHED'}


CLASSES = (COLLISION_INSPECTOR_OT_scan, COLLISION_INSPECTOR_OT_go_to_frame)
