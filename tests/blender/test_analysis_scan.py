"""Animation scan: B flies through A and back; the scan finds the contact interval, the first contact, the
deepest frame and depth (analytic for linear keyframes), restores the frame, adds markers on request, and
the command line (``check --frames``) and the reports carry the same per-result keys."""

from __future__ import annotations

import csv
import importlib
import json

import bpy
import pytest
from conftest import stand_in_operator

from test_operators_browse import add_cube, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)
from test_analysis_live import result


def fly_through(scene) -> None:
    """A still at x=0; B keyed linearly at x=3 (frame 1), 0.5 (frame 11), 3 (frame 21): 0.25 per frame.

    B touches A when x = 1 (frames 9 and 13) and is deepest at frame 11 (depth 0.5)."""
    add_cube("A", 0.0)
    b = add_cube("B", 3.0)
    key_pass(scene, b)
    scene.frame_set(5)
    select_only(bpy.data.objects["A"], b)


def key_pass(scene, obj) -> None:
    """Key ``obj``'s x linearly at 3 (frame 1), 0.5 (frame 11) and 3 (frame 21); the scene's range 1-21."""
    for frame, x in ((1, 3.0), (11, 0.5), (21, 3.0)):
        obj.location.x = x
        obj.keyframe_insert("location", index=0, frame=frame)
    action = obj.animation_data.action
    fcurves = action.fcurves if hasattr(action, "fcurves") else action.layers[0].strips[0].channelbags[0].fcurves
    for key in (key for fcurve in fcurves for key in fcurve.keyframe_points):
        key.interpolation = 'LINEAR'
    scene.frame_start, scene.frame_end = 1, 21


def test_scan_finds_when_and_how_deep_the_pair_collides(empty_scene):
    fly_through(empty_scene)
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    assert empty_scene.frame_current == 5
    pair = result("A", "B")
    assert pair.scanned and pair.status == 'penetrating'
    assert pair.first_contact_frame == 9 and pair.deepest_frame == 11
    assert pair.max_depth == pytest.approx(0.5, abs=1e-6) and pair.depth == pytest.approx(0.5, abs=1e-6)
    assert pair.contact_frames == "9-13"
    assert tuple(pair.point_b)[0] == pytest.approx(0.0, abs=1e-6)  # measured at frame 11: B's face at x=0


def test_the_depth_series_and_its_plot(empty_scene, addon):
    fly_through(empty_scene)
    bpy.ops.collision_inspector.scan()
    store = importlib.import_module(addon.__name__ + ".analysis.store")
    scan = importlib.import_module(addon.__name__ + ".analysis.scan")
    depths = store.depth_series(empty_scene.collision_inspector, 0)
    expected = [max(0.0, 1.0 - (3.0 - 0.25 * min(f - 1, 21 - f))) for f in range(1, 22)]
    assert depths == pytest.approx(expected, abs=1e-6)
    line = scan.sparkline(depths, width=21)
    assert line[:9] == " " * 9 and line[10] == "\u2588" and line[12:] == " " * 9


def test_markers_on_request(empty_scene):
    fly_through(empty_scene)
    empty_scene.timeline_markers.new("Mine", frame=2)
    empty_scene.collision_inspector.scan_markers = True
    bpy.ops.collision_inspector.scan()
    bpy.ops.collision_inspector.scan()  # replaces its own markers, keeps others
    assert sorted((m.name, m.frame) for m in empty_scene.timeline_markers) == [
        ("Clash: A \u2194 B", 9), ("Mine", 2)]


def test_live_update_stays_quiet_during_a_scan(empty_scene):
    fly_through(empty_scene)
    empty_scene.collision_inspector.live_update = True
    bpy.ops.collision_inspector.scan()
    assert result("A", "B").deepest_frame == 11 and result("A", "B").depth == pytest.approx(0.5, abs=1e-6)


def test_command_line_frames_and_report_keys(empty_scene, addon, tmp_path, capsys):
    fly_through(empty_scene)
    cli = importlib.import_module(addon.__name__ + ".cli")
    json_path, csv_path = tmp_path / "scan.json", tmp_path / "scan.csv"
    assert cli.run(["check", "--frames", "1-21", "--json", str(json_path), "--csv", str(csv_path)]) == 1
    assert "first_contact_frame=9" in capsys.readouterr().out
    assert empty_scene.frame_current == 5
    [entry] = json.loads(json_path.read_text())["results"]
    assert (entry["first_contact_frame"], entry["deepest_frame"]) == (9, 11)
    assert entry["max_depth"] == pytest.approx(0.5, abs=1e-6) and entry["contact_intervals"] == [[9, 13]]
    rows = list(csv.DictReader(line for line in csv_path.read_text().splitlines() if not line.startswith("#")))
    assert (rows[0]["first_contact_frame"], rows[0]["deepest_frame"], rows[0]["contact_intervals"]) == ("9", "11",
                                                                                                        "9-13")
    assert cli.run(["check", "--frames", "1-5"]) == 0  # B stays apart in those frames
    assert cli.run(["check", "--frames", "9-3"]) == 2


def test_the_panel_export_carries_the_scan(empty_scene, addon, tmp_path):
    fly_through(empty_scene)
    bpy.ops.collision_inspector.scan()
    path = tmp_path / "panel.json"
    assert bpy.ops.collision_inspector.export_report(filepath=str(path)) == {'FINISHED'}
    [entry] = json.loads(path.read_text())["results"]
    assert (entry["first_contact_frame"], entry["deepest_frame"], entry["contact_intervals"]) == (9, 11, [[9, 13]])


def test_the_panel_shows_the_scan_and_offers_resolve(empty_scene, addon):
    from test_ui_panel_units import draw

    panel = importlib.import_module(addon.__name__ + ".ui.panel")
    fly_through(empty_scene)
    bpy.ops.collision_inspector.scan()
    layout = draw(panel.COLLISION_INSPECTOR_PT_results)
    labels = [text for text, _icon in layout.entries("label")]
    assert "Contact frames: 9-13" in labels and "First contact: frame 9" in labels
    assert "Deepest: 0.5 m at frame 11" in labels
    plot = next(text for text in labels if text.startswith("Depth: |"))
    assert "\u2588" in plot
    assert {"collision_inspector.resolve", "collision_inspector.resolve_all",
            "collision_inspector.go_to_frame"} <= set(layout.entries("operator"))
    assert "Drawn in the viewport at frame 11 only" in labels  # the scene shows frame 5


def modal_scan(addon):
    """The scan operator's methods bound to a stand-in instance, to drive its modal path with made-up events."""
    return stand_in_operator(importlib.import_module(addon.__name__ + ".operators.scan").COLLISION_INSPECTOR_OT_scan)


def test_escape_cancels_the_scan_keeps_the_results_and_restores_the_frame(empty_scene, addon):
    from types import SimpleNamespace

    fly_through(empty_scene)
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    operator = modal_scan(addon)
    assert operator.start(bpy.context)
    assert operator.modal(bpy.context, SimpleNamespace(type='MOUSEMOVE')) == {'PASS_THROUGH'}
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    assert empty_scene.frame_current == 5
    assert not empty_scene.collision_inspector.results[0].scanned
    operator = modal_scan(addon)
    assert operator.start(bpy.context)
    outcome = {'RUNNING_MODAL'}
    for _tick in range(100):
        outcome = operator.modal(bpy.context, SimpleNamespace(type='TIMER'))
        if outcome != {'RUNNING_MODAL'}:
            break
    assert outcome == {'FINISHED'} and empty_scene.frame_current == 5
    assert result("A", "B").deepest_frame == 11


def test_the_scan_report_gives_the_deepest_depth_in_scene_units(empty_scene, addon):
    fly_through(empty_scene)
    empty_scene.unit_settings.length_unit = 'MILLIMETERS'
    operator = modal_scan(addon)
    assert operator.start(bpy.context)
    while operator.step(bpy.context) is None:
        pass
    assert operator.reports[-1] == ({'INFO'}, "Scanned frames 1-21: 1 pair in contact; deepest: A \u2194 B, "
                                              "500 mm at frame 11")


def test_a_scanned_result_is_drawn_at_its_worst_frame_only_and_go_to_frame_takes_the_scene_there(
        empty_scene, overlay, snapshot):
    """After the scan the frame is back at 5, where B is far from A: the pair's numbers (frame 11's) are not drawn
    there. Go to Frame shows the deepest frame, where they are drawn, and the first contact."""
    from test_ui_overlay_gpu import contact_view, draw, drawn

    fly_through(empty_scene)
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    pair = result("A", "B")
    assert empty_scene.frame_current == 5 and pair.measured_frame == 11
    _points, (view, projection) = contact_view(empty_scene)
    assert not drawn(draw(snapshot, empty_scene, view, projection)).any()
    assert bpy.ops.collision_inspector.go_to_frame(which='DEEPEST') == {'FINISHED'}
    assert empty_scene.frame_current == 11 and not pair.stale
    assert drawn(draw(snapshot, empty_scene, view, projection)).any()
    assert bpy.ops.collision_inspector.go_to_frame(index=0, which='FIRST') == {'FINISHED'}
    assert empty_scene.frame_current == 9


def test_go_to_frame_refuses_results_that_were_not_scanned_or_never_touch(empty_scene):
    fly_through(empty_scene)
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    with pytest.raises(RuntimeError, match="was not scanned"):
        bpy.ops.collision_inspector.go_to_frame()
    bpy.data.objects["A"].location.y = 5.0  # B flies past, never touching
    empty_scene.collision_inspector.scope = 'SELECTED'
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    assert bpy.ops.collision_inspector.go_to_frame(which='DEEPEST') == {'FINISHED'}  # its closest frame
    closest = empty_scene.frame_current
    assert 9 <= closest <= 13 and closest == result("A", "B").measured_frame  # B passes 4.5 from A's side then
    with pytest.raises(RuntimeError, match="never touches"):
        bpy.ops.collision_inspector.go_to_frame(which='FIRST')
    assert empty_scene.frame_current == closest


def test_a_pair_that_does_not_move_in_the_scan_is_drawn_at_every_frame(empty_scene, overlay, snapshot):
    """A and a still C beside it: their numbers hold at every frame, so the viewport draws them at frame 5 too,
    while the moving pair waits for its frame."""
    from test_ui_overlay_gpu import draw, drawn

    fly_through(empty_scene)
    add_cube("C", -1.25)
    select_only(*bpy.data.objects)
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    still, moving = result("A", "C"), result("A", "B")
    assert not still.frame_bound and moving.frame_bound
    empty_scene.collision_inspector.show_labels = False  # each view shows its own pair's drawing only
    assert drawn(draw(snapshot, empty_scene, *top_view_of(still))).any()
    assert not drawn(draw(snapshot, empty_scene, *top_view_of(moving))).any()


def top_view_of(pair):
    from mathutils import Vector
    from test_ui_overlay_gpu import top_view

    return top_view((Vector(pair.point_a) + Vector(pair.point_b)) / 2)


def test_a_long_list_of_contact_frames_wraps_to_the_sidebar(empty_scene, addon):
    """A pair in contact many times lists its frames on lines that fit the default sidebar (one label was cut)."""
    from types import SimpleNamespace

    from test_ui_panel_units import DEFAULT_SIDEBAR_PX, draw

    panel = importlib.import_module(addon.__name__ + ".ui.panel")
    fly_through(empty_scene)
    bpy.ops.collision_inspector.scan()
    empty_scene.collision_inspector.results[0].contact_frames = " ".join(f"{k}-{k + 3}" for k in range(100, 200, 10))
    context = SimpleNamespace(scene=empty_scene, region=SimpleNamespace(width=DEFAULT_SIDEBAR_PX))
    labels = [text for text, _icon in draw(panel.COLLISION_INSPECTOR_PT_results, context).entries("label")]
    start = next(k for k, text in enumerate(labels) if text.startswith("Contact frames:"))
    frames = labels[start:next(k for k, text in enumerate(labels) if text.startswith("First contact"))]
    assert len(frames) > 1 and all(len(text) <= panel.sidebar_chars(context) for text in frames)
    assert " ".join(text.strip() for text in frames) == "Contact frames: " + " ".join(
        f"{k}-{k + 3}" for k in range(100, 200, 10))
