"""Export the stored results, with the reviewers' states, as the clash check's JSON or CSV report."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import bpy
from bpy_extras.io_utils import ExportHelper

from .clash_report import ClashReport, ClashResult, write_csv, write_json

WRITERS = {'.json': write_json, '.csv': write_csv}


def stored_report(scene: bpy.types.Scene) -> ClashReport:
    """The scene's stored results as a ``ClashReport`` (clashes listed with their review states,
    separated pairs counted); thresholds are those of the results (touch tolerance) and the scene."""
    settings = scene.collision_inspector
    results = list(settings.results)
    report = ClashReport(
        scope=settings.scope, clearance=settings.clearance,
        touch_tolerance=results[0].tolerance if results else settings.touch_tolerance,
        tolerance=settings.tolerance, max_iterations=settings.max_iterations, blend_file=bpy.data.filepath,
        blender_version=bpy.app.version_string, time=datetime.now(UTC).isoformat(timespec='seconds'),
        collection_a=settings.collection_a.name if settings.scope == 'COLLECTIONS' and settings.collection_a else '',
        collection_b=((settings.collection_b or settings.collection_a).name
                      if settings.scope == 'COLLECTIONS' and settings.collection_a else ''),
        objects=len({name for r in results for name in (r.name_a, r.name_b)}),
        separated=sum(r.status == 'separated' for r in results),
    )
    report.results = [
        ClashResult(object_a=r.name_a, object_b=r.name_b, status=r.status, signed_distance=r.signed_distance,
                    normal=tuple(r.normal), point_a=tuple(r.point_a), point_b=tuple(r.point_b),
                    solver_status=r.solver_status, review_state=r.review_state)
        for r in results if r.status != 'separated'
    ]
    return report


class COLLISION_INSPECTOR_OT_export_report(bpy.types.Operator, ExportHelper):
    """Save the results and their review states as a JSON or CSV clash report"""

    bl_idname = "collision_inspector.export_report"
    bl_label = "Export Report"
    bl_options = {'REGISTER'}

    filename_ext = ".json"
    check_extension = None  # the extension chooses the format: .json or .csv, kept as typed
    filter_glob: bpy.props.StringProperty(default="*.json;*.csv", options={'HIDDEN'})

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not context.scene.collision_inspector.results:
            cls.poll_message_set("No results to export: analyse first")
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set:
        path = Path(self.filepath)
        writer = WRITERS.get(path.suffix.lower())
        if writer is None:
            self.report({'ERROR'}, f"Name the report .json or .csv, not {path.name!r}")
            return {'CANCELLED'}
        try:
            writer(stored_report(context.scene), path)
        except OSError as error:
            self.report({'ERROR'}, f"Could not write {path}: {error}")
            return {'CANCELLED'}
        self.report({'INFO'}, f"Wrote {path}")
        return {'FINISHED'}
