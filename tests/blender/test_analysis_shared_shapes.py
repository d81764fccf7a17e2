"""analysis.shared_shapes: linked duplicates are classified once, and measured as if each were read on its own.

The reference is the same check with sharing switched off (every object read and classified by itself).
"""

from __future__ import annotations

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
    monkeypatch.setattr(shared.SharedShapes, "solid_steps", lambda self, source, depsgraph, progress=None:
                        shared.read_solid_steps(source, depsgraph, self.use_hull, progress))
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


def test_a_stretch_that_could_change_convexity_is_not_shared(addon, shared):
    core = importlib.import_module(addon.__name__ + ".core")
    solid_module = importlib.import_module(addon.__name__ + ".core.mesh.solid")
    # a unit cube whose far corner is pulled in by 1e-7: its faces fold by that much, convex within
    # CONVEXITY_TOLERANCE but not to rounding (EXACT_CONVEXITY)
    vertices = np.array([(x, y, z) for x in (0.0, 1.0) for y in (0.0, 1.0) for z in (0.0, 1.0)])
    vertices[7] -= 1e-7
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    triangles = [(a, b, c) for a, b, c, _d in quads] + [(a, c, d) for a, _b, c, d in quads]
    local = core.mesh.Solid(core.mesh.TriangleMesh.from_arrays(vertices, np.array(triangles)))
    defect = local.parts[0].convexity_defect
    assert solid_module.EXACT_CONVEXITY < defect < solid_module.CONVEXITY_TOLERANCE
    assert shared.shares_classification(local, np.diag([1.0, 2.0, 3.0]))
    assert not shared.shares_classification(local, np.diag([1.0, 1.0, 2.0 * solid_module.CONVEXITY_TOLERANCE / defect]))
    assert not shared.shares_classification(local, np.diag([1.0, 1.0, 1e-12]))
