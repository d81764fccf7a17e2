"""Long analyses: the check as steps (``clash.start_check``), the operator's slicing (``base.advance``)
and the interface call path, which must run to the end at once in background mode."""

from __future__ import annotations

import importlib
import itertools
from types import SimpleNamespace

import bpy
import pytest
from conftest import stand_in_operator

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)


@pytest.fixture
def clash(addon):
    return importlib.import_module(addon.__name__ + ".analysis.clash")


@pytest.fixture
def analyse_module(addon):
    return importlib.import_module(addon.__name__ + ".operators.analyse")


def row_of_cubes(count: int) -> None:
    """Cubes along x, each overlapping the next by 0.1."""
    for index in range(count):
        add_cube(f"C{index:02d}", 0.9 * index)
    select_only()
    bpy.context.view_layer.update()


def clashes(report) -> list:
    return [(r.object_a, r.object_b, r.status, round(r.signed_distance, 9)) for r in report.results]


def test_stepping_the_check_gives_check_scenes_report(empty_scene, clash):
    row_of_cubes(6)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    report, steps = clash.start_check(empty_scene, depsgraph, scope='ALL')
    progress = list(steps)
    assert progress[:6] == [(done, 6) for done in range(1, 7)]  # one step per object read
    total = 6 + report.candidate_pairs
    assert progress[6:] == [(total, total)]  # the convex pairs in one batch (up to ``clash.BATCH_PAIRS``)
    assert clashes(report) == clashes(clash.check_scene(empty_scene, depsgraph, scope='ALL'))
    assert len(report.results) == 5 and report.seconds > 0.0


def test_closing_the_steps_early_keeps_the_clashes_so_far_sorted(empty_scene, clash, monkeypatch):
    monkeypatch.setattr(clash, "BATCH_PAIRS", 1)  # a step per pair
    row_of_cubes(8)
    report, steps = clash.start_check(empty_scene, bpy.context.evaluated_depsgraph_get(), scope='ALL')
    for _ in itertools.islice(steps, 8 + 3):  # every object read and three pairs measured
        pass
    steps.close()
    assert len(report.results) == 3
    assert [r.object_a for r in report.results] == sorted(r.object_a for r in report.results)
    assert report.seconds > 0.0


@pytest.fixture
def operators_base(addon):
    return importlib.import_module(addon.__name__ + ".operators.base")


def test_advance_runs_for_its_time_slice_then_reports_where_it_is(operators_base):
    steps = iter([(1, 3), (2, 3), (3, 3)])
    assert operators_base.advance(steps, seconds=0.0) == (1, 3)  # at least one step per slice
    assert operators_base.advance(steps, seconds=60.0) is None  # ran out: the check is over
    assert next(steps, None) is None


def test_the_interface_call_runs_to_the_end_in_background_mode(empty_scene):
    assert bpy.app.background
    row_of_cubes(4)
    select_only(*bpy.data.objects)
    assert bpy.ops.collision_inspector.analyze('INVOKE_DEFAULT') == {'FINISHED'}
    results = empty_scene.collision_inspector.results
    assert len(results) == 6  # every pair of the four selected cubes
    assert sum(r.status == 'penetrating' for r in results) == 3


def test_a_broken_object_met_while_stepping_is_skipped_and_the_rest_measured(empty_scene):
    row_of_cubes(3)
    assert len(analyse('ALL')) == 2
    hollow = bpy.data.objects.new("Hollow", bpy.data.meshes.new("Hollow"))
    empty_scene.collection.objects.link(hollow)
    assert len(analyse('ALL')) == 2


def modal_operator(analyse_module):
    """The analyse operator driven through a stand-in instance (see ``conftest.stand_in_operator``)."""
    return stand_in_operator(analyse_module.COLLISION_INSPECTOR_OT_analyze)


def test_modal_analysis_passes_other_events_and_finishes_on_timer_ticks(empty_scene, analyse_module):
    row_of_cubes(4)
    select_only(*bpy.data.objects)
    operator = modal_operator(analyse_module)
    assert operator.start(bpy.context)
    assert operator.modal(bpy.context, SimpleNamespace(type='MOUSEMOVE')) == {'PASS_THROUGH'}
    assert len(empty_scene.collision_inspector.results) == 0
    outcome = {'RUNNING_MODAL'}
    for _tick in range(100):
        outcome = operator.modal(bpy.context, SimpleNamespace(type='TIMER'))
        if outcome != {'RUNNING_MODAL'}:
            break
    assert outcome == {'FINISHED'}
    assert len(empty_scene.collision_inspector.results) == 6
    assert operator.reports[-1] == ({'INFO'}, "Analysed 6 pairs: 3 penetrating, 3 separated")


def test_escape_cancels_the_modal_analysis_and_keeps_the_previous_results(empty_scene, analyse_module):
    row_of_cubes(4)
    assert len(analyse('ALL')) == 3
    bpy.data.objects["C01"].location.x = 50.0
    operator = modal_operator(analyse_module)
    assert operator.start(bpy.context)
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    assert operator.reports == [({'WARNING'}, "Analysis cancelled; the previous results are kept")]
    assert len(empty_scene.collision_inspector.results) == 3
    with pytest.raises(StopIteration):
        next(operator.steps)  # the check was abandoned


def subdivided_monkey_and_cube() -> None:
    """Suzanne under a subdivision (slow to read, as far as the check can tell) and a cube through her side."""
    bpy.ops.mesh.primitive_monkey_add()
    monkey = bpy.context.active_object
    monkey.name = "Suzanne"
    monkey.modifiers.new("Subdivision", 'SUBSURF').levels = 1
    select_only(monkey, add_cube("Cube", 0.9))


def test_an_object_slow_to_read_is_announced_before_its_read(empty_scene, clash, addon):
    announced = importlib.import_module(addon.__name__ + ".analysis.background").Announced
    advance = importlib.import_module(addon.__name__ + ".operators.base").advance
    subdivided_monkey_and_cube()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    report, steps = clash.start_check(empty_scene, depsgraph, scope='SELECTED', every_pair=True)
    seen = [(isinstance(step, announced), tuple(step), report.activity) for step in steps]
    assert seen[:3] == [(False, (1, 2), "reading Cube"), (True, (1, 2), "reading Suzanne"),
                        (False, (2, 2), "reading Suzanne")]
    assert seen[-1] == (False, (3, 3), "measuring Cube \u2194 Suzanne")
    report, steps = clash.start_check(empty_scene, depsgraph, scope='SELECTED', every_pair=True)
    assert advance(steps, 60.0) == (1, 2) and report.activity == "reading Suzanne"  # the slice ends there


def test_the_modal_analysis_says_what_it_reads_before_reading_it(empty_scene, analyse_module, addon, monkeypatch):
    """The tick before the one that reads Suzanne ends saying so, however long a slice takes (on a busy machine the
    first one ends while the cube is read, still saying "reading Cube")."""
    subdivided_monkey_and_cube()
    shapes = importlib.import_module(addon.__name__ + ".analysis.shapes")
    statuses, read_after, evaluated_mesh = [], {}, shapes.evaluated_mesh

    def noted(obj, depsgraph):
        read_after[obj.name] = len(statuses)  # the ticks that ended before Blender's mesh is read
        return evaluated_mesh(obj, depsgraph)

    monkeypatch.setattr(shapes, "evaluated_mesh", noted)
    operator = modal_operator(analyse_module)
    assert operator.start(bpy.context)
    assert operator.status() == "Analysing"  # before its first step
    outcome = {'RUNNING_MODAL'}
    for _tick in range(100):
        outcome = operator.modal(bpy.context, SimpleNamespace(type='TIMER'))
        if outcome != {'RUNNING_MODAL'}:
            break
        statuses.append(operator.status())
    assert outcome == {'FINISHED'}
    assert read_after["Suzanne"] >= 1 and statuses[read_after["Suzanne"] - 1] == "Analysing: reading Suzanne"


def test_check_scenes_progress_hears_each_step_once(empty_scene, clash):
    subdivided_monkey_and_cube()
    calls = []
    clash.check_scene(empty_scene, bpy.context.evaluated_depsgraph_get(), scope='SELECTED', every_pair=True,
                      progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2), (3, 3)]
