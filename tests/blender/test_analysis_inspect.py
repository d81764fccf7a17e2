"""Interactive inspection: directional depth, plane mode, rigid-body shapes, clicking a list row,
and Copy Pair for Report.

References are analytic: axis-aligned cubes and spheres whose travel, in-plane overlap or physics shape
follow from their placement and sizes.
"""

from __future__ import annotations

import importlib
import json
import math
import sys

import bpy
import numpy as np
import pytest

from test_operators_browse import add_cube, analyse, select_only

EXACT = 1e-6


@pytest.fixture
def replay(addon):
    return importlib.import_module(addon.__name__ + ".core.replay")


def result_of(scene, name_a: str, name_b: str):
    return next(r for r in scene.collision_inspector.results if (r.name_a, r.name_b) == (name_a, name_b))


# --- directional depth -----------------------------------------------------------------------------------


def test_directional_depth_along_each_axis_of_a_penetrating_pair(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 0.75)  # overlap 0.25 along x
    b.location.y = 0.5  # and 0.5 along y
    select_only(a, b)
    analyse()
    result = result_of(empty_scene, "A", "B")
    assert result.status == 'penetrating'
    for axis, expected in (('X', 0.25), ('Y', 0.5), ('Z', 1.0), ('NORMAL', 0.25)):
        assert bpy.ops.collision_inspector.directional_depth(axis=axis) == {'FINISHED'}
        assert result.directional_axis == axis
        assert result.directional_distance == pytest.approx(expected, abs=EXACT)


def test_directional_depth_of_a_separated_pair_is_the_travel_to_contact_or_never(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 3.0)  # 2 apart along x
    select_only(a, b)
    analyse()
    result = result_of(empty_scene, "A", "B")
    assert bpy.ops.collision_inspector.directional_depth(axis='NEG_X', index=0) == {'FINISHED'}
    assert result.directional_distance == pytest.approx(2.0, abs=EXACT)  # B moved 2 along -X touches A
    for axis in ('X', 'Z'):  # moving B away from A, or past it, never touches
        assert bpy.ops.collision_inspector.directional_depth(axis=axis, index=0) == {'FINISHED'}
        assert not result.directional_distance < 1e30


def test_directional_depth_along_the_view_follows_the_viewport(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 0.5)
    select_only(a, b)
    analyse()
    screen = bpy.context.screen
    views = [area.spaces.active.region_3d for area in (screen.areas if screen else ()) if area.type == 'VIEW_3D']
    if not views:  # no window at all: the view axis says why it cannot be measured
        with pytest.raises(RuntimeError, match="viewport"):
            bpy.ops.collision_inspector.directional_depth(axis='VIEW')
        return
    views[0].view_rotation = (1.0, 0.0, 0.0, 0.0)  # the top view: looking down -Z
    assert bpy.ops.collision_inspector.directional_depth(axis='VIEW') == {'FINISHED'}
    assert empty_scene.collision_inspector.results[0].directional_distance == pytest.approx(1.0, abs=EXACT)


# --- plane mode ------------------------------------------------------------------------------------------


def test_top_plane_mode_finds_objects_at_different_heights_overlapping_in_plan(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 0.8)
    b.location.z = 5.0  # far apart in 3D, overlapping by 0.2 seen from the top
    select_only(a, b)
    assert analyse('ALL') == []
    assert analyse('ALL', plane_mode='TOP') == [("A", "B", 'penetrating')]
    result = result_of(empty_scene, "A", "B")
    assert result.depth == pytest.approx(0.2, abs=EXACT)
    assert tuple(result.normal) == pytest.approx((1.0, 0.0, 0.0), abs=EXACT)
    assert result.point_a[2] == pytest.approx(result.point_b[2], abs=EXACT)  # drawn in the plane
    assert result.point_a[2] == pytest.approx(2.5, abs=EXACT)  # through the middle of the pair


def test_front_and_custom_plane_modes_measure_the_gap_in_the_plane(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 0.0)
    b.location = (0.0, 7.0, 2.5)  # from the front B is 1.5 above A; from the top they are 6 apart
    select_only(a, b)
    analyse('SELECTED', plane_mode='FRONT')
    assert result_of(empty_scene, "A", "B").distance == pytest.approx(1.5, abs=EXACT)
    analyse('SELECTED', plane_mode='CUSTOM', plane_normal=(0.0, 0.0, 1.0))
    assert result_of(empty_scene, "A", "B").distance == pytest.approx(6.0, abs=EXACT)


# --- rigid-body shapes -----------------------------------------------------------------------------------


def add_rigid_body(obj, shape: str, margin: float = 0.0) -> None:
    select_only(obj)
    assert bpy.ops.rigidbody.object_add() == {'FINISHED'}
    obj.rigid_body.collision_shape = shape
    obj.rigid_body.use_margin = True
    obj.rigid_body.collision_margin = margin


def test_rigid_body_sphere_is_measured_as_the_physics_sphere(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 1.2)  # cubes 0.2 apart
    b.location.y = 0.3
    add_rigid_body(a, 'SPHERE')  # radius 0.5 about A's origin
    add_rigid_body(b, 'BOX')
    select_only(a, b)
    analyse('SELECTED', use_rigid_body_shapes=True)
    result = result_of(empty_scene, "A", "B")
    # The sphere (radius 0.5) meets the box face at x = 0.7: the gap is 0.2, along +X.
    assert result.distance == pytest.approx(0.2, abs=EXACT)
    b.location.y = 0.9  # the box corner region: the sphere stays round, the cube would not
    analyse('SELECTED', use_rigid_body_shapes=True)
    sphere_gap = math.hypot(0.7, 0.4) - 0.5
    assert result_of(empty_scene, "A", "B").distance == pytest.approx(sphere_gap, abs=1e-5)
    analyse('SELECTED', use_rigid_body_shapes=False)
    assert result_of(empty_scene, "A", "B").distance == pytest.approx(0.2, abs=EXACT)  # the real cubes


def test_rigid_body_margin_grows_a_convex_hull_and_mesh_shapes_keep_the_surfaces(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 1.1)  # 0.1 apart
    add_rigid_body(a, 'CONVEX_HULL', margin=0.04)
    add_rigid_body(b, 'CONVEX_HULL', margin=0.04)
    select_only(a, b)
    analyse('SELECTED', use_rigid_body_shapes=True)
    assert result_of(empty_scene, "A", "B").distance == pytest.approx(0.1 - 0.08, abs=EXACT)
    a.rigid_body.collision_shape = 'MESH'
    b.rigid_body.collision_shape = 'MESH'
    analyse('SELECTED', use_rigid_body_shapes=True)
    assert result_of(empty_scene, "A", "B").distance == pytest.approx(0.1, abs=EXACT)


# --- clicking a list row ---------------------------------------------------------------------------------


def test_choosing_a_row_selects_its_pair_unless_turned_off(empty_scene):
    a, b, c = add_cube("A", 0.0), add_cube("B", 0.9), add_cube("C", 1.8)
    select_only(a, b, c)
    analyse()
    settings = empty_scene.collision_inspector
    index = next(k for k, r in enumerate(settings.results) if (r.name_a, r.name_b) == ("B", "C"))
    settings.active_result_index = index
    assert {obj.name for obj in bpy.context.view_layer.objects if obj.select_get()} == {"B", "C"}
    assert bpy.context.view_layer.objects.active == b
    settings.select_on_click = False
    settings.active_result_index = 0
    assert {obj.name for obj in bpy.context.view_layer.objects if obj.select_get()} == {"B", "C"}


# --- Copy Pair for Report --------------------------------------------------------------------------------


def test_copy_pair_writes_a_document_that_replays(empty_scene, tmp_path, replay):
    a, b = add_cube("A", 0.0), add_cube("B", 0.7)
    b.rotation_euler = (0.3, 0.2, 0.1)
    select_only(a, b)
    analyse()
    path = tmp_path / "pair.json"
    assert bpy.ops.collision_inspector.copy_pair(filepath=str(path), to_clipboard=False) == {'FINISHED'}
    document = replay.load_pair(path)
    assert len(document["points_a"]) == 8 and len(document["points_b"]) == 8
    assert document["meta"]["object_a"] == "A" and document["meta"]["object_b"] == "B"
    result = result_of(empty_scene, "A", "B")
    assert document["expected"]["status"] == result.status == 'penetrating'
    assert document["expected"]["signed_distance"] == pytest.approx(result.signed_distance, abs=EXACT)
    assert replay.replay(document).reproduced
    assert replay.main([str(path)]) == 0


def test_copy_pair_replays_from_the_command_line(empty_scene, tmp_path, addon):
    import subprocess
    from pathlib import Path

    a, b = add_cube("A", 0.0), add_cube("B", 1.5)
    select_only(a, b)
    analyse()
    path = tmp_path / "pair.json"
    assert bpy.ops.collision_inspector.copy_pair(filepath=str(path), to_clipboard=False) == {'FINISHED'}
    root = Path(importlib.import_module(addon.__name__ + ".core").__file__).parents[1]
    done = subprocess.run([sys.executable, "-m", "core.replay", str(path)], cwd=root, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "reproduced: yes" in done.stdout
    assert json.loads(path.read_text())["expected"]["distance"] == pytest.approx(0.5, abs=EXACT)


# --- labels that never overlap (drawn for real, offscreen) -------------------------------------------------


def test_labels_of_coinciding_arrows_are_stacked_with_a_leader(empty_scene, addon):
    snapshot = importlib.import_module(addon.__name__ + ".ui.snapshot")
    snapshot.ensure_gpu()
    from mathutils import Matrix, Vector

    a, b, twin = add_cube("A", 0.0), add_cube("B", 0.9), add_cube("B2", 0.9)  # two identical contacts
    select_only(a, b, twin, active=a)
    analyse('ACTIVE')
    settings = empty_scene.collision_inspector
    settings.show_arrows = False
    settings.show_curves = False
    settings.label_size = 16
    middle = (Vector(settings.results[0].point_a) + Vector(settings.results[0].point_b)) / 2
    view = Matrix.Translation(-(middle + Vector((0.0, 0.0, 5.0))))
    projection = Matrix.Diagonal((2.0, 2.0, -0.1, 1.0))
    image = snapshot.draw_overlay_offscreen(empty_scene, view, projection, 200, 200)
    rows, columns = np.nonzero(image[..., 3] > 0.01)
    assert rows.max() - rows.min() > 2 * settings.label_size  # two labels, one above the other
    assert columns.min() <= 100 - 3  # the leader line runs left of both labels' text


# --- the Inspect panel and directional depth with rigid-body shapes ---------------------------------------


def test_inspect_panel_offers_the_modes_the_axes_and_copy_pair(empty_scene, addon):
    from types import SimpleNamespace

    from test_ui_panel_units import RecordingLayout

    class Layout(RecordingLayout):
        def _child(self, *_args, **_kwargs):
            return Layout(self.log)

        row = column = grid_flow = _child

    def draw(panel_class):
        layout = Layout()
        panel_class.draw(SimpleNamespace(layout=layout), bpy.context)
        return layout

    panel = importlib.import_module(addon.__name__ + ".ui.panel")
    assert draw(panel.COLLISION_INSPECTOR_PT_inspect).entries("prop") == [
        "plane_mode", "use_rigid_body_shapes", "select_on_click"]
    empty_scene.collision_inspector.plane_mode = 'CUSTOM'
    assert "plane_normal" in draw(panel.COLLISION_INSPECTOR_PT_inspect).entries("prop")
    empty_scene.collision_inspector.plane_mode = 'NONE'
    a, b = add_cube("A", 0.0), add_cube("B", 0.75)
    select_only(a, b)
    analyse()
    assert bpy.ops.collision_inspector.directional_depth(axis='X') == {'FINISHED'}
    layout = draw(panel.COLLISION_INSPECTOR_PT_inspect)
    assert layout.entries("operator") == ["collision_inspector.directional_depth"] * 8 + [
        "collision_inspector.copy_pair"]
    assert any("B must move 0.25 m along X to separate" in text for text, _icon in layout.entries("label"))


def test_directional_depth_uses_the_rigid_body_shapes(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 1.5)
    add_rigid_body(a, 'SPHERE')
    add_rigid_body(b, 'SPHERE')
    b.location.y = 0.6  # the spheres (radius 0.5) meet when B's centre is 1 from A's
    select_only(a, b)
    analyse('SELECTED', use_rigid_body_shapes=True)
    assert bpy.ops.collision_inspector.directional_depth(axis='NEG_X') == {'FINISHED'}
    travel = 1.5 - math.sqrt(1.0 - 0.6 ** 2)
    assert empty_scene.collision_inspector.results[0].directional_distance == pytest.approx(travel, abs=1e-6)


def test_rows_shorten_long_pair_names_to_the_sidebar_width(empty_scene, addon):
    from types import SimpleNamespace

    from test_ui_panel_units import RecordingLayout

    panel = importlib.import_module(addon.__name__ + ".ui.panel")
    add_cube("Left bracket of the main assembly.001", 0.0)
    add_cube("Right bracket of the main assembly.002", 0.9)
    select_only(*bpy.data.objects)
    analyse()
    layout = RecordingLayout()
    narrow = SimpleNamespace(scene=empty_scene, region=SimpleNamespace(width=320))
    panel.COLLISION_INSPECTOR_UL_results.draw_item(None, narrow, layout, empty_scene.collision_inspector,
                                                   empty_scene.collision_inspector.results[0], 0, None, "", 0)
    (left, _icon), (right, _blank) = layout.entries("label")[:2]  # a name a line, each too long for it
    chars = panel.row_chars(320) - panel.ICON_CHARS
    assert len(left) <= chars and len(right) <= chars < len("Left bracket of the main assembly.001")
    assert left.startswith("Left") and left.endswith("001") and right.startswith("\u2194 Rig") and right.endswith("002")


@pytest.mark.parametrize("half_extent", [0.05, 1.0, 1000.0])
def test_the_arrow_shows_at_any_zoom(empty_scene, addon, half_extent):
    snapshot = importlib.import_module(addon.__name__ + ".ui.snapshot")
    snapshot.ensure_gpu()
    from mathutils import Matrix, Vector

    a, b = add_cube("A", 0.0), add_cube("B", 0.99)  # depth 0.01: far shorter than a head when zoomed out
    select_only(a, b)
    analyse()
    settings = empty_scene.collision_inspector
    settings.show_labels = False
    settings.show_curves = False
    settings.color_penetrating = (0.9, 0.2, 0.1, 1.0)
    result = settings.results[0]
    middle = (Vector(result.point_a) + Vector(result.point_b)) / 2
    view = Matrix.Translation(-(middle + Vector((0.0, 0.0, 5.0))))
    projection = Matrix.Diagonal((1.0 / half_extent, 1.0 / half_extent, -0.1, 1.0))
    image = snapshot.draw_overlay_offscreen(empty_scene, view, projection, 200, 200)
    red = np.all(np.abs(image - np.array([0.9, 0.2, 0.1, 1.0])) < 0.02, axis=-1)
    rows, columns = np.nonzero(red)
    assert red.sum() >= 20  # at least a head's worth of pixels
    assert abs(columns.mean() - 100) < 20 and abs(rows.mean() - 100) < 20  # where the contact is
