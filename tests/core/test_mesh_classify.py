"""Classifying many solids at once (``core.mesh.classify``) against each solid classifying itself: on seeded scenes
of mixed objects (convex, curved convex to rounding, non-convex, open, split-vertex, inside-out, several parts,
float32-rounded, empty) every derived answer must be the one the solid computes alone, bit for bit."""

import dataclasses

import numpy as np
import pytest

import mesh_fixtures as fx
from generators import random_rotation
from core.mesh import classify
from core.mesh.classify import SMALL_TRIANGLES, classify_solids, prepare_hull_features
from core.mesh import solid as solid_module
from core.mesh.repair import MeshRepair, repaired
from core.mesh.solid import Solid
from core.mesh.topology import edge_table, loose_parts
from core.mesh.trimesh import TriangleMesh


def hull_mesh(points: np.ndarray) -> TriangleMesh:
    """The convex hull of ``points`` as an outward triangle mesh (scipy's facets)."""
    from scipy.spatial import ConvexHull
    hull = ConvexHull(points)
    used, triangles = np.unique(hull.simplices, return_inverse=True)
    triangles = triangles.reshape(-1, 3)
    vertices = points[used]
    corners = vertices[triangles]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    outward = np.einsum("ij,ij->i", normals, corners[:, 0] - vertices.mean(axis=0)) > 0.0
    return fx.mesh(vertices, np.where(outward[:, None], triangles, triangles[:, ::-1]))


def split_per_face(shape: TriangleMesh) -> TriangleMesh:
    vertices = shape.vertices[shape.triangles].reshape(-1, 3)
    return fx.mesh(vertices, np.arange(len(vertices)).reshape(-1, 3))


def opened(shape: TriangleMesh, count: int) -> TriangleMesh:
    return fx.mesh(shape.vertices, shape.triangles[count:])


def inside_out(shape: TriangleMesh) -> TriangleMesh:
    return fx.mesh(shape.vertices, shape.triangles[:, ::-1])


def float32(shape: TriangleMesh) -> TriangleMesh:
    return fx.mesh(shape.vertices.astype(np.float32).astype(np.float64), shape.triangles)


def with_unused_vertex(shape: TriangleMesh) -> TriangleMesh:
    return fx.mesh(np.vstack([shape.vertices, shape.vertices.max(axis=0) + 1.0]), shape.triangles)


KINDS = {
    "box": lambda rng: fx.box((0, 0, 0), rng.uniform(0.2, 2.0, 3)),
    "hull": lambda rng: hull_mesh(rng.normal(size=(int(rng.integers(4, 40)), 3))),
    "uv sphere": lambda rng: float32(fx.uv_sphere(rng.uniform(0.3, 2.0), int(rng.integers(3, 9)),
                                                  int(rng.integers(3, 17)))),
    "scaled uv sphere": lambda rng: fx.transformed(float32(fx.uv_sphere(1.0, 8, 16)), np.diag(rng.uniform(0.5, 2, 3))),
    "torus": lambda rng: fx.torus(2.0, 0.5, int(rng.integers(6, 16)), int(rng.integers(4, 9))),
    "l bracket": lambda rng: fx.l_bracket(),
    "cup": lambda rng: fx.cup(segments=int(rng.integers(6, 20))),
    "split box": lambda rng: split_per_face(fx.box()),
    "split sphere": lambda rng: split_per_face(fx.uv_sphere(1.0, 6, 8)),
    "open box": lambda rng: opened(fx.box(), int(rng.integers(1, 4))),
    "open sphere": lambda rng: opened(fx.uv_sphere(1.0, 6, 8), 1),
    "inside-out box": lambda rng: inside_out(fx.box()),
    "inside-out sphere": lambda rng: inside_out(float32(fx.uv_sphere(1.0, 6, 10))),
    "two boxes": lambda rng: fx.joined(fx.box(), fx.box((2, 0, 0), (3, 1, 1))),
    "box and inside-out box": lambda rng: fx.joined(fx.box(), inside_out(fx.box((0.2, 0.2, 0.2), (0.8, 0.8, 0.8)))),
    "overlapping parts": lambda rng: fx.joined(fx.box(), fx.box((0.5, 0.5, 0.5), (1.5, 1.5, 1.5))),
    "unused vertex": lambda rng: with_unused_vertex(fx.box()),
    "flat square": lambda rng: fx.mesh([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], [[0, 1, 2], [0, 2, 3]]),
    "double-sided triangle": lambda rng: fx.mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2], [0, 2, 1]]),
    "point": lambda rng: TriangleMesh.from_arrays([[0.0, 0.0, 0.0]], np.zeros((0, 3), dtype=np.int64)),
    "chain link": lambda rng: fx.chain_link(arc_segments=8, wire_segments=6),
}


def scene(seed: int, count: int = 60) -> list[TriangleMesh]:
    """Every kind once, then ``count`` more drawn at random, in a random order."""
    rng = np.random.default_rng(seed)
    names = list(KINDS) + [list(KINDS)[k] for k in rng.integers(len(KINDS), size=count)]
    meshes = []
    for index in rng.permutation(len(names)):
        shape = KINDS[names[index]](rng)
        meshes.append(fx.transformed(shape, random_rotation(rng) * rng.uniform(0.5, 3.0), rng.uniform(-20, 20, 3)))
    return meshes


def assert_same_table(batched, alone):
    for field in ("edges", "triangle_edges", "forward", "uses", "forward_uses"):
        assert np.array_equal(getattr(batched, field), getattr(alone, field)), field


def assert_same_solid(batched: Solid, alone: Solid):
    for field in dataclasses.fields(MeshRepair):
        value_b, value_a = getattr(batched.repair, field.name), getattr(alone.repair, field.name)
        if field.name == "mesh":
            assert np.array_equal(value_b.vertices, value_a.vertices)
            assert np.array_equal(value_b.triangles, value_a.triangles)
        else:
            assert value_b == value_a, field.name
    assert np.array_equal(batched.mesh.vertices, alone.mesh.vertices)
    assert np.array_equal(batched.mesh.triangles, alone.mesh.triangles)
    assert batched.turned_parts == alone.turned_parts
    assert batched.method == alone.method
    assert batched.closed == alone.closed
    assert batched.exactly_convex == alone.exactly_convex
    assert len(batched.parts) == len(alone.parts)
    for part_b, part_a in zip(batched.parts, alone.parts):
        assert part_b.closed == part_a.closed
        assert part_b.convexity_defect == part_a.convexity_defect  # bit for bit (inf included)
        assert np.array_equal(part_b.mesh.triangles, part_a.mesh.triangles)
    if len(alone.mesh.triangles):
        assert_same_table(edge_table(batched.mesh), edge_table(alone.mesh))
        labels_b, count_b = loose_parts(batched.mesh)
        labels_a, count_a = loose_parts(alone.mesh)
        assert count_b == count_a and np.array_equal(labels_b, labels_a)
        assert np.array_equal(batched.mesh.area_normals, alone.mesh.area_normals)
    features_b, features_a = batched.hull_features, alone.hull_features
    assert (features_b is None) == (features_a is None)
    if features_a is not None:
        assert all(np.array_equal(b, a) for b, a in zip(features_b, features_a))
    assert batched.part_overlaps == alone.part_overlaps


@pytest.mark.parametrize("seed", range(6))
def test_batched_classification_is_each_solids_own(seed, monkeypatch):
    meshes = scene(seed)
    batched = [Solid(mesh, name=f"object {k}") for k, mesh in enumerate(meshes)]
    alone_calls = []
    monkeypatch.setattr(solid_module, "repaired", lambda mesh: alone_calls.append(mesh) or repaired(mesh))
    methods = classify_solids(batched)
    monkeypatch.undo()
    assert methods == [solid.method for solid in batched]
    assert len(alone_calls) < len(batched) // 2  # the batch did most of the work
    assert any(solid.__dict__.get("_outward", (None, 0))[1] for solid in batched)  # and turned parts over
    prepare_hull_features(batched)
    assert sum("hull_features" in solid.__dict__ for solid in batched) > 5
    for k, mesh in enumerate(meshes):
        assert_same_solid(batched[k], Solid(mesh, name=f"object {k}"))


def test_solids_already_classified_moved_copies_hulls_and_large_meshes_are_left_alone():
    classified = Solid(fx.box(), name="classified")
    classified.method
    repair = classified.repair
    copy = Solid(fx.box(), name="source").translated((5.0, 0.0, 0.0))
    hull = Solid(fx.uv_sphere(), use_hull=True, name="hull")
    large = Solid(fx.uv_sphere(1.0, 48, 48), name="large")
    assert len(large.raw_mesh.triangles) > SMALL_TRIANGLES
    others = [Solid(fx.box((k, 0, 0), (k + 0.5, 1, 1)), name=f"box {k}") for k in range(3)]
    alone = Solid(fx.uv_sphere(1.0, 48, 48), name="large")
    assert classify_solids([classified, copy, hull, large, *others]) == ["convex", "convex", "hull", "convex",
                                                                          "convex", "convex", "convex"]
    assert classified.repair is repair
    assert "repair" not in hull.__dict__
    assert all(solid.parts[0].mesh is solid.mesh for solid in others)
    assert large.parts[0].convexity_defect == alone.parts[0].convexity_defect


def test_a_single_solid_is_classified_alone():
    solid = Solid(fx.box(), name="alone")
    assert classify_solids([solid]) == ["convex"]


def test_many_solids_are_classified_in_passes_of_bounded_size(monkeypatch):
    monkeypatch.setattr(classify, "PASS_TRIANGLES", 100)
    meshes = scene(7)
    passes = []
    together = classify.classify_stacked
    monkeypatch.setattr(classify, "classify_stacked",
                        lambda stack, solids: passes.append(len(stack.ids)) or together(stack, solids))
    batched = [Solid(mesh) for mesh in meshes]
    classify_solids(batched)
    assert len(passes) > 5 and max(passes) <= 100 + SMALL_TRIANGLES
    for k, mesh in enumerate(meshes):
        assert_same_solid(batched[k], Solid(mesh))
