"""analysis.shared_shapes: linked duplicates are classified once, and measured as if each were read on its own.

The reference is the same check with sharing switched off (every object read and classified by itself).
"""

from __future__ import annotations

import dataclasses
import importlib

import bpy
import numpy as np
import pytest


@pytest.fixture
def clash(addon):
    return importlib.import_module(addon.__name__ + ".analysis.clash")


@pytest.fixture
def shared(addon):
    return importlib.import_module(addon.__name__ + ".analysis.shared_shapes")


@pytest.fixture
def solid_module(addon):
    return importlib.import_module(addon.__name__ + ".core.mesh.solid")


def duplicates(mesh: bpy.types.Mesh, count: int, rng: np.random.Generator, scale_spread: float = 0.0) -> list:
    """``count`` linked duplicates of ``mesh`` in a row, turned at random, close enough that neighbours clash."""
    objects = []
    for index in range(count):
        obj = bpy.data.objects.new(f"dup{index:02d}", mesh)
        bpy.context.scene.collection.objects.link(obj)
        obj.location = (0.8 * index, rng.uniform(-0.05, 0.05), 0.0)
        obj.rotation_euler = rng.uniform(0.0, np.pi, 3)
        obj.scale = 1.0 + scale_spread * rng.uniform(0.0, 1.0, 3)
        objects.append(obj)
    bpy.context.view_layer.update()
    return objects


def sphere_mesh() -> bpy.types.Mesh:
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=2, radius=0.5)
    obj = bpy.context.active_object
    mesh = obj.data
    bpy.data.objects.remove(obj)
    return mesh


def counting(monkeypatch, solid_module) -> list:
    """Count the convexity classifications the core makes (``topology.convexity_defect`` via ``Solid.parts``, and
    the objects ``core.mesh.classify`` classifies together)."""
    calls = []
    original = solid_module.convexity_defect

    def counted(mesh):
        calls.append(len(mesh.vertices))
        return original(mesh)
    monkeypatch.setattr(solid_module, "convexity_defect", counted)
    classify_module = importlib.import_module(solid_module.__name__.rsplit(".", 1)[0] + ".classify")
    classify_together = classify_module.classify_stacked

    def counted_together(stack, solids):
        classify_together(stack, solids)
        calls.extend(len(solid.mesh.vertices) for solid in solids if "parts" in solid.__dict__)
    monkeypatch.setattr(classify_module, "classify_stacked", counted_together)
    return calls


def check(clash):
    return clash.check_scene(bpy.context.scene, bpy.context.evaluated_depsgraph_get(), scope="ALL")


def assert_same_results(report, reference) -> None:
    """The same pairs, statuses and methods, and the same numbers to rounding (a moved hull and a hull of moved
    points are the same polytope, measured in another order of operations)."""
    assert [(r.object_a, r.object_b, r.status, r.method, r.volume_certainty) for r in report.results] == [
        (r.object_a, r.object_b, r.status, r.method, r.volume_certainty) for r in reference.results]
    for name in ("signed_distance", "overlap_volume"):
        values = np.array([getattr(r, name) or 0.0 for r in report.results])
        expected = np.array([getattr(r, name) or 0.0 for r in reference.results])
        np.testing.assert_allclose(values, expected, rtol=1e-9, atol=1e-12)


def test_fifty_linked_duplicates_are_classified_once(empty_scene, clash, shared, solid_module, monkeypatch):
    duplicates(sphere_mesh(), 50, np.random.default_rng(3))
    calls = counting(monkeypatch, solid_module)
    report = check(clash)
    assert len(calls) == 1
    assert sum(r.status == "penetrating" for r in report.results) >= 40
    monkeypatch.setattr(shared.SharedShapes, "shares", lambda self, source: False)  # each read by itself
    calls.clear()
    alone = check(clash)
    assert len(calls) == 50
    assert_same_results(report, alone)


def test_a_duplicate_with_a_modifier_is_read_on_its_own(empty_scene, clash, solid_module, monkeypatch):
    objects = duplicates(sphere_mesh(), 4, np.random.default_rng(5))
    objects[0].modifiers.new("bevel", "BEVEL")
    bpy.context.view_layer.update()
    calls = counting(monkeypatch, solid_module)
    check(clash)
    assert len(calls) == 2  # the three unmodified ones share one classification; the bevelled one has its own
    assert sorted(calls)[0] == len(objects[1].data.vertices)


def _folded_cube(core):
    """A unit cube whose far corner is pulled in by 1e-7: its faces fold by that much, convex within
    CONVEXITY_TOLERANCE but not to rounding (EXACT_CONVEXITY)."""
    vertices = np.array([(x, y, z) for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 1.0)])
    vertices[7] -= 1e-7
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    triangles = [(a, b, c) for a, b, c, _d in quads] + [(a, c, d) for a, _b, c, d in quads]
    return core.mesh.Solid(core.mesh.TriangleMesh.from_arrays(vertices, np.array(triangles)))


def test_a_stretch_that_could_change_convexity_is_not_shared(addon, shared):
    core = importlib.import_module(addon.__name__ + ".core")
    solid_module = importlib.import_module(addon.__name__ + ".core.mesh.solid")
    local = _folded_cube(core)
    defect = local.parts[0].convexity_defect
    assert solid_module.EXACT_CONVEXITY < defect < solid_module.CONVEXITY_TOLERANCE
    assert shared.shares_classification(local, np.diag([1.0, 2.0, 3.0]))
    assert not shared.shares_classification(local, np.diag([1.0, 1.0, 2.0 * solid_module.CONVEXITY_TOLERANCE / defect]))
    assert not shared.shares_classification(local, np.diag([1.0, 1.0, 1e-12]))


def pulled_cube(name: str) -> bpy.types.Mesh:
    """A unit cube whose far corner is pulled in by 1e-7: convex within CONVEXITY_TOLERANCE, not to rounding."""
    vertices = [(x, y, z) for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 1.0)]
    vertices[7] = (1.0 - 1e-7,) * 3
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices, [], quads)
    mesh.update()
    return mesh


def test_copies_placed_together_answer_as_copies_placed_one_at_a_time(empty_scene, clash, shared, monkeypatch):
    """Consecutive copies of a shared geometry are checked and moved together (``shared_shapes.moved_copies``);
    those it cannot place are read on their own: a stretch that could change the convexity, a map near singular,
    copies so far out that rounding merges their vertices, and a mirrored one. The reference places each copy by
    itself (``SharedShapes.solid_steps``, as a big object is read)."""
    rng = np.random.default_rng(8)
    bpy.ops.mesh.primitive_torus_add(major_radius=0.4, minor_radius=0.12)
    torus = bpy.context.active_object
    torus_mesh = torus.data
    bpy.data.objects.remove(torus)
    objects = (duplicates(sphere_mesh(), 12, rng, 0.3) + duplicates(torus_mesh, 12, rng, 0.3)
               + duplicates(pulled_cube("pulled"), 8, rng, 0.2))
    for k, obj in enumerate(objects):
        obj.name = f"copy {k:02d}"
        obj.location.y += 1.0 * (k // 12)
    objects[3].scale = (1.0, 1.0, 1e-12)  # near singular
    objects[15].scale.x *= -1.0  # mirrored
    objects[26].scale = (1.0, 1.0, 2e-5 / 1e-7)  # may no longer be convex within the tolerance
    for obj in objects[29:31]:
        obj.location = (1e17, 1e17, 1e17)  # its vertices merge
    bpy.context.view_layer.update()
    read_alone, read_solid_steps = [], clash.read_solid_steps
    monkeypatch.setattr(clash, "read_solid_steps", lambda source, *rest: read_alone.append(source.name) or
                        read_solid_steps(source, *rest))
    together = check(clash)
    assert sorted(read_alone) == ["copy 03", "copy 26", "copy 29", "copy 30"]
    assert sum(result.status == "penetrating" for result in together.results) >= 20
    monkeypatch.setattr(clash, "may_be_slow_to_read", lambda source: True)  # each copy placed by itself
    alone = check(clash)
    assert repr([dataclasses.asdict(r) for r in together.results]) == repr(
        [dataclasses.asdict(r) for r in alone.results])  # every field, floats to the last bit
    assert together.skipped == alone.skipped
    assert [shape[0].name for shape in together.shapes] == [shape[0].name for shape in alone.shapes]
    for kept, reference in zip(together.shapes, alone.shapes):
        assert kept[1].mesh.vertices.tobytes() == reference[1].mesh.vertices.tobytes()
        assert kept[1].method == reference[1].method


def test_maps_checked_together_are_those_checked_alone(addon, shared):
    core = importlib.import_module(addon.__name__ + ".core")
    local = _folded_cube(core)
    rng = np.random.default_rng(4)
    linears = rng.normal(size=(400, 3, 3)) * np.exp(rng.uniform(-1.0, 1.0, (400, 3, 1)))
    linears[5:10, 2] *= 1e-12
    linears[7, 2] = np.nan
    shared_together = shared.shared_classifications(local, linears)
    assert 50 < shared_together.sum() < 350 and not shared_together[7]  # (a map that is not finite: never)
    assert [shared.shares_classification(local, linear) for linear in linears] == shared_together.tolist()
