"""Disabling and enabling the add-on twice leaves nothing behind and brings everything back.

In the bpy module host this is ``unregister()``/``register()``; in real Blender it is
``preferences.addon_disable``/``addon_enable`` on the installed extension.
"""

import importlib

import bpy
import pytest

#: The add-on's functions in each app handler list: the overlay's, the self-intersection overlay's, the result
#: tracker's and the live update's.
APP_HANDLERS = {"load_post": 4, "undo_post": 4, "redo_post": 4, "depsgraph_update_post": 2}
APP_HANDLER_LISTS = tuple(APP_HANDLERS)
REGISTRABLE_BASES = (bpy.types.PropertyGroup, bpy.types.Operator, bpy.types.Panel, bpy.types.UIList, bpy.types.Menu)


def rna_identity(cls: type) -> tuple[type, str]:
    """``(Blender base type, identifier)`` under which Blender registers ``cls``."""
    base = next(base for base in REGISTRABLE_BASES if issubclass(cls, base))
    if base is bpy.types.Operator:
        return base, cls.__name__  # bl_idname is "category.name"; RNA knows it as CATEGORY_OT_name
    return base, getattr(cls, "bl_idname", cls.__name__)


def is_registered(identity: tuple[type, str]) -> bool:
    """Whether Blender has a class registered under this identity (any import of the module)."""
    base, identifier = identity
    return base.bl_rna_get_subclass_py(identifier) is not None


def addon_handlers(module_name: str) -> dict[str, int]:
    """How many of the add-on's functions sit in each app handler list Blender calls on file load/undo."""
    return {
        name: sum(getattr(f, "__module__", "").startswith(module_name) for f in getattr(bpy.app.handlers, name))
        for name in APP_HANDLER_LISTS
    }


def registered_state(module_name: str, identities: list[tuple[type, str]]) -> dict:
    """What the add-on currently contributes to Blender."""
    overlay = importlib.import_module(module_name + ".ui.overlay")
    return {
        "classes": {identifier: is_registered((base, identifier)) for base, identifier in identities},
        "scene_property": hasattr(bpy.types.Scene, "collision_inspector"),
        "draw_handlers": overlay.handlers_installed(),
        "app_handlers": addon_handlers(module_name),
    }


def expected_state(identities: list[tuple[type, str]], enabled: bool) -> dict:
    return {
        "classes": {identifier: enabled for _base, identifier in identities},
        "scene_property": enabled,
        "draw_handlers": enabled,
        "app_handlers": {name: count if enabled else 0 for name, count in APP_HANDLERS.items()},
    }


def analyse_two_overlapping_cubes() -> set:
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, 0.0))
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.9, 0.0, 0.0))
    for obj in bpy.data.objects:
        obj.select_set(True)
    return bpy.ops.collision_inspector.analyze()


def test_enabled_addon_registers_every_class_and_handler(addon):
    identities = [rna_identity(cls) for cls in addon.CLASSES]
    assert (bpy.types.Operator, "COLLISION_INSPECTOR_OT_analyze") in identities
    assert (bpy.types.Operator, "COLLISION_INSPECTOR_OT_clear") in identities
    assert any(base is bpy.types.Panel for base, _identifier in identities)
    assert registered_state(addon.__name__, identities) == expected_state(identities, enabled=True)


def test_unregister_twice_is_harmless(addon, empty_scene):
    identities = [rna_identity(cls) for cls in addon.CLASSES]
    try:
        addon.unregister()
        addon.unregister()  # raised before: the command, the scene property and the classes were gone
        assert registered_state(addon.__name__, identities) == expected_state(identities, enabled=False)
    finally:
        addon.register()
    addon.register()  # a second register() adds nothing either
    assert registered_state(addon.__name__, identities) == expected_state(identities, enabled=True)


def test_disable_and_enable_twice(addon, addon_switch, empty_scene):
    identities = [rna_identity(cls) for cls in addon.CLASSES]
    try:
        for _round in range(2):
            addon_switch.disable()
            assert registered_state(addon.__name__, identities) == expected_state(identities, enabled=False)
            with pytest.raises(AttributeError):
                bpy.ops.collision_inspector.analyze()
            addon_switch.enable()
            assert registered_state(addon.__name__, identities) == expected_state(identities, enabled=True)
    finally:
        if not hasattr(bpy.types.Scene, "collision_inspector"):
            addon_switch.enable()
    assert analyse_two_overlapping_cubes() == {'FINISHED'}
    (result,) = bpy.context.scene.collision_inspector.results
    assert result.status == 'penetrating'
    assert result.depth == pytest.approx(0.1, abs=1e-6)
