"""Operators of the interactive inspection: directional depth of a result, and Copy Pair for Report.

Thin: the work is in ``analysis.inspect``.
"""

from __future__ import annotations

import json
from pathlib import Path

import bpy
from bpy_extras.io_utils import ExportHelper

from ..analysis.inspect import axis_vector, result_directional_depth, result_pair_document
from ..core.replay import write_pair
from ..ui.properties.enums import DIRECTIONAL_AXIS_ITEMS
from ..ui.panel import directional_summary
from .export import blend_relative_file_path
from .base import NeedsResultsMixin, chosen_result


class COLLISION_INSPECTOR_OT_directional_depth(NeedsResultsMixin, bpy.types.Operator):
    """How far B of the result must move along an axis to separate from A (or, apart, to touch it)"""

    bl_idname = "collision_inspector.directional_depth"
    bl_label = "Directional Depth"
    bl_options = {'REGISTER', 'UNDO'}

    axis: bpy.props.EnumProperty(name="Axis", items=DIRECTIONAL_AXIS_ITEMS[1:], default='Z',
                                 description="Direction along which B moves")
    index: bpy.props.IntProperty(name="Index", default=-1, min=-1,
                                 description="Result to measure (-1: the active one)")

    def execute(self, context: bpy.types.Context) -> set:
        result = chosen_result(self, context)
        if result is None:
            return {'CANCELLED'}
        try:
            direction = axis_vector(self.axis, result, context)
            answer, exact = result_directional_depth(context.scene, context.evaluated_depsgraph_get(), result,
                                                     direction)
        except ValueError as error:
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        result.directional_axis = self.axis
        result.directional_distance = answer.distance
        self.report({'INFO'}, directional_summary(result, context.scene) + ("" if exact else
                    " (about the convex hulls: an object is not convex)"))
        return {'FINISHED'}


class COLLISION_INSPECTOR_OT_copy_pair(NeedsResultsMixin, bpy.types.Operator, ExportHelper):
    """Write the active result's two point sets and settings as a JSON file that
    `python -m core.replay FILE` reproduces (and copy it to the clipboard)"""

    bl_idname = "collision_inspector.copy_pair"
    bl_label = "Copy Pair for Report"
    bl_options = {'REGISTER'}

    filename_ext = ".json"
    filter_glob: bpy.props.StringProperty(default="*.json", options={'HIDDEN'})
    filepath: blend_relative_file_path("Where to write the pair's JSON document ('//' is the .blend file's folder)")
    index: bpy.props.IntProperty(name="Index", default=-1, min=-1,
                                 description="Result to write (-1: the active one)")
    to_clipboard: bpy.props.BoolProperty(name="Copy to Clipboard", default=True,
                                         description="Also put the document on the clipboard")

    def execute(self, context: bpy.types.Context) -> set:
        result = chosen_result(self, context)
        if result is None:
            return {'CANCELLED'}
        try:
            document = result_pair_document(context.scene, context.evaluated_depsgraph_get(), result)
        except ValueError as error:
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        path = Path(bpy.path.abspath(self.filepath))
        try:
            write_pair(path, document)
        except OSError as error:
            self.report({'ERROR'}, f"Could not write {path}: {error}")
            return {'CANCELLED'}
        if self.to_clipboard:
            context.window_manager.clipboard = json.dumps(document, allow_nan=False)
        self.report({'INFO'}, f"Wrote {path}; replay it with: python -m core.replay {path.name}")
        return {'FINISHED'}


CLASSES = (COLLISION_INSPECTOR_OT_directional_depth, COLLISION_INSPECTOR_OT_copy_pair)
