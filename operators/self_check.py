"""The self-intersection operator: checks each selected object against itself (``analysis.self_check``). From the
panel it runs a slice at a time, a big object's work on a worker thread (Esc cancels, the previous results stay);
one long run at a time (``base.running_refusal``)."""

import bpy
from bpy.props import BoolProperty

from ..analysis.face_selection import select_faces
from ..analysis.scope import selected_geometry_objects
from ..analysis.self_check import start_self_check
from ..analysis.self_check_store import store_self_checks
from ..cli import plural
from ..ui import self_check_overlay
from ..ui.units import format_volume
from .base import PROGRESS_STEPS, ProgressStepsMixin, ReplacesResultsMixin, StepwiseMixin, running_refusal

#: Objects named one by one in the report; past it, the count only.
MAX_NAMED = 10


class COLLISION_INSPECTOR_OT_self_check(ReplacesResultsMixin, ProgressStepsMixin, StepwiseMixin, bpy.types.Operator):
    """Check each selected object against itself: faces that pass through each other, where they cross, and for
    closed objects the volume covered twice"""

    bl_idname = "collision_inspector.self_check"
    bl_label = "Check Self-Intersections"
    bl_options = {'REGISTER', 'UNDO'}

    select_faces: BoolProperty(
        name="Select Faces",
        description="Select the intersecting faces of each object (for Edit Mode); nothing is selected otherwise",
        default=False,
    )

    cancelled_message = "Self-intersection check cancelled; the previous results are kept"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        refusal = running_refusal(context)
        if refusal:
            cls.poll_message_set(refusal)
            return False
        if not selected_geometry_objects(context):
            cls.poll_message_set("Select at least one object with geometry (meshes, curves, text, surfaces, "
                                 "metaballs)")
            return False
        return True

    def start(self, context: bpy.types.Context) -> bool:
        """Begin checking the selected objects and the progress indicator."""
        self._scene = context.scene  # where the results will go
        self._report, self._checked, self.steps = start_self_check(
            selected_geometry_objects(context), context.view_layer, context.evaluated_depsgraph_get(), 'SELECTED')
        context.window_manager.progress_begin(0, PROGRESS_STEPS)
        return True

    def status(self) -> str:
        """The object being checked ('Checking self-intersections: Suzanne')."""
        activity = self._report.activity
        return f"Checking self-intersections: {activity}" if activity else "Checking self-intersections"

    def finish(self, context: bpy.types.Context) -> set:
        """Store the results in the scene the check started in, select the faces if asked, and report."""
        try:
            scene = self._scene
            settings = scene.collision_inspector
        except ReferenceError:
            self.report({'ERROR'}, "The checked scene was deleted during the check")
            return {'CANCELLED'}
        report, checked = self._report, self._checked
        store_self_checks(settings, checked)
        self_check_overlay.refresh()
        for name, reason in sorted(report.skipped.items()):
            self.report({'WARNING'}, f"{name} skipped: {reason}")
        if self.select_faces:
            self.select_found_faces(context, checked)
        found = report.intersecting
        for result in found[:MAX_NAMED]:
            volume = ("" if not result.covered_twice_volume else
                      f", {format_volume(result.covered_twice_volume, scene)} covered twice")
            self.report({'WARNING'}, f"{result.object}: {plural(result.face_pairs, 'intersecting face pair')}, "
                                     f"{plural(result.curves, 'curve')}{volume}")
        clean = len(report.results) - len(found)
        self.report({'INFO'} if not found else {'WARNING'},
                    f"{len(found)} of {plural(len(report.results), 'object')} intersect themselves"
                    + (f" ({clean} clean)" if found and clean else "")
                    + (f" in {report.seconds:.2f} s" if report.seconds >= 0.1 else ""))
        return {'FINISHED'}

    def select_found_faces(self, context: bpy.types.Context, checked: list) -> None:
        """Select each checked object's intersecting faces (Edit Mode or not); one left alone if it was deleted or
        edited during the check."""
        depsgraph = context.evaluated_depsgraph_get()  # (storing the results changed the scene's data)
        for item in checked:
            try:
                refusal = select_faces(item.source.obj, item.triangles, depsgraph, item.result.triangles)
            except ReferenceError:
                refusal = f"{item.result.object} was deleted during the check"
            if refusal:
                self.report({'WARNING'}, refusal)
