"""Long work on big objects: building them from Blender's arrays, classifying and measuring on a worker thread
(``analysis.background``) while the modal Analyse and Resolve go on ticking (the interface stays free, Esc
cancels), with answers identical to those computed at once. Small objects are sent to the worker here by lowering
its threshold."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import bpy
import numpy as np
import pytest
from conftest import stand_in_operator

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)

TICKS_WHILE_WAITING = 4


@pytest.fixture
def modules(addon_module):
    return SimpleNamespace(background=addon_module("analysis.background"), clash=addon_module("analysis.clash"),
                           remeasure=addon_module("analysis.remeasure"), analyse=addon_module("operators.analyse"),
                           resolve=addon_module("operators.resolve"), shapes=addon_module("analysis.shapes"),
                           steps=addon_module("core.steps"), analysed_shapes=addon_module("analysis.analysed_shapes"))


@pytest.fixture
def worker_calls(modules, monkeypatch):
    """Every piece of work goes to the worker thread; the list counts the pieces that did."""
    calls = []
    in_background = modules.background.in_background
    monkeypatch.setattr(modules.background, "BACKGROUND_TRIANGLES", 0)
    monkeypatch.setattr(modules.background, "in_background", lambda work: calls.append(work) or in_background(work))
    return calls


def monkey_and_cubes() -> None:
    """A subdivided Suzanne (not convex, open eyes) through a cube, and two convex cubes overlapping."""
    bpy.ops.mesh.primitive_monkey_add(location=(0.0, 0.0, 0.0))
    suzanne = bpy.context.active_object
    suzanne.name = "Suzanne"
    suzanne.modifiers.new("Subdivision", 'SUBSURF').levels = 1
    add_cube("Cube", 0.9)
    add_cube("Left", 10.0)
    add_cube("Right", 10.8)
    bpy.context.view_layer.update()


def fields(results) -> list:
    """Every stored number and name of the results, exactly."""
    return [(r.name_a, r.name_b, r.status, r.value, tuple(r.normal), tuple(r.point_a), tuple(r.point_b),
             r.overlap_volume, r.method) for r in results]


def report_rows(report) -> list:
    return [vars(result) for result in report.results]


def test_the_check_on_a_worker_gives_the_report_measured_at_once(empty_scene, modules, worker_calls):
    monkey_and_cubes()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    on_worker = modules.clash.check_scene(empty_scene, depsgraph, scope='ALL')
    assert len(worker_calls) >= 2  # the classification and the measurements went to the worker
    modules.background.BACKGROUND_TRIANGLES = 1 << 60  # (restored by monkeypatch) nothing goes to the worker
    at_once = modules.clash.check_scene(empty_scene, depsgraph, scope='ALL')
    assert len(at_once.results) == 2 and {r.status for r in at_once.results} == {'penetrating'}
    assert report_rows(on_worker) == report_rows(at_once)


def gate(module, name: str, monkeypatch) -> threading.Event:
    """``module.name`` waits for the returned event before it runs (the work of a big object, made long)."""
    opened, original = threading.Event(), getattr(module, name)

    def gated(*args, **kwargs):
        assert opened.wait(60.0)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, gated)
    return opened


def ticks(operator, count: int) -> list:
    return [operator.modal(bpy.context, SimpleNamespace(type='TIMER')) for _tick in range(count)]


def until_done(operator) -> set:
    for _tick in range(10000):
        outcome = operator.modal(bpy.context, SimpleNamespace(type='TIMER'))
        if outcome != {'RUNNING_MODAL'}:
            return outcome
    raise AssertionError("the operator did not finish")


def test_modal_analysis_ticks_while_its_worker_measures_and_esc_keeps_the_results(empty_scene, modules,
                                                                                 worker_calls, monkeypatch):
    monkey_and_cubes()
    select_only(*bpy.data.objects)
    assert len(analyse('ALL')) == 2
    before = fields(empty_scene.collision_inspector.results)
    bpy.data.objects["Cube"].location.x = 0.7
    opened = gate(modules.clash, "measure_solid_pairs", monkeypatch)
    operator = stand_in_operator(modules.analyse.COLLISION_INSPECTOR_OT_analyze)
    assert operator.start(bpy.context)
    assert ticks(operator, TICKS_WHILE_WAITING) == [{'RUNNING_MODAL'}] * TICKS_WHILE_WAITING  # each tick returns
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    opened.set()
    assert fields(empty_scene.collision_inspector.results) == before
    assert operator.reports == [({'WARNING'}, "Analysis cancelled; the previous results are kept")]

    operator = stand_in_operator(modules.analyse.COLLISION_INSPECTOR_OT_analyze)
    assert operator.start(bpy.context) and until_done(operator) == {'FINISHED'}
    stepwise = fields(empty_scene.collision_inspector.results)
    assert stepwise != before and len(analyse('ALL')) == 2
    assert fields(empty_scene.collision_inspector.results) == stepwise  # all at once: the same numbers


def blenders_triangles_and_points(obj: bpy.types.Object) -> tuple:
    """The object's evaluated triangles as Blender splits them (its loop triangles) and its vertices in world space
    by the reading's arithmetic (float32 positions in float64, times the world matrix), read here on their own."""
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    try:
        mesh.calc_loop_triangles()
        triangles = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int64)
        mesh.loop_triangles.foreach_get('vertices', triangles)
        local = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get('co', local)
    finally:
        evaluated.to_mesh_clear()
    matrix = np.array(evaluated.matrix_world, dtype=np.float64)
    return triangles.reshape(-1, 3), local.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]


@pytest.mark.parametrize("shape", ["subdivided", "n-gons"])
def test_the_worker_builds_the_same_triangles_and_points_from_blenders_arrays(empty_scene, modules, worker_calls,
                                                                             monkeypatch, shape):
    if shape == "subdivided":  # quads, some split on the other diagonal
        monkey_and_cubes()
        obj = bpy.data.objects["Suzanne"]
    else:  # 16-gon caps: Blender's own split
        bpy.ops.mesh.primitive_cylinder_add(vertices=16)
        obj = bpy.context.active_object
    obj.rotation_euler = (0.3, -1.1, 2.0)
    obj.scale = (1.5, -0.7, 2.5)
    bpy.context.view_layer.update()
    built, mesh_from_arrays = [], modules.shapes.mesh_from_arrays

    def recorded(read):
        built.append((threading.current_thread(), read))
        return mesh_from_arrays(read)

    monkeypatch.setattr(modules.shapes, "mesh_from_arrays", recorded)
    source = modules.shapes.Source(obj.name, obj, obj)
    solid = modules.steps.run_to_end(
        modules.shapes.read_solid_steps(source, bpy.context.evaluated_depsgraph_get(), False))
    assert len(worker_calls) == 1 and len(built) == 1
    thread, read = built[0]
    assert thread is not threading.main_thread()
    arrays = [value for value in vars(read.arrays).values() if value is not None]
    assert all(type(value) is np.ndarray for value in [*arrays, read.matrix])  # copies, nothing of Blender's
    triangles, points = blenders_triangles_and_points(obj)
    assert np.array_equal(solid.raw_mesh.triangles, triangles[:, ::-1])  # turned over: the scale mirrors
    assert np.array_equal(solid.raw_mesh.vertices, points)  # bit for bit
    at_once = modules.shapes.read_mesh(source, bpy.context.evaluated_depsgraph_get())
    assert np.array_equal(at_once.vertices, points) and np.array_equal(at_once.triangles, triangles[:, ::-1])


def kept_state(modules, scene) -> tuple:
    """What a cancelled analysis must leave as it was: the results, where the objects are and what they are made
    of, the mesh data blocks (no temporary mesh left), and the shapes kept for Resolve."""
    return (fields(scene.collision_inspector.results),
            [(obj.name, tuple(map(tuple, obj.matrix_world)), len(obj.data.vertices)) for obj in bpy.data.objects],
            sorted(mesh.name for mesh in bpy.data.meshes), dict(modules.analysed_shapes._kept))


def test_esc_while_a_big_object_is_read_leaves_the_scene_and_the_results_as_they_were(empty_scene, modules,
                                                                                    worker_calls, monkeypatch):
    penetrating_pair(empty_scene)
    bpy.data.objects["Cube"].location.x = 0.7
    bpy.context.view_layer.update()
    before = kept_state(modules, empty_scene)
    reached, opened, mesh_from_arrays = threading.Event(), threading.Event(), modules.shapes.mesh_from_arrays

    def held(read):  # Suzanne's triangles wait on the worker until the test lets them go
        if read.name == "Suzanne":
            reached.set()
            assert opened.wait(60.0)
        return mesh_from_arrays(read)

    monkeypatch.setattr(modules.shapes, "mesh_from_arrays", held)
    operator = stand_in_operator(modules.analyse.COLLISION_INSPECTOR_OT_analyze)
    assert operator.start(bpy.context)
    for _tick in range(100):
        assert ticks(operator, 1) == [{'RUNNING_MODAL'}]
        if reached.is_set():
            break
    assert reached.is_set() and operator.status() == "Analysing: reading Suzanne"
    assert ticks(operator, TICKS_WHILE_WAITING) == [{'RUNNING_MODAL'}] * TICKS_WHILE_WAITING  # Suzanne is built
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    opened.set()
    assert kept_state(modules, empty_scene) == before
    assert operator.reports == [({'WARNING'}, "Analysis cancelled; the previous results are kept")]


def resolve_operator(modules):
    operator = stand_in_operator(modules.resolve.COLLISION_INSPECTOR_OT_resolve)
    operator.index, operator.clearance = -1, 0.0
    return operator


def penetrating_pair(empty_scene) -> None:
    monkey_and_cubes()
    bpy.data.objects.remove(bpy.data.objects["Left"])
    bpy.data.objects.remove(bpy.data.objects["Right"])
    select_only(bpy.data.objects["Suzanne"], bpy.data.objects["Cube"])
    assert analyse() == [("Cube", "Suzanne", 'penetrating')]


def test_escape_during_resolve_puts_b_back_and_keeps_the_results(empty_scene, modules, worker_calls, monkeypatch):
    penetrating_pair(empty_scene)
    suzanne = bpy.data.objects["Suzanne"]
    placed, before = suzanne.matrix_world.copy(), fields(empty_scene.collision_inspector.results)
    opened = gate(modules.remeasure, "measure_pairs", monkeypatch)
    operator = resolve_operator(modules)
    assert operator.start(bpy.context)
    assert suzanne.matrix_world != placed  # moved at once, measured meanwhile
    assert ticks(operator, TICKS_WHILE_WAITING) == [{'RUNNING_MODAL'}] * TICKS_WHILE_WAITING
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    opened.set()
    assert suzanne.matrix_world == placed
    assert fields(empty_scene.collision_inspector.results) == before
    assert operator.reports == [({'WARNING'}, "Resolve cancelled: the object is back where it was and the "
                                              "results are kept")]


def test_resolve_measured_stepwise_gives_what_resolve_at_once_gives(empty_scene, modules, worker_calls):
    penetrating_pair(empty_scene)
    suzanne = bpy.data.objects["Suzanne"]
    placed = suzanne.matrix_world.copy()
    operator = resolve_operator(modules)
    assert operator.start(bpy.context) and until_done(operator) == {'FINISHED'}
    assert worker_calls
    stepwise, moved = fields(empty_scene.collision_inspector.results), suzanne.matrix_world.copy()
    assert stepwise[0][2] != 'penetrating'
    suzanne.matrix_world = placed
    assert analyse() == [("Cube", "Suzanne", 'penetrating')]
    assert bpy.ops.collision_inspector.resolve() == {'FINISHED'}
    assert suzanne.matrix_world == moved and fields(empty_scene.collision_inspector.results) == stepwise



def three_in_a_row() -> None:
    """Cubes A, B, C each 0.2 into the next: Resolve All moves B out of A, then C out of B."""
    for name, x in (("A", 0.0), ("B", 0.8), ("C", 1.6)):
        add_cube(name, x)
    select_only(*(bpy.data.objects[name] for name in "ABC"))
    assert [row[2] for row in analyse()].count('penetrating') == 2


def resolve_all_operator(modules):
    operator = stand_in_operator(modules.resolve.COLLISION_INSPECTOR_OT_resolve_all)
    operator.clearance, operator.max_rounds = 0.0, modules.resolve.MAX_ROUNDS
    return operator


def locations() -> list:
    return [tuple(bpy.data.objects[name].matrix_world.translation) for name in "ABC"]


def test_resolve_all_measured_stepwise_gives_what_resolve_all_at_once_gives(empty_scene, modules, worker_calls):
    three_in_a_row()
    placed = locations()
    operator = resolve_all_operator(modules)
    assert operator.start(bpy.context) and until_done(operator) == {'FINISHED'}
    assert worker_calls
    assert operator.reports == [({'INFO'}, "2 moves: no pair penetrates any more")]
    stepwise, moved = fields(empty_scene.collision_inspector.results), locations()
    for name, place in zip("ABC", placed):
        bpy.data.objects[name].location = place
    bpy.context.view_layer.update()
    analyse()
    assert bpy.ops.collision_inspector.resolve_all() == {'FINISHED'}
    assert locations() == moved and fields(empty_scene.collision_inspector.results) == stepwise


def test_escape_during_resolve_all_keeps_the_moves_made_and_puts_the_one_under_way_back(empty_scene, modules,
                                                                                      worker_calls, monkeypatch):
    """The fourth measurement (C's pairs, after C moved) waits: Esc then keeps B's move, with its pairs measured
    again, and puts C back."""
    three_in_a_row()
    placed = locations()
    calls, opened, measure_pairs = [], threading.Event(), modules.remeasure.measure_pairs

    def fourth_waits(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            assert opened.wait(60.0)
        return measure_pairs(*args, **kwargs)

    monkeypatch.setattr(modules.remeasure, "measure_pairs", fourth_waits)
    operator = resolve_all_operator(modules)
    assert operator.start(bpy.context)
    for _tick in range(10000):
        if len(calls) == 4:
            break
        assert ticks(operator, 1) == [{'RUNNING_MODAL'}]
    assert bpy.data.objects["C"].location.x != 1.6  # moved, being measured
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    opened.set()
    assert locations()[0] == placed[0] and locations()[2] == placed[2]
    assert locations()[1][0] == pytest.approx(1.0, abs=1e-6)
    statuses = {(r.name_a, r.name_b): r.status for r in empty_scene.collision_inspector.results}
    assert statuses[("A", "B")] == 'touching' and statuses[("B", "C")] == 'penetrating'
    assert not next(r for r in empty_scene.collision_inspector.results if r.name_b == "B").stale
    assert operator.reports == [({'WARNING'}, "Resolve All stopped: the moves made so far are kept, with their "
                                              "pairs measured again")]
