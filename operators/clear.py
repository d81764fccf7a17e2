"""Remove the stored results, and with them the viewport overlay."""

import bpy

from ..analysis.tracking import forget
from ..ui import overlay
from .base import NeedsResultsMixin


class COLLISION_INSPECTOR_OT_clear(NeedsResultsMixin, bpy.types.Operator):
    """Remove all collision results and their arrows and labels from the viewport"""

    bl_idname = "collision_inspector.clear"
    bl_label = "Clear Results"
    bl_options = {'REGISTER', 'UNDO'}

    no_results = "No results to clear"

    def execute(self, context: bpy.types.Context) -> set:
        settings = context.scene.collision_inspector
        settings.results.clear()
        settings.active_result_index = 0
        forget()
        overlay.refresh()
        return {'FINISHED'}
