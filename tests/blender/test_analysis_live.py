"""Live update: with ``live_update`` on, a script that moves, rotates, scales or reshapes an analysed object
and calls ``view_layer.update()`` finds its pairs measured again (analytic answers for unit cubes)."""

from __future__ import annotations

import importlib
import math
import time
from types import SimpleNamespace

import bmesh
import bpy
import mathutils
import numpy as np
import pytest

from test_operators_browse import add_cube, analyse, select_only  # noqa: I001  (pytest puts tests/blender on sys.path)


def result(a: str, b: str):
    return next(r for r in bpy.context.scene.collision_inspector.results if (r.name_a, r.name_b) == (a, b))


@pytest.fixture
def live_pair(empty_scene):
    """Cubes A at x=0 and B at x=3 (gap 2), analysed, live update on."""
    add_cube("A", 0.0)
    add_cube("B", 3.0)
    select_only(bpy.data.objects["A"], bpy.data.objects["B"])
    analyse('SELECTED')
    empty_scene.collision_inspector.live_update = True
    return empty_scene


def test_moving_an_object_measures_its_pair_again(live_pair):
    pair = result("A", "B")
    assert pair.status == 'separated' and pair.distance == pytest.approx(2.0, abs=1e-6)
    bpy.data.objects["B"].location.x = 0.75
    bpy.context.view_layer.update()
    assert pair.status == 'penetrating' and not pair.stale
    assert pair.depth == pytest.approx(0.25, abs=1e-6)
    assert tuple(pair.normal) == pytest.approx((1.0, 0.0, 0.0), abs=1e-6)
    bpy.data.objects["A"].location.y = 5.0  # moving A also counts
    bpy.context.view_layer.update()
    assert pair.status == 'separated' and pair.distance == pytest.approx(4.0, abs=1e-6)


def test_rotation_and_scale_reuse_the_shape_and_stay_exact(live_pair):
    b = bpy.data.objects["B"]
    b.rotation_euler.z = math.pi / 4  # a corner now points at A: its tip is at 3 - sqrt(2)/2
    bpy.context.view_layer.update()
    assert result("A", "B").distance == pytest.approx(2.5 - math.sqrt(0.5), abs=1e-6)
    b.rotation_euler.z = 0.0
    b.scale.x = 4.0  # half width 2: reaches x = 1
    bpy.context.view_layer.update()
    assert result("A", "B").distance == pytest.approx(0.5, abs=1e-6)


def test_editing_the_mesh_reads_the_object_again(live_pair):
    mesh = bpy.data.objects["B"].data
    for vertex in mesh.vertices:
        vertex.co.x *= 4.0  # the same as scale 4 above, but in the geometry
    mesh.update()
    bpy.context.view_layer.update()
    assert result("A", "B").distance == pytest.approx(0.5, abs=1e-6)


def test_a_parent_moving_moves_its_child_pairs(live_pair):
    parent = bpy.data.objects.new("Parent", None)
    live_pair.collection.objects.link(parent)
    bpy.data.objects["B"].parent = parent
    bpy.context.view_layer.update()
    parent.location.x = -1.5
    bpy.context.view_layer.update()
    assert result("A", "B").distance == pytest.approx(0.5, abs=1e-6)


def test_nothing_happens_with_live_update_off(live_pair):
    live_pair.collision_inspector.live_update = False
    bpy.data.objects["B"].location.x = 0.75
    bpy.context.view_layer.update()
    pair = result("A", "B")
    assert pair.status == 'separated' and pair.stale


def test_switching_on_measures_at_once_and_the_overlay_is_refreshed(live_pair, addon):
    live_pair.collision_inspector.live_update = False
    bpy.data.objects["B"].location.x = 0.75
    bpy.context.view_layer.update()
    overlay = importlib.import_module(addon.__name__ + ".ui.overlay")
    before = overlay.scene_drawing(live_pair)
    live_pair.collision_inspector.live_update = True
    pair = result("A", "B")
    assert pair.status == 'penetrating' and pair.depth == pytest.approx(0.25, abs=1e-6) and not pair.stale
    assert overlay.scene_drawing(live_pair) is not before


def l_shape(name: str) -> bpy.types.Mesh:
    """An L: a 2x1x1 foot (x from -0.5 to 1.5, z from -0.5 to 0.5) and a 1x1x1 upright on its left half."""
    vertices = [(-0.5, -0.5, -0.5), (1.5, -0.5, -0.5), (1.5, 0.5, -0.5), (-0.5, 0.5, -0.5),
                (0.5, -0.5, 0.5), (1.5, -0.5, 0.5), (1.5, 0.5, 0.5), (0.5, 0.5, 0.5),
                (-0.5, -0.5, 1.5), (0.5, -0.5, 1.5), (0.5, 0.5, 1.5), (-0.5, 0.5, 1.5)]
    faces = [(0, 3, 2, 1), (1, 2, 6, 5), (4, 5, 6, 7), (0, 1, 5, 4, 9, 8), (3, 11, 10, 7, 6, 2), (0, 8, 11, 3),
             (4, 7, 10, 9), (8, 9, 10, 11)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices, [], faces)
    mesh.validate()
    return mesh


@pytest.fixture
def unhurried(monkeypatch):
    """A clock that moves on 1 µs per reading, so that tests not about time budgets pass on a loaded machine:
    every step fits its budget unless a test sets the budget to 0."""
    now = [time.perf_counter()]

    def tick() -> float:
        now[0] += 1e-6
        return now[0]
    monkeypatch.setattr(time, "perf_counter", tick)


def nearest_surface_distance(obj: bpy.types.Object, point) -> float:
    """Distance from ``point`` to the evaluated object's surface, world space (Blender's own BVH tree)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    bm = bmesh.new()
    bm.from_object(obj, depsgraph)
    bm.transform(obj.evaluated_get(depsgraph).matrix_world)
    tree = mathutils.bvhtree.BVHTree.FromBMesh(bm)
    bm.free()
    return tree.find_nearest(mathutils.Vector(point))[3]


def interface_runs(addon, monkeypatch, runs: bool = True) -> None:
    """Have the live update behave as while the interface runs (or, ``runs`` False, as in background mode)."""
    solid_cache = importlib.import_module(addon.__name__ + ".analysis.solid_cache")
    monkeypatch.setattr(solid_cache, "measures_volumes_later", lambda: runs)


def counted_reads(addon, monkeypatch) -> list:
    """A list that gets the name of every object whose shape the live update's cache reads."""
    solid_cache = importlib.import_module(addon.__name__ + ".analysis.solid_cache")
    reads, read = [], solid_cache.read_solid_steps
    monkeypatch.setattr(solid_cache, "read_solid_steps", lambda *args: reads.append(args[0].name) or read(*args))
    return reads


def counted_full_measurements(addon, monkeypatch) -> list:
    """A list that grows by one whenever the core measures a non-convex pair in full (``mesh_pair``)."""
    dispatch = importlib.import_module(addon.__name__ + ".core.mesh.contact.dispatch")
    full, measure = [], dispatch.mesh_pair
    monkeypatch.setattr(dispatch, "mesh_pair", lambda a, b, options: full.append(1) or measure(a, b, options))
    return full


def test_non_convex_pairs_update_too(live_pair):
    """B in the L's notch: the pair is measured on the triangles, and follows B."""
    a = bpy.data.objects["A"]
    a.data = l_shape("L")
    bpy.context.view_layer.update()
    b = bpy.data.objects["B"]
    b.location = (1.0, 0.0, 1.0)  # against the upright's side and on the foot's top face
    bpy.context.view_layer.update()
    pair = result("A", "B")
    assert pair.method == 'mesh'
    assert pair.status == 'touching', (pair.status, pair.signed_distance)
    b.location = (1.0, 0.0, 0.9)
    bpy.context.view_layer.update()
    assert pair.status == 'penetrating'
    # the shortest push-out is 0.1 (straight up): the certified one is at least that, its lower bound at most
    assert pair.depth_lower_bound - 1e-6 <= 0.1 <= pair.depth + 1e-6
    assert pair.depth == pytest.approx(0.1, abs=1e-6) or pair.depth_is_estimate


def test_a_remeasured_pair_gets_its_new_note(live_pair):
    """With convex hulls measured, an object reshaped from an L into a box loses its 'not convex' note."""
    live_pair.collision_inspector.live_update = False
    live_pair.collision_inspector.use_hulls = True
    a = bpy.data.objects["A"]
    box = a.data
    a.data = l_shape("L")
    select_only(a, bpy.data.objects["B"])
    analyse('SELECTED')
    assert "not convex" in result("A", "B").hull_note
    live_pair.collision_inspector.live_update = True
    a.data = box
    bpy.context.view_layer.update()
    assert result("A", "B").hull_note == ""


def test_while_the_interface_runs_the_volume_follows_once_the_object_stops(live_pair, addon, monkeypatch):
    """A drag sends an update per mouse move: each measures depth, normal and contact; the overlap volume is
    left out (pending, the panel says so, the label shows the depth alone) until ``settle`` runs after
    the last update, and then equals a complete measurement's."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    panel = importlib.import_module(addon.__name__ + ".ui.panel")
    interface_runs(addon, monkeypatch)
    b = bpy.data.objects["B"]
    for x in (0.9, 0.8, 0.75):  # three steps of a drag
        b.location.x = x
        bpy.context.view_layer.update()
        pair = result("A", "B")
        assert pair.status == 'penetrating' and pair.depth == pytest.approx(1.0 - x, abs=1e-6)
        assert pair.volume_pending and pair.has_volume and pair.overlap_volume == 0.0
        assert bpy.app.timers.is_registered(live.settle)
    assert "once the object stops" in " ".join(panel.depth_details(pair, live_pair))
    store = importlib.import_module(addon.__name__ + ".analysis.store")
    with live.paused():  # a scan or a measurement running: try again later
        assert live.settle() == live.SETTLE_SECONDS and result("A", "B").volume_pending
    assert store.stored_report(live_pair).results[0].overlap_volume is None  # a report says nothing rather than 0
    assert live.settle() is None
    pair = result("A", "B")
    assert not pair.volume_pending and pair.overlap_volume == pytest.approx(0.25, abs=1e-9)
    assert "0.25" in " ".join(panel.depth_details(pair, live_pair))
    assert store.stored_report(live_pair).results[0].overlap_volume == pytest.approx(0.25, abs=1e-9)
    bpy.app.timers.unregister(live.settle)
    b.location.x = 0.5  # settled results are measured in full by the next complete update, as in background mode
    interface_runs(addon, monkeypatch, False)
    bpy.context.view_layer.update()
    assert not result("A", "B").volume_pending and result("A", "B").overlap_volume == pytest.approx(0.5, abs=1e-9)
    assert not bpy.app.timers.is_registered(live.settle)


def test_settling_many_pairs_goes_a_pair_at_a_time_within_its_budget(empty_scene, addon, monkeypatch):
    """Once a drag of many objects stops, ``settle`` measures the pending pairs one after another, giving the
    interface back after its time budget (here none: one pair per call) until every pair is measured in full."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    interface_runs(addon, monkeypatch)
    monkeypatch.setattr(live, "SETTLE_BUDGET_SECONDS", 0.0)
    for k in range(3):
        add_cube(f"A{k}", 10.0 * k)
        add_cube(f"B{k}", 10.0 * k + 0.9)
    assert [status for _a, _b, status in analyse('ALL')] == ['penetrating'] * 3
    empty_scene.collision_inspector.live_update = True
    for k in range(3):
        bpy.data.objects[f"B{k}"].location.x = 10.0 * k + 0.75
    bpy.context.view_layer.update()  # one update moving all three: three pairs pending

    def pending() -> int:
        return sum(r.volume_pending for r in empty_scene.collision_inspector.results)

    assert pending() == 3
    assert live.settle() == live.SETTLE_STEP_SECONDS and pending() == 2
    assert live.settle() == live.SETTLE_STEP_SECONDS and pending() == 1
    assert live.settle() is None and pending() == 0
    for k in range(3):
        assert result(f"A{k}", f"B{k}").overlap_volume == pytest.approx(0.25, abs=1e-9)
    bpy.app.timers.unregister(live.settle)


def test_support_tables_are_built_once_idle_not_in_the_middle_of_a_drag(empty_scene, addon, monkeypatch):
    """While the interface runs, the large convex shapes the live update reads scan for their supports until
    ``settle`` (idle) builds their support tables; a long drag does not build them."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    interface_runs(addon, monkeypatch)
    for name, x in (("A", 0.0), ("B", 1.8)):
        bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=5, radius=1.0, location=(x, 0.0, 0.0))  # 2,562 vertices
        bpy.context.active_object.name = name
    analyse('ALL')
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 60.0)  # edits measured at once, however long they take
    empty_scene.collision_inspector.live_update = True
    monkeypatch.setattr(live, "SETTLE_BUDGET_SECONDS", 0.0)
    for _ in range(3):  # in idle time: each shape read and prepared at a call, then the pair measured
        assert live.settle() == live.SETTLE_STEP_SECONDS
    assert live.prepared_shapes().support_tables_pending and len(live.prepared_shapes().unbuilt_support_tables()) == 2
    b = bpy.data.objects["B"]
    b.data.vertices[0].co.z += 1e-4  # edited: read again, its old shape's table no longer wanted
    b.data.update()
    bpy.context.view_layer.update()
    assert len(live.prepared_shapes().unbuilt_support_tables()) == 2
    for k in range(40):  # far past the 64 queries after which a shape builds its table on its own
        b.location.y = 0.001 * (k % 2)
        bpy.context.view_layer.update()
    assert live.prepared_shapes().support_tables_pending and result("A", "B").status == 'penetrating'
    depth = result("A", "B").depth
    while live.settle() is not None:
        pass
    assert not live.prepared_shapes().support_tables_pending and not result("A", "B").volume_pending
    assert result("A", "B").depth == pytest.approx(depth, abs=1e-9)
    bpy.app.timers.unregister(live.settle)


def test_a_non_convex_objects_hull_builds_its_table_once_idle_not_in_the_middle_of_a_drag(empty_scene, addon,
                                                                                           monkeypatch):
    """A non-convex object's convex hull is made at its pair's first penetrating measurement, after the object was
    read: while the interface runs it too scans for its supports until ``settle`` builds its table, however far a
    drag renews the pair's start (each renewal asks the hulls for a push-out)."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    batch = importlib.import_module(addon.__name__ + ".core.mesh.contact.batch")
    interface_runs(addon, monkeypatch)
    for name, x in (("A", 0.0), ("B", 1.7)):  # 2,522 vertices, a dent in each: measured on the triangles
        bpy.ops.mesh.primitive_uv_sphere_add(segments=72, ring_count=36, radius=1.0, location=(x, 0.0, 0.0))
        bpy.context.active_object.name = name
        bpy.context.active_object.data.vertices[1000].co *= 0.98
    analyse('ALL')
    assert result("A", "B").method == 'mesh'
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 60.0)
    empty_scene.collision_inspector.live_update = True
    monkeypatch.setattr(live, "SETTLE_BUDGET_SECONDS", 0.0)
    for _ in range(3):  # each shape read and prepared at a call, then the pair measured (its hulls made)
        assert live.settle() == live.SETTLE_STEP_SECONDS
    assert len(live.prepared_shapes().unbuilt_support_tables()) == 2
    renewals = []
    original = batch.renewed_penetrating
    monkeypatch.setattr(batch, "renewed_penetrating", lambda a, b, start: renewals.append(start) or original(a, b, start))
    b = bpy.data.objects["B"]
    for k in range(1, 21):  # 4 cm at a time (0.8 in all, still 0.12 deep): its start is renewed again and again
        b.location.y = 0.04 * k
        bpy.context.view_layer.update()
        assert result("A", "B").status == 'penetrating'
    assert len(renewals) > 2 and len(live.prepared_shapes().unbuilt_support_tables()) == 2
    while live.settle() is not None:
        pass
    assert not live.prepared_shapes().support_tables_pending and not result("A", "B").volume_pending
    bpy.app.timers.unregister(live.settle)


def test_dragging_a_non_convex_pair_carries_its_pushout_along(unhurried, live_pair, addon, monkeypatch):
    """While the interface runs, a penetrating non-convex pair dragged (translated) is answered from its last full
    answer: its push-out carried along (exact here: B sinks straight down) and a proven lower bound, the volume
    pending; once the object stops, ``settle`` measures it in full again."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    full = counted_full_measurements(addon, monkeypatch)
    interface_runs(addon, monkeypatch)
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 60.0)  # the new shape measured at once, however loaded the host
    bpy.data.objects["A"].data = l_shape("L")
    b = bpy.data.objects["B"]
    b.location = (1.0, 0.0, 0.7)  # in the notch, sunk 0.3 into the foot's top face
    bpy.context.view_layer.update()
    pair = result("A", "B")
    assert pair.method == 'mesh' and len(full) == 1 and pair.overlap_volume == pytest.approx(0.3, abs=1e-6)
    assert pair.depth_lower_bound - 1e-6 <= 0.3 <= pair.depth <= 0.3 + 1e-3  # a checked push-out, nearly the shortest
    first = pair.depth
    for z in (0.68, 0.66):  # two steps of a drag, deeper
        b.location.z = z
        bpy.context.view_layer.update()
        pair = result("A", "B")
        assert len(full) == 1 and pair.status == 'penetrating' and pair.volume_pending
        assert pair.depth == pytest.approx(first + 0.7 - z, abs=1e-6)  # the push-out straight up, carried along
        assert pair.depth_lower_bound <= 1.0 - z and pair.depth_is_estimate
        # the witness points stay on their objects (A's within the push-out's slack over the shortest)
        assert nearest_surface_distance(b, pair.point_b) == pytest.approx(0.0, abs=1e-6)
        assert nearest_surface_distance(bpy.data.objects["A"], pair.point_a) <= pair.depth * 2.0 ** -10
    assert live.settle() is None
    pair = result("A", "B")
    assert len(full) == 2 and not pair.volume_pending and pair.overlap_volume == pytest.approx(0.34, abs=1e-6)
    # B's float32 height (0.66 is 0.66000003) leaves the shortest push-out 3e-8 short of 0.34
    assert pair.depth_lower_bound - 1e-6 <= 0.34 <= pair.depth + 1e-6 <= 0.34 + 1e-3
    bpy.app.timers.unregister(live.settle)


def test_a_turned_object_dragged_is_moved_by_an_exact_translation(live_pair, addon, monkeypatch):
    """A turned object that only moves is moved by a pure translation (its prepared shape keeps an exact identity
    linear part), so a penetrating non-convex pair dragged right after live update is switched on is answered
    from its last full answer, and the convex hull's queries never pay for a turn."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    full = counted_full_measurements(addon, monkeypatch)
    interface_runs(addon, monkeypatch)
    settings = live_pair.collision_inspector
    a, b = bpy.data.objects["A"], bpy.data.objects["B"]
    a.data = l_shape("L")
    for obj in (a, b):
        obj.rotation_euler = (0.3, 0.2, 0.1)
    b.location = a.matrix_world @ mathutils.Vector((1.0, 0.0, 0.7))  # in the notch, sunk 0.3 into the foot
    settings.live_update = False
    settings.live_update = True
    monkeypatch.setattr(live, "SETTLE_BUDGET_SECONDS", 60.0)  # one call, however loaded the host
    live.settle()  # in idle time: read afresh, turned, measured in full once
    assert len(full) == 1 and result("A", "B").status == 'penetrating'
    for step in range(1, 4):
        b.location.z -= 0.01
        bpy.context.view_layer.update()
        assert len(full) == 1, step  # answered from the start: the moves are translations
        assert result("A", "B").status == 'penetrating' and result("A", "B").volume_pending
    shapes = importlib.import_module(addon.__name__ + ".analysis.shapes")
    convex = importlib.import_module(addon.__name__ + ".core.shapes.convex")
    moved = live.prepared_shapes().solid(shapes.Source("B", b, b), bpy.context.evaluated_depsgraph_get(), False)
    assert moved.placement[1][:3, :3].tolist() == np.eye(3).tolist()
    assert moved.hull.affine[0] is convex.IDENTITY  # not turned: its queries skip the linear part
    assert live.settle() is None
    bpy.app.timers.unregister(live.settle)


def test_an_update_short_of_time_leaves_full_measurements_waiting_longest_first(empty_scene, addon, monkeypatch):
    """While the interface runs, an update starts no full measurement of a pair once its budget is spent (here
    the first spends it): the pairs left stay stale and pending; the next update starts with the pair
    that waited longest, and ``settle`` measures the rest once the objects stop, as a complete update would."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    dispatch = importlib.import_module(addon.__name__ + ".core.mesh.contact.dispatch")
    measure, full = dispatch.mesh_pair, []

    def one_full_measurement_spends_the_budget(a, b, options):
        full.append(b.name)
        return measure(a, b, options)

    # a budget of ten minutes, and the core's clock an hour later once the update has made a full measurement
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 600.0)
    clock = SimpleNamespace(perf_counter=lambda: time.perf_counter() + 3600.0 * len(full))
    for name in ("contact.batch", "contact.convex_pairs", "drag.separated_pairs"):  # every module that reads it
        monkeypatch.setattr(importlib.import_module(f"{addon.__name__}.core.mesh.{name}"), "time", clock)
    monkeypatch.setattr(dispatch, "mesh_pair", one_full_measurement_spends_the_budget)
    interface_runs(addon, monkeypatch)
    for k in range(3):
        add_cube(f"A{k}", 10.0 * k).data = l_shape(f"L{k}")
        add_cube(f"B{k}", 10.0 * k + 1.0).location.z = 1.0  # in the notch, touching
    bpy.context.view_layer.update()
    assert [status for _a, _b, status in analyse('ALL')] == ['touching'] * 3
    settings = empty_scene.collision_inspector
    settings.live_update = True
    measured = []
    for step, z in enumerate((0.8, 0.7)):  # two updates rotating the three B objects: no start serves a turn
        full.clear()
        for k in range(3):
            bpy.data.objects[f"B{k}"].location.z = z
            bpy.data.objects[f"B{k}"].rotation_euler.z = 0.01 * (step + 1)
        bpy.context.view_layer.update()
        assert len(full) == 1  # one full measurement, then the budget was spent
        measured += full
        waiting = [r for r in settings.results if r.stale]
        assert len(waiting) == 2 and all(r.volume_pending for r in waiting)
        assert not result(f"A{int(full[0][1])}", full[0]).stale
    assert measured[1] != measured[0]  # the second update started with a pair the first left waiting
    while live.settle() is not None:
        pass
    complete = [(r.status, r.signed_distance, *r.normal) for r in settings.results]
    assert not any(r.stale or r.volume_pending for r in settings.results)
    interface_runs(addon, monkeypatch, False)
    live.switched(settings)  # measured again from scratch (read where the objects are now), complete
    again = [(r.status, r.signed_distance, *r.normal) for r in settings.results]
    assert [row[0] for row in again] == [row[0] for row in complete]
    assert [row[1:] for row in again] == [pytest.approx(row[1:], abs=1e-12) for row in complete]
    assert {r.status for r in settings.results} == {'penetrating'}
    bpy.app.timers.unregister(live.settle)


def test_an_update_short_of_time_solves_overlapping_convex_pairs_waiting_longest_first(empty_scene, addon,
                                                                                       monkeypatch):
    """While the interface runs, an update solves no further overlapping convex pair by EPA once its budget is spent
    (here the first spends it). A pair left that was only moved since its last exact answer is answered from it (a
    checked push-out, a lower bound, its volume pending); one with no such answer waits, stale. The next update
    solves the pair that waited longest, and ``settle`` measures them all once the objects stop, as a complete
    update would."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    warm_epa = importlib.import_module(addon.__name__ + ".core.narrowphase.warm_epa")
    solve, solved = warm_epa.solve_warm, []
    # a budget of ten minutes, and the solver's clock an hour later once the update has solved a pair
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 600.0)
    clock = SimpleNamespace(perf_counter=lambda: time.perf_counter() + 3600.0 * len(solved))
    monkeypatch.setattr(warm_epa, "time", clock)
    monkeypatch.setattr(warm_epa, "solve_warm", lambda pair, *args: solved.append(pair) or solve(pair, *args))
    interface_runs(addon, monkeypatch)
    for k in range(3):  # ico spheres of 162 vertices: too many edge pairs for SAT, solved by EPA
        for name, x in ((f"A{k}", 10.0 * k), (f"B{k}", 10.0 * k + 1.5)):
            bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=2, radius=1.0, location=(x, 0.0, 0.0))
            bpy.context.active_object.name = name
    bpy.context.view_layer.update()
    assert [status for _a, _b, status in analyse('ALL')] == ['penetrating'] * 3
    settings = empty_scene.collision_inspector
    settings.live_update = True  # measured in idle time: not yet, so no pair has an exact live answer
    for step in (1, 2, 3):  # three updates of a drag moving the three B objects
        solved.clear()
        for k in range(3):
            bpy.data.objects[f"B{k}"].location.y = 0.01 * step
        bpy.context.view_layer.update()
        assert len(solved) == 1  # one pair solved, then the budget was spent
        exact = [r.name_b for r in settings.results if not r.stale and not r.depth_is_estimate]
        assert exact == [f"B{step - 1}"]  # the pair that waited longest (never solved, in the order given)
        carried = [r for r in settings.results if not r.stale and r.depth_is_estimate]
        assert [r.name_b for r in carried] == [f"B{k}" for k in range(step - 1)]  # solved at an earlier update
        assert all(r.status == 'penetrating' and r.volume_pending and r.depth_lower_bound < r.depth for r in carried)
        waiting = [r for r in settings.results if r.stale]
        assert len(waiting) == 3 - step and all(r.volume_pending for r in waiting)
    while live.settle() is not None:
        pass
    settled = [(r.status, r.signed_distance, *r.normal) for r in settings.results]
    assert not any(r.stale or r.volume_pending or r.depth_is_estimate for r in settings.results)
    interface_runs(addon, monkeypatch, False)
    live.switched(settings)  # measured again from scratch (read where the objects are now), complete
    again = [(r.status, r.signed_distance, *r.normal) for r in settings.results]
    assert [row[0] for row in again] == [row[0] for row in settled] == ['penetrating'] * 3
    assert [row[1:] for row in again] == [pytest.approx(row[1:], abs=1e-9) for row in settled]
    bpy.app.timers.unregister(live.settle)


def test_dragging_a_non_convex_pair_apart_keeps_its_distance_exact(live_pair, addon, monkeypatch):
    """A separated non-convex pair dragged (translated) is measured among the triangle pairs its start keeps near
    the closest ones, in any mode: the exact distance, without a full measurement; a turn measures it in full
    again."""
    full = counted_full_measurements(addon, monkeypatch)
    bpy.data.objects["A"].data = l_shape("L")
    b = bpy.data.objects["B"]
    b.location = (1.25, 0.0, 1.2)  # in the notch: 0.25 from the upright's side, 0.2 above the foot
    bpy.context.view_layer.update()
    pair = result("A", "B")
    assert pair.method == 'mesh' and pair.status == 'separated' and len(full) == 1
    assert pair.distance == pytest.approx(0.2, abs=1e-6)
    b.location.y = 0.005  # a slow move sideways, shorter than the distance: the triangle pairs near the closest
    bpy.context.view_layer.update()  # ones kept, no full measurement (the objects stayed apart along the move)
    assert len(full) == 1 and result("A", "B").distance == pytest.approx(0.2, abs=1e-6)
    for location, distance in (((1.25, 0.0, 1.19), 0.19), ((1.24, 0.01, 1.18), 0.18), ((1.235, 0.0, 1.19), 0.19)):
        b.location = location
        bpy.context.view_layer.update()
        pair = result("A", "B")
        assert len(full) == 1 and pair.status == 'separated'
        assert pair.distance == pytest.approx(distance, abs=1e-6)
        assert pair.point_b[2] - pair.point_a[2] == pytest.approx(distance, abs=1e-6)  # straight down to the foot
    b.rotation_euler.z = 0.05  # its corners still further from the upright than its bottom from the foot
    bpy.context.view_layer.update()
    assert len(full) == 2 and result("A", "B").distance == pytest.approx(0.19, abs=1e-6)


def test_a_non_convex_pair_apart_left_without_time_is_answered_from_its_last_distance(unhurried, live_pair, addon, monkeypatch):
    """While the interface runs, a separated non-convex pair moved beyond its start in an update with no time left
    is answered from its last exact distance rather than left waiting: apart, at most the carried closest points'
    distance and at least the last one less the move (the panel says so), pending; exact again once it stops."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    panel = importlib.import_module(addon.__name__ + ".ui.panel")
    interface_runs(addon, monkeypatch)
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 60.0)  # the new shape measured at once, however loaded the host
    bpy.data.objects["A"].data = l_shape("L")
    b = bpy.data.objects["B"]
    b.location = (1.25, 0.0, 1.2)  # in the notch: 0.2 above the foot
    bpy.context.view_layer.update()
    assert result("A", "B").distance == pytest.approx(0.2, abs=1e-6)
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 0.0)
    b.location.y = 0.1  # far beyond what the start keeps, still 0.2 above the foot
    bpy.context.view_layer.update()
    pair = result("A", "B")
    assert not pair.stale and pair.status == 'separated' and pair.distance_is_estimate and pair.volume_pending
    assert 0.2 - 0.1 - 1e-9 <= pair.distance_lower_bound <= 0.2 <= pair.distance + 1e-9
    assert "at least" in " ".join(panel.depth_details(pair, live_pair))
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 0.012)
    while live.settle() is not None:
        pass
    pair = result("A", "B")
    assert not pair.stale and not pair.distance_is_estimate and not pair.volume_pending
    assert pair.distance == pytest.approx(0.2, abs=1e-6)
    bpy.app.timers.unregister(live.settle)


def test_settling_readies_separated_non_convex_pairs_for_the_next_drag(unhurried, live_pair, addon, monkeypatch):
    """Once the objects stop, a separated non-convex pair's start keeps the triangle pairs near its closest ones
    where the pair is now, so the next drag's first update searches no tree; beyond the memory budget for them,
    they are dropped and the answer stays (a renewal left under way by the drag too)."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    translated = importlib.import_module(addon.__name__ + ".core.mesh.drag.translated_distance")
    interface_runs(addon, monkeypatch)
    full = counted_full_measurements(addon, monkeypatch)
    searches = []
    for name in ("near_triangle_pair_steps", "mesh_distance_steps"):
        search = getattr(translated, name)
        monkeypatch.setattr(translated, name,
                            lambda *args, search=search, **kw: searches.append(1) or search(*args, **kw))
    bpy.data.objects["A"].data = l_shape("L")
    b = bpy.data.objects["B"]
    b.location = (1.25, 0.0, 1.2)  # 0.2 above the L's foot
    bpy.context.view_layer.update()

    remeasure = importlib.import_module(addon.__name__ + ".analysis.remeasure")

    def sides() -> list:
        """The pair's sources, as the live update's cache knows them."""
        found = remeasure.stored_sources(bpy.context.evaluated_depsgraph_get(), live_pair.collision_inspector.results,
                                         [0])
        return [found[0]]

    def kept() -> int:
        [start] = live.prepared_shapes().warm_starts(sides())
        return len(start.gaps)

    b.location.y = 0.3  # a fast move: no triangle pairs kept while dragging
    bpy.context.view_layer.update()
    assert kept() == 0 and result("A", "B").distance == pytest.approx(0.2, abs=1e-6)
    while live.settle() is not None:
        pass
    assert kept() > 0
    full.clear(), searches.clear()
    b.location.y = 0.301  # the next drag
    bpy.context.view_layer.update()
    assert not full and not searches and result("A", "B").distance == pytest.approx(0.2, abs=1e-6)
    [start] = live.prepared_shapes().warm_starts(sides())
    live.prepared_shapes().keep_warm_starts(sides(), [translated.Renewal(start, (None for _ in ()))])  # left under way
    solid_cache = importlib.import_module(addon.__name__ + ".analysis.solid_cache")
    monkeypatch.setattr(solid_cache, "KEPT_PAIRS_BUDGET_BYTES", 0)
    while live.settle() is not None:
        pass
    assert kept() == 0 and result("A", "B").distance == pytest.approx(0.2, abs=1e-6)  # dropped with its pairs
    bpy.app.timers.unregister(live.settle)


def test_in_background_mode_every_update_is_complete(live_pair):
    bpy.data.objects["B"].location.x = 0.75
    bpy.context.view_layer.update()
    pair = result("A", "B")
    assert not pair.volume_pending and pair.overlap_volume == pytest.approx(0.25, abs=1e-9)


def test_switching_on_while_the_interface_runs_measures_in_idle_time(live_pair, addon, monkeypatch):
    """Ticking Live Update while the interface runs measures nothing at once (the box does not hold the interface
    while every object is read and prepared): ``settle`` measures every pair in full, the stale ones first, reading
    and preparing one object or measuring one pair at a time within its budget; then a drag finds the shapes
    prepared."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    interface_runs(addon, monkeypatch)
    monkeypatch.setattr(live, "SETTLE_BUDGET_SECONDS", 0.0)  # a pair per call
    settings = live_pair.collision_inspector
    add_cube("C", 6.0)
    select_only(*(bpy.data.objects[name] for name in "ABC"))
    analyse('SELECTED')
    assert [(r.name_a, r.name_b) for r in settings.results] == [("A", "B"), ("A", "C"), ("B", "C")]
    settings.live_update = False
    bpy.data.objects["C"].location.x = 3.75  # B-C now penetrate: stale until measured
    bpy.context.view_layer.update()
    reads = counted_reads(addon, monkeypatch)
    settings.live_update = True
    assert not reads and result("B", "C").stale and result("B", "C").status == 'separated'
    panel = importlib.import_module(addon.__name__ + ".ui.panel")
    assert panel.pair_summary(result("B", "C"), live_pair).endswith("(waiting until nothing moves)")
    measured = []
    measure = live.remeasure
    monkeypatch.setattr(live, "remeasure", lambda *args, **kw: measured.append(1) or measure(*args, **kw))
    # The stale pairs first (C moved: A-C, then B-C): each object read and prepared at a call of its own.
    for expected_reads, expected_measured in ((["A"], 0), (["A", "C"], 0), (["A", "C"], 1)):
        assert live.settle() == live.SETTLE_STEP_SECONDS
        assert reads == expected_reads and len(measured) == expected_measured
    assert not result("A", "C").stale and result("B", "C").stale
    shapes = importlib.import_module(addon.__name__ + ".analysis.shapes")
    prepared = live.prepared_shapes().solid(shapes.Source("C", bpy.data.objects["C"], bpy.data.objects["C"]),
                                 bpy.context.evaluated_depsgraph_get(), False)
    assert {"method", "hull"} <= prepared.__dict__.keys()  # classified, its hull built before the measurement
    assert live.settle() == live.SETTLE_STEP_SECONDS and reads == ["A", "C", "B"] and len(measured) == 1
    assert live.settle() == live.SETTLE_STEP_SECONDS and len(measured) == 2
    pair = result("B", "C")
    assert pair.status == 'penetrating' and not pair.stale and not pair.volume_pending
    assert pair.overlap_volume == pytest.approx(0.25, abs=1e-9)
    assert panel.pair_summary(pair, live_pair).startswith("B ↔ C: penetrating, depth") and "waiting" not in \
        panel.pair_summary(pair, live_pair)
    assert live.settle() is None and len(reads) == 3  # A-B, from the shapes already prepared
    bpy.data.objects["C"].location.x = 3.7
    bpy.context.view_layer.update()
    assert len(reads) == 3 and result("B", "C").depth == pytest.approx(0.3, abs=1e-6)
    bpy.app.timers.unregister(live.settle)


def test_after_a_file_load_or_undo_the_objects_are_prepared_again_in_idle_time(live_pair, addon, monkeypatch):
    """A file loaded, an undo or a redo replaces every object, and their prepared shapes go: with live update on
    while the interface runs, ``settle`` reads and prepares them again in idle time (as switching on does), so that
    the first drag reads none; with it off, nothing is read."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    interface_runs(addon, monkeypatch)
    reads = counted_reads(addon, monkeypatch)
    live.on_data_replaced()  # the handler of load_post, undo_post and redo_post
    assert not reads
    while live.settle() is not None:
        pass
    assert sorted(reads) == ["A", "B"]
    bpy.data.objects["B"].location.x = 2.5
    bpy.context.view_layer.update()
    assert sorted(reads) == ["A", "B"] and result("A", "B").distance == pytest.approx(1.5, abs=1e-6)
    live_pair.collision_inspector.live_update = False
    reads.clear()
    live.on_data_replaced()
    while live.settle() is not None:
        pass
    assert not reads
    if bpy.app.timers.is_registered(live.settle):
        bpy.app.timers.unregister(live.settle)


def test_switching_on_ends_with_an_object_scaled_flat(live_pair, addon, monkeypatch):
    """An object scaled to nothing along an axis (a singular matrix) is read at each measurement, never kept: the
    idle measuring after switching on still comes to an end, the pair measured."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    interface_runs(addon, monkeypatch)
    settings = live_pair.collision_inspector
    settings.live_update = False
    bpy.data.objects["B"].scale.x = 0.0  # flat: its face at x = 3, 2 from A
    bpy.context.view_layer.update()
    settings.live_update = True
    for _ in range(20):
        if live.settle() is None:
            break
    else:
        pytest.fail("settle did not come to an end")
    assert not result("A", "B").stale and result("A", "B").distance == pytest.approx(2.5, abs=1e-6)
    bpy.app.timers.unregister(live.settle)


def test_editing_a_mesh_slow_to_measure_leaves_its_pairs_to_settle(live_pair, addon, monkeypatch):
    """While the interface runs, an object whose edit took longer than the update budget to measure is not read
    again at its further edits (a 10k-vertex mesh takes 0.25-0.4 s): its pairs wait, stale and pending, and
    ``settle`` reads it once the edit pauses, also after the next edit gesture. An object that took that long to
    read, prepare and measure a pair of after switching live update on waits from its first edit."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    interface_runs(addon, monkeypatch)
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 0.0)  # every edit "slow"
    reads = counted_reads(addon, monkeypatch)
    mesh = bpy.data.objects["B"].data  # the cube at x = 3, 2 from A

    def pull_left_face(x: float) -> None:
        for vertex in mesh.vertices:
            if vertex.co.x < 0.0:
                vertex.co.x = x
        mesh.update()
        bpy.context.view_layer.update()

    pull_left_face(-1.0)  # the first edit: read and measured at once (and found slow)
    assert reads == ["B"] and result("A", "B").distance == pytest.approx(1.5, abs=1e-6)
    assert not result("A", "B").stale
    overlay = importlib.import_module(addon.__name__ + ".ui.overlay")
    drawn = overlay.scene_drawing(live_pair)
    pull_left_face(-1.5)  # the edit goes on: its pair waits (and the overlay is told)
    assert reads == ["B"] and result("A", "B").stale and result("A", "B").volume_pending
    assert overlay.scene_drawing(live_pair) is not drawn
    assert result("A", "B").distance == pytest.approx(1.5, abs=1e-6)
    while live.settle() is not None:
        pass
    assert reads == ["B", "B"] and not result("A", "B").stale and not result("A", "B").volume_pending
    assert result("A", "B").distance == pytest.approx(1.0, abs=1e-6)
    pull_left_face(-2.0)  # the next gesture after the pause: still left to settle
    assert reads == ["B", "B"] and result("A", "B").stale
    while live.settle() is not None:
        pass
    assert reads == ["B", "B", "B"] and result("A", "B").distance == pytest.approx(0.5, abs=1e-6)
    settings = live_pair.collision_inspector
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 60.0)
    settings.live_update = False
    settings.live_update = True  # switched again: the marks forgotten; now fast enough, edits are measured at once
    while live.settle() is not None:
        pass
    reads.clear()
    pull_left_face(-1.9)
    assert reads == ["B"] and result("A", "B").distance == pytest.approx(0.6, abs=1e-6)
    assert not result("A", "B").stale
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 0.0)
    settings.live_update = False
    settings.live_update = True  # switching on reads, prepares and measures in idle time: that tells who is slow
    while live.settle() is not None:
        pass
    reads.clear()
    pull_left_face(-1.8)  # so the first edit waits too, instead of holding the interface once to find out
    assert not reads and result("A", "B").stale and result("A", "B").volume_pending
    while live.settle() is not None:
        pass
    assert reads == ["B"] and result("A", "B").distance == pytest.approx(0.7, abs=1e-6)
    bpy.app.timers.unregister(live.settle)


def test_editing_in_edit_mode_measures_the_pair_again(live_pair):
    """Vertices moved in edit mode (the edit mesh, as the tools change it) are read from the evaluated mesh."""
    b = bpy.data.objects["B"]
    select_only(b)
    bpy.context.view_layer.objects.active = b
    bpy.ops.object.mode_set(mode='EDIT')
    try:
        edited = bmesh.from_edit_mesh(b.data)
        for vertex in edited.verts:
            if vertex.co.x < 0.0:
                vertex.co.x = -1.0  # B's left face 0.5 closer to A
        bmesh.update_edit_mesh(b.data)
        bpy.context.view_layer.update()
        pair = result("A", "B")
        assert not pair.stale and pair.distance == pytest.approx(1.5, abs=1e-6)
    finally:
        bpy.ops.object.mode_set(mode='OBJECT')


def test_a_waiting_pair_keeps_its_last_answer_but_its_label_drops_the_volume(live_pair, addon, monkeypatch):
    """A pair left waiting for ``settle`` keeps its last numbers (stale, with the clock icon) but its overlap volume
    is pending: the viewport label shows the depth alone, as the panel says the volume is to come."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    overlay = importlib.import_module(addon.__name__ + ".ui.overlay")
    b = bpy.data.objects["B"]
    b.location.x = 0.75  # background mode: complete, with its volume
    bpy.context.view_layer.update()
    assert result("A", "B").overlap_volume == pytest.approx(0.25, abs=1e-9)
    assert overlay.scene_drawing(live_pair).volumes.tolist() == [pytest.approx(0.25, abs=1e-6)]
    interface_runs(addon, monkeypatch)
    monkeypatch.setattr(live, "UPDATE_BUDGET_SECONDS", 0.0)  # no time to measure the edit: its pair waits
    b.data.vertices[0].co.z += 0.01
    b.data.update()
    bpy.context.view_layer.update()
    pair = result("A", "B")
    assert pair.stale and pair.volume_pending and pair.overlap_volume == pytest.approx(0.25, abs=1e-9)
    assert overlay.scene_drawing(live_pair).volumes.tolist() == [0.0]
    bpy.app.timers.unregister(live.settle)


def test_a_move_not_yet_evaluated_when_settle_runs_is_measured_not_left_waiting(live_pair, addon, monkeypatch):
    """While the interface runs, a script's timer may move an object right before ``settle``'s timer call, in the
    same pass of Blender's event loop: the depsgraph is evaluated inside ``settle`` then. That update reaches the
    live update like any other: the pair is measured where B is now, not left stale ("Waiting until nothing
    moves") with the old numbers."""
    live = importlib.import_module(addon.__name__ + ".analysis.live")
    interface_runs(addon, monkeypatch)
    b = bpy.data.objects["B"]
    b.location.x = 2.5  # a move, not evaluated yet
    for _call in range(100):  # the timer's calls, until settle has nothing left
        if live.settle() is None:
            break
    pair = result("A", "B")
    assert not pair.stale and not pair.volume_pending
    assert pair.distance == pytest.approx(1.5, abs=1e-6)
    if bpy.app.timers.is_registered(live.settle):
        bpy.app.timers.unregister(live.settle)
