"""The measuring modes beyond Analyse: live update and the animation scan measure in the plane or
with rigid-body shapes as Analyse does; instanced objects ("Instancer ▸ Object") follow their instancer and
their object; Resolve refuses to move an instance and says why; reports name the mode they were measured in.

References are analytic: unit cubes whose in-plane overlap, gap to a physics sphere or keyed travel follow
from their placement; each scene is built so that measuring the usual way (in 3D, on the real cubes, or the
instance where it was first read) gives another answer.
"""

from __future__ import annotations

import csv
import importlib
import json
import math

import bpy
import pytest

from test_operators_browse import add_cube, analyse, new_collection, select_only  # noqa: I001
from test_analysis_inspect import add_rigid_body, result_of
from test_analysis_scan import fly_through, key_pass

EXACT = 1e-6
INSTANCE = "Rack \u25b8 Peg"


def move(obj, **location) -> None:
    for axis, value in location.items():
        setattr(obj.location, axis, value)
    bpy.context.view_layer.update()


# --- live update and scan in plane mode --------------------------------------------------------------------


def test_live_update_measures_in_the_analysed_plane(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 3.0)
    b.location.z = 5.0  # 2 apart in the top plane, far apart in 3D
    select_only(a, b)
    analyse('SELECTED', plane_mode='TOP')
    empty_scene.collision_inspector.live_update = True
    pair = result_of(empty_scene, "A", "B")
    assert pair.status == 'separated' and pair.distance == pytest.approx(2.0, abs=EXACT)
    move(b, x=0.8)  # overlapping by 0.2 seen from the top; still 4 apart in 3D
    assert pair.status == 'penetrating' and not pair.stale
    assert pair.depth == pytest.approx(0.2, abs=EXACT)
    assert tuple(pair.normal) == pytest.approx((1.0, 0.0, 0.0), abs=EXACT)
    assert pair.point_a[2] == pytest.approx(pair.point_b[2], abs=EXACT)  # drawn in the plane


def test_results_keep_the_mode_they_were_analysed_in(empty_scene):
    """Changing the plane setting does not change what the stored results mean: the live update goes on
    measuring them in their plane until the next analysis."""
    a, b = add_cube("A", 0.0), add_cube("B", 3.0)
    b.location.z = 5.0
    select_only(a, b)
    analyse('SELECTED', plane_mode='TOP')
    settings = empty_scene.collision_inspector
    settings.plane_mode = 'NONE'
    settings.live_update = True
    move(b, x=0.8)
    assert result_of(empty_scene, "A", "B").depth == pytest.approx(0.2, abs=EXACT)
    analyse('SELECTED')  # now in 3D
    move(b, x=0.7)
    assert result_of(empty_scene, "A", "B").distance == pytest.approx(4.0, abs=EXACT)


def test_scan_measures_in_the_plane(empty_scene):
    """B flies through A's column 5 above it: in 3D never in contact, in the top plane as ``fly_through``."""
    fly_through(empty_scene)
    bpy.data.objects["B"].location.z = 5.0
    select_only(bpy.data.objects["A"], bpy.data.objects["B"])
    empty_scene.frame_set(5)
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    pair = result_of(empty_scene, "A", "B")
    assert (pair.status, pair.contact_frames) == ('separated', "")  # never in contact in 3D
    empty_scene.collision_inspector.plane_mode = 'TOP'
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    pair = result_of(empty_scene, "A", "B")
    assert (pair.first_contact_frame, pair.deepest_frame, pair.contact_frames) == (9, 11, "9-13")
    assert pair.max_depth == pytest.approx(0.5, abs=EXACT) and pair.depth == pytest.approx(0.5, abs=EXACT)


# --- live update and scan with rigid-body shapes -----------------------------------------------------------


def sphere_and_box(scene):
    """A: a unit cube measured as its physics sphere (radius 0.5 about its origin); B: a unit cube with a
    box shape at (1.2, 0.3): 0.2 from the sphere as from the cube. The simulation is off (nothing falls)."""
    a, b = add_cube("A", 0.0), add_cube("B", 1.2)
    b.location.y = 0.3
    add_rigid_body(a, 'SPHERE')
    add_rigid_body(b, 'BOX')
    scene.rigidbody_world.enabled = False
    select_only(a, b)
    return a, b


def test_live_update_measures_rigid_body_shapes(empty_scene):
    _a, b = sphere_and_box(empty_scene)
    analyse('SELECTED', use_rigid_body_shapes=True)
    empty_scene.collision_inspector.live_update = True
    move(b, y=0.9)  # B's corner region: the sphere is round, the cube would still be 0.2 away
    pair = result_of(empty_scene, "A", "B")
    assert not pair.stale
    assert pair.distance == pytest.approx(math.hypot(0.7, 0.4) - 0.5, abs=1e-5)


def test_scan_measures_rigid_body_shapes(empty_scene):
    """B (box shape) flies along x at y = 0.9 (``fly_through``'s keys): the cubes touch at |x| <= 1 (frames
    9-13), the sphere only once B's corner (x - 0.5, 0.4) is within 0.5 of A's origin (frames 10-12)."""
    fly_through(empty_scene)
    a, b = bpy.data.objects["A"], bpy.data.objects["B"]
    b.location.y = 0.9
    add_rigid_body(a, 'SPHERE')
    add_rigid_body(b, 'BOX')
    empty_scene.rigidbody_world.enabled = False
    select_only(a, b)
    empty_scene.frame_set(5)
    bpy.ops.collision_inspector.scan()
    assert result_of(empty_scene, "A", "B").contact_frames == "9-13"
    empty_scene.collision_inspector.use_rigid_body_shapes = True
    bpy.ops.collision_inspector.scan()
    pair = result_of(empty_scene, "A", "B")
    assert (pair.first_contact_frame, pair.deepest_frame, pair.contact_frames) == (10, 11, "10-12")
    assert pair.max_depth == pytest.approx(0.1, abs=1e-5)  # at frame 11 the corner is at (0, 0.4)


# --- instanced objects ----------------------------------------------------------------------------------


def instanced_peg(scene, x: float = 3.0):
    """Base (unit cube at the origin) and Rack, an instance of collection Part (excluded from the view layer,
    as libraries are) holding Peg, a unit cube at Part's origin; Rack at ``x``."""
    base = add_cube("Base", 0.0)
    part = new_collection("Part")
    peg = add_cube("Peg", 0.0, collection=part)
    bpy.context.view_layer.layer_collection.children["Part"].exclude = True
    rack = bpy.data.objects.new("Rack", None)
    rack.instance_type = 'COLLECTION'
    rack.instance_collection = part
    rack.location.x = x
    scene.collection.objects.link(rack)
    select_only(base, rack)
    return base, rack, peg


def test_live_update_follows_the_instancer_and_the_instanced_object(empty_scene):
    _base, rack, peg = instanced_peg(empty_scene)
    analyse('SELECTED')
    empty_scene.collision_inspector.live_update = True
    pair = result_of(empty_scene, "Base", INSTANCE)
    assert pair.distance == pytest.approx(2.0, abs=EXACT)
    move(rack, x=0.9)
    assert pair.status == 'penetrating' and not pair.stale
    assert pair.depth == pytest.approx(0.1, abs=EXACT)
    move(rack, x=3.0)
    for vertex in peg.data.vertices:  # the instanced mesh, 4 wide: it reaches x = 1
        vertex.co.x *= 4.0
    peg.data.update()
    bpy.context.view_layer.update()
    assert pair.distance == pytest.approx(0.5, abs=EXACT)
    move(peg, x=0.5)  # moved in its collection: the instance follows
    assert pair.distance == pytest.approx(1.0, abs=EXACT)
    rack.name = "Shelf"  # found under the instancer's new name
    move(rack, x=1.5)
    assert pair.status == 'penetrating' and pair.depth == pytest.approx(0.5, abs=EXACT)


def test_without_live_update_an_edited_instanced_object_makes_its_results_stale(empty_scene):
    base, _rack, peg = instanced_peg(empty_scene)
    other = add_cube("Other", -3.0)
    select_only(base, bpy.data.objects["Rack"], other)
    analyse('SELECTED')
    results = empty_scene.collision_inspector.results
    assert not any(r.stale for r in results)
    for vertex in peg.data.vertices:
        vertex.co.z += 0.1
    peg.data.update()
    bpy.context.view_layer.update()
    assert {(r.name_a, r.name_b): r.stale for r in results} == {
        ("Base", INSTANCE): True, ("Base", "Other"): False, ("Other", INSTANCE): True}


def test_scan_follows_an_animated_instancer(empty_scene):
    _base, rack, _peg = instanced_peg(empty_scene)
    key_pass(empty_scene, rack)
    empty_scene.frame_set(1)
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    pair = result_of(empty_scene, "Base", INSTANCE)
    assert (pair.first_contact_frame, pair.deepest_frame, pair.contact_frames) == (9, 11, "9-13")
    assert pair.max_depth == pytest.approx(0.5, abs=EXACT)


def test_resolve_refuses_to_move_an_instance_and_says_why(empty_scene, addon):
    instanced_peg(empty_scene, x=0.9)
    analyse('SELECTED')
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.collision_inspector.resolve(index=0)
    message = str(refused.value)
    assert f"Cannot move {INSTANCE}" in message
    assert "collection instance Rack" in message and "move Rack, or Peg in its collection" in message
    assert bpy.data.objects["Rack"].location.x == pytest.approx(0.9)
    resolve = importlib.import_module(addon.__name__ + ".analysis.resolve")
    moves, remaining, refusals = resolve.resolve_all(bpy.context)
    assert (moves, remaining) == (0, [f"Base \u2194 {INSTANCE}"])
    assert "collection instance Rack" in refusals[f"Base \u2194 {INSTANCE}"]


# --- the measuring mode in reports ------------------------------------------------------------------------


def report_headers(path) -> tuple[dict, dict]:
    """``(JSON document, CSV comment lines as {key: value})`` of the two exports of the stored results."""
    json_path, csv_path = path / "report.json", path / "report.csv"
    for target in (json_path, csv_path):
        assert bpy.ops.collision_inspector.export_report(filepath=str(target)) == {'FINISHED'}
    lines = csv_path.read_text().splitlines()
    return json.loads(json_path.read_text()), dict(line[2:].split(": ", 1) for line in lines if line.startswith("# "))


def test_exported_reports_name_the_mode(empty_scene, tmp_path):
    a, b = add_cube("A", 0.0), add_cube("B", 0.8)
    b.location.z = 5.0
    select_only(a, b)
    analyse('SELECTED')
    document, comments = report_headers(tmp_path)
    assert (document["plane_mode"], document["plane_normal"], document["rigid_body_shapes"]) == ('NONE', None, False)
    assert (comments["plane_mode"], comments["plane_normal"], comments["rigid_body_shapes"]) == ('NONE', '', 'false')
    analyse('SELECTED', plane_mode='CUSTOM', plane_normal=(0.0, 0.0, 2.0))
    empty_scene.collision_inspector.plane_mode = 'FRONT'  # changed after the analysis: the report says CUSTOM
    document, comments = report_headers(tmp_path)
    assert document["plane_mode"] == 'CUSTOM' and document["plane_normal"] == pytest.approx([0.0, 0.0, 1.0])
    assert document["rigid_body_shapes"] is False and document["results"][0]["status"] == 'penetrating'
    assert comments["plane_mode"] == 'CUSTOM' and comments["plane_normal"] == "0.0 0.0 1.0"
    rows = list(csv.DictReader(line for line in (tmp_path / "report.csv").read_text().splitlines()
                               if not line.startswith("#")))
    assert rows[0]["status"] == 'penetrating'


def test_reports_say_when_rigid_body_shapes_were_used(empty_scene, tmp_path):
    sphere_and_box(empty_scene)
    analyse('SELECTED', use_rigid_body_shapes=True)
    document, comments = report_headers(tmp_path)
    assert (document["plane_mode"], document["rigid_body_shapes"]) == ('NONE', True)
    assert comments["rigid_body_shapes"] == 'true'
    analyse('SELECTED', use_rigid_body_shapes=True, plane_mode='TOP')  # the plane wins over the shapes
    document, _comments = report_headers(tmp_path)
    assert (document["plane_mode"], document["plane_normal"], document["rigid_body_shapes"]) == (
        'TOP', [0.0, 0.0, 1.0], False)


def test_the_command_line_reports_and_prints_the_mode(empty_scene, addon, tmp_path, capsys):
    cli = importlib.import_module(addon.__name__ + ".cli")
    a, b = add_cube("A", 0.0), add_cube("B", 0.8)
    b.location.z = 5.0
    select_only(a, b)
    settings = empty_scene.collision_inspector
    settings.plane_mode = 'TOP'
    json_path = tmp_path / "check.json"
    assert cli.run(["check", "--json", str(json_path)]) == 1  # they overlap in the plan
    assert "measured in the top plane, normal (0, 0, 1)" in capsys.readouterr().out
    document = json.loads(json_path.read_text())
    assert (document["plane_mode"], document["plane_normal"]) == ('TOP', [0.0, 0.0, 1.0])
    assert [(r["object_a"], r["object_b"], r["status"]) for r in document["results"]] == [("A", "B", 'penetrating')]
    assert cli.run(["check", "--frames", "1-3", "--json", str(json_path)]) == 1
    assert json.loads(json_path.read_text())["plane_mode"] == 'TOP'
    assert "measured in the top plane" in capsys.readouterr().out
    settings.plane_mode = 'NONE'
    assert cli.run(["check", "--json", str(json_path)]) == 0
    assert "measured" not in capsys.readouterr().out
    assert json.loads(json_path.read_text())["plane_mode"] == 'NONE'
    settings.plane_mode = 'CUSTOM'
    settings.plane_normal = (0.0, 0.0, 0.0)
    assert cli.run(["check"]) == 2
    assert "plane mode cannot be measured here: the custom plane normal is zero" in capsys.readouterr().err


def test_directional_depth_uses_the_shapes_the_results_were_measured_with(empty_scene):
    """B at y = 0.9 moving along -X meets A's physics sphere after 0.4 (at y = 0.4 the sphere reaches
    x = 0.3), the cube A after 0.2: after an analysis with rigid-body shapes, switching the option off does
    not change what the stored result's directional depth measures."""
    _a, b = sphere_and_box(empty_scene)
    b.location.y = 0.9
    analyse('SELECTED', use_rigid_body_shapes=True)
    empty_scene.collision_inspector.use_rigid_body_shapes = False
    pair = result_of(empty_scene, "A", "B")
    assert bpy.ops.collision_inspector.directional_depth(axis='NEG_X', index=0) == {'FINISHED'}
    assert pair.directional_distance == pytest.approx(0.4, abs=EXACT)
