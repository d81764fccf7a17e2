"""Many small mesh pairs measured together (``stacked``): the surfaces' crossings of every pair in one pass give each
pair exactly what ``surface_intersection`` gives it alone, and the overlap volumes measured together are each pair's
own, bit for bit, and manifold3d's. Seeded scenes: a slice of the kitbashed roof (``benchmarks/kitbash_scene.py``)
and non-uniformly scaled, turned UV spheres of 224 triangles (convex only to float32 rounding) among boxes."""

import sys
from pathlib import Path

import numpy as np
import pytest

from core import overlapping_pairs
from core.mesh import Solid, TriangleMesh
from core.mesh.contact.containment import boxes_apart
import core.mesh.intersection as intersection_module
from core.mesh.intersection import candidate_pairs, default_tolerance, surface_crossings, surface_intersection
import core.mesh.stacked as stacked_module
from core.mesh.stacked import StackedMeshes
from core.mesh.triangle_intersection import (PairCrossings, TrianglePlanes, coplanar_heights, meeting_rows,
                                             pair_crossings)
from core.mesh.topology import edge_table
import core.mesh.volume as volume_module
from core.mesh.volume import mesh_volume, overlap_volume, overlap_volumes
from generators import random_rotation
from mesh_fixtures import box, manifold_overlap, transformed, uv_sphere

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from kitbash_scene import roof  # noqa: E402


def kitbash_pairs(seed: int) -> list[tuple[Solid, Solid]]:
    """The candidate pairs of a 4 x 5 slice of the roof whose boxes are not apart (every part turned at random)."""
    _names, meshes = roof(4, 5, np.random.default_rng(seed))
    solids = [Solid(TriangleMesh.from_arrays(vertices, triangles)) for vertices, triangles in meshes]
    lows, highs = np.array([s.bounds[0] for s in solids]), np.array([s.bounds[1] for s in solids])
    pairs = [(solids[i], solids[j]) for i, j in overlapping_pairs(lows, highs, margin=1e-5).tolist()]
    return [(a, b) for a, b in pairs if not boxes_apart(a, b)]


def float32_ellipsoid(rng: np.random.Generator, centre) -> TriangleMesh:
    """A 224-triangle UV sphere scaled unevenly, turned and moved, its vertices rounded to float32 as Blender's."""
    linear = random_rotation(rng) @ np.diag(rng.uniform(0.6, 1.3, 3))
    shape = transformed(uv_sphere(0.5, rings=8, segments=16), linear, centre)
    return TriangleMesh.from_arrays(shape.vertices.astype(np.float32).astype(np.float64), shape.triangles)


def ellipsoid_pairs(seed: int, count: int = 12) -> list[tuple[TriangleMesh, TriangleMesh]]:
    """Ellipsoids pushed into ellipsoids and turned boxes, some apart, one inside a big box."""
    rng = np.random.default_rng(seed)
    pairs = []
    for k in range(count):
        a = float32_ellipsoid(rng, (0.0, 0.0, 0.0))
        centre = rng.uniform(-0.7, 0.7, 3) * (2.0 if k % 5 == 4 else 1.0)
        b = float32_ellipsoid(rng, centre) if k % 2 else transformed(box((-0.3, -0.3, -0.3), (0.3, 0.3, 0.3)),
                                                                      random_rotation(rng), centre)
        pairs.append((a, b))
    pairs.append((box((-2, -2, -2), (2, 2, 2)), float32_ellipsoid(rng, (0.1, 0.0, 0.0))))
    return pairs


def assert_same_crossings(together, alone) -> None:
    assert together.shares_interior == alone.shares_interior
    np.testing.assert_array_equal(together.closed, alone.closed)
    assert len(together.curves) == len(alone.curves)
    for mine, theirs in zip(together.curves, alone.curves):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("seed", range(2))
def test_crossings_together_are_each_pairs_own_on_the_roof(seed):
    pairs = kitbash_pairs(seed)
    together = surface_crossings([(a.mesh, b.mesh) for a, b in pairs], lambda k: (pairs[k][0].bvh, pairs[k][1].bvh))
    for (a, b), found in zip(pairs, together):
        assert_same_crossings(found, surface_intersection(a.mesh, b.mesh, trees=(a.bvh, b.bvh)))
    assert len(pairs) > 40 and sum(found.shares_interior for found in together) > 20
    assert sum(bool(found.closed.all()) and len(found.curves) > 0 for found in together) > 20


@pytest.mark.parametrize("seed", range(2))
def test_crossings_together_are_each_pairs_own_on_ellipsoids(seed, monkeypatch):
    """With the flat screen's bound lowered, pairs of ellipsoids with many triangles near each other find their
    candidates alone, with or without trees, between pairs screened flat (those with few, and ellipsoids and boxes)."""
    pairs = ellipsoid_pairs(seed)
    monkeypatch.setattr(intersection_module, "FLAT_PAIRS", 2500)
    alone = []
    monkeypatch.setattr(intersection_module, "candidate_pairs", lambda *args: alone.append(args) or candidate_pairs(
        *args))
    for trees in (None, [(Solid(a).bvh, Solid(b).bvh) for a, b in pairs]):
        alone.clear()
        together = surface_crossings(pairs, None if trees is None else trees.__getitem__)
        assert 2 <= len(alone) <= len(pairs) - 4
        for k, ((a, b), found) in enumerate(zip(pairs, together)):
            assert_same_crossings(found, surface_intersection(a, b, trees=None if trees is None else trees[k]))
    assert any(found.shares_interior for found in together) and not all(found.shares_interior for found in together)


@pytest.mark.parametrize("seed", range(2))
def test_volumes_together_are_each_pairs_own_and_manifolds(seed):
    """Bit for bit the pair alone; within 1e-9 of the larger volume manifold3d's intersection (centroid too)."""
    pairs = [(a.mesh, b.mesh) for a, b in kitbash_pairs(seed)[::3]] + ellipsoid_pairs(seed, 8)
    assert volumes_together_overlapping(pairs) >= 10


def volumes_together_overlapping(pairs: list[tuple[TriangleMesh, TriangleMesh]]) -> int:
    """How many of the pairs overlap, once their volumes measured together are checked against each pair's alone (bit
    for bit) and manifold3d's (within 1e-9 of the larger volume, the centroid within 1e-7 of the larger size)."""
    overlapping = 0
    for (a, b), (volume, centroid) in zip(pairs, overlap_volumes(pairs)):
        alone_volume, alone_centroid = overlap_volume(a, b)
        assert volume == alone_volume
        assert (centroid is None) == (alone_centroid is None)
        if centroid is not None:
            np.testing.assert_array_equal(centroid, alone_centroid)
        reference, reference_centroid = manifold_overlap(a, b)
        scale = max(mesh_volume(a), mesh_volume(b))
        assert volume == pytest.approx(reference, abs=1e-9 * scale)
        if reference > 1e-6 * scale:
            overlapping += 1
            np.testing.assert_allclose(centroid, reference_centroid, atol=1e-7 * max(a.size, b.size))
    return overlapping


@pytest.mark.parametrize("seed", range(2))
def test_volumes_taken_from_the_surface_crossings_are_the_volumes_crossed_again(seed, monkeypatch):
    """``overlap_volumes`` given the pairs' ``surface_crossings`` rows gives, bit for bit, what it finds crossing the
    triangle pairs again: on the roof (screened flat) and on ellipsoids with the flat screen's bound lowered (some
    pairs' crossings found down their trees, which leave out pairs too far apart to cross), in a shuffled order."""
    roof_pairs = [(a.mesh, b.mesh) for a, b in kitbash_pairs(seed)]
    monkeypatch.setattr(intersection_module, "FLAT_PAIRS", 2500)
    ellipsoids = ellipsoid_pairs(seed)
    trees = [(Solid(a).bvh, Solid(b).bvh) for a, b in ellipsoids]
    for pairs, crossings in ((roof_pairs, surface_crossings(roof_pairs)),
                             (ellipsoids, surface_crossings(ellipsoids, trees.__getitem__))):
        assert all(found.rows is not None for found in crossings)
        order = np.random.default_rng(seed).permutation(len(pairs))
        listed = [pairs[k] for k in order]
        again = overlap_volumes(listed)
        taken = overlap_volumes(listed, [crossings[k].rows for k in order])
        for (volume, centroid), (volume_again, centroid_again) in zip(taken, again):
            assert volume == volume_again and (centroid is None) == (centroid_again is None)
            if centroid is not None:
                np.testing.assert_array_equal(centroid, centroid_again)
        assert sum(volume > 0.0 for volume, _ in taken) >= 5


def test_pairs_too_large_to_stack_are_measured_alone_with_the_same_answers(monkeypatch):
    """With the stacking bound lowered, ellipsoid pairs (448 triangles) are measured alone among stacked pairs."""
    pairs = ellipsoid_pairs(3, 8)
    crossings, volumes = surface_crossings(pairs), overlap_volumes(pairs)
    monkeypatch.setattr(stacked_module, "STACKED_TRIANGLES", 300)
    assert 0 < sum(stacked_module.stacked_together(pairs)) < len(pairs)
    for mine, theirs in zip(surface_crossings(pairs), crossings):
        assert_same_crossings(mine, theirs)
    for (volume, centroid), (alone, alone_centroid) in zip(overlap_volumes(pairs), volumes):
        assert volume == alone and (centroid is None) == (alone_centroid is None)
        if centroid is not None:
            np.testing.assert_array_equal(centroid, alone_centroid)


def random_near_pairs(seed: int, count: int = 4000) -> tuple[np.ndarray, np.ndarray]:
    """Random triangle pairs near each other's planes, parallel planes a hair apart, shared corners and edges, nearly
    coincident triangles: (K, 3, 3) corners of A and of B."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (count, 3, 3))
    b = rng.uniform(-1, 1, (count, 3, 3))
    a[::4, :, 2] = 0.0  # parallel planes: the same, a hair apart, or apart
    b[::4, :, 2] = rng.choice([0.0, 1e-12, 1e-3], (count // 4, 1))
    b[1::4, 0] = a[1::4, 0]  # a shared corner
    b[2::4, :2] = a[2::4, :2]  # a shared edge
    b[3::4] = a[3::4] + rng.normal(scale=1e-6, size=(count // 4, 3, 3))  # nearly coincident
    return a, b


@pytest.mark.parametrize("seed", range(3))
def test_pairs_that_cannot_meet_have_no_crossings_and_are_not_coplanar(seed):
    """``meeting_rows`` leaves out only triangle pairs in which the exact test finds no piercing and which do not lie
    in one plane, and what it hands on (heights, sure sides) gives the pairs it keeps the crossings found without it,
    field for field."""
    a, b = random_near_pairs(seed)
    count = len(a)
    normals_a = np.cross(a[:, 1] - a[:, 0], a[:, 2] - a[:, 0])
    normals_b = np.cross(b[:, 1] - b[:, 0], b[:, 2] - b[:, 0])
    ids = np.broadcast_to(np.arange(3), (count, 3))
    crossings = pair_crossings(a, ids, normals_a, b, ids + 3, normals_b)
    tolerance = 1e-9
    rows = np.arange(count)
    kept, known = meeting_rows(TrianglePlanes.of(a, normals_a), rows, TrianglePlanes.of(b, normals_b), rows, tolerance,
                               2.0)
    meet = np.zeros(count, dtype=bool)
    meet[kept] = True
    found = crossings.a_crosses.any(axis=1) | crossings.b_crosses.any(axis=1)
    coplanar = (np.abs(crossings.a_heights).max(axis=1) <= tolerance) & (np.abs(crossings.b_heights).max(axis=1)
                                                                        <= tolerance)
    assert not (found & ~meet).any() and not (coplanar & ~meet).any()
    assert (~meet).sum() > 0.1 * count and found.sum() > 0.1 * count and coplanar.sum() > 0.05 * count
    handed = pair_crossings(a[kept], ids[kept], normals_a[kept], b[kept], ids[kept] + 3, normals_b[kept], known)
    for field in PairCrossings.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(handed, field), getattr(crossings, field)[kept], err_msg=field)
    sure = (known.a.sides != 0).sum() + (known.b.sides != 0).sum()
    assert 0.5 * known.a.sides.size < sure < 2 * known.a.sides.size  # most sides handed on, not all


@pytest.mark.parametrize("seed", range(2))
def test_screened_rows_of_the_roof_cross_as_found_without_the_screen(seed):
    """On a slice of the roof (flush faces, shared planes), the rows ``meeting_rows`` keeps and what it hands on give
    the crossings ``pair_crossings`` finds on its own, field for field, and every row it leaves out finds nothing."""
    pairs = kitbash_pairs(seed)
    stack_a, stack_b = StackedMeshes([a.mesh for a, _ in pairs]), StackedMeshes([b.mesh for _, b in pairs])
    tolerances = np.array([default_tolerance(a.mesh, b.mesh, None) for a, b in pairs])
    sizes = np.array([max(a.mesh.size, b.mesh.size) for a, b in pairs])
    mesh_a, mesh_b = stack_a.mesh, stack_b.mesh
    rows = np.argwhere(np.ones((len(mesh_a.triangles), len(mesh_b.triangles)), dtype=bool))
    rows = rows[stack_a.owner[rows[:, 0]] == stack_b.owner[rows[:, 1]]]  # every triangle pair of every mesh pair
    owner = stack_a.owner[rows[:, 0]]
    kept, known = meeting_rows(TrianglePlanes.of(mesh_a.corners, mesh_a.area_normals), rows[:, 0],
                               TrianglePlanes.of(mesh_b.corners, mesh_b.area_normals), rows[:, 1], tolerances[owner],
                               sizes[owner])
    t, s = rows[:, 0], rows[:, 1]
    alone = pair_crossings(mesh_a.corners[t], mesh_a.triangles[t], mesh_a.area_normals[t], mesh_b.corners[s],
                           mesh_b.triangles[s], mesh_b.area_normals[s])
    t, s = t[kept], s[kept]
    handed = pair_crossings(mesh_a.corners[t], mesh_a.triangles[t], mesh_a.area_normals[t], mesh_b.corners[s],
                            mesh_b.triangles[s], mesh_b.area_normals[s], known)
    for field in PairCrossings.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(handed, field), getattr(alone, field)[kept], err_msg=field)
    left = np.ones(len(rows), dtype=bool)
    left[kept] = False
    assert not (alone.a_crosses[left].any() or alone.b_crosses[left].any())
    assert not (coplanar_heights(alone.a_heights, alone.b_heights, tolerances[owner]) & left).any()
    assert left.sum() > 0.5 * len(rows) and alone.segment_mask[kept].sum() > 100


def test_pair_sums_are_each_slices_own_sum_bit_for_bit():
    """The volumes' per-pair sums, pairs of one row count summed as one stack, are each slice's own ``sum``, bit for
    bit (numpy's pairwise order: ``reduceat`` differs from a slice of nine rows on), for empty and long slices."""
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 300, 400)
    counts[:3] = (0, 9, 1000)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    volumes = rng.normal(size=bounds[-1]) * 10.0 ** rng.integers(-6, 6, bounds[-1])
    moments = rng.normal(size=(bounds[-1], 3)) * 10.0 ** rng.integers(-6, 6, (bounds[-1], 1))
    volume, moment = volume_module._pair_sums(volumes, moments, bounds)
    for k, (first, last) in enumerate(zip(bounds[:-1], bounds[1:])):
        assert volume[k] == volumes[first:last].sum()
        np.testing.assert_array_equal(moment[k], moments[first:last].sum(axis=0))


def test_stacked_meshes_keep_each_meshs_edges_and_order():
    """A mesh listed twice is stacked twice; each stacked mesh's triangles and edges are its own, renumbered."""
    meshes = [uv_sphere(1.0, rings=4, segments=6), box(), uv_sphere(1.0, rings=4, segments=6)]
    stacked = StackedMeshes(meshes)
    assert stacked.mesh.triangles.shape == (sum(len(m.triangles) for m in meshes), 3)
    whole = edge_table(stacked.mesh)  # the stacked table, handed over
    recomputed = edge_table(TriangleMesh(stacked.mesh.vertices, stacked.mesh.triangles))
    for field in ("edges", "triangle_edges", "forward", "uses", "forward_uses"):
        np.testing.assert_array_equal(getattr(whole, field), getattr(recomputed, field))
    for k, mesh in enumerate(meshes):
        rows = slice(stacked.triangle_starts[k], stacked.triangle_starts[k + 1])
        np.testing.assert_array_equal(stacked.mesh.corners[rows], mesh.corners)
        np.testing.assert_array_equal(stacked.lows[rows], mesh.lows)
        np.testing.assert_array_equal(stacked.ids[rows], mesh.triangles + stacked.vertex_starts[k])
        assert (stacked.owner[rows] == k).all() and (stacked.vertex_owner[stacked.ids[rows]] == k).all()
    np.testing.assert_array_equal(stacked.corners, stacked.mesh.vertices[stacked.mesh.triangles])
    keep = np.arange(len(stacked.owner)) % 2 == 0
    kept = stacked.kept(keep)
    assert kept.counts.sum() == len(kept.mesh.triangles) and (np.diff(kept.owner) >= 0).all()
    assert kept.meshes == stacked.meshes and kept.mesh.vertices is stacked.mesh.vertices
    for name in ("corners", "lows", "highs", "ids", "unit_normals", "owner"):
        np.testing.assert_array_equal(getattr(kept, name), getattr(stacked, name)[keep])
    np.testing.assert_array_equal(kept.corners, kept.mesh.vertices[kept.mesh.triangles])
    np.testing.assert_array_equal(kept.first, np.searchsorted(kept.owner, np.arange(len(meshes))))


def test_no_pairs_give_no_answers():
    assert surface_crossings([]) == [] and overlap_volumes([]) == []


@pytest.mark.parametrize("seed", range(2))
def test_the_flat_box_screen_lists_what_each_pairs_tree_lists(seed):
    """The triangle pairs screened flat, all pairs at once (``stacked_candidates`` below ``FLAT_PAIRS``), are the
    ones each pair's own triangle trees list, in the same order."""
    pairs = [(a.mesh, b.mesh) for a, b in kitbash_pairs(seed)[::3]] + ellipsoid_pairs(seed, 8)
    stack_a, stack_b = StackedMeshes([a for a, _b in pairs]), StackedMeshes([b for _a, b in pairs])
    tolerances = np.array([default_tolerance(a, b, None) for a, b in pairs])

    def alone(k: int) -> np.ndarray:
        return candidate_pairs(pairs[k][0], pairs[k][1], float(tolerances[k]))

    flat = stacked_module.stacked_candidates(stack_a, stack_b, tolerances, intersection_module.FLAT_PAIRS, alone)
    assert len(flat) > 1000
    np.testing.assert_array_equal(flat, stacked_module.stacked_candidates(stack_a, stack_b, tolerances, 0, alone))


@pytest.mark.parametrize("seed", range(3))
def test_vertex_means_are_each_meshs_own_mean_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    counts = [int(n) for n in rng.choice([1, 3, 7, 8, 9, 16, 114, 127, 128, 129, 162, 700, 3000], size=60)]
    meshes = [TriangleMesh.from_arrays(rng.normal(size=(n, 3)) * 10.0 ** rng.integers(-4, 5) + rng.normal(size=3) * 50,
                                       np.zeros((1, 3), dtype=np.int64)) for n in counts]  # some counts shared
    means = StackedMeshes(meshes).vertex_means
    assert [row.tobytes() for row in means] == [mesh.vertices.mean(axis=0).tobytes() for mesh in meshes]
