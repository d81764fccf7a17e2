"""Directional Depth and Copy Pair for Report from the interface: a big object's reading and hull on a worker
thread while the modal operator goes on ticking (Esc cancels, leaving the result and the files as they were), the
same numbers and the same document as the run at once, and one long run at a time. Small objects are sent to the
worker here by lowering its threshold."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import bpy
import pytest
from conftest import stand_in_operator

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)
from test_operators_long_work import TICKS_WHILE_WAITING, gate, ticks, until_done


@pytest.fixture
def modules(addon_module):
    return SimpleNamespace(background=addon_module("analysis.background"), inspect=addon_module("analysis.inspect"),
                           operators=addon_module("operators.inspect"), base=addon_module("operators.base"),
                           replay=addon_module("core.replay"))


@pytest.fixture
def on_worker(modules, monkeypatch):
    """All the work goes to the worker thread; the list holds the thread each object's hull was made on."""
    threads, hull_of = [], modules.inspect.hull_of
    monkeypatch.setattr(modules.background, "BACKGROUND_TRIANGLES", 0)

    def recorded(read, use_hull):
        threads.append(threading.current_thread())
        return hull_of(read, use_hull)

    monkeypatch.setattr(modules.inspect, "hull_of", recorded)
    return threads


@pytest.fixture
def pair(empty_scene):
    """A subdivided Suzanne (not convex) through a turned cube, analysed: one penetrating result."""
    bpy.ops.mesh.primitive_monkey_add(location=(0.0, 0.0, 0.0))
    suzanne = bpy.context.active_object
    suzanne.name = "Suzanne"
    suzanne.modifiers.new("Subdivision", 'SUBSURF').levels = 1
    cube = add_cube("Cube", 0.9)
    cube.rotation_euler = (0.3, 0.2, 0.1)
    select_only(suzanne, cube)
    assert len(analyse()) == 1 and empty_scene.collision_inspector.results[0].status == 'penetrating'
    return empty_scene.collision_inspector.results[0]


def directional_operator(modules, axis: str):
    operator = stand_in_operator(modules.operators.COLLISION_INSPECTOR_OT_directional_depth)
    operator.axis, operator.index = axis, -1
    return operator


def stored(result) -> tuple:
    return result.directional_axis, result.directional_distance


def test_the_modal_directional_depth_on_a_worker_stores_what_the_run_at_once_stores(pair, modules, on_worker):
    for axis in ('X', 'NEG_Z', 'NORMAL'):
        operator = directional_operator(modules, axis)
        assert operator.start(bpy.context) and until_done(operator) == {'FINISHED'}
        modal, modal_reports = stored(pair), operator.reports
        assert modal[0] == axis and 0.0 < modal[1] < 10.0
        pair.directional_distance = -1.0
        assert bpy.ops.collision_inspector.directional_depth(axis=axis) == {'FINISHED'}
        assert stored(pair) == modal  # bit for bit
        assert modal_reports == [({'INFO'}, modal_reports[0][1])] and modal_reports[0][1].startswith("Suzanne must ")
    assert len(on_worker) == 12 and threading.main_thread() not in on_worker


def test_esc_while_the_worker_makes_a_hull_leaves_the_result_as_it_was(pair, modules, on_worker, monkeypatch):
    assert bpy.ops.collision_inspector.directional_depth(axis='X') == {'FINISHED'}
    before = stored(pair)
    opened = gate(modules.inspect, "hull_of", monkeypatch)
    operator = directional_operator(modules, 'NEG_Y')
    assert operator.start(bpy.context)
    assert operator.status() == "Directional depth of Cube \u2194 Suzanne"
    assert ticks(operator, TICKS_WHILE_WAITING) == [{'RUNNING_MODAL'}] * TICKS_WHILE_WAITING  # each tick returns
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    opened.set()
    assert stored(pair) == before
    assert operator.reports == [({'WARNING'}, "Directional depth cancelled")]


def test_a_result_cleared_while_the_worker_measures_is_not_written_to(pair, modules, on_worker, monkeypatch):
    opened = gate(modules.inspect, "hull_of", monkeypatch)
    operator = directional_operator(modules, 'X')
    assert operator.start(bpy.context)
    assert ticks(operator, 2) == [{'RUNNING_MODAL'}] * 2
    bpy.context.scene.collision_inspector.results.clear()
    opened.set()
    assert until_done(operator) == {'CANCELLED'}
    assert operator.reports == [({'ERROR'}, "The result Cube \u2194 Suzanne was removed meanwhile")]


def copy_operator(modules, path):
    operator = stand_in_operator(modules.operators.COLLISION_INSPECTOR_OT_copy_pair)
    operator.filepath, operator.index, operator.to_clipboard = str(path), -1, False
    return operator


def test_the_modal_copy_pair_on_a_worker_writes_what_the_run_at_once_writes(pair, modules, on_worker, tmp_path):
    operator = copy_operator(modules, tmp_path / "modal.json")
    assert operator.start(bpy.context) and until_done(operator) == {'FINISHED'}
    assert len(on_worker) == 0  # (Copy Pair reads the vertices as they are: no hull is made)
    assert bpy.ops.collision_inspector.copy_pair(filepath=str(tmp_path / "at_once.json"), to_clipboard=False) \
        == {'FINISHED'}
    modal = (tmp_path / "modal.json").read_text(encoding="utf-8")
    assert modal == (tmp_path / "at_once.json").read_text(encoding="utf-8") == operator._text[0] + "\n"
    document = modules.replay.load_pair(tmp_path / "modal.json")
    assert (document["meta"]["object_a"], document["meta"]["object_b"]) == ("Cube", "Suzanne")
    assert len(document["points_a"]) + len(document["points_b"]) == sum(
        len(obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).data.vertices) for obj in bpy.data.objects)


def test_esc_while_the_worker_makes_the_document_writes_nothing(pair, modules, monkeypatch, tmp_path):
    monkeypatch.setattr(modules.background, "BACKGROUND_TRIANGLES", 0)
    opened = gate(modules.inspect, "pair_document", monkeypatch)
    operator = copy_operator(modules, tmp_path / "pair.json")
    assert operator.start(bpy.context)
    assert ticks(operator, TICKS_WHILE_WAITING) == [{'RUNNING_MODAL'}] * TICKS_WHILE_WAITING
    workers = [thread for thread in threading.enumerate() if thread.name == "collision_inspector work"]
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    assert operator.reports == [({'WARNING'}, "Copy Pair cancelled; nothing was written")]
    opened.set()  # the abandoned worker makes the document, which nothing writes
    for worker in workers:
        worker.join(60.0)
    assert workers and not any(worker.is_alive() for worker in workers)
    assert not (tmp_path / "pair.json").exists()


def test_a_file_that_cannot_be_written_ends_the_modal_copy_with_its_name(pair, modules, on_worker, tmp_path):
    operator = copy_operator(modules, tmp_path / "no such folder" / "pair.json")
    assert operator.start(bpy.context) and until_done(operator) == {'CANCELLED'}
    assert len(operator.reports) == 1 and operator.reports[0][0] == {'ERROR'}
    assert operator.reports[0][1].startswith(f"Could not write {tmp_path / 'no such folder' / 'pair.json'}")


def test_while_one_runs_no_other_long_run_starts(pair, modules):
    operator = directional_operator(modules, 'X')
    assert operator.start(bpy.context)
    modules.base.mark_running(SimpleNamespace(bl_label="Directional Depth", as_pointer=lambda: 1))
    try:
        for name in ("analyze", "self_check", "directional_depth", "copy_pair", "resolve", "clear"):
            assert not getattr(bpy.ops.collision_inspector, name).poll(), name
    finally:
        modules.base.mark_running(None)
        operator.stop(bpy.context)
    assert bpy.ops.collision_inspector.directional_depth.poll() and bpy.ops.collision_inspector.copy_pair.poll()
