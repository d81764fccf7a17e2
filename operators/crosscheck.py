"""The SAT cross-check operator: checks the active result with an independent separating-axis test."""

import bpy

from ..analysis.crosscheck import sat_cross_check


class COLLISION_INSPECTOR_OT_cross_check(bpy.types.Operator):
    """Check the active result with the separating-axis test, independently of GJK/EPA (convex pairs)"""

    bl_idname = "collision_inspector.cross_check"
    bl_label = "SAT Cross-Check"
    bl_options = {'REGISTER'}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        settings = context.scene.collision_inspector
        if not 0 <= settings.active_result_index < len(settings.results):
            cls.poll_message_set("No active result: analyse first")
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set:
        settings = context.scene.collision_inspector
        result = settings.results[settings.active_result_index]
        try:
            message = sat_cross_check(result, context.view_layer)
        except ValueError as error:
            self.report({'ERROR'}, f"{result.label}: {error}")
            return {'CANCELLED'}
        result.cross_check = message or "agrees"
        if message:
            self.report({'WARNING'}, f"{result.label}: SAT disagrees: {message}")
        else:
            self.report({'INFO'}, f"{result.label}: SAT agrees with the result")
        return {'FINISHED'}
