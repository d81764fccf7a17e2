"""Everything measured on stacked meshes (``core.mesh.stacked``) on the kitbashed 8 x 10 roof that
``benchmarks/bench_kitbash.py`` times (its seed, its candidate pairs): classification, crossings, overlap volumes,
distances and winding numbers of all parts or pairs together are each one's own alone, field for field to the bit;
the volumes are manifold3d's and the distances coal's."""

import sys
from pathlib import Path

import numpy as np
import pytest

from core import overlapping_pairs
from core.mesh import Solid, TriangleMesh
from core.mesh.classify import classify_solids
from core.mesh.distance import mesh_distance
from core.mesh.inside import crossing_windings, stacked_crossing_windings
from core.mesh.intersection import surface_crossings, surface_intersection
from core.mesh.pair_distances import mesh_distances
from core.mesh.sheets import single_cover, single_covers, star_shaped, stars_shaped
from mesh_fixtures import coal_distance
from test_mesh_classify import assert_same_solid
from test_mesh_stacked_pairs import assert_same_crossings, volumes_together_overlapping

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bench_kitbash import TOUCH  # noqa: E402  (needs the path above)
from kitbash_scene import roof  # noqa: E402


def roof_meshes() -> list[TriangleMesh]:
    _names, meshes = roof(8, 10, np.random.default_rng(0))
    return [TriangleMesh.from_arrays(vertices, triangles) for vertices, triangles in meshes]


@pytest.fixture(scope="module")
def scene() -> tuple[list[Solid], list[tuple[Solid, Solid]]]:
    """The roof's parts, classified one by one, and their candidate pairs (boxes within the touch tolerance)."""
    solids = [Solid(mesh, name=str(k)) for k, mesh in enumerate(roof_meshes())]
    lows, highs = np.array([s.bounds[0] for s in solids]), np.array([s.bounds[1] for s in solids])
    pairs = [(solids[i], solids[j]) for i, j in overlapping_pairs(lows, highs, margin=TOUCH).tolist()]
    return solids, pairs


def test_the_roof_classified_together_is_each_part_alone(scene):
    solids, pairs = scene
    together = [Solid(solid.raw_mesh, name=solid.name) for solid in solids]
    classify_solids(together)
    for batched, alone in zip(together, solids):
        assert_same_solid(batched, alone)
    assert len(pairs) > 400 and {solid.method for solid in solids} >= {"mesh"}


def test_the_roofs_crossings_together_are_each_pairs_own(scene):
    _solids, pairs = scene
    together = surface_crossings([(a.mesh, b.mesh) for a, b in pairs], lambda k: (pairs[k][0].bvh, pairs[k][1].bvh))
    for (a, b), found in zip(pairs, together):
        assert_same_crossings(found, surface_intersection(a.mesh, b.mesh, trees=(a.bvh, b.bvh)))
    assert sum(found.shares_interior for found in together) > 200


def test_the_roofs_volumes_together_are_each_pairs_own_and_manifolds(scene):
    _solids, pairs = scene
    assert volumes_together_overlapping([(a.mesh, b.mesh) for a, b in pairs]) > 200


def test_the_roofs_distances_together_are_each_pairs_own_and_coals(scene):
    _solids, pairs = scene
    apart = 0
    for (solid_a, solid_b), found in zip(pairs, mesh_distances([(a.mesh, b.mesh) for a, b in pairs])):
        a, b = solid_a.mesh, solid_b.mesh
        alone = mesh_distance(a, b, bvh_a=solid_a.bvh, bvh_b=solid_b.bvh)
        assert found.distance == alone.distance
        assert found.distance == pytest.approx(coal_distance(a, b), abs=1e-12 * max(a.size, b.size))
        if found.distance > 0.0:  # touching surfaces may meet at another common point (see pair_distances)
            apart += 1
            assert (found.triangle_a, found.triangle_b) == (alone.triangle_a, alone.triangle_b)
            assert (found.point_a == alone.point_a).all() and (found.point_b == alone.point_b).all()
    assert apart > 50


def test_the_roofs_windings_together_are_each_parts_own(scene):
    """Every pair's B vertices against A and A's against B (on, inside and outside the other's surface)."""
    _solids, pairs = scene
    meshes = [mesh for a, b in pairs for mesh in (a.mesh, b.mesh)]
    points = [mesh.vertices for a, b in pairs for mesh in (b.mesh, a.mesh)]
    owners = np.repeat(np.arange(len(meshes)), [len(p) for p in points])
    windings = stacked_crossing_windings(meshes, np.concatenate(points), owners)
    for k, mesh in enumerate(meshes):
        assert (windings[owners == k] == crossing_windings(mesh, points[k])).all()
    assert 0 < (windings != 0).sum() < len(windings)


def test_the_roofs_single_cover_proofs_together_are_each_parts_own(scene):
    """Every part's proof that it covers space at most once (star-shaped, else ``single_cover`` over its box), all
    parts at once and each alone."""
    solids, _pairs = scene
    meshes = [solid.mesh for solid in solids]
    shaped = stars_shaped(meshes)
    assert (shaped == [star_shaped(mesh) for mesh in meshes]).all()
    rest = [mesh for mesh, star in zip(meshes, shaped) if not star]
    once = [single_cover(mesh, mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)) for mesh in rest]
    assert (single_covers(rest) == once).all()
    assert len(rest) > 50 and shaped.any()
