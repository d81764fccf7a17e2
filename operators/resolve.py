"""Resolve operators: move object B of a penetrating result (or of every one) out of A."""

import bpy
from bpy.props import FloatProperty, IntProperty

from ..analysis.resolve import MAX_ROUNDS, ResolveRefused, resolve, resolve_all
from ..ui.units import format_length
from .base import NeedsResultsMixin


class COLLISION_INSPECTOR_OT_resolve(NeedsResultsMixin, bpy.types.Operator):
    """Move object B of the pair out of A by the push-out (depth along the normal), plus a clearance"""

    bl_idname = "collision_inspector.resolve"
    bl_label = "Resolve"
    bl_options = {'REGISTER', 'UNDO'}

    index: IntProperty(name="Result", description="Index of the result to resolve (-1: the active one)", default=-1,
                       min=-1)
    clearance: FloatProperty(name="Clearance", description="Move B this much farther, leaving a gap",
                             subtype='DISTANCE', default=0.0, min=0.0, soft_max=1.0, precision=4)

    no_results = "Analyse first: there are no results to resolve"

    def execute(self, context: bpy.types.Context) -> set:
        settings = context.scene.collision_inspector
        index = settings.active_result_index if self.index < 0 else self.index
        try:
            offset = resolve(context, index, self.clearance)
        except ResolveRefused as error:
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        result = settings.results[index]
        moved = ", ".join(format_length(value, context.scene) for value in offset)
        self.report({'INFO'}, f"Moved {result.object_b.name} by ({moved}); {result.label} is now {result.status}")
        return {'FINISHED'}


class COLLISION_INSPECTOR_OT_resolve_all(NeedsResultsMixin, bpy.types.Operator):
    """Move object B of every penetrating pair out of A, round after round, until none penetrates"""

    bl_idname = "collision_inspector.resolve_all"
    bl_label = "Resolve All"
    bl_options = {'REGISTER', 'UNDO'}

    clearance: FloatProperty(name="Clearance", description="Move each B this much farther, leaving a gap",
                             subtype='DISTANCE', default=0.0, min=0.0, soft_max=1.0, precision=4)
    max_rounds: IntProperty(name="Max Rounds", description="Give up after this many rounds", default=MAX_ROUNDS,
                            min=1, soft_max=100)

    no_results = "Analyse first: there are no results to resolve"

    def execute(self, context: bpy.types.Context) -> set:
        moves, remaining, refusals = resolve_all(context, self.clearance, self.max_rounds)
        for label, reason in refusals.items():
            self.report({'WARNING'}, f"{label}: {reason}")
        if remaining:
            self.report({'WARNING'}, f"{moves} move{'s' if moves != 1 else ''}; still penetrating after "
                                     f"{self.max_rounds} rounds or refused: {', '.join(remaining)}")
        else:
            self.report({'INFO'}, f"{moves} move{'s' if moves != 1 else ''}: no pair penetrates any more")
        return {'FINISHED'}


CLASSES = (COLLISION_INSPECTOR_OT_resolve, COLLISION_INSPECTOR_OT_resolve_all)
