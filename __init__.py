"""Collision Inspector: exact penetration depth, contact normal and distance between Blender objects.

This module only registers and unregisters; the work lives in ``core`` (pure numpy), ``analysis`` (Blender
geometry -> core -> reports and stored results), ``operators`` (thin Operator classes), ``ui`` (properties,
sidebar, overlay) and ``farm`` (shard plans, merging shard reports; its cluster runner imports dask only when run).
"""

import bpy

from . import cli
from .analysis import live, tracking
from .operators.analyse import COLLISION_INSPECTOR_OT_analyze
from .operators.browse import CLASSES as BROWSE_CLASSES
from .operators.clear import COLLISION_INSPECTOR_OT_clear
from .operators.crosscheck import COLLISION_INSPECTOR_OT_cross_check
from .operators.export import COLLISION_INSPECTOR_OT_export_report
from .operators.inspect import CLASSES as INSPECT_CLASSES
from .operators.overlap import COLLISION_INSPECTOR_OT_make_overlap_object
from .operators.resolve import CLASSES as RESOLVE_CLASSES
from .operators.scan import CLASSES as SCAN_CLASSES
from .operators.self_check import COLLISION_INSPECTOR_OT_self_check
from .ui import overlay, see_through, self_check_overlay
from .ui.panel import CLASSES as PANEL_CLASSES
from .ui.properties.result import CollisionInspectorResult
from .ui.properties.self_check import CollisionInspectorSelfCheck
from .ui.properties.settings import CollisionInspectorSettings

# The handle of `blender --command collision_inspector` (cli.run) while registered.
_cli_command = None

CLASSES = (
    CollisionInspectorResult,
    CollisionInspectorSelfCheck,
    CollisionInspectorSettings,
    COLLISION_INSPECTOR_OT_analyze,
    COLLISION_INSPECTOR_OT_clear,
    COLLISION_INSPECTOR_OT_cross_check,
    COLLISION_INSPECTOR_OT_export_report,
    *BROWSE_CLASSES,
    *INSPECT_CLASSES,
    *RESOLVE_CLASSES,
    COLLISION_INSPECTOR_OT_make_overlap_object,
    *SCAN_CLASSES,
    COLLISION_INSPECTOR_OT_self_check,
    *PANEL_CLASSES,
)


def register() -> None:
    global _cli_command
    if _cli_command is not None:  # registered already
        return
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Scene.collision_inspector = bpy.props.PointerProperty(type=CollisionInspectorSettings)
    overlay.add_handlers()
    see_through.add_handlers()
    self_check_overlay.add_handlers()
    tracking.add_handlers()
    live.add_handlers(overlay.refresh)
    _cli_command = bpy.utils.register_cli_command(cli.COMMAND, cli.run)


def unregister() -> None:
    """Remove everything ``register`` added; a second call does nothing."""
    global _cli_command
    if _cli_command is None:
        return
    bpy.utils.unregister_cli_command(_cli_command)
    _cli_command = None
    live.remove_handlers()
    tracking.remove_handlers()
    self_check_overlay.remove_handlers()
    see_through.remove_handlers()
    overlay.remove_handlers()
    del bpy.types.Scene.collision_inspector
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
