"""The self-intersection check from the interface: a big object's work on a worker thread while the modal operator
goes on ticking (status bar, Esc cancels leaving the scene and the previous results as they were), the same results
as the check at once, the faces selected in Edit Mode once the worker is done, and one long run at a time. Small
objects are sent to the worker here by lowering its threshold."""

from __future__ import annotations

import importlib
import threading
from types import SimpleNamespace

import bmesh
import bpy
import pytest
from conftest import stand_in_operator

from test_analysis_self_check import add_joined_boxes  # noqa: I001  (pytest puts tests/blender on sys.path)
from test_analysis_clash import add_cube, select_only
from test_operators_long_work import TICKS_WHILE_WAITING, ticks, until_done
CANCELLED = "Self-intersection check cancelled; the previous results are kept"


@pytest.fixture
def modules(addon_module):
    return SimpleNamespace(background=addon_module("analysis.background"),
                           self_check=addon_module("analysis.self_check"),
                           operator=addon_module("operators.self_check"), base=addon_module("operators.base"),
                           store=addon_module("analysis.self_check_store"))


@pytest.fixture
def on_worker(modules, monkeypatch):
    """Every object's check goes to the worker thread; the list holds the thread each ran on."""
    threads, measure_read = [], modules.self_check.measure_read
    monkeypatch.setattr(modules.background, "BACKGROUND_TRIANGLES", 0)

    def recorded(read):
        threads.append(threading.current_thread())
        return measure_read(read)

    monkeypatch.setattr(modules.self_check, "measure_read", recorded)
    return threads


@pytest.fixture
def props(empty_scene):
    """"Prop": two joined boxes crossing (one curve, 0.18 covered twice); "Crate": a clean cube; "Ring": a torus
    under a subdivision (faces that only touch, nothing crossing)."""
    prop = add_joined_boxes("Prop", [((0, 0, 0), (1, 1, 1)), ((0.5, 0.2, 0.2), (1.5, 0.8, 0.8))])
    crate = add_cube("Crate", location=(4.0, 0.0, 0.0))
    bpy.ops.mesh.primitive_torus_add(location=(0.0, 4.0, 0.0))
    ring = bpy.context.active_object
    ring.name = "Ring"
    ring.modifiers.new("Subdivision", 'SUBSURF').levels = 1
    select_only(prop, crate, ring, active=prop)
    return prop, crate, ring


def stored(scene) -> tuple:
    """Every stored number of the self-check results, and their crossing segments, exactly."""
    settings = scene.collision_inspector
    items = [(item.name, item.triangles, item.face_pairs, item.coplanar_pairs, item.faces, item.curves, item.closed,
              item.covered_twice_measured, item.covered_twice_volume) for item in settings.self_checks]
    return items, list(settings.get("self_check_points", ())), list(settings.get("self_check_owners", ()))


def operator_for(modules, select_faces: bool = False):
    operator = stand_in_operator(modules.operator.COLLISION_INSPECTOR_OT_self_check)
    operator.select_faces = select_faces
    return operator


def without_time(reports: list) -> list:
    """The reports with the closing line's ' in 0.12 s' left out (the time differs from run to run)."""
    return [(kinds, text.split(" in ")[0] if "intersect themselves" in text else text) for kinds, text in reports]


def test_the_modal_check_on_a_worker_stores_what_the_check_at_once_stores(props, modules, on_worker):
    operator = operator_for(modules)
    assert operator.start(bpy.context) and until_done(operator) == {'FINISHED'}
    assert len(on_worker) == 3 and threading.main_thread() not in on_worker
    modal, modal_reports = stored(bpy.context.scene), operator.reports
    names = [item[0] for item in modal[0]]
    assert names == ["Crate", "Prop", "Ring"] and modal[0][1][2] > 0 and modal[0][1][8] == pytest.approx(0.18)
    modules.background.BACKGROUND_TRIANGLES = 1 << 60  # (restored by monkeypatch) nothing goes to the worker
    bpy.ops.collision_inspector.clear()
    assert bpy.ops.collision_inspector.self_check() == {'FINISHED'}
    assert len(on_worker) == 6 and set(on_worker[3:]) == {threading.main_thread()}
    assert stored(bpy.context.scene) == modal  # bit for bit
    at_once, _checked = modules.self_check.check_objects(props, bpy.context.view_layer,
                                                        bpy.context.evaluated_depsgraph_get(), 'SELECTED')
    assert [vars(result) for result in at_once.results] == [vars(result) for result in operator._report.results]
    assert without_time(modal_reports) == [({'WARNING'}, modal_reports[0][1]),
                                           ({'WARNING'}, "1 of 3 objects intersect themselves (2 clean)")]
    assert modal_reports[0][1].startswith("Prop: ") and "1 curve" in modal_reports[0][1]


def kept_state(scene) -> tuple:
    """What a cancelled check must leave as it was: the stored results, the objects, their meshes' faces and which
    are selected, the mesh data blocks (no temporary mesh left)."""
    return (stored(scene),
            [(obj.name, tuple(map(tuple, obj.matrix_world)), len(obj.data.polygons),
              tuple(face.select for face in obj.data.polygons)) for obj in bpy.data.objects],
            sorted(mesh.name for mesh in bpy.data.meshes))


def prop_held_on_the_worker(modules, monkeypatch) -> tuple:
    """A modal Check and Select Faces ticked until Prop's check has reached the worker, where it waits for the
    returned event; and the operator."""
    reached, opened, measure_read = threading.Event(), threading.Event(), modules.self_check.measure_read

    def held(read):
        if read.name == "Prop":
            reached.set()
            assert opened.wait(60.0)
        return measure_read(read)

    monkeypatch.setattr(modules.self_check, "measure_read", held)
    operator = operator_for(modules, select_faces=True)
    assert operator.start(bpy.context)
    for _tick in range(100):
        assert ticks(operator, 1) == [{'RUNNING_MODAL'}]
        if reached.is_set():
            return opened, operator
    raise AssertionError("Prop's check did not reach the worker")


def test_esc_while_the_worker_checks_leaves_the_scene_and_the_previous_results_as_they_were(props, modules,
                                                                                         on_worker, monkeypatch):
    prop, _crate, ring = props
    select_only(ring)
    assert bpy.ops.collision_inspector.self_check() == {'FINISHED'}  # the previous results: Ring's
    select_only(*props, active=prop)
    before = kept_state(bpy.context.scene)
    opened, operator = prop_held_on_the_worker(modules, monkeypatch)
    assert operator.status() == "Checking self-intersections: Prop"
    assert ticks(operator, TICKS_WHILE_WAITING) == [{'RUNNING_MODAL'}] * TICKS_WHILE_WAITING  # each tick returns
    assert modules.base.analysis_running() is False  # (a stand-in: only invoke notes a real run)
    assert operator.modal(bpy.context, SimpleNamespace(type='ESC')) == {'CANCELLED'}
    opened.set()
    assert kept_state(bpy.context.scene) == before
    assert operator.reports == [({'WARNING'}, CANCELLED)]


def test_check_and_select_faces_in_edit_mode_after_the_worker(props, modules, on_worker):
    prop, crate, _ring = props
    select_only(prop)
    bpy.ops.object.mode_set(mode='EDIT')
    try:
        bpy.ops.mesh.select_all(action='SELECT')
        operator = operator_for(modules, select_faces=True)
        assert operator.start(bpy.context) and until_done(operator) == {'FINISHED'}
        assert on_worker and threading.main_thread() not in on_worker
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')
    selected = {tuple(round(float(c), 6) for c in face.center) for face in prop.data.polygons if face.select}
    # the first box's face x = 1 and the second box's four sides running through it
    assert selected == {(1.0, 0.5, 0.5), (1.0, 0.5, 0.2), (1.0, 0.5, 0.8), (1.0, 0.2, 0.5), (1.0, 0.8, 0.5)}


def test_an_object_edited_during_the_check_keeps_its_selection(props, modules, on_worker, monkeypatch):
    prop, _crate, _ring = props
    select_only(prop)
    opened, operator = prop_held_on_the_worker(modules, monkeypatch)
    faces = bmesh.new()  # the user deletes a face while the worker checks the copy read before
    faces.from_mesh(prop.data)
    faces.faces.ensure_lookup_table()
    bmesh.ops.delete(faces, geom=[faces.faces[0]], context='FACES_ONLY')
    faces.to_mesh(prop.data)
    faces.free()
    bpy.context.view_layer.update()
    selection = [face.select for face in prop.data.polygons]
    opened.set()
    assert until_done(operator) == {'FINISHED'}
    assert operator._report.results[0].face_pairs > 0  # found on the faces as read
    assert ({'WARNING'}, "Prop changed during the check: check it again to select its faces") in operator.reports
    assert [face.select for face in prop.data.polygons] == selection


def test_one_long_run_at_a_time(props, modules, monkeypatch, addon):
    """While a modal self-check runs, Analyse, Scan Animation, Resolve, Resolve All, Clear Results (the check would
    store its results after the clear) and a second self-check are greyed out with the reason; while a modal
    analysis runs, the self-check is."""
    operators = bpy.ops.collision_inspector
    add_cube("Lid", location=(4.5, 0.0, 0.0))  # into Crate: a pair to resolve
    bpy.context.view_layer.update()
    bpy.context.scene.collision_inspector.scope = 'ALL'
    assert operators.analyze() == {'FINISHED'}
    assert operators.self_check.poll() and operators.resolve.poll() and operators.analyze.poll()
    operator_class, refusals = modules.operator.COLLISION_INSPECTOR_OT_self_check, []
    original_start = operator_class.start

    def start_as_invoke_does(self, context):
        modules.base.mark_running(self)  # what invoke() does when the check runs modally
        refusals.append([operator.poll() for operator in (operators.analyze, operators.scan, operators.resolve,
                                                          operators.resolve_all, operators.self_check,
                                                          operators.clear)])
        for operator in (operators.analyze, operators.resolve, operators.self_check):
            with pytest.raises(RuntimeError, match="Check Self-Intersections is already running"):
                operator()
        return original_start(self, context)

    monkeypatch.setattr(operator_class, "start", start_as_invoke_does)
    assert operators.self_check() == {'FINISHED'}
    assert refusals == [[False] * 6]
    assert not modules.base.analysis_running() and operators.analyze.poll() and operators.self_check.poll()
    monkeypatch.undo()

    analyse = importlib.import_module(addon.__name__ + ".operators.analyse").COLLISION_INSPECTOR_OT_analyze
    original_start, refused = analyse.start, []

    def analysis_as_invoke_does(self, context):
        modules.base.mark_running(self)
        refused.append(operators.self_check.poll())
        with pytest.raises(RuntimeError, match="Analyse is already running"):
            operators.self_check()
        return original_start(self, context)

    monkeypatch.setattr(analyse, "start", analysis_as_invoke_does)
    assert operators.analyze() == {'FINISHED'}
    assert refused == [False] and operators.self_check.poll()
