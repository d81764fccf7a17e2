"""Export the stored results, with the reviewers' states, as the clash check's JSON or CSV report."""

from __future__ import annotations

from pathlib import Path

import bpy
from bpy_extras.io_utils import ExportHelper

from ..analysis.clash_report import write_csv, write_json
from ..analysis.inspect import record_kept_modes
from ..analysis.store import stored_report
from .base import NeedsResultsMixin

WRITERS = {'.json': write_json, '.csv': write_csv}


#: Blender 4.5 and later ask file paths to declare that they take "//" (4.2 has no such option).
_BLEND_RELATIVE = ({'PATH_SUPPORTS_BLEND_RELATIVE'} if 'is_path_supports_blend_relative'
                   in bpy.types.Property.bl_rna.properties else set())


def blend_relative_file_path(description: str) -> bpy.props.StringProperty:
    """ExportHelper's ``filepath``, declared to take Blender's "//" (the .blend file's folder) prefix."""
    return bpy.props.StringProperty(name="File Path", description=description, maxlen=1024, subtype='FILE_PATH',
                                    options={'SKIP_SAVE'} | _BLEND_RELATIVE)


class COLLISION_INSPECTOR_OT_export_report(NeedsResultsMixin, bpy.types.Operator, ExportHelper):
    """Save the results and their review states as a JSON or CSV clash report"""

    bl_idname = "collision_inspector.export_report"
    bl_label = "Export Report"
    bl_options = {'REGISTER'}

    filename_ext = ".json"
    check_extension = None  # the extension chooses the format: .json or .csv, kept as typed
    filter_glob: bpy.props.StringProperty(default="*.json;*.csv", options={'HIDDEN'})
    filepath: blend_relative_file_path("Where to write the report: .json or .csv ('//' is the .blend file's folder)")

    no_results = "No results to export: analyse first"

    def execute(self, context: bpy.types.Context) -> set:
        path = Path(bpy.path.abspath(self.filepath))  # "//report.json": next to the .blend file
        writer = WRITERS.get(path.suffix.lower())
        if writer is None:
            self.report({'ERROR'}, f"Name the report .json or .csv, not {path.name!r}")
            return {'CANCELLED'}
        try:
            report = stored_report(context.scene)
            record_kept_modes(report, context.scene.collision_inspector)
            writer(report, path)
        except OSError as error:
            self.report({'ERROR'}, f"Could not write {path}: {error}")
            return {'CANCELLED'}
        self.report({'INFO'}, f"Wrote {path}")
        return {'FINISHED'}
