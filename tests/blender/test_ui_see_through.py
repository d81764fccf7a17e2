"""See Through: the 3D views' X-ray is switched on only when asked and only while the active penetrating pair's
overlap is shown, and every view's own X-ray switches come back as they were (setting off, overlap gone, results
cleared, add-on off), also in a file saved meanwhile."""

from __future__ import annotations

import importlib
import tempfile
from pathlib import Path

import bpy
import pytest

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)


@pytest.fixture
def see_through(addon):
    module = importlib.import_module(addon.__name__ + ".ui.see_through")
    module.restore()
    yield module
    module.restore()


def view_spaces() -> list:
    return [space for screen in bpy.data.screens for area in screen.areas for space in area.spaces
            if space.type == 'VIEW_3D']


def xray_state() -> list[tuple]:
    """Each 3D view's X-ray switches and alpha."""
    return [(space.shading.show_xray, space.shading.show_xray_wireframe, round(space.shading.xray_alpha, 6))
            for space in view_spaces()]


@pytest.fixture
def users_views():
    """The 3D views with X-ray switches a user might have set: off, on, wireframe X-ray off, a custom alpha; put
    back to Blender's defaults afterwards."""
    spaces = view_spaces()
    assert len(spaces) >= 3
    for number, space in enumerate(spaces):
        space.shading.show_xray = number % 3 == 1
        space.shading.show_xray_wireframe = number % 3 != 2
        space.shading.xray_alpha = 0.3 if number % 2 else 0.5
    before = xray_state()
    yield before
    for space in spaces:
        space.shading.show_xray, space.shading.show_xray_wireframe, space.shading.xray_alpha = False, True, 0.5


def block_peg_and_far(scene) -> None:
    """Block and Peg penetrate (the first result, active), Far is apart from both."""
    objects = add_cube("Block", 0.0), add_cube("Peg", 0.6), add_cube("Far", 5.0)
    select_only(*objects)
    assert analyse() == [("Block", "Far", 'separated'), ("Block", "Peg", 'penetrating'), ("Far", "Peg", 'separated')]
    scene.collision_inspector.active_result_index = 1


def all_see_through() -> bool:
    return all(xray and wireframe for xray, wireframe, _alpha in xray_state())


def test_nothing_changes_unless_asked(empty_scene, see_through, users_views):
    block_peg_and_far(empty_scene)
    see_through.sync(empty_scene)
    assert not see_through.is_on()
    assert xray_state() == users_views


def test_switched_on_every_view_sees_through_and_switched_off_each_is_as_before(empty_scene, see_through,
                                                                                   users_views):
    block_peg_and_far(empty_scene)
    settings = empty_scene.collision_inspector
    settings.overlap_see_through = True
    assert see_through.is_on() and all_see_through()
    assert [alpha for *_switches, alpha in xray_state()] == [alpha for *_switches, alpha in users_views]
    settings.overlap_see_through = False
    assert not see_through.is_on()
    assert xray_state() == users_views


def test_views_come_back_when_the_overlap_is_no_longer_shown(empty_scene, see_through, users_views):
    block_peg_and_far(empty_scene)
    settings = empty_scene.collision_inspector
    settings.overlap_see_through = True
    settings.active_result_index = 0  # a separated pair: no overlap
    assert see_through.needs_sync(empty_scene)
    see_through.sync(empty_scene)  # what the overlay's draw callback asks for in idle time
    assert xray_state() == users_views
    settings.active_result_index = 1
    see_through.sync(empty_scene)
    assert all_see_through()
    settings.show_overlap = False
    assert xray_state() == users_views
    settings.show_overlap = True
    assert all_see_through()
    bpy.ops.collision_inspector.clear()
    see_through.sync(empty_scene)
    assert xray_state() == users_views and not see_through.needs_sync(empty_scene)


def test_a_file_saved_while_seeing_through_keeps_the_users_views(empty_scene, see_through, users_views):
    block_peg_and_far(empty_scene)
    empty_scene.collision_inspector.overlap_see_through = True
    assert all_see_through()
    at_save: list = []

    def record(*_args):
        at_save.append(xray_state())

    bpy.app.handlers.save_pre.append(record)  # after the add-on's own handler
    try:
        with tempfile.TemporaryDirectory() as folder:
            bpy.ops.wm.save_as_mainfile(filepath=str(Path(folder) / "seen.blend"), copy=True)
    finally:
        bpy.app.handlers.save_pre.remove(record)
    assert at_save == [users_views]
    assert see_through.is_on() and all_see_through()


def test_switching_the_add_on_off_puts_the_views_back(empty_scene, see_through, users_views):
    block_peg_and_far(empty_scene)
    empty_scene.collision_inspector.overlap_see_through = True
    see_through.remove_handlers()
    try:
        assert xray_state() == users_views and not see_through.is_on()
    finally:
        see_through.add_handlers()
