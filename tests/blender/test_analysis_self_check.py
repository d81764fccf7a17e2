"""Self-intersections: the operator, its stored results and overlay lines, the face selection, the command line
and its JSON/CSV reports."""

from __future__ import annotations

import csv
import importlib
import importlib.util
import json
import os
import subprocess
from pathlib import Path

import bpy
import numpy as np
import pytest
from conftest import in_real_blender
from test_analysis_clash import add_cube, select_only
from test_operators_analyse import only_result

CUBE_FACES = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]


def add_joined_boxes(name: str, boxes) -> bpy.types.Object:
    """One object made of the boxes ``[(low, high), ...]`` as loose parts (joined, not merged)."""
    vertices, faces = [], []
    for low, high in boxes:
        start = len(vertices)
        vertices += [(x, y, z) for x in (low[0], high[0]) for y in (low[1], high[1]) for z in (low[2], high[2])]
        faces += [tuple(start + k for k in face) for face in CUBE_FACES]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


@pytest.fixture
def kitbash(empty_scene):
    """"Prop": two boxes overlapping by 0.5 x 0.6 x 0.6 = 0.18 (the second pokes out through x = 1); "Crate": a
    clean cube."""
    prop = add_joined_boxes("Prop", [((0, 0, 0), (1, 1, 1)), ((0.5, 0.2, 0.2), (1.5, 0.8, 0.8))])
    crate = add_cube("Crate", location=(4.0, 0.0, 0.0))
    select_only(prop, crate, active=prop)
    return prop, crate


def _core(addon, name):
    return importlib.import_module(f"{addon.__name__}.core.mesh.{name}")


def test_operator_counts_each_objects_own_crossings(addon, kitbash):
    prop, crate = kitbash
    assert bpy.ops.collision_inspector.self_check() == {'FINISHED'}
    checks = {item.name: item for item in bpy.context.scene.collision_inspector.self_checks}
    assert set(checks) == {"Prop", "Crate"}
    # the core's answer on the same triangles (the faces split as Blender draws them)
    mesh = prop.data
    mesh.calc_loop_triangles()
    triangles = np.array([tuple(t.vertices) for t in mesh.loop_triangles])
    vertices = np.array([v.co[:] for v in mesh.vertices])
    expected = _core(addon, "self_intersection").self_intersection(
        _core(addon, "trimesh").TriangleMesh.from_arrays(vertices, triangles))
    assert checks["Prop"].face_pairs == expected.count > 0
    assert checks["Prop"].curves == 1 and checks["Prop"].closed
    assert checks["Prop"].covered_twice_measured
    assert checks["Prop"].covered_twice_volume == pytest.approx(0.5 * 0.6 * 0.6, rel=1e-6)
    assert checks["Crate"].face_pairs == 0 and checks["Crate"].covered_twice_volume == 0.0
    panel = importlib.import_module(f"{addon.__name__}.ui.panel")
    assert panel.self_check_line(checks["Crate"], bpy.context.scene) == "Crate: no self-intersections"
    assert panel.self_check_line(checks["Prop"], bpy.context.scene).startswith(f"Prop: {expected.count} face pairs, 1 curve")


def test_overlay_draws_the_crossing_curve_where_the_part_pokes_out(addon, kitbash):
    bpy.ops.collision_inspector.self_check()
    overlay = importlib.import_module(f"{addon.__name__}.ui.self_check_overlay")
    lines = overlay.line_coords(bpy.context.scene)
    assert len(lines) > 0 and len(lines) % 2 == 0
    np.testing.assert_allclose(lines[:, 0], 1.0, atol=1e-6)  # the rectangle on the first box's face x = 1
    length = np.linalg.norm(lines[1::2] - lines[::2], axis=1).sum()
    assert length == pytest.approx(2 * (0.6 + 0.6), rel=1e-5)
    bpy.context.scene.collision_inspector.show_curves = False
    assert len(overlay.line_coords(bpy.context.scene)) == 0


def test_nothing_is_selected_unless_asked(kitbash):
    prop, _crate = kitbash
    before = [p.select for p in prop.data.polygons]
    bpy.ops.collision_inspector.self_check()
    assert [p.select for p in prop.data.polygons] == before


def test_select_faces_selects_exactly_the_crossing_faces(kitbash):
    prop, crate = kitbash
    assert bpy.ops.collision_inspector.self_check(select_faces=True) == {'FINISHED'}
    selected = {p.index for p in prop.data.polygons if p.select}
    centres = {p.index: tuple(round(float(c), 6) for c in p.center) for p in prop.data.polygons}
    # the first box's face x = 1 and the second box's four sides running through it
    assert {centres[k] for k in selected} == {(1.0, 0.5, 0.5), (1.0, 0.5, 0.2), (1.0, 0.5, 0.8), (1.0, 0.2, 0.5),
                                              (1.0, 0.8, 0.5)}
    assert not any(p.select for p in crate.data.polygons)


def test_poll_explains_what_to_select(empty_scene):
    select_only()
    assert not bpy.ops.collision_inspector.self_check.poll()


@pytest.fixture
def cli(addon):
    return importlib.import_module(addon.__name__ + ".cli")


def test_command_line_checks_each_object_and_writes_reports(kitbash, cli, capsys, tmp_path):
    json_path, csv_path = tmp_path / "self.json", tmp_path / "self.csv"
    assert cli.run(["check", "--self", "--json", str(json_path), "--csv", str(csv_path)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("Prop\tself\tface_pairs=")
    assert "2 objects checked against themselves: 1 intersecting" in out
    document = json.loads(json_path.read_text())
    assert document["check"] == "self" and document["self_intersecting"] == 1
    rows = {row["object"]: row for row in document["results"]}
    assert rows["Prop"]["covered_twice_volume"] == pytest.approx(0.18, rel=1e-6)
    assert rows["Prop"]["curves"] == 1 and len(rows["Prop"]["segments"]) > 0 and rows["Crate"]["face_pairs"] == 0
    with csv_path.open() as stream:
        table = list(csv.DictReader(line for line in stream if not line.startswith("#")))
    by_name = {row["object"]: row for row in table}
    assert int(by_name["Prop"]["face_pairs"]) == rows["Prop"]["face_pairs"] and by_name["Crate"]["closed"] == "true"
    assert cli.run(["check", "--self", "--fail-on", "none"]) == 0


def test_command_line_self_check_of_clean_objects_exits_0(empty_scene, cli, capsys):
    add_cube("Box")
    bpy.context.view_layer.update()
    assert cli.run(["check", "--self"]) == 0
    assert "1 object checked against themselves: 0 intersecting" in capsys.readouterr().out
    assert cli.run(["check", "--self", "--frames", "1-3"]) == 2


def test_clear_removes_the_self_intersections_and_their_curves(addon, kitbash):
    bpy.ops.collision_inspector.self_check()
    assert bpy.ops.collision_inspector.clear.poll()  # no pair results: the self-intersections are enough
    assert bpy.ops.collision_inspector.clear() == {'FINISHED'}
    overlay = importlib.import_module(f"{addon.__name__}.ui.self_check_overlay")
    assert not len(bpy.context.scene.collision_inspector.self_checks)
    assert len(overlay.line_coords(bpy.context.scene)) == 0


def test_split_vertex_parts_are_parts_as_they_look(empty_scene):
    """The kitbash with every face on its own vertices (as a glTF import stores it): faces meeting at split vertices
    do not count, and the space the two boxes share is still measured."""
    joined = add_joined_boxes("Split", [((0, 0, 0), (1, 1, 1)), ((0.5, 0.2, 0.2), (1.5, 0.8, 0.8))])
    mesh = joined.data
    corners = [tuple(mesh.vertices[k].co) for polygon in mesh.polygons for k in polygon.vertices]
    faces = [tuple(range(4 * f, 4 * f + 4)) for f in range(len(mesh.polygons))]
    split = bpy.data.meshes.new("Split faces")
    split.from_pydata(corners, [], faces)
    joined.data = split
    select_only(joined, active=joined)
    bpy.ops.collision_inspector.self_check()
    item = bpy.context.scene.collision_inspector.self_checks[0]
    assert item.face_pairs > 0 and item.curves == 1
    assert item.covered_twice_measured and item.covered_twice_volume == pytest.approx(0.18, rel=1e-6)


def test_a_part_that_is_no_manifold_has_no_covered_twice_volume(empty_scene):
    """Two boxes tied into one part by a two-sided fin along an edge (used by four faces): in front of a face is not
    defined there, so the volume covered twice is not measured."""
    prop = add_joined_boxes("Fused", [((0, 0, 0), (1, 1, 1)), ((0.5, 0.2, 0.2), (1.5, 0.8, 0.8))])
    mesh = prop.data
    # a triangle joining a corner of each box ties them into one part (still crossing)
    fused = bpy.data.meshes.new("Fused one part")
    vertices = [tuple(v.co) for v in mesh.vertices]
    faces = [tuple(p.vertices) for p in mesh.polygons] + [(0, 8, 1), (0, 1, 8)]
    fused.from_pydata(vertices, [], faces)
    prop.data = fused
    select_only(prop, active=prop)
    bpy.ops.collision_inspector.self_check()
    item = bpy.context.scene.collision_inspector.self_checks[0]
    assert item.face_pairs > 0 and not item.covered_twice_measured


def add_fused_boxes() -> bpy.types.Object:
    """Two boxes fused into one closed surface by a tube (one part, passing through itself), sharing the box
    (0.5, 0.2, 0.2)-(1, 0.8, 0.8)."""
    spec = importlib.util.spec_from_file_location("core_generators", Path(__file__).parents[1] / "core" / "generators.py")
    generators = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generators)
    boxes = []
    for low, high in (((0, 0, 0), (1, 1, 1)), ((0.5, 0.2, 0.2), (1.5, 0.8, 0.8))):
        corners = np.array([(x, y, z) for x in (low[0], high[0]) for y in (low[1], high[1]) for z in (low[2], high[2])])
        boxes += [corners, np.array([tri for a, b, c, d in CUBE_FACES for tri in ((a, b, c), (a, c, d))])]
    vertices, triangles = generators.tube_joined(*boxes)
    mesh = bpy.data.meshes.new("Fused")
    mesh.from_pydata(vertices.tolist(), [], triangles.tolist())
    fused = bpy.data.objects.new("Fused", mesh)
    bpy.context.scene.collection.objects.link(fused)
    return fused


def test_a_single_part_crossing_itself_covers_the_space_its_sheets_share_twice(empty_scene):
    """The fused boxes: the 0.5 x 0.6 x 0.6 box the two share is covered twice."""
    fused = add_fused_boxes()
    select_only(fused, active=fused)
    assert bpy.ops.collision_inspector.self_check() == {'FINISHED'}
    item = bpy.context.scene.collision_inspector.self_checks[0]
    assert item.face_pairs > 0 and item.closed
    assert item.covered_twice_measured and item.covered_twice_volume == pytest.approx(0.18, rel=1e-6)  # stored as float32


def test_an_object_crossing_itself_overlaps_a_block_in_its_doubly_covered_space_once(empty_scene):
    """The fused boxes against a block inside the space their sheets share (covered twice, no face near): the
    overlap volume is the block's, exact, not 0 (inside by parity) nor twice it."""
    fused = add_fused_boxes()
    block = add_cube("Block", location=(0.75, 0.5, 0.5), scale=(0.3, 0.4, 0.4))
    bpy.context.view_layer.update()  # objects linked through bpy.data join view_layer.objects on update
    result = only_result(fused, block)
    assert result.status == 'penetrating' and result.volume_certainty == 'exact' and result.volume_error == 0.0
    assert result.overlap_volume == pytest.approx(0.3 * 0.4 * 0.4, rel=1e-6)  # Blender keeps float32 vertices


@pytest.mark.skipif(not in_real_blender(), reason="the bpy module has no command line (bpy.app.binary_path)")
def test_real_command_line_self_check_on_a_saved_file(kitbash, tmp_path):
    blend, report = tmp_path / "kitbash.blend", tmp_path / "self.json"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    command = [bpy.app.binary_path, "--background"]
    if os.environ.get("PYTHONPATH"):  # dev.py passes Blender a numpy this way (Debian's Blender)
        command.append("--python-use-system-env")
    done = subprocess.run([*command, str(blend), "--command", "collision_inspector", "check", "--self", "--json",
                           str(report)], check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "Prop\tself\tface_pairs=" in done.stdout
    assert json.loads(report.read_text())["self_intersecting"] == 1
