"""Operators that step through the results: choose one, select its objects and frame its contact.

The list's order comes from ``analysis.ordering``.
"""

from __future__ import annotations

import bpy

from ..analysis.ordering import settings_order
from ..ui import overlay
from ..ui.focus import frame_views, show_pair
from ..ui.panel import pair_summary
from .base import NeedsResultsMixin

__all__ = ['frame_views', 'show_result', 'CLASSES']


class COLLISION_INSPECTOR_OT_show_result(NeedsResultsMixin, bpy.types.Operator):
    """Make this result the active one: select its two objects (A active) and frame the contact region"""

    bl_idname = "collision_inspector.show_result"
    bl_label = "Show Result"
    bl_options = {'REGISTER', 'UNDO'}

    index: bpy.props.IntProperty(name="Index", description="Index of the result in the scene's results")

    @classmethod
    def description(cls, context: bpy.types.Context, properties) -> str:
        """The tooltip names the pair and its value in full (a narrow sidebar cuts the row off)."""
        results = context.scene.collision_inspector.results
        if not 0 <= properties.index < len(results):
            return cls.__doc__
        return f"{pair_summary(results[properties.index], context.scene)}. Select both objects and frame the contact"

    def execute(self, context: bpy.types.Context) -> set:
        return show_result(self, context, self.index)


def show_result(operator: bpy.types.Operator, context: bpy.types.Context, index: int) -> set:
    """Activate result ``index``, select its objects and frame its contact (the operators' shared body)."""
    settings = context.scene.collision_inspector
    if not 0 <= index < len(settings.results):
        operator.report({'ERROR'}, f"No result {index}; there are {len(settings.results)}")
        return {'CANCELLED'}
    settings["active_result_index"] = index  # without its update: the pair is shown just below
    show_pair(context, index)
    overlay.tag_redraw()
    return {'FINISHED'}


class _StepResult:
    """Move to the neighbouring result in the list's order (wrapping round)."""

    bl_options = {'REGISTER', 'UNDO'}
    step = 0

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not settings_order(context.scene.collision_inspector):
            cls.poll_message_set("No results listed: analyse, or show more statuses")
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set:
        settings = context.scene.collision_inspector
        order = settings_order(settings)
        if settings.active_result_index in order:
            position = (order.index(settings.active_result_index) + self.step) % len(order)
        else:
            position = 0 if self.step > 0 else len(order) - 1
        return show_result(self, context, order[position])


class COLLISION_INSPECTOR_OT_next_result(_StepResult, bpy.types.Operator):
    """Show the next result of the list: select its objects and frame its contact"""

    bl_idname = "collision_inspector.next_result"
    bl_label = "Next Result"
    step = 1


class COLLISION_INSPECTOR_OT_previous_result(_StepResult, bpy.types.Operator):
    """Show the previous result of the list: select its objects and frame its contact"""

    bl_idname = "collision_inspector.previous_result"
    bl_label = "Previous Result"
    step = -1


CLASSES = (
    COLLISION_INSPECTOR_OT_show_result,
    COLLISION_INSPECTOR_OT_next_result,
    COLLISION_INSPECTOR_OT_previous_result,
)
