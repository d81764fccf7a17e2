"""See Through: the 3D views' X-ray switched on while the active penetrating pair's overlap is shown, and back.

Only with the Display setting ``overlap_see_through`` on (the user's request). Each 3D view's X-ray switches (solid
and wireframe shading) are kept when it is switched on and put back as they were when the overlap is no longer shown,
the setting is switched off, the add-on is switched off, a file is loaded, and before a file is saved (so a saved
file never keeps an X-ray that the user did not set). Property updates call ``sync``; every other change (the
active row, results cleared or measured again) reaches it through the overlay's draw callback, which asks for a
``sync`` in idle time when ``wanted`` and the views disagree (a draw callback may not change screen data).
"""

from __future__ import annotations

import bpy
from bpy.app.handlers import persistent

from ..analysis.app_handlers import add_handler, remove_handler
from . import overlap_solid

#: The X-ray switches of ``View3DShading`` (solid shading, wireframe shading).
XRAY_SWITCHES = ("show_xray", "show_xray_wireframe")

#: ``on``: X-ray is switched on by See Through; ``saved``: each 3D view's switches before (by the space's pointer).
_state: dict = {"on": False, "saved": {}}


def wanted(scene: bpy.types.Scene) -> bool:
    """True when See Through is on and the active penetrating pair's overlap is shown."""
    settings = getattr(scene, "collision_inspector", None)
    return bool(settings is not None and settings.overlap_see_through and overlap_solid.pair_key(scene) is not None)


def is_on() -> bool:
    """True while See Through has X-ray switched on."""
    return _state["on"]


def sync(scene: bpy.types.Scene) -> None:
    """Switch X-ray on in every 3D view when ``wanted`` and not yet on; put the views back when on and no longer
    wanted."""
    want = wanted(scene)
    if want and not _state["on"]:
        _switch_on()
    elif not want and _state["on"]:
        restore()


def needs_sync(scene: bpy.types.Scene) -> bool:
    """True when the views disagree with ``wanted`` (cheap enough for a draw callback)."""
    return wanted(scene) != _state["on"]


def request_sync() -> None:
    """``sync`` the current scene in idle time (from a draw callback, where screen data may not change)."""
    if not bpy.app.timers.is_registered(_sync_later):
        bpy.app.timers.register(_sync_later, first_interval=0.0)


def restore() -> None:
    """Put every 3D view's X-ray back as it was before See Through switched it on (views closed since are gone)."""
    saved = _state["saved"]
    for space in _view_spaces():
        before = saved.get(space.as_pointer())
        if before is not None:
            for name, value in zip(XRAY_SWITCHES, before):
                setattr(space.shading, name, value)
    saved.clear()
    _state["on"] = False


def add_handlers() -> None:
    """Put the views back before a file is saved or another loaded (once; calling again changes nothing)."""
    add_handler(_before_save_or_load, "save_pre", "load_pre")
    add_handler(_after_save, "save_post")


def remove_handlers() -> None:
    """Remove the handlers, forget a pending ``sync`` and put the views back (add-on switched off)."""
    remove_handler(_before_save_or_load, "save_pre", "load_pre")
    remove_handler(_after_save, "save_post")
    if bpy.app.timers.is_registered(_sync_later):
        bpy.app.timers.unregister(_sync_later)
    restore()


def _switch_on() -> None:
    saved = _state["saved"]
    for space in _view_spaces():
        shading = space.shading
        saved[space.as_pointer()] = tuple(getattr(shading, name) for name in XRAY_SWITCHES)
        for name in XRAY_SWITCHES:
            setattr(shading, name, True)
    _state["on"] = True


def _view_spaces():
    """Every 3D view's space in every screen (each workspace's too, so switching workspaces keeps it see-through)."""
    for screen in bpy.data.screens:
        for area in screen.areas:
            for space in area.spaces:
                if space.type == 'VIEW_3D':
                    yield space


def _sync_later() -> None:
    sync(bpy.context.scene)


@persistent
def _before_save_or_load(*_args) -> None:
    restore()


@persistent
def _after_save(*_args) -> None:
    sync(bpy.context.scene)
