"""Exact triangle-mesh distance (core.mesh.distance, bvh, triangle_distance) against independent references.

References: Qhull on the Minkowski difference of two triangles (tests/core/reference.py), the
point-triangle closest points of reference.py, coal's BVH mesh distance, and brute force over all
triangle pairs.
"""

from __future__ import annotations

import numpy as np
import pytest

import mesh_fixtures as fx
from mesh_fixtures import coal_distance, mesh, transformed
import core.mesh.bvh as bvh_module
from core.mesh.bvh import TriangleBVH
from core.mesh.distance import (MeshDistance, mesh_distance, mesh_distance_steps, nearest_on_surface,
                                 windowed_mesh_distance)
from core.mesh.triangle_distance import (_barycentric_inside, facing_lower_bound_sq, point_triangle_closest,
                                        segment_closest_parameters, separation_lower_bound, triangle_pair_distance,
                                        unit_normals)
from core.mesh.trimesh import TriangleMesh
from core.vector.arrays import cross, dot
from generators import random_rotation, rotation_about
from reference import closest_points_on_triangles, reference_contact

RELATIVE = 1e-9  # agreement with the references, relative to the scene's size


def brute_force(a: TriangleMesh, b: TriangleMesh) -> float:
    """Least distance over all triangle pairs, by the vectorised primitive, one row of A at a time."""
    best = np.inf
    for rows in np.array_split(np.arange(len(a.triangles)), max(1, len(a.triangles) * len(b.triangles) // 20000)):
        ia, ib = np.repeat(rows, len(b.triangles)), np.tile(np.arange(len(b.triangles)), len(rows))
        best = min(best, float(triangle_pair_distance(a.corners[ia], b.corners[ib])[0].min()))
    return best


def reference_point_distance(points: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    """Distance of each point to each of its paired triangles (reference.py's closest points)."""
    closest = closest_points_on_triangles(points, triangles[:, 0], triangles[:, 1], triangles[:, 2])
    return np.linalg.norm(points - closest, axis=1)


def surface_gap(point: np.ndarray, m: TriangleMesh) -> float:
    """Distance from ``point`` to the surface of ``m``, by reference.py over all triangles."""
    points = np.repeat(point[None], len(m.triangles), axis=0)
    return float(reference_point_distance(points, m.corners).min())


def check_result(result: MeshDistance, a: TriangleMesh, b: TriangleMesh, expected: float, size: float) -> None:
    """Value, conventions, and witness points on their triangles and surfaces."""
    assert result.distance == pytest.approx(expected, abs=RELATIVE * size)
    assert np.linalg.norm(result.point_b - result.point_a) == pytest.approx(result.distance, abs=1e-12 * size)
    on_a = reference_point_distance(result.point_a[None], a.corners[[result.triangle_a]])[0]
    on_b = reference_point_distance(result.point_b[None], b.corners[[result.triangle_b]])[0]
    assert on_a <= 1e-12 * size and on_b <= 1e-12 * size


# --- triangle primitives -------------------------------------------------------------------------

def random_triangle_pairs(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Triangle pairs from far apart to crossing: corners N(0, 1), B shifted by up to ~2."""
    a = rng.normal(size=(count, 3, 3))
    b = rng.normal(size=(count, 3, 3)) + rng.normal(size=(count, 1, 3)) * rng.uniform(0, 2, size=(count, 1, 1))
    return a, b


def test_triangle_pairs_match_qhull_reference():
    rng = np.random.default_rng(7)
    a, b = random_triangle_pairs(rng, 300)
    distance, point_a, point_b = triangle_pair_distance(a, b)
    expected = np.array([max(0.0, reference_contact(x, y).signed_distance) for x, y in zip(a, b)])
    assert np.abs(distance - expected).max() <= 1e-12 * 10
    assert (expected == 0).sum() > 30 and (expected > 0).sum() > 100  # both kinds are exercised
    assert np.allclose(np.linalg.norm(point_b - point_a, axis=1), distance, atol=1e-13)
    assert reference_point_distance(point_a, a).max() <= 1e-12 and reference_point_distance(point_b, b).max() <= 1e-12


def first_least_of_candidates(tri_a: np.ndarray, tri_b: np.ndarray):
    """``triangle_pair_distance`` by its definition, candidate by candidate on (K, 3) vectors (``dot``'s order, the
    same element-wise arithmetic): A's corners over B's face, B's over A's, the 9 edge pairs A's edge major; the first
    least per pair; then the first crossing (A's edges through B, then B's through A) makes it 0 at that point."""
    squares, on_a, on_b = [], [], []
    for points, faces, flip in ((tri_a, tri_b, False), (tri_b, tri_a, True)):
        for corner in range(3):
            foot, inside = _barycentric_inside(points[:, corner], faces)
            squares.append(np.where(inside, dot(foot - points[:, corner], foot - points[:, corner]), np.inf))
            on_a.append(foot if flip else points[:, corner])
            on_b.append(points[:, corner] if flip else foot)
    for i in range(3):
        for j in range(3):
            p1, q1, p2, q2 = tri_a[:, i], tri_a[:, (i + 1) % 3], tri_b[:, j], tri_b[:, (j + 1) % 3]
            s, t = segment_closest_parameters(p1, q1, p2, q2)
            on_a.append(p1 + s[:, None] * (q1 - p1))
            on_b.append(p2 + t[:, None] * (q2 - p2))
            squares.append(dot(on_b[-1] - on_a[-1], on_b[-1] - on_a[-1]))
    pick = np.argmin(np.stack(squares), axis=0)
    rows = np.arange(len(tri_a))
    least = np.stack(squares)[pick, rows]
    point_a, point_b = np.stack(on_a)[pick, rows], np.stack(on_b)[pick, rows]
    crossed = np.zeros(len(tri_a), dtype=bool)
    for edges, faces in ((tri_a, tri_b), (tri_b, tri_a)):
        normal = cross(faces[:, 1] - faces[:, 0], faces[:, 2] - faces[:, 0])
        for edge in range(3):
            start, end = edges[:, edge], edges[:, (edge + 1) % 3]
            low, high = dot(start - faces[:, 0], normal), dot(end - faces[:, 0], normal)
            through = ((low < 0.0) & (high > 0.0)) | ((low > 0.0) & (high < 0.0))
            with np.errstate(divide="ignore", invalid="ignore"):  # (rows not through: any numbers)
                points = start + (low / (low - high))[:, None] * (end - start)
                first = through & ~crossed & _barycentric_inside(points, faces)[1]
            crossed |= first
            first &= least > 0.0
            least[first], point_a[first], point_b[first] = 0.0, points[first], points[first]
    return np.sqrt(least), point_a, point_b


def test_triangle_pairs_are_the_first_least_of_their_candidates_to_the_bit():
    """The stacked candidates (rows last, both sides' corners together) against the definition computed candidate
    by candidate: the same distances and points to the bit, ties among them kept in the definition's order (pairs on
    an integer grid touch and cross in many ways at once; identical, shared-edge and degenerate triangles)."""
    rng = np.random.default_rng(17)
    a, b = random_triangle_pairs(rng, 3000)
    a[:1000], b[:1000] = np.round(2.0 * a[:1000]), np.round(2.0 * b[:1000])  # ties: equal candidates
    b[1000:1100] = a[1000:1100]
    b[1100:1200, :2] = a[1100:1200, 1::-1]  # a shared edge
    b[1200:1300, 2] = b[1200:1300, 1]  # segments
    a[1300:1400, 1:] = a[1300:1400, :1]  # points
    pairs = [(np.array(first, dtype=float)[None], np.array(second, dtype=float)[None])
             for first, second in DEGENERATE.values()]
    a, b = np.concatenate([a] + [x for x, _y in pairs]), np.concatenate([b] + [y for _x, y in pairs])
    for first, second in ((a, b), (b, a)):
        found, expected = triangle_pair_distance(first, second), first_least_of_candidates(first, second)
        for value, reference in zip(found, expected):
            assert value.tobytes() == reference.tobytes()
    zeros = triangle_pair_distance(a, b)[0] == 0.0
    assert zeros[:1000].sum() > 100 and (~zeros[:1000]).sum() > 500
    apart = np.flatnonzero(separation_lower_bound(a, b) > 0.0)
    for value, reference in zip(triangle_pair_distance(a[apart], b[apart], apart=True),
                                first_least_of_candidates(a[apart], b[apart])):
        assert value.tobytes() == reference.tobytes()


def test_separation_bounds_never_exceed_the_distance():
    rng = np.random.default_rng(8)
    a, b = random_triangle_pairs(rng, 3000)
    normal = np.cross(a[:500, 1] - a[:500, 0], a[:500, 2] - a[:500, 0])
    b[:500] = a[:500] + 0.3 * (normal / np.linalg.norm(normal, axis=1)[:, None])[:, None]  # facing: bound is tight
    b[500:600, 2] = b[500:600, 1]  # segments
    lower = separation_lower_bound(a, b)
    distance = triangle_pair_distance(a, b)[0]
    assert (lower <= distance + 1e-14).all()
    assert np.allclose(lower[:500], 0.3, atol=1e-12)


def test_facing_bounds_never_exceed_the_distance_and_see_faces_offset_sideways():
    """``facing_lower_bound_sq`` against the exact distances (checked by qhull's reference above): random pairs,
    slivers and segments, and faces turned a little and slid sideways over each other, where the faces' gap alone
    (``separation_lower_bound``) is far below the distance and the facing bound is the distance."""
    rng = np.random.default_rng(9)
    a, b = random_triangle_pairs(rng, 3000)
    unit = np.cross(a[:, 1] - a[:, 0], a[:, 2] - a[:, 0])
    unit /= np.linalg.norm(unit, axis=1)[:, None]
    side = np.cross(unit, a[:, 1] - a[:, 0])
    side /= np.linalg.norm(side, axis=1)[:, None]
    slide = rng.uniform(0, 3, size=(1000, 1))
    turned = np.einsum("kij,kcj->kci", [rotation_about(u, angle) for u, angle in
                                        zip(side[:1000], rng.uniform(-0.01, 0.01, 1000))], a[:1000] - a[:1000, :1])
    b[:1000] = a[:1000, :1] + turned + (0.3 * unit[:1000] - slide * side[:1000])[:, None]  # facing, slid sideways
    b[1000:1100, 2] = b[1000:1100, 1]  # segments
    b[1100:1200, 2] = 0.5 * (b[1100:1200, 0] + b[1100:1200, 1])  # slivers
    margin = 1e-13 * np.maximum(np.abs(a).max(axis=(1, 2)), np.abs(b).max(axis=(1, 2)))
    bound_sq = facing_lower_bound_sq(a, b, unit_normals(a), unit_normals(b), margin)
    distance = triangle_pair_distance(a, b)[0]
    assert (bound_sq <= distance * distance).all()
    faces_only = separation_lower_bound(a[:1000], b[:1000])
    slid = np.flatnonzero(faces_only < 0.9 * distance[:1000])
    assert len(slid) > 150  # the faces' gap and the centres' line miss a good share of these distances
    ratio = np.sqrt(bound_sq[slid]) / distance[slid]
    assert ratio.min() > 0.85 and np.median(ratio) > 0.99


def test_crossing_triangles_share_a_point():
    # An edge of B pierces A's interior; no corner and no edge of either touches the other's edges.
    a = np.array([[[0.0, 0, 0], [2, 0, 0], [0, 2, 0]]])
    b = np.array([[[0.5, 0.5, -1.0], [0.5, 0.5, 1.0], [3.0, 3.0, 5.0]]])
    distance, point_a, point_b = triangle_pair_distance(a, b)
    assert distance[0] == 0.0 and np.array_equal(point_a, point_b)
    assert np.allclose(point_a[0], [0.5, 0.5, 0.0], atol=1e-15)


DEGENERATE = {
    "sliver vs triangle": ([[0, 0, 0], [1, 0, 0], [2, 0, 0]], [[0.5, -1, 0.3], [0.5, 1, 0.3], [0.5, 0, 1]]),
    "point vs triangle": ([[0.2, 0.2, 1], [0.2, 0.2, 1], [0.2, 0.2, 1]], [[0, 0, 0], [1, 0, 0], [0, 1, 0]]),
    "point vs point": ([[0, 0, 0]] * 3, [[1, 2, 2]] * 3),
    "segment vs segment, parallel": ([[0, 0, 0], [1, 0, 0], [1, 0, 0]], [[0.5, 1, 0], [3, 1, 0], [0.5, 1, 0]]),
    "crossing slivers": ([[0, 0, 0], [2, 0, 0], [1, 0, 0]], [[1, -1, 0], [1, 1, 0], [1, 0, 0]]),
    "coplanar overlapping": ([[0, 0, 0], [2, 0, 0], [0, 2, 0]], [[0.5, 0.5, 0], [3, 0.5, 0], [0.5, 3, 0]]),
    "identical": ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 0], [1, 0, 0], [0, 1, 0]]),
    "parallel planes": ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0.2, 0.2, 0.5], [1.2, 0.2, 0.5], [0.2, 1.2, 0.5]]),
    "shared edge": ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 0], [1, 0, 0], [0, 0, 1]]),
    "nearly flat": ([[0, 0, 0], [1, 0, 0], [2, 1e-13, 0]], [[1, 0.5, -1], [1, 0.5, 1], [1, 2, 0]]),
}


@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_triangles(name):
    a, b = (np.array(t, dtype=float)[None] for t in DEGENERATE[name])
    for first, second in ((a, b), (b, a)):
        distance, point_a, point_b = triangle_pair_distance(first, second)
        assert np.isfinite(distance).all() and np.isfinite(point_a).all() and np.isfinite(point_b).all()
        expected = max(0.0, reference_contact(first[0], second[0]).signed_distance)
        assert distance[0] == pytest.approx(expected, abs=1e-12)
        assert reference_point_distance(point_a, first)[0] <= 1e-12
        assert reference_point_distance(point_b, second)[0] <= 1e-12


def test_point_triangle_closest_matches_reference():
    rng = np.random.default_rng(3)
    triangles = rng.normal(size=(2000, 3, 3))
    triangles[:200, 2] = triangles[:200, 1]  # segments
    triangles[200:300, 1:] = triangles[200:300, :1]  # points
    triangles[300:400, 2] = 0.5 * (triangles[300:400, 0] + triangles[300:400, 1])  # collinear corners
    points = rng.normal(size=(2000, 3))
    distance, closest = point_triangle_closest(points, triangles)
    expected = closest_points_on_triangles(points, triangles[:, 0], triangles[:, 1], triangles[:, 2])
    assert np.isfinite(closest).all()
    assert np.abs(distance - np.linalg.norm(points - expected, axis=1)).max() <= 1e-12
    assert np.allclose(np.linalg.norm(points - closest, axis=1), distance, atol=1e-14)


# --- BVH -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("leaf_size", [1, 3, 8])
def test_bvh_covers_every_triangle_once_in_nested_boxes(leaf_size):
    m = fx.torus(1.0, 0.3, 20, 9)
    tree = TriangleBVH.build(m, leaf_size)
    assert np.array_equal(np.sort(tree.order), np.arange(len(m.triangles)))
    leaves = np.flatnonzero(tree.is_leaf)
    sizes = tree.ends[leaves] - tree.starts[leaves]
    assert sizes.min() >= 1 and sizes.max() <= leaf_size and sizes.sum() == len(m.triangles)
    for node in range(len(tree.lows)):  # every triangle of a node lies in its box
        triangles = tree.order[tree.starts[node]:tree.ends[node]]
        assert (m.lows[triangles] >= tree.lows[node]).all() and (m.highs[triangles] <= tree.highs[node]).all()
        assert (m.corners[triangles] == tree.anchors[node]).all(axis=2).any()
        local = np.abs((m.corners[triangles] - tree.centres[node]) @ tree.axes[node])
        assert (local <= tree.halves[node]).all()  # and in its oriented box
    assert np.allclose(np.einsum("nij,nik->njk", tree.axes, tree.axes), np.eye(3), atol=1e-12)
    internal = np.flatnonzero(~tree.is_leaf)
    kids = tree.children[internal]
    assert np.array_equal(tree.starts[kids[:, 0]], tree.starts[internal])
    assert np.array_equal(tree.ends[kids[:, 0]], tree.starts[kids[:, 1]])
    assert np.array_equal(tree.ends[kids[:, 1]], tree.ends[internal])


def test_bvh_of_another_mesh_is_refused():
    a, b = fx.box(), fx.box((3, 0, 0), (4, 1, 1))
    with pytest.raises(ValueError, match="bvh_b"):
        mesh_distance(a, b, bvh_b=TriangleBVH.build(a))
    with pytest.raises(ValueError, match="upper_bound"):
        mesh_distance(a, b, upper_bound=-1.0)


# --- mesh distance -------------------------------------------------------------------------------

def test_random_placements_match_brute_force_and_coal():
    rng = np.random.default_rng(11)
    a = fx.torus(1.0, 0.25, 12, 6)
    for _ in range(10):
        b = transformed(a, random_rotation(rng), rng.normal(size=3) * 0.8)
        result = mesh_distance(a, b)
        check_result(result, a, b, brute_force(a, b), 3.0)
        if result.distance > 0.0:
            assert result.distance == pytest.approx(coal_distance(a, b), abs=RELATIVE * 3.0)
        else:  # crossing: the common point lies on both surfaces
            assert surface_gap(result.point_a, a) <= 1e-12 and surface_gap(result.point_a, b) <= 1e-12


def scene(name: str) -> tuple[TriangleMesh, TriangleMesh]:
    """Non-convex pairs that are close but apart; their convex hulls overlap."""
    if name == "chain links":
        t = fx.torus(1.0, 0.25, 64, 24)
        return t, transformed(t, rotation_about([1, 0, 0], np.pi / 2), (1.0, 0.07, 0.03))
    if name == "rod through torus":
        return fx.torus(1.0, 0.25, 64, 24), transformed(fx.rod(0.3, -1.0, 1.0, 40), offset=(0.2, 0.1, 0))
    if name == "bolt in clearance hole":
        block = fx.block_with_hole(half=0.5, radius=0.25, height=1.0, segments=48)
        return block, transformed(fx.rod(0.2, -0.8, 0.8, 40), rotation_about([1, 1, 0], 0.05), (0.02, 0.01, 0.5))
    if name == "block in L-bracket corner":
        block = fx.box((-0.4, -0.4, -0.3), (0.4, 0.4, 0.3))
        return fx.l_bracket(2.0, 0.5, 1.0), transformed(block, rotation_about([0, 0, 1], 0.1), (0.97, 1.02, 0.5))
    if name == "ball in cup":
        return fx.cup(0.6, 0.8, 0.08, 48), transformed(fx.uv_sphere(0.3, 16, 32), offset=(0.1, 0.03, 0.45))
    raise KeyError(name)


SCENES = ["chain links", "rod through torus", "bolt in clearance hole", "block in L-bracket corner", "ball in cup"]


@pytest.mark.parametrize("name", SCENES)
def test_non_convex_scenes_match_coal(name):
    a, b = scene(name)
    size = max(a.size, b.size)
    expected = coal_distance(a, b)
    assert expected > 0.005 * size  # apart, though the hulls overlap
    result = mesh_distance(a, b)
    check_result(result, a, b, expected, size)
    assert surface_gap(result.point_a, a) <= 1e-12 * size and surface_gap(result.point_b, b) <= 1e-12 * size


@pytest.mark.parametrize("name", SCENES)
def test_a_descent_screened_by_aligned_boxes_alone_is_as_exact(name, monkeypatch):
    """``close_leaf_pair_steps`` skips the oriented boxes on levels with few node pairs (``ORIENTED_SCREEN_MIN_PAIRS``):
    a looser screen, never a wrong one. With the oriented boxes on every level and on none before the leaves, the
    distance is coal's and the same."""
    a, b = scene(name)
    expected, size = coal_distance(a, b), max(a.size, b.size)
    screened, screen = [], bvh_module.oriented_box_distance_sq
    monkeypatch.setattr(bvh_module, "oriented_box_distance_sq",
                        lambda bvh_a, nodes_a, *args: screened.append(len(nodes_a)) or screen(bvh_a, nodes_a, *args))
    found = {}
    for threshold in (0, 10 ** 9):
        monkeypatch.setattr(bvh_module, "ORIENTED_SCREEN_MIN_PAIRS", threshold)
        screened.clear()
        found[threshold] = mesh_distance(a, b)
        check_result(found[threshold], a, b, expected, size)
        assert len(screened) == 1 if threshold else len(screened) > 1  # the leaf pairs only, or every level
    assert found[0].distance == found[10 ** 9].distance


@pytest.mark.parametrize("name", ["chain links", "bolt in clearance hole"])
def test_swap_and_translation_invariance(name):
    a, b = scene(name)
    base = mesh_distance(a, b)
    swapped = mesh_distance(b, a)
    assert swapped.distance == pytest.approx(base.distance, abs=1e-12)
    assert np.allclose(swapped.point_a - swapped.point_b, base.point_b - base.point_a, atol=1e-9)
    shift = np.array([1e3, -2e3, 5e2])
    moved = mesh_distance(transformed(a, offset=shift), transformed(b, offset=shift))
    assert moved.distance == pytest.approx(base.distance, abs=1e-9)
    assert np.allclose(moved.point_b - moved.point_a, base.point_b - base.point_a, atol=1e-9)


def test_upper_bound_only_prunes():
    a, b = scene("ball in cup")
    exact = mesh_distance(a, b)
    for bound in (0.0, 0.5 * exact.distance, exact.distance, 10.0):
        assert mesh_distance(a, b, upper_bound=bound).distance == exact.distance


def test_an_upper_bound_just_short_of_the_distance_only_prunes():
    """A bound a little below the distance lets some triangle pairs through whose lower bounds are within it but
    whose distances are not: the closest of those is not the closest pair (pairs left out can be closer), so the
    search is run again without the bound (some 15 % of these seeded queries answered a larger distance before)."""
    rng = np.random.default_rng(3)
    for trial in range(40):
        a = fx.torus(major=0.8, minor=0.3) if trial % 2 else fx.uv_sphere()
        offset = rng.normal(size=3)
        b = transformed(fx.uv_sphere(), linear=rng.uniform(0.3, 1.0) * np.eye(3),
                        offset=offset / np.linalg.norm(offset) * rng.uniform(1.2, 2.5))
        exact = mesh_distance(a, b)
        assert exact.distance == pytest.approx(brute_force(a, b), abs=1e-12)
        for share in (0.3, 0.9, 0.99, 0.999):
            assert mesh_distance(a, b, upper_bound=share * exact.distance).distance == exact.distance


def test_of_equally_close_pairs_the_smallest_triangles_are_kept():
    """Two boxes face to face: many triangle pairs are exactly as close (corners over faces, edges over faces); the
    answer is the one with the smallest triangle of A, then of B, whatever order the trees measured them in (the
    boxes' triangles shuffled give another tree), so a search without trees can give the same answer."""
    a, b = fx.box((0, 0, 0), (1, 1, 1)), fx.box((0.25, 0.25, 1.5), (0.75, 0.75, 2.0))
    found = mesh_distance(a, b)
    rows_a = np.repeat(np.arange(len(a.triangles)), len(b.triangles))
    rows_b = np.tile(np.arange(len(b.triangles)), len(a.triangles))
    distances = triangle_pair_distance(a.corners[rows_a], b.corners[rows_b])[0]
    tied = np.flatnonzero(distances == distances.min())
    assert len(tied) > 1 and found.distance == distances.min() == 0.5
    assert (found.triangle_a, found.triangle_b) == (rows_a[tied[0]], rows_b[tied[0]])
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(len(b.triangles))
        shuffled = mesh(b.vertices, b.triangles[order])
        again = mesh_distance(a, shuffled)
        assert again.distance == found.distance
        first = min((rows_a[k], int(np.flatnonzero(order == rows_b[k])[0])) for k in tied)
        assert (again.triangle_a, again.triangle_b) == first


@pytest.mark.parametrize("name", ["chain links", "ball in cup"])
def test_the_search_a_step_at_a_time_is_the_same_search(name):
    """``mesh_distance_steps`` (the live update's, spread over updates) ends with ``mesh_distance``'s answer to the
    bit, after several steps (tree levels, screens, batches), with and without an upper bound (one too small
    searches again); its arguments are checked when it is called, not at its first step."""
    a, b = scene(name)
    for bound in (None, 0.5 * mesh_distance(a, b).distance, 1.01 * mesh_distance(a, b).distance):
        exact = mesh_distance(a, b, upper_bound=bound)
        steps = mesh_distance_steps(a, b, upper_bound=bound)
        count = 0
        while True:
            try:
                next(steps)
            except StopIteration as done:
                found = done.value
                break
            count += 1
        assert count >= 4
        assert (found.distance, found.triangle_a, found.triangle_b) == (exact.distance, exact.triangle_a,
                                                                         exact.triangle_b)
        assert (found.point_a == exact.point_a).all() and (found.point_b == exact.point_b).all()
    with pytest.raises(ValueError, match="upper_bound"):
        mesh_distance_steps(a, b, upper_bound=-1.0)


def test_touching_and_crossing_meshes_give_zero_on_both_surfaces():
    a = fx.box((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5))
    touching = fx.box((0.5, -0.2, -0.3), (1.5, 0.8, 0.7))  # face on face
    crossing = transformed(fx.uv_sphere(0.4, 8, 16), offset=(0.5, 0.1, 0.0))
    for b in (touching, crossing):
        result = mesh_distance(a, b)
        assert result.distance == pytest.approx(0.0, abs=1e-15)
        assert surface_gap(result.point_a, a) <= 1e-12 and surface_gap(result.point_b, b) <= 1e-12


def test_single_triangles_and_degenerate_triangles_in_meshes():
    rng = np.random.default_rng(12)
    a, b = random_triangle_pairs(rng, 20)
    for x, y in zip(a, b):  # one-triangle meshes: the tree is a single leaf
        result = mesh_distance(mesh(x, [[0, 1, 2]]), mesh(y, [[0, 1, 2]]))
        assert result.distance == pytest.approx(max(0.0, reference_contact(x, y).signed_distance), abs=1e-12)
    solid = fx.cup(0.6, 0.8, 0.08, 16)
    vertices, triangles = solid.vertices, solid.triangles
    slivers = np.array([[0, 0, 1], [0, 1, 1], [2, 2, 2], [0, 1, len(vertices) - 1]])  # points, segments
    cup = mesh(vertices, np.vstack([triangles, slivers]))
    ball = transformed(fx.uv_sphere(0.3, 8, 16), offset=(0.1, 0.03, 0.45))
    check_result(mesh_distance(cup, ball), cup, ball, brute_force(cup, ball), 1.0)
    check_result(mesh_distance(ball, cup), ball, cup, brute_force(cup, ball), 1.0)


def test_coincident_meshes_and_leaf_sizes():
    a = fx.torus(1.0, 0.25, 24, 12)
    same = mesh(a.vertices, a.triangles)
    result = mesh_distance(a, same)
    assert result.distance == 0.0 and np.array_equal(result.point_a, result.point_b)
    assert surface_gap(result.point_a, a) <= 1e-12
    b = transformed(a, rotation_about([1, 0, 0], np.pi / 2), (1.0, 0.07, 0.03))
    expected = coal_distance(a, b)
    for leaf_size in (1, 2, 16, 1000):
        tree_a, tree_b = TriangleBVH.build(a, leaf_size), TriangleBVH.build(b, leaf_size)
        assert mesh_distance(a, b, bvh_a=tree_a, bvh_b=tree_b).distance == pytest.approx(expected, abs=1e-12)


def test_ball_inside_box_is_at_its_surface_distance():
    # Surfaces only: a ball inside a hollow box is as far as its surface is from the walls.
    a = fx.box((-1.0, -1.0, -1.0), (1.0, 1.0, 1.0))
    b = transformed(fx.uv_sphere(0.5, 16, 32), offset=(0.2, 0.0, 0.0))
    assert mesh_distance(a, b).distance == pytest.approx(0.3, abs=1e-12)


# --- nearest surface points ----------------------------------------------------------------------

def test_nearest_on_surface_matches_brute_force():
    rng = np.random.default_rng(5)
    m = fx.cup(0.6, 0.8, 0.08, 24)
    points = rng.uniform(-0.8, 0.9, size=(300, 3))
    points[:20] = m.vertices[:20]  # on the surface
    distance, closest, triangle = nearest_on_surface(m, points)
    every = reference_point_distance(np.repeat(points, len(m.triangles), axis=0),
                                     np.tile(m.corners, (len(points), 1, 1))).reshape(len(points), -1)
    assert np.abs(distance - every.min(axis=1)).max() <= 1e-12
    assert np.allclose(np.linalg.norm(points - closest, axis=1), distance, atol=1e-14)
    assert reference_point_distance(closest, m.corners[triangle]).max() <= 1e-12
    assert distance[:20].max() == 0.0
    tree = TriangleBVH.build(m, leaf_size=2)
    assert np.array_equal(nearest_on_surface(m, points, tree)[0], distance)


def test_nearest_on_surface_in_chunks_matches_brute_force():
    rng = np.random.default_rng(6)
    m = fx.l_bracket(2.0, 0.5, 1.0)
    points = rng.uniform(-0.5, 2.5, size=(5000, 3))  # more than one chunk of points
    distance, closest, triangle = nearest_on_surface(m, points)
    every = reference_point_distance(np.repeat(points, len(m.triangles), axis=0),
                                     np.tile(m.corners, (len(points), 1, 1))).reshape(len(points), -1)
    assert np.abs(distance - every.min(axis=1)).max() <= 1e-12
    assert reference_point_distance(closest, m.corners[triangle]).max() <= 1e-12


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_windowed_distance_equals_the_whole_trees_and_coal(seed):
    """The distance over trees of only the triangles near the other mesh is the whole trees' (and coal's), with
    triangle indices of the whole meshes, for a big mesh next to small ones around it, loose vertices included."""
    rng = np.random.default_rng(seed)
    big = fx.torus(2.0, 0.5, 32, 16)
    loose = np.vstack([big.vertices, [[0.0, 0.0, 0.0]]])  # an unused vertex at the centre, nearer than any triangle
    big = mesh(loose, big.triangles)
    for _ in range(4):
        small = transformed(fx.uv_sphere(rng.uniform(0.1, 0.5), 6, 8), random_rotation(rng),
                            rng.normal(size=3) * rng.uniform(1.0, 4.0))
        for a, b in ((big, small), (small, big)):
            whole, windowed = mesh_distance(a, b), windowed_mesh_distance(a, b)
            assert windowed.distance == whole.distance
            assert windowed.distance == pytest.approx(coal_distance(a, b), abs=RELATIVE * 10)
            pair = triangle_pair_distance(a.corners[[windowed.triangle_a]], b.corners[[windowed.triangle_b]])
            assert pair[0][0] == pytest.approx(windowed.distance, abs=1e-12)
