"""The self-intersection operator: checks each selected object against itself (``analysis.self_check``)."""

import bpy
from bpy.props import BoolProperty

from ..analysis.face_selection import select_faces
from ..cli import plural
from ..analysis.geometry import ObjectGeometryError
from ..analysis.scope import selected_geometry_objects
from ..analysis.self_check import check_objects
from ..analysis.self_check_store import store_self_checks
from ..ui import self_check_overlay
from ..ui.units import format_volume

#: Objects named one by one in the report; past it, the count only.
MAX_NAMED = 10


class COLLISION_INSPECTOR_OT_self_check(bpy.types.Operator):
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

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not selected_geometry_objects(context):
            cls.poll_message_set("Select at least one object with geometry (meshes, curves, text, surfaces, "
                                 "metaballs)")
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set:
        depsgraph = context.evaluated_depsgraph_get()
        try:
            report, checked = check_objects(selected_geometry_objects(context), context.view_layer, depsgraph,
                                            'SELECTED')
        except ObjectGeometryError as error:
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        store_self_checks(context.scene.collision_inspector, checked)
        self_check_overlay.refresh()
        for name, reason in sorted(report.skipped.items()):
            self.report({'WARNING'}, f"{name} skipped: {reason}")
        if self.select_faces:
            depsgraph = context.evaluated_depsgraph_get()  # (storing the results changed the scene's data)
            for item in checked:
                refusal = select_faces(item.source.obj, item.triangles, depsgraph)
                if refusal:
                    self.report({'WARNING'}, refusal)
        found = report.intersecting
        for result in found[:MAX_NAMED]:
            volume = ("" if not result.covered_twice_volume else
                      f", {format_volume(result.covered_twice_volume, context.scene)} covered twice")
            self.report({'WARNING'}, f"{result.object}: {plural(result.face_pairs, 'intersecting face pair')}, "
                                     f"{plural(result.curves, 'curve')}{volume}")
        clean = len(report.results) - len(found)
        self.report({'INFO'} if not found else {'WARNING'},
                    f"{len(found)} of {plural(len(report.results), 'object')} intersect themselves"
                    + (f" ({clean} clean)" if found and clean else "")
                    + (f" in {report.seconds:.2f} s" if report.seconds >= 0.1 else ""))
        return {'FINISHED'}
