"""The headless command ``collision_inspector check``: exit codes, help, bad arguments, report files.

``cli.run(argv)`` is what ``blender --command collision_inspector ...`` calls, so most tests call it
directly (every host). In real Blender the last test also runs the real command line on a saved file.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import re
import subprocess

import bpy
import pytest
from conftest import in_real_blender
from test_analysis_clash import add_cube


@pytest.fixture
def cli(addon):
    return importlib.import_module(addon.__name__ + ".cli")


@pytest.fixture
def clashing_scene(empty_scene):
    """Pipes and Walls collections: Pipe 1 penetrates Wall by 0.1, Pipe 2 is 0.25 from it; Lamp touches it."""
    walls, pipes = bpy.data.collections.new("Walls"), bpy.data.collections.new("Pipes")
    empty_scene.collection.children.link(walls)
    empty_scene.collection.children.link(pipes)
    add_cube("Wall", collection=walls)
    add_cube("Pipe 1", location=(0.9, 0.0, 0.0), collection=pipes)
    add_cube("Pipe 2", location=(0.0, 0.0, 1.25), collection=pipes, scale=(0.5, 0.5, 1.0))
    add_cube("Lamp", location=(0.0, -1.0, 0.0))
    bpy.context.view_layer.update()
    return empty_scene


def test_help_exits_0_and_describes_the_check(cli, capsys):
    assert cli.run(["--help"]) == 0
    assert "check" in capsys.readouterr().out
    assert cli.run(["check", "--help"]) == 0
    text = capsys.readouterr().out
    for option in ("--scope", "--a", "--b", "--clearance", "--touch-tolerance", "--json", "--csv", "--fail-on"):
        assert option in text


@pytest.mark.parametrize("argv, complaint", [
    ([], "required"),
    (["verify"], "invalid choice"),
    (["check", "--scope", "everything"], "invalid choice"),
    (["check", "--clearance", "wide"], "not a number"),
    (["check", "--clearance", "-1"], ">= 0"),
    (["check", "--touch-tolerance", "nan"], ">= 0"),
    (["check", "--fail-on", "touching"], "invalid choice"),
    (["check", "--colour", "red"], "unrecognized"),
    (["check", "--scope", "collections"], "--a"),
    (["check", "--scope", "all", "--a", "Walls"], "--a and --b"),
])
def test_bad_arguments_exit_2_with_a_message(clashing_scene, cli, capsys, argv, complaint):
    assert cli.run(argv) == 2
    assert complaint in capsys.readouterr().err


def test_unknown_collection_exits_2_naming_it(clashing_scene, cli, capsys):
    assert cli.run(["check", "--a", "Pipes", "--b", "Ducts"]) == 2
    error = capsys.readouterr().err
    assert "'Ducts'" in error and "Walls" in error


def test_unwritable_report_exits_2(clashing_scene, cli, capsys, tmp_path):
    assert cli.run(["check", "--json", str(tmp_path / "missing" / "report.json")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_a_blend_file_blender_could_not_open_exits_2(clashing_scene, cli, capsys, monkeypatch, tmp_path):
    missing = str(tmp_path / "missing.blend")
    command_line = ["blender", "--background", missing, "--command", "collision_inspector", "check"]
    monkeypatch.setattr("sys.argv", command_line)
    assert cli.run(["check"]) == 2
    assert missing in capsys.readouterr().err


@pytest.fixture
def no_open_file() -> None:
    """No .blend file open, as after "blender --background --command ..." (earlier tests may have opened one)."""
    if bpy.data.filepath:
        bpy.ops.wm.read_homefile(use_empty=True)


def test_no_blend_file_named_exits_2_rather_than_checking_the_startup_scene(no_open_file, clashing_scene, cli, capsys,
                                                                             monkeypatch):
    assert not bpy.data.filepath  # the startup scene
    monkeypatch.setattr("sys.argv", ["blender", "--background", "--command", "collision_inspector", "check"])
    assert cli.run(["check"]) == 2
    error = capsys.readouterr().err
    assert "no .blend file" in error and "FILE.blend" in error
    assert cli.run(["check", "--help"]) == 0  # the help needs no file


@pytest.mark.parametrize("argv, code", [
    (["check"], 1),                                                  # Pipe 1 penetrates Wall
    (["check", "--fail-on", "none"], 0),
    (["check", "--a", "Walls", "--b", "Walls"], 0),                   # Wall alone: no pair
    (["check", "--a", "Pipes", "--b", "Walls"], 1),
    (["check", "--a", "Pipes"], 0),                                  # the pipes are apart
    (["check", "--a", "Walls", "--b", "Lamp"], 2),                    # Lamp is an object, not a collection
])
def test_exit_codes_follow_the_failing_kind(clashing_scene, cli, argv, code):
    assert cli.run(argv) == code


def test_touching_and_clearance_fail_only_with_fail_on_clearance(clashing_scene, cli, capsys):
    bpy.data.objects.remove(bpy.data.objects["Pipe 1"])
    assert cli.run(["check"]) == 0                                   # Lamp touches Wall
    assert cli.run(["check", "--fail-on", "clearance"]) == 1
    pipes_vs_walls = ["check", "--a", "Pipes", "--b", "Walls", "--fail-on", "clearance"]
    assert cli.run(pipes_vs_walls) == 0                              # Pipe 2 is 0.25 away
    assert cli.run([*pipes_vs_walls, "--clearance", "0.3"]) == 1
    out = capsys.readouterr()
    assert "Pipe 2\tWall\tclearance\t0.25" in out.out
    assert "1/" in out.err  # progress lines


def progress_lines(err: str) -> dict[str, list[tuple[int, int]]]:
    """The ``collision_inspector: DONE/TOTAL WHAT`` lines of stderr, ``(done, total)`` by what they count."""
    lines: dict[str, list[tuple[int, int]]] = {}
    for line in err.splitlines():
        match = re.fullmatch(r"collision_inspector: (\d+)/(\d+) (.+)", line)
        if match:
            lines.setdefault(match[3], []).append((int(match[1]), int(match[2])))
    return lines


def test_progress_counts_objects_then_pairs_each_to_a_fixed_total(clashing_scene, cli, capsys):
    assert cli.run(["check"]) == 1
    phases = progress_lines(capsys.readouterr().err)
    assert list(phases) == ["objects read", "candidate pairs measured"]
    objects, pairs = phases["objects read"], phases["candidate pairs measured"]
    assert {total for _done, total in objects} == {4}
    assert objects[-1] == (4, 4)
    assert len({total for _done, total in pairs}) == 1 and pairs[-1][0] == pairs[-1][1] >= 1


def test_summary_counts_in_words_that_agree_with_their_numbers(clashing_scene, cli, capsys):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj.name in {"Pipe 1", "Wall"})
    assert cli.run(["check", "--scope", "selected"]) == 1
    out = capsys.readouterr().out
    assert "2 objects, 1 candidate pair of 1:" in out


def test_selected_scope_reads_the_saved_selection(clashing_scene, cli):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj.name in {"Pipe 2", "Wall"})
    assert cli.run(["check", "--scope", "selected"]) == 0
    assert cli.run(["check", "--scope", "selected", "--clearance", "0.3", "--fail-on", "clearance"]) == 1


def test_active_scope_checks_the_saved_active_object(clashing_scene, cli, capsys):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = bpy.data.objects["Wall"]
    assert cli.run(["check", "--scope", "active", "--fail-on", "clearance"]) == 1
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines() if "\t" in line]
    assert [(a, b) for a, b, *_rest in lines] == [("Wall", "Lamp"), ("Wall", "Pipe 1")]


def test_an_object_without_vertices_is_skipped_with_a_note(clashing_scene, cli, capsys):
    clashing_scene.collection.objects.link(bpy.data.objects.new("Hollow", bpy.data.meshes.new("Hollow")))
    assert cli.run(["check"]) == 1  # the scene's clash, measured all the same
    assert "skipped Hollow: has no mesh vertices" in capsys.readouterr().err


def test_json_and_csv_reports_hold_the_check(clashing_scene, cli, tmp_path):
    json_path, csv_path = tmp_path / "clashes.json", tmp_path / "clashes.csv"
    code = cli.run(["check", "--clearance", "0.3", "--touch-tolerance", "1e-4",
                    "--json", str(json_path), "--csv", str(csv_path)])
    assert code == 1

    document = json.loads(json_path.read_text())
    assert (document["scope"], document["clearance"], document["touch_tolerance"]) == ("ALL", 0.3, 1e-4)
    assert document["blend_file"] == bpy.data.filepath
    assert document["tolerance"] == pytest.approx(bpy.context.scene.collision_inspector.tolerance)
    assert document["blender_version"] == bpy.app.version_string
    assert document["extension_version"].count(".") == 2
    assert document["time"].endswith("+00:00")
    assert document["objects"] == 4 and document["possible_pairs"] == 6
    expected = [("Lamp", "Pipe 1", "touching"), ("Lamp", "Wall", "touching"),
                ("Pipe 1", "Pipe 2", "clearance"), ("Pipe 1", "Wall", "penetrating"),
                ("Pipe 2", "Wall", "clearance")]
    got = [(r["object_a"], r["object_b"], r["status"]) for r in document["results"]]
    assert got == expected
    assert document["counts"]["penetrating"] == 1 and document["counts"]["clearance"] == 2
    penetrating = document["results"][3]
    assert penetrating["signed_distance"] == pytest.approx(-0.1, abs=1e-6)
    assert penetrating["normal"] == pytest.approx([-1.0, 0.0, 0.0], abs=1e-6)  # Pipe 1 (A) toward Wall
    assert [a - b for a, b in zip(penetrating["point_a"], penetrating["point_b"])] == pytest.approx(
        [-penetrating["signed_distance"] * n for n in penetrating["normal"]], abs=1e-9)
    assert {r["review_state"] for r in document["results"]} == {"new"}

    lines = csv_path.read_text().splitlines()
    comments = dict(line[2:].split(": ", 1) for line in lines if line.startswith("# "))
    assert comments["clearance"] == "0.3" and comments["extension_version"] == document["extension_version"]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    assert [(row["object_a"], row["object_b"], row["status"]) for row in rows] == expected
    for row, written in zip(rows, document["results"]):
        assert float(row["signed_distance"]) == written["signed_distance"]
        assert [float(row[f"normal_{axis}"]) for axis in "xyz"] == written["normal"]
        assert [float(row[f"point_b_{axis}"]) for axis in "xyz"] == written["point_b"]


@pytest.mark.skipif(not in_real_blender(), reason="the bpy module has no command line (bpy.app.binary_path)")
def test_real_command_line_on_a_saved_file(clashing_scene, tmp_path):
    blend = tmp_path / "scene.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    command = [bpy.app.binary_path, "--background"]
    if os.environ.get("PYTHONPATH"):  # dev.py passes Blender a numpy this way (Debian's Blender)
        command.append("--python-use-system-env")

    def blender(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([*command, *argv], check=False, capture_output=True, text=True, timeout=300)

    report = tmp_path / "report.json"
    failing = blender(str(blend), "--command", "collision_inspector", "check", "--json", str(report))
    assert failing.returncode == 1, failing.stderr
    assert json.loads(report.read_text())["blend_file"] == str(blend)
    clean = blender(str(blend), "--command", "collision_inspector", "check", "--a", "Pipes")
    assert clean.returncode == 0, clean.stderr
    unknown = blender(str(blend), "--command", "collision_inspector", "check", "--a", "Ducts")
    assert unknown.returncode == 2 and "Ducts" in unknown.stderr
    missing = blender(str(tmp_path / "missing.blend"), "--command", "collision_inspector", "check")
    assert missing.returncode == 2 and "missing.blend" in missing.stderr
    for unopened in ("MISSING.BLEND", "scene.blend1", ""):  # "": the folder itself
        named = str(tmp_path / unopened)
        result = blender(named, "--command", "collision_inspector", "check", "--clearance", "5mm")
        assert result.returncode == 2 and named in result.stderr, (unopened, result.stderr)
    assert blender("--command", "collision_inspector", "check", "--help").returncode == 0
    startup = blender("--command", "collision_inspector", "check")
    assert startup.returncode == 2 and "no .blend file" in startup.stderr, startup.stderr


def test_reports_give_the_thresholds_as_typed_not_as_single_precision_floats(clashing_scene, cli, tmp_path):
    settings = clashing_scene.collision_inspector
    settings.touch_tolerance, settings.tolerance, settings.clearance = 1e-5, 1e-9, 0.005
    assert settings.touch_tolerance != 1e-5  # a FloatProperty holds single precision
    assert cli.run(["check", "--json", str(tmp_path / "cli.json")]) == 1
    document = json.loads((tmp_path / "cli.json").read_text())
    assert (document["touch_tolerance"], document["tolerance"]) == (1e-5, 1e-9)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(True)
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    assert bpy.ops.collision_inspector.export_report(filepath=str(tmp_path / "panel.json")) == {'FINISHED'}
    document = json.loads((tmp_path / "panel.json").read_text())
    assert (document["touch_tolerance"], document["tolerance"], document["clearance"]) == (1e-5, 1e-9, 0.005)
