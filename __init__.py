"""Collision Inspector: exact penetration depth, contact normal and distance between Blender objects.

This module only registers and unregisters; the work lives in ``core`` (pure numpy),
``operators`` (Blender data -> core -> results) and ``ui`` (properties, sidebar, overlay).
"""

import bpy

from .operators.analyze import COLLISION_INSPECTOR_OT_analyze
from .operators.clear import COLLISION_INSPECTOR_OT_clear
from .ui import overlay
from .ui.panel import CLASSES as PANEL_CLASSES
from .ui.properties import CollisionInspectorResult, CollisionInspectorSettings

CLASSES = (
    CollisionInspectorResult,
    CollisionInspectorSettings,
    COLLISION_INSPECTOR_OT_analyze,
    COLLISION_INSPECTOR_OT_clear,
    *PANEL_CLASSES,
)


def register() -> None:
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Scene.collision_inspector = bpy.props.PointerProperty(type=CollisionInspectorSettings)
    overlay.add_handlers()


def unregister() -> None:
    overlay.remove_handlers()
    del bpy.types.Scene.collision_inspector
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
