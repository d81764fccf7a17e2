"""Remove the stored results (pairs and self-intersections), and with them the viewport overlay."""

import bpy

from ..analysis.self_check_store import clear_self_checks
from ..analysis.tracking import forget
from ..ui import overlay, self_check_overlay
from .base import NeedsResultsMixin, running_refusal


class COLLISION_INSPECTOR_OT_clear(NeedsResultsMixin, bpy.types.Operator):
    """Remove all collision results and their arrows and labels from the viewport"""

    bl_idname = "collision_inspector.clear"
    bl_label = "Clear Results"
    bl_options = {'REGISTER', 'UNDO'}

    no_results = "No results to clear"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        refusal = running_refusal(context)  # a run ending after the clear would store its results again
        if refusal:
            cls.poll_message_set(refusal)
            return False
        return bool(context.scene.collision_inspector.self_checks) or super().poll(context)

    def execute(self, context: bpy.types.Context) -> set:
        settings = context.scene.collision_inspector
        settings.results.clear()
        settings.active_result_index = 0
        settings.analysed_scope = ""  # the results cover nothing now
        clear_self_checks(settings)
        forget()
        overlay.refresh()
        self_check_overlay.refresh()
        return {'FINISHED'}
