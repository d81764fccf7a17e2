"""Fixtures for the Blender tests, shared by both hosts they run in.

* The PyPI ``bpy`` module: the repo root *is* the add-on package, so it is made importable as
  ``collision_inspector`` through a symlink in a temporary directory, imported and registered.
* Real Blender (``tests/blender/run_in_blender.py``): the extension was installed from the built zip,
  the runner names its module in ``COLLISION_INSPECTOR_MODULE`` and it is enabled the way a user would.

Tests reach submodules with ``importlib.import_module(addon.__name__ + ".ui.draw_geometry")`` and the
operators with ``bpy.ops.collision_inspector.*``, so they read the same in both hosts.
"""

from __future__ import annotations

import atexit
import importlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator, NamedTuple


def own_shader_cache() -> None:
    """Give this run a shader cache of its own (Mesa's, which the software renderer drawing the GPU tests uses),
    before anything draws. Mesa maps its cache's index file, and each Mesa version sizes that file to its own key
    size when it opens it: the PyPI ``bpy`` module (the system's Mesa) shrank the index in ``~/.cache`` under a real
    Blender (its own, newer Mesa) that had it mapped, whose next shader lookup past the new end crashed it with a bus
    error. A run whose ``MESA_SHADER_CACHE_DIR`` is set keeps it."""
    if "MESA_SHADER_CACHE_DIR" not in os.environ:
        folder = tempfile.mkdtemp(prefix="collision_inspector_shader_cache_")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ["MESA_SHADER_CACHE_DIR"] = folder


own_shader_cache()

import bpy  # noqa: E402  (after the shader cache is chosen)
import pytest  # noqa: E402

MODULE_ENV = "COLLISION_INSPECTOR_MODULE"
REPO_ROOT = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(REPO_ROOT / "scripts"))
from addon_loader import import_repo_package  # noqa: E402  (scripts/ is not a package)

# Data blocks a test may create; empty_scene removes all of them so no test sees another's leftovers.
SCENE_DATA = ("objects", "meshes", "curves", "fonts", "metaballs", "lights", "cameras", "materials")


def installed_module_name() -> str | None:
    """The installed extension's module name when running in real Blender, else None."""
    return os.environ.get(MODULE_ENV) or None


def in_real_blender() -> bool:
    """True when the tests run in a Blender binary with the extension installed from its zip."""
    return installed_module_name() is not None


class AddonSwitch(NamedTuple):
    """Turns the add-on off and on again the way its host does it."""

    disable: Callable[[], None]
    enable: Callable[[], None]


def _enable_installed(name: str) -> ModuleType:
    import addon_utils

    if not addon_utils.check(name)[1]:
        result = bpy.ops.preferences.addon_enable(module=name)
        assert result == {"FINISHED"}, f"could not enable {name}: {result}"
    return importlib.import_module(name)


def _disable_installed(name: str) -> None:
    result = bpy.ops.preferences.addon_disable(module=name)
    assert result == {"FINISHED"}, f"could not disable {name}: {result}"


@pytest.fixture(scope="session")
def addon() -> Iterator[ModuleType]:
    """The registered add-on package module (``collision_inspector`` or ``bl_ext.<repo>.collision_inspector``)."""
    name = installed_module_name()
    if name:
        yield _enable_installed(name)
        return
    link_dir = Path(tempfile.mkdtemp(prefix="collision_inspector_pkg_"))
    try:
        module = import_repo_package(link_dir)
        module.register()
        yield module
        module.unregister()
    finally:
        sys.path.remove(str(link_dir))
        shutil.rmtree(link_dir)


@pytest.fixture
def addon_module(addon) -> Callable[[str], ModuleType]:
    """The add-on's module of that dotted name below its package (``"analysis.background"``), as loaded."""
    return lambda name: importlib.import_module(f"{addon.__name__}.{name}")


@pytest.fixture(scope="session")
def real_blender() -> bool:
    """True in the real-Blender host (installed extension), False with the PyPI bpy module."""
    return in_real_blender()


@pytest.fixture(scope="session")
def addon_switch(addon: ModuleType) -> AddonSwitch:
    """Disable/enable the add-on: addon_disable/addon_enable in real Blender, unregister/register with bpy."""
    name = installed_module_name()
    if name:
        return AddonSwitch(lambda: _disable_installed(name), lambda: _enable_installed(name))
    return AddonSwitch(addon.unregister, addon.register)


def _remove_scene_data() -> None:
    for collection_name in SCENE_DATA:
        data = getattr(bpy.data, collection_name)
        for block in list(data):
            data.remove(block)
    for scene in bpy.data.scenes:
        for child in list(scene.collection.children):
            scene.collection.children.unlink(child)
    for collection in list(bpy.data.collections):
        bpy.data.collections.remove(collection)
    bpy.data.orphans_purge(do_recursive=True)


def _reset_units(scene: bpy.types.Scene) -> None:
    units = scene.unit_settings
    units.system = "METRIC"
    units.scale_length = 1.0
    units.length_unit = "METERS"
    units.use_separate = False
    units.system_rotation = "DEGREES"


def _reset_inspector(scene: bpy.types.Scene) -> None:
    """Clear results and put every inspector setting, and what is kept beside them, back to its default."""
    settings = scene.collision_inspector
    for key in set(settings.keys()) - {prop.identifier for prop in settings.bl_rna.properties}:
        del settings[key]  # what the add-on keeps beside the properties (curves, depth series, modes)
    for prop in settings.bl_rna.properties:
        if prop.identifier == "rna_type":
            continue
        if prop.type == "COLLECTION":
            getattr(settings, prop.identifier).clear()
        elif not prop.is_readonly:
            settings.property_unset(prop.identifier)


@pytest.fixture
def empty_scene(addon: ModuleType) -> bpy.types.Scene:
    """The current scene with no objects or orphan data, no results, default settings and metric units."""
    scene = bpy.context.scene
    for other in [s for s in bpy.data.scenes if s != scene]:
        bpy.data.scenes.remove(other)
    _remove_scene_data()
    _reset_units(scene)
    _reset_inspector(scene)
    scene.frame_set(1)
    return scene


# The PyPI bpy 4.2 module segfaults while Python shuts down once any class with a Python method
# (every operator) has been registered, add-on or not: `import bpy; class O(bpy.types.Operator): ...;
# bpy.utils.register_class(O)` exits with SIGSEGV. The 5.0 module and real Blender exit cleanly. So in that
# host the test process ends right after pytest has written its summary and reports, with pytest's status.
BPY_MODULE_CRASHES_AT_EXIT = not in_real_blender() and bpy.app.version[:2] == (4, 2)
_session_status: list[int] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _session_status.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    if BPY_MODULE_CRASHES_AT_EXIT and _session_status:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_session_status[-1])


def stand_in_operator(operator_class):
    """An operator class's methods bound to a stand-in instance (bpy creates real instances only for calls),
    so that a modal operator can be driven with made-up events in background mode. Reports are recorded."""
    from types import MethodType, SimpleNamespace

    operator = SimpleNamespace(reports=[], _timer=None, _status_shown=None,
                               cancelled_message=operator_class.cancelled_message,
                               stopping_errors=getattr(operator_class, "stopping_errors", ()))
    operator.report = lambda kinds, text: operator.reports.append((set(kinds), text))
    for name in ("start", "stop", "step", "finish", "report_results", "modal", "end_timer", "status",
                 "show_status", "select_found_faces", "written"):
        if hasattr(operator_class, name):
            setattr(operator, name, MethodType(getattr(operator_class, name), operator))
    return operator


@pytest.fixture(scope="module")
def overlay(addon):
    """The add-on's viewport overlay module."""
    return importlib.import_module(addon.__name__ + ".ui.overlay")


@pytest.fixture(scope="module")
def snapshot(addon):
    """The offscreen drawing module, with the GPU made ready in background mode."""
    module = importlib.import_module(addon.__name__ + ".ui.snapshot")
    module.ensure_gpu()
    return module
