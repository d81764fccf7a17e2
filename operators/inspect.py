"""Operators of the interactive inspection: directional depth of a result, and Copy Pair for Report.

Thin: the work is in ``analysis.inspect``. From the interface both run a slice at a time, a big object's work on a
worker thread (status bar, Esc cancels); one long run at a time (``base.running_refusal``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import bpy
from bpy_extras.io_utils import ExportHelper

from ..analysis.background import answer_into, meanwhile
from ..analysis.inspect import (INSPECTION_STEPS, axis_vector, directional_depth_steps, pair_document_steps,
                               result_still_at, write_document)
from ..ui.properties.enums import DIRECTIONAL_AXIS_ITEMS
from ..ui.panel import directional_summary
from .export import blend_relative_file_path
from .base import (PROGRESS_STEPS, ExclusiveRunMixin, ProgressStepsMixin, ReplacesResultsMixin, StepwiseMixin,
                   chosen_result)


class COLLISION_INSPECTOR_OT_directional_depth(ReplacesResultsMixin, ProgressStepsMixin, StepwiseMixin,
                                               ExclusiveRunMixin, bpy.types.Operator):
    """How far B of the result must move along an axis to separate from A (or, apart, to touch it)"""

    bl_idname = "collision_inspector.directional_depth"
    bl_label = "Directional Depth"
    bl_options = {'REGISTER', 'UNDO'}

    axis: bpy.props.EnumProperty(name="Axis", items=DIRECTIONAL_AXIS_ITEMS[1:], default='Z',
                                 description="Direction along which B moves")
    index: bpy.props.IntProperty(name="Index", default=-1, min=-1,
                                 description="Result to measure (-1: the active one)")

    cancelled_message = "Directional depth cancelled"
    stopping_errors = ProgressStepsMixin.stopping_errors + (ValueError,)

    def start(self, context: bpy.types.Context) -> bool:
        """Begin measuring the chosen result; False (reported) when there is none or it cannot be measured."""
        result = chosen_result(self, context)
        if result is None:
            return False
        settings = context.scene.collision_inspector
        self._scene, self._label = context.scene, result.label
        self._index = settings.active_result_index if self.index < 0 else self.index
        try:
            direction = axis_vector(self.axis, result, context)
        except ValueError as error:
            self.report({'ERROR'}, str(error))
            return False
        self._answer = []
        self.steps = answer_into(directional_depth_steps(context.scene, context.evaluated_depsgraph_get(), result,
                                                         direction), self._answer)
        context.window_manager.progress_begin(0, PROGRESS_STEPS)
        return True

    def status(self) -> str:
        return f"Directional depth of {self._label}"

    def finish(self, context: bpy.types.Context) -> set:
        """Store the distance on the result (if it is still there) and report it."""
        answer, exact = self._answer[0]
        result = result_still_at(self._scene, self._index, self._label)
        if result is None:
            self.report({'ERROR'}, f"The result {self._label} was removed meanwhile")
            return {'CANCELLED'}
        result.directional_axis = self.axis
        result.directional_distance = answer.distance
        self.report({'INFO'}, directional_summary(result, self._scene) + ("" if exact else
                    " (about the convex hulls: an object is not convex)"))
        return {'FINISHED'}


class COLLISION_INSPECTOR_OT_copy_pair(ReplacesResultsMixin, ProgressStepsMixin, StepwiseMixin, ExclusiveRunMixin,
                                      bpy.types.Operator, ExportHelper):
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

    cancelled_message = "Copy Pair cancelled; nothing was written"
    stopping_errors = ProgressStepsMixin.stopping_errors + (ValueError, OSError)
    _from_file_browser = False

    def invoke(self, context: bpy.types.Context, event) -> set:
        """The file browser; once a file is chosen, ``execute`` goes on a slice at a time."""
        self._from_file_browser = True
        return ExportHelper.invoke(self, context, event)

    def execute(self, context: bpy.types.Context) -> set:
        """A slice at a time after the file browser (in the interface), else to the end at once."""
        if self._from_file_browser and not bpy.app.background and context.window is not None:
            return self.run_modal(context)
        return StepwiseMixin.execute(self, context)

    def start(self, context: bpy.types.Context) -> bool:
        """Begin reading the chosen result's objects; False (reported) when there is none or one is gone."""
        result = chosen_result(self, context)
        if result is None:
            return False
        self._label, self._path = result.label, Path(bpy.path.abspath(self.filepath))
        self._text = []
        self.steps = answer_into(self.written(pair_document_steps(context.scene, context.evaluated_depsgraph_get(),
                                                                  result)), self._text)
        context.window_manager.progress_begin(0, PROGRESS_STEPS)
        return True

    def written(self, document_steps: Iterator) -> Iterator:
        """The document's steps, then its text written to the file (on the worker thread for a big pair)."""
        document, path = (yield from document_steps), self._path
        size = len(document["points_a"]) + len(document["points_b"])
        return (yield from meanwhile(lambda: write_document(path, document), size,
                                     (INSPECTION_STEPS - 1, INSPECTION_STEPS)))

    def status(self) -> str:
        return f"Copy Pair: {self._label}"

    def finish(self, context: bpy.types.Context) -> set:
        """Put the text on the clipboard if asked, and report."""
        if self.to_clipboard:
            context.window_manager.clipboard = self._text[0]
        self.report({'INFO'}, f"Wrote {self._path}; replay it with: python -m core.replay {self._path.name}")
        return {'FINISHED'}


CLASSES = (COLLISION_INSPECTOR_OT_directional_depth, COLLISION_INSPECTOR_OT_copy_pair)
