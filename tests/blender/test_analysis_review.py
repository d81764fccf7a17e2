"""Review states: kept while a pair still clashes, 'resolved' once it no longer does, 'new' for new clashes;
saved in the .blend and restored by undo. Also the pure merge rule (``analysis.review``)."""

from __future__ import annotations

import csv
import importlib
import json

import bpy
import pytest

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)


@pytest.fixture
def review(addon):
    return importlib.import_module(addon.__name__ + ".analysis.review")


def states() -> dict:
    return {(r.name_a, r.name_b): (r.status, r.review_state) for r in bpy.context.scene.collision_inspector.results}


def set_state(pair: tuple, state: str) -> None:
    result = next(r for r in bpy.context.scene.collision_inspector.results if (r.name_a, r.name_b) == pair)
    result.review_state = state


def clashing_scene() -> None:
    """A-B and C-D penetrate, E and F are far apart."""
    for name, x in (("A", 0.0), ("B", 0.9), ("C", 5.0), ("D", 5.9), ("E", 10.0), ("F", 12.0)):
        add_cube(name, x)
    select_only()


def test_rerun_keeps_states_resolves_vanished_and_marks_new(empty_scene):
    clashing_scene()
    analyse('ALL')
    assert states() == {("A", "B"): ('penetrating', 'new'), ("C", "D"): ('penetrating', 'new')}
    set_state(("A", "B"), 'approved')
    set_state(("C", "D"), 'ignored')
    bpy.data.objects["D"].location.x = 8.0  # C-D apart
    bpy.data.objects["F"].location.x = 10.5  # E-F now overlap
    analyse('ALL')
    assert states() == {
        ("A", "B"): ('penetrating', 'approved'),
        ("E", "F"): ('penetrating', 'new'),
        ("C", "D"): ('penetrating', 'resolved'),  # kept in the list with its last numbers
    }
    analyse('ALL')
    assert states()[("C", "D")] == ('penetrating', 'resolved')
    bpy.data.objects["D"].location.x = 5.9  # clashes again: a new clash to review
    analyse('ALL')
    assert states()[("C", "D")] == ('penetrating', 'new')
    assert states()[("A", "B")] == ('penetrating', 'approved')


def test_a_selected_pair_that_separates_is_resolved_in_place(empty_scene):
    a, b = add_cube("A", 0.0), add_cube("B", 0.9)
    select_only(a, b)
    analyse()
    set_state(("A", "B"), 'reviewed')
    b.location.x = 3.0
    analyse()
    assert states() == {("A", "B"): ('separated', 'resolved')}


def test_another_scope_does_not_resolve_the_previous_scope_pairs(empty_scene):
    clashing_scene()
    analyse('ALL')
    select_only(bpy.data.objects["E"], bpy.data.objects["F"])
    analyse('SELECTED')
    assert states() == {("E", "F"): ('separated', 'new')}


def test_review_states_are_saved_in_the_blend(empty_scene, tmp_path):
    clashing_scene()
    analyse('ALL')
    set_state(("C", "D"), 'approved')
    path = str(tmp_path / "reviewed.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path, copy=True)
    set_state(("C", "D"), 'ignored')
    bpy.ops.wm.open_mainfile(filepath=path)
    assert states() == {("A", "B"): ('penetrating', 'new'), ("C", "D"): ('penetrating', 'approved')}


def test_undo_restores_review_states_and_results(empty_scene):
    clashing_scene()
    analyse('ALL')
    set_state(("A", "B"), 'approved')
    bpy.ops.ed.undo_push(message="reviewed")
    bpy.data.objects["B"].location.x = 3.0
    assert bpy.ops.collision_inspector.analyze('EXEC_DEFAULT', True) == {'FINISHED'}
    assert states()[("A", "B")] == ('penetrating', 'resolved')
    bpy.ops.ed.undo()
    assert states() == {("A", "B"): ('penetrating', 'approved'), ("C", "D"): ('penetrating', 'new')}


def test_merge_rule(review):
    previous = [review.Previous(("A", "B"), 'penetrating', 'approved'),
                review.Previous(("A", "C"), 'touching', 'ignored'),
                review.Previous(("B", "C"), 'separated', 'new'),
                review.Previous(("C", "D"), 'clearance', 'resolved')]
    current = [(("A", "B"), 'clearance'), (("A", "C"), 'separated'), (("B", "C"), 'penetrating'),
               (("C", "D"), 'penetrating'), (("D", "E"), 'touching')]
    assert review.review_states(previous, current) == (['approved', 'resolved', 'new', 'new', 'new'], [])
    assert review.review_states(previous, []) == (
        [], [0, 1, 3],  # clashes and already-resolved pairs stay listed; a separated pair does not
    )


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_exported_report_carries_the_review_states(empty_scene, tmp_path, suffix):
    clashing_scene()
    analyse('ALL', clearance=0.5)  # A-B and C-D penetrate; E-F are 1.0 apart
    set_state(("A", "B"), 'approved')
    bpy.data.objects["D"].location.x = 8.0
    analyse('ALL', clearance=0.5)  # C-D vanished: resolved
    path = tmp_path / f"report{suffix}"
    assert bpy.ops.collision_inspector.export_report(filepath=str(path)) == {'FINISHED'}
    if suffix == ".json":
        document = json.loads(path.read_text())
        rows = {(r["object_a"], r["object_b"]): (r["status"], r["review_state"]) for r in document["results"]}
        assert document["clearance"] == pytest.approx(0.5)
        assert document["scope"] == 'ALL'
        resolved, penetrating = document["resolved"], document["counts"]["penetrating"]
    else:
        text = path.read_text().splitlines()
        comments = dict(line[2:].split(": ", 1) for line in text if line.startswith("# "))
        lines = [line for line in text if not line.startswith("#")]
        rows = {(r["object_a"], r["object_b"]): (r["status"], r["review_state"]) for r in csv.DictReader(lines)}
        resolved, penetrating = int(comments["resolved"]), int(comments["count_penetrating"])
    # C-D no longer clashes: it is counted as resolved, not listed or counted as penetrating.
    assert rows == {("A", "B"): ('penetrating', 'approved')}
    assert (resolved, penetrating) == (1, 1)


def test_export_refuses_other_extensions_and_empty_results(empty_scene, tmp_path):
    assert not bpy.ops.collision_inspector.export_report.poll()
    clashing_scene()
    analyse('ALL')
    with pytest.raises(RuntimeError, match="Name the report .json or .csv"):
        bpy.ops.collision_inspector.export_report(filepath=str(tmp_path / "report.txt"))


def test_the_command_reports_the_review_states_stored_in_the_file(empty_scene, addon, tmp_path):
    cli = importlib.import_module(addon.__name__ + ".cli")
    clashing_scene()
    analyse('ALL')
    set_state(("C", "D"), 'ignored')
    bpy.data.objects["F"].location.x = 10.5  # E-F clash after the review: new
    path = tmp_path / "report.json"
    assert cli.run(["check", "--json", str(path), "--fail-on", "none"]) == 0
    rows = {(r["object_a"], r["object_b"]): r["review_state"] for r in json.loads(path.read_text())["results"]}
    assert rows == {("A", "B"): 'new', ("C", "D"): 'ignored', ("E", "F"): 'new'}
