"""The kinds of pair ``benchmarks/bench_clash.py`` measures (a non-convex 2,000-triangle blob, a jittered UV sphere,
pushed into boxes and tori, tori into spheres): their triangle pairs are too many to screen flat, but those near the
other object are few, so candidates are screened flat among those alone, without trees. Every field of every answer
is the one the trees and sweeps give (the way such pairs were measured before), on seeded scenes measured together
as a clash check measures them; the push-outs still separate the pairs for manifold3d.
"""

import dataclasses

import numpy as np
import pytest

import core.mesh.contact.containment as containment_module
import core.mesh.intersection as intersection_module
from core.mesh import MESH, Solid, TriangleMesh, measure_solid_pairs
from generators import random_rotation
from mesh_fixtures import box, manifold_overlap, torus, transformed, uv_sphere


def blob(rng: np.random.Generator) -> TriangleMesh:
    """A UV sphere of radius 0.5 (1,984 triangles), every vertex moved by up to 3 % of its size: not convex."""
    sphere = uv_sphere(0.5, rings=32, segments=32)
    return TriangleMesh.from_arrays(sphere.vertices * rng.uniform(0.97, 1.03, sphere.vertices.shape),
                                    sphere.triangles)


def placed(shape: TriangleMesh, rng: np.random.Generator, x: float) -> Solid:
    """``shape`` turned at random, scaled by 0.8-1 per axis and moved to ``x`` along the x axis (coordinates rounded
    to float32, as Blender keeps them)."""
    linear = random_rotation(rng) @ np.diag(rng.uniform(0.8, 1.0, 3))
    moved = transformed(shape, linear, (x, *rng.uniform(-0.1, 0.1, 2)))
    return Solid(TriangleMesh.from_arrays(moved.vertices.astype(np.float32).astype(np.float64), moved.triangles))


def clash_like_pairs(seed: int) -> list[tuple[Solid, Solid]]:
    """A blob into a box and into a torus, a torus into a sphere, 0.5-0.7 m apart (overlapping)."""
    rng = np.random.default_rng(seed)
    ring, ball = torus(major=0.35, minor=0.12, major_segments=24, minor_segments=12), uv_sphere(0.5, 9, 12)
    cube = box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5))
    pairs = []
    for first, second in ((None, cube), (None, ring), (ring, ball)):
        a = placed(blob(rng) if first is None else first, rng, 0.0)
        pairs.append((a, placed(second, rng, rng.uniform(0.5, 0.7))))
    return pairs


def assert_same_contact(mine, theirs) -> None:
    for field in dataclasses.fields(mine):
        value, reference = getattr(mine, field.name), getattr(theirs, field.name)
        if field.name == "curves":
            assert len(value) == len(reference)
            for curve, reference_curve in zip(value, reference):
                np.testing.assert_array_equal(curve, reference_curve)
        elif isinstance(value, np.ndarray) or isinstance(reference, np.ndarray):
            np.testing.assert_array_equal(value, reference)
        else:
            assert value == reference, field.name


@pytest.mark.parametrize("seed", range(2))
def test_near_triangles_screened_flat_answer_as_trees_and_sweeps(seed, monkeypatch):
    pairs = clash_like_pairs(seed)
    assert all(MESH in (a.method, b.method) for a, b in pairs)
    assert all(len(a.mesh.triangles) * len(b.mesh.triangles) > intersection_module.FLAT_PAIRS for a, b in pairs)
    found = measure_solid_pairs(pairs)[1]
    assert not any("bvh" in solid.__dict__ for a, b in pairs[::3] for solid in (a, b))  # blob and box: no tree
    monkeypatch.setattr(intersection_module, "FLAT_PAIRS", 0)
    monkeypatch.setattr(containment_module, "FLAT_PAIRS", 0)
    fresh = clash_like_pairs(seed)
    for mine, theirs in zip(found, measure_solid_pairs(fresh)[1]):
        assert_same_contact(mine, theirs)
    penetrating = [(a, b, contact) for (a, b), contact in zip(pairs, found) if contact.status == "penetrating"]
    assert len(penetrating) == len(pairs) and all(len(contact.curves) > 0 for _a, _b, contact in penetrating)
    for a, b, contact in penetrating:
        moved = transformed(b.mesh, offset=-contact.signed_distance * contact.normal)
        assert manifold_overlap(a.mesh, moved)[0] <= 1e-9 * contact.overlap_volume
