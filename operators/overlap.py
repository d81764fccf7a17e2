"""Make Overlap Object: the active (or ``index``) penetrating pair's shared volume as a new mesh object."""

import bpy
from bpy.props import IntProperty

from ..analysis.overlap_object import NoOverlap, make_overlap_object
from ..ui.units import format_volume
from .base import NeedsResultsMixin, chosen_result


class COLLISION_INSPECTOR_OT_make_overlap_object(NeedsResultsMixin, bpy.types.Operator):
    """Make the space the pair's two objects share a new mesh object in the active collection (for booleans, 3D-print
    fixes or a report picture)"""

    bl_idname = "collision_inspector.make_overlap_object"
    bl_label = "Make Overlap Object"
    bl_options = {'REGISTER', 'UNDO'}

    index: IntProperty(name="Result", description="Index of the result (-1: the active one)", default=-1, min=-1)

    no_results = "Analyse first: there is no pair to take the overlap of"

    def execute(self, context: bpy.types.Context) -> set:
        result = chosen_result(self, context)
        if result is None:
            return {'CANCELLED'}
        try:
            obj = make_overlap_object(context, result)
        except NoOverlap as error:
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        self.report({'INFO'}, f"Made {obj.name}: the space {result.label} share, measured "
                              f"{format_volume(result.overlap_volume, context.scene)}")
        return {'FINISHED'}
