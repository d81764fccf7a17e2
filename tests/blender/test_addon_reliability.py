"""Real-file situations: renamed and deleted objects, objects that move after an analysis, scene switches,
Blender-relative report paths, the command on files Blender did not open, lengths with units, and the
operators' edge cases (negative index, a second analysis while one runs, empty outcomes, tooltips)."""

from __future__ import annotations

import importlib
import json
import os
from types import SimpleNamespace

import bpy
import pytest

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)
from test_ui_panel_units import RecordingLayout, draw, set_units
from test_operators_progress import modal_operator


@pytest.fixture
def cli(addon):
    return importlib.import_module(addon.__name__ + ".cli")


@pytest.fixture
def analyse_module(addon):
    return importlib.import_module(addon.__name__ + ".operators.analyse")


@pytest.fixture
def panel(addon):
    return importlib.import_module(addon.__name__ + ".ui.panel")


def states() -> dict:
    return {(r.name_a, r.name_b): (r.status, r.review_state) for r in bpy.context.scene.collision_inspector.results}


def two_clashing_pairs() -> None:
    """B penetrates C by 0.1; D penetrates E by 0.1."""
    for name, x in (("B", 0.0), ("C", 0.9), ("D", 5.0), ("E", 5.9)):
        add_cube(name, x)
    select_only()


# --- renamed objects ----------------------------------------------------------------------------------


def test_a_rename_that_reorders_the_pair_keeps_its_review_state(empty_scene):
    two_clashing_pairs()
    analyse('ALL')
    empty_scene.collision_inspector.results[0].review_state = 'approved'  # B-C
    bpy.data.objects["B"].name = "Z"  # now sorts after C: the pair is (C, Z)
    analyse('ALL')
    assert states() == {("C", "Z"): ('penetrating', 'approved'), ("D", "E"): ('penetrating', 'new')}


def test_the_export_after_a_rename_writes_the_current_names(empty_scene, tmp_path):
    two_clashing_pairs()
    analyse('ALL')
    bpy.data.objects["D"].name = "Door"
    path = tmp_path / "report.json"
    assert bpy.ops.collision_inspector.export_report(filepath=str(path)) == {'FINISHED'}
    pairs = [(r["object_a"], r["object_b"]) for r in json.loads(path.read_text())["results"]]
    assert pairs == [("B", "C"), ("Door", "E")]


# --- deleted objects ----------------------------------------------------------------------------------


def test_deleted_objects_are_not_kept_alive_by_the_results(empty_scene):
    two_clashing_pairs()
    analyse('ALL')
    select_only(bpy.data.objects["C"])
    assert bpy.ops.object.delete() == {'FINISHED'}
    bpy.context.view_layer.update()
    assert "C" not in bpy.data.objects  # before: kept with one user, saved with the file
    assert add_cube("C", 20.0).name == "C"  # the name is free again (not "C.001")
    result = empty_scene.collision_inspector.results[0]
    assert (result.object_a.name, result.object_b, result.name_b) == ("B", None, "C")  # the name is kept
    assert states()[("B", "C")] == ('penetrating', 'new')


def test_objects_used_elsewhere_are_not_removed(empty_scene):
    two_clashing_pairs()
    analyse('ALL')
    cube_c = bpy.data.objects["C"]
    cube_c.use_fake_user = True
    empty_scene.collection.objects.unlink(cube_c)
    bpy.context.view_layer.update()
    assert bpy.data.objects.get("C") == cube_c


# --- objects that move after the analysis -------------------------------------------------------------


def stale_pairs(settings) -> set:
    return {(r.name_a, r.name_b) for r in settings.results if r.stale}


def test_moving_an_object_marks_its_results_stale_until_the_next_analysis(empty_scene, panel):
    two_clashing_pairs()
    analyse('ALL')
    settings = empty_scene.collision_inspector
    select_only(bpy.data.objects["D"])  # selecting is no change
    bpy.context.view_layer.update()
    assert stale_pairs(settings) == set()
    assert not any("Stale" in text for text, _icon in draw(panel.COLLISION_INSPECTOR_PT_results).entries("label"))
    bpy.data.objects["E"].location.x = 5.8
    bpy.context.view_layer.update()
    assert stale_pairs(settings) == {("D", "E")}
    assert ("Objects changed: re-analyse", 'TIME') in draw(
        panel.COLLISION_INSPECTOR_PT_results).entries("label")
    bpy.data.objects["B"].scale.x = 0.5  # geometry in world space changes too
    bpy.context.view_layer.update()
    assert stale_pairs(settings) == {("B", "C"), ("D", "E")}
    analyse('ALL')
    assert stale_pairs(settings) == set()


def test_undoing_a_move_gives_back_results_that_are_not_stale(empty_scene):
    two_clashing_pairs()
    analyse('ALL')
    bpy.ops.ed.undo_push(message="analysed")
    bpy.data.objects["E"].location.x = 5.8
    bpy.ops.ed.undo_push(message="moved")
    bpy.context.view_layer.update()
    assert stale_pairs(empty_scene.collision_inspector) == {("D", "E")}
    bpy.ops.ed.undo()
    bpy.context.view_layer.update()
    assert bpy.data.objects["E"].location.x == pytest.approx(5.9)
    assert stale_pairs(bpy.context.scene.collision_inspector) == set()


def test_results_loaded_from_a_file_are_not_stale(empty_scene, tmp_path):
    two_clashing_pairs()
    analyse('ALL')
    path = str(tmp_path / "analysed.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
    bpy.ops.wm.open_mainfile(filepath=path)
    bpy.context.view_layer.update()
    assert stale_pairs(bpy.context.scene.collision_inspector) == set()


# --- the operators ------------------------------------------------------------------------------------


@pytest.mark.parametrize("scope, count", [('ALL', 4), ('SELECTED', 6)])
def test_results_go_to_the_scene_the_analysis_started_in(empty_scene, analyse_module, scope, count):
    two_clashing_pairs()
    bpy.ops.mesh.primitive_torus_add(location=(5.0, 0.0, 0.0))  # measured as its hull: a convexity note
    bpy.context.active_object.name = "Ring"
    select_only(*[bpy.data.objects[name] for name in ("B", "C", "D", "Ring")])
    empty_scene.collision_inspector.scope = scope
    empty_scene.collision_inspector.use_hulls = True
    other = bpy.data.scenes.new("Other")
    operator = modal_operator(analyse_module)
    assert operator.start(bpy.context)
    with bpy.context.temp_override(scene=other):  # the user switched scenes while it ran
        assert bpy.context.scene == other
        outcome = None
        while outcome is None:
            outcome = operator.step(bpy.context, 0.05)
    assert outcome == {'FINISHED'}
    results = empty_scene.collision_inspector.results
    assert len(results) == count
    assert all("Ring is not convex" in r.hull_note for r in results if "Ring" in r.label)
    assert len(other.collision_inspector.results) == 0


def test_a_second_analysis_is_refused_while_one_runs(empty_scene, analyse_module, addon, monkeypatch):
    """While a modal analysis runs (invoke keeps the running operator, a real one), Analyse and Scan Animation are
    greyed out and refuse to start (both replace the results); once it ends, they are available again."""
    base = importlib.import_module(addon.__name__ + ".operators.base")
    two_clashing_pairs()
    empty_scene.collision_inspector.scope = 'ALL'
    assert bpy.ops.collision_inspector.analyze.poll() and bpy.ops.collision_inspector.scan.poll()
    operator_class = analyse_module.COLLISION_INSPECTOR_OT_analyze
    original_start = operator_class.start
    refusals = []

    def start_as_invoke_does(self, context):
        base.mark_running(self)  # what invoke() does when the analysis runs modally
        refusals.append((bpy.ops.collision_inspector.analyze.poll(), bpy.ops.collision_inspector.scan.poll()))
        with pytest.raises(RuntimeError, match="Analyse is already running"):
            bpy.ops.collision_inspector.analyze()
        with pytest.raises(RuntimeError, match="Analyse is already running"):
            bpy.ops.collision_inspector.scan()
        return original_start(self, context)

    monkeypatch.setattr(operator_class, "start", start_as_invoke_does)
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    assert refusals == [(False, False)]
    assert not base.analysis_running()
    monkeypatch.undo()
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}


def test_analysing_and_resolving_are_refused_while_a_scan_runs(empty_scene, addon, monkeypatch):
    """The other way round: a modal animation scan greys out Analyse, a second scan, Resolve and Resolve All (they
    change the results it is about to replace) until it ends."""
    base = importlib.import_module(addon.__name__ + ".operators.base")
    scan = importlib.import_module(addon.__name__ + ".operators.scan")
    two_clashing_pairs()
    empty_scene.collision_inspector.scope = 'ALL'
    empty_scene.frame_start, empty_scene.frame_end = 1, 2
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    operator_class = scan.COLLISION_INSPECTOR_OT_scan
    original_start = operator_class.start
    refusals = []
    operators = bpy.ops.collision_inspector

    def start_as_invoke_does(self, context):
        base.mark_running(self)
        refusals.append([operator.poll() for operator in (operators.analyze, operators.scan, operators.resolve,
                                                          operators.resolve_all)])
        for operator in (operators.analyze, operators.resolve):
            with pytest.raises(RuntimeError, match="Scan Animation is already running"):
                operator()
        return original_start(self, context)

    monkeypatch.setattr(operator_class, "start", start_as_invoke_does)
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    assert refusals == [[False, False, False, False]]
    assert not base.analysis_running()
    assert operators.analyze.poll() and operators.resolve.poll()


def test_a_check_with_no_clash_says_so(empty_scene, analyse_module):
    for name, x in (("A", 0.0), ("B", 5.0), ("C", 10.0)):
        add_cube(name, x)
    select_only()
    lines = []
    empty_scene.collision_inspector.scope = 'ALL'
    operator = modal_operator(analyse_module)
    operator.report = lambda kinds, text: lines.append(text)
    assert operator.start(bpy.context)
    assert operator.step(bpy.context, 10.0) == {'FINISHED'}
    assert lines == ["Analysed 0 pairs: no two objects are close enough to clash"]


def test_show_result_refuses_a_negative_index(empty_scene):
    two_clashing_pairs()
    analyse('ALL')
    with pytest.raises(RuntimeError, match="No result -1"):
        bpy.ops.collision_inspector.show_result(index=-1)


def test_the_exported_report_has_the_analysis_counts_and_duration(empty_scene, tmp_path):
    two_clashing_pairs()
    add_cube("F", 40.0)
    analyse('ALL')
    path = tmp_path / "report.json"
    assert bpy.ops.collision_inspector.export_report(filepath=str(path)) == {'FINISHED'}
    document = json.loads(path.read_text())
    assert (document["objects"], document["possible_pairs"], document["candidate_pairs"]) == (5, 10, 2)
    assert document["seconds"] > 0.0


def test_a_blender_relative_report_path_is_written_next_to_the_blend_file(empty_scene, tmp_path):
    two_clashing_pairs()
    analyse('ALL')
    folder = tmp_path / "project"
    folder.mkdir()
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / "scene.blend"))
    assert bpy.ops.collision_inspector.export_report(filepath="//r.json") == {'FINISHED'}
    assert len(json.loads((folder / "r.json").read_text())["results"]) == 2


def test_the_rows_tooltip_names_the_pair_and_its_value_in_full(empty_scene, addon, panel):
    browse = importlib.import_module(addon.__name__ + ".operators.browse")
    add_cube("Left bracket of the main assembly", 0.0)
    add_cube("Right bracket of the main assembly", 0.9)
    select_only(*bpy.data.objects)
    analyse()
    set_units(empty_scene, 'METRIC', 'MILLIMETERS')
    pair = "Left bracket of the main assembly \u2194 Right bracket of the main assembly"
    description = browse.COLLISION_INSPECTOR_OT_show_result.description(bpy.context, SimpleNamespace(index=0))
    assert description.startswith(f"{pair}: penetrating, depth 100 mm")
    layout = RecordingLayout()
    panel.COLLISION_INSPECTOR_UL_results.draw_item(None, bpy.context, layout, empty_scene.collision_inspector,
                                                   empty_scene.collision_inspector.results[0], 0, None, "", 0)
    assert layout.entries("label") == [(pair, 'ERROR'), ("", 'BLANK1'), ("depth 100 mm", 'NONE')]  # two lines
    labels = [text for text, _icon in draw(panel.COLLISION_INSPECTOR_PT_results).entries("label")]
    assert "A: Left bracket of the main assembly" in labels  # the details name both objects in full


# --- lengths ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, expected", [(1.23456, "1235 mm"), (12.3456, "12346 mm"), (0.99996, "1000 mm")])
def test_lengths_of_1000_and_more_have_no_float_noise(addon, empty_scene, value, expected):
    units = importlib.import_module(addon.__name__ + ".ui.units")
    set_units(empty_scene, 'METRIC', 'MILLIMETERS')
    assert units.format_length(value, empty_scene) == expected


# --- the command --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MISSING.BLEND", "x.blend1", "folder", "model.obj"])
def test_any_named_file_blender_did_not_open_exits_2(empty_scene, cli, capsys, monkeypatch, tmp_path, name):
    two_clashing_pairs()
    (tmp_path / "folder").mkdir()
    named = str(tmp_path / name)
    monkeypatch.setattr("sys.argv", ["blender", "--background", named, "--command", "collision_inspector", "check"])
    assert cli.run(["check"]) == 2
    assert named in capsys.readouterr().err


def test_option_values_are_not_taken_for_files(empty_scene, cli, tmp_path):
    argv = ["blender", "--background", "--python-use-system-env", "--log-level", "0", "--python-expr", "x=1",
            str(tmp_path / "a.blend"), "--command", "collision_inspector", "check"]
    assert cli.named_files(argv) == [str(tmp_path / "a.blend")]
    assert cli.named_files(["blender", "-b", "--command", "collision_inspector", "check"]) == []


@pytest.mark.parametrize("text, scale_length, expected", [
    ("5mm", 1.0, 0.005), ("5 mm", 1.0, 0.005), ("0.5in", 1.0, 0.0127), ("2cm", 0.01, 2.0), ("0.25", 1.0, 0.25),
])
def test_lengths_on_the_command_line_may_have_units(empty_scene, cli, text, scale_length, expected):
    empty_scene.unit_settings.scale_length = scale_length
    assert cli.parse_length(text, empty_scene) == pytest.approx(expected, rel=1e-9)


def test_clearance_with_a_unit_is_used_by_the_check(empty_scene, cli, tmp_path):
    add_cube("A", 0.0)
    add_cube("B", 1.004)  # 4 mm apart
    path = tmp_path / "report.json"
    assert cli.run(["check", "--clearance", "5mm", "--json", str(path), "--fail-on", "clearance"]) == 1
    document = json.loads(path.read_text())
    assert document["clearance"] == pytest.approx(0.005)
    assert [r["status"] for r in document["results"]] == ["clearance"]
    assert cli.run(["check", "--clearance", "wide"]) == 2
    assert not os.path.exists(tmp_path / "wide")


# --- storing ------------------------------------------------------------------------------------------


def result_values(result) -> dict:
    return {"objects": (result.object_a, result.object_b), "names": (result.name_a, result.name_b),
            "status": result.status, "signed_distance": result.signed_distance, "depth": result.depth,
            "normal": tuple(result.normal), "point_a": tuple(result.point_a), "point_b": tuple(result.point_b),
            "solver_status": result.solver_status, "hull_note": result.hull_note}


def test_a_vanished_clash_keeps_its_objects_names_and_numbers(empty_scene):
    two_clashing_pairs()
    bpy.data.objects["E"].rotation_euler.z = 0.3  # a contact off the axes: every number matters
    analyse('ALL')
    before = [result_values(r) for r in empty_scene.collision_inspector.results]
    bpy.data.objects["E"].location.x = 9.0
    analyse('ALL')  # the same scope again: D-E vanished, kept as resolved with its last numbers
    results = empty_scene.collision_inspector.results
    assert [(r.review_state, r.stale) for r in results] == [('new', False), ('resolved', False)]
    assert [result_values(r) for r in results] == before
