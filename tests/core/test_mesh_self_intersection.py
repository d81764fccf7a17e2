"""Self-intersections of one mesh against brute force in exact rational arithmetic."""

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh.embedded_stars import balanced_vertices, embedded_stars
import core.mesh.self_intersection as self_intersection_module
from core.mesh.self_intersection import orient_2d, self_candidate_pairs, self_intersection


def _sub(a, b):
    return [x - y for x, y in zip(a, b)]


def _cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def _rational(triangle):
    return [[Fraction(float(x)) for x in corner] for corner in triangle]


def _chord(tri, other):
    """tri ∩ plane(other) as two points, when tri has corners strictly on both sides of that plane."""
    n = _cross(_sub(other[1], other[0]), _sub(other[2], other[0]))
    h = [_dot(_sub(c, other[0]), n) for c in tri]
    if not (max(h) > 0 > min(h)):
        return None
    points = [c for c, v in zip(tri, h) if v == 0]
    for i, j in ((0, 1), (1, 2), (2, 0)):
        if h[i] * h[j] < 0:
            w = h[i] / (h[i] - h[j])
            points.append([a + w * (b - a) for a, b in zip(tri[i], tri[j])])
    return points


def _clipped_area(p, q, drop):
    """Area (projected, exact) of two coplanar triangles' overlap, by Sutherland-Hodgman in rationals."""
    keep = [k for k in range(3) if k != drop]
    flat = lambda tri: [[c[keep[0]], c[keep[1]]] for c in tri]  # noqa: E731

    def turn(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    def ccw(tri):
        return tri if turn(*tri) > 0 else tri[::-1]
    polygon, clip = ccw(flat(p)), ccw(flat(q))
    for k in range(3):
        a, b = clip[k], clip[(k + 1) % 3]
        out = []
        for m in range(len(polygon)):
            u, v = polygon[m], polygon[(m + 1) % len(polygon)]
            su, sv = turn(a, b, u), turn(a, b, v)
            if su >= 0:
                out.append(u)
            if (su > 0 > sv) or (su < 0 < sv):
                w = su / (su - sv)
                out.append([u[0] + w * (v[0] - u[0]), u[1] + w * (v[1] - u[1])])
        polygon = out
        if not polygon:
            return 0
    return sum(polygon[m][0] * polygon[(m + 1) % len(polygon)][1] - polygon[(m + 1) % len(polygon)][0] * polygon[m][1]
               for m in range(len(polygon)))


def reference_intersects(t, s) -> bool:
    """Whether two triangles cross (positive-length common chord, each strictly on both sides of the other's
    plane) or overlap in one plane with positive area, in exact rationals."""
    t, s = _rational(t), _rational(s)
    n_t = _cross(_sub(t[1], t[0]), _sub(t[2], t[0]))
    n_s = _cross(_sub(s[1], s[0]), _sub(s[2], s[0]))
    if not any(n_t) or not any(n_s):
        return False
    heights = [_dot(_sub(c, t[0]), n_t) for c in s]
    if not any(heights):
        drop = max(range(3), key=lambda k: abs(n_t[k]))
        return _clipped_area(t, s, drop) > 0
    chord_t, chord_s = _chord(t, s), _chord(s, t)
    if chord_t is None or chord_s is None:
        return False
    direction = _cross(n_t, n_s)
    along_t = sorted(_dot(p, direction) for p in chord_t)
    along_s = sorted(_dot(p, direction) for p in chord_s)
    return max(along_t[0], along_s[0]) < min(along_t[-1], along_s[-1])


def brute_force_pairs(mesh) -> set:
    corners = mesh.corners
    return {(i, j) for i, j in combinations(range(len(corners)), 2) if reference_intersects(corners[i], corners[j])}


def random_soup(rng, count, grid):
    """Triangles on a coarse integer grid: shared vertices, shared edges, coplanar folds, touching corners."""
    vertices = rng.integers(0, grid, size=(3 * count // 2, 3)).astype(float)
    triangles = rng.integers(0, len(vertices), size=(count, 3))
    triangles = triangles[(triangles[:, 0] != triangles[:, 1]) & (triangles[:, 1] != triangles[:, 2])
                          & (triangles[:, 0] != triangles[:, 2])]
    return fx.mesh(vertices, triangles)


@pytest.mark.parametrize("seed, grid", [(0, 3), (1, 3), (2, 4), (3, 5), (4, 8)])
def test_face_pairs_match_exact_brute_force(seed, grid):
    soup = random_soup(np.random.default_rng(seed), 70, grid)
    found = self_intersection(soup)
    assert {tuple(pair) for pair in found.pairs.tolist()} == brute_force_pairs(soup)
    assert len(found.pairs) > 10


def test_candidate_pairs_are_every_overlapping_box_pair_once():
    soup = random_soup(np.random.default_rng(7), 300, 6)
    listed = np.concatenate(list(self_candidate_pairs(soup)))
    lows, highs = soup.lows, soup.highs
    overlap = np.all((lows[:, None] <= highs[None]) & (lows[None] <= highs[:, None]), axis=2)
    expected = {(i, j) for i, j in zip(*np.nonzero(overlap)) if i < j}
    assert len(listed) == len(expected) and {tuple(p) for p in listed.tolist()} == expected


def test_closed_shapes_made_with_care_do_not_intersect_themselves():
    for shape in (fx.uv_sphere(), fx.torus(), fx.cup(), fx.block_with_hole(), fx.chain_link(), fx.wall_with_door()):
        assert self_intersection(shape).count == 0


def test_split_vertices_and_flat_neighbours_only_touch():
    """A box whose faces have their own vertices (a glTF import) and a flat grid: faces meet, never cross."""
    cube = fx.box()
    split = fx.mesh(cube.corners.reshape(-1, 3), np.arange(3 * len(cube.triangles)).reshape(-1, 3))
    xs, ys = np.meshgrid(np.arange(5.0), np.arange(5.0))
    grid_points = np.column_stack([xs.ravel(), ys.ravel(), np.zeros(25)])
    ids = np.arange(25).reshape(5, 5)
    quads = np.stack([ids[:-1, :-1], ids[:-1, 1:], ids[1:, 1:], ids[1:, :-1]], -1).reshape(-1, 4)
    flat = fx.mesh(grid_points, np.vstack([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]]))
    assert self_intersection(split).count == 0 and self_intersection(flat).count == 0


def test_two_joined_boxes_cross_along_one_closed_curve_per_loop():
    joined = fx.joined(fx.box((0, 0, 0), (1, 1, 1)), fx.box((0.5, 0.2, 0.2), (1.5, 0.8, 0.8)))
    found = self_intersection(joined)
    assert found.count == len(brute_force_pairs(joined)) > 0
    assert found.curve_count == 1 and not found.coplanar.any()
    # the crossing curve is the rectangle where the second box passes through the first box's face x = 1
    ends = found.segments.reshape(-1, 3)
    np.testing.assert_allclose(ends[:, 0], 1.0, atol=1e-12)
    length = np.linalg.norm(found.segments[:, 1] - found.segments[:, 0], axis=1).sum()
    assert length == pytest.approx(2 * (0.6 + 0.6))


def test_folded_flap_is_a_coplanar_intersection():
    vertices = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0.8, 0.6, 0]])
    folded = fx.mesh(vertices, [[0, 1, 2], [0, 1, 3]])  # both on the same side of their shared edge
    opened = fx.mesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0.5, -1, 0]]), [[0, 1, 2], [0, 1, 3]])
    found = self_intersection(folded)
    assert found.count == 1 and found.coplanar.all() and len(found.segments) == 0
    assert self_intersection(opened).count == 0


def test_faces_sharing_a_vertex_count_only_when_they_pass_through_each_other():
    apex = [0.0, 0, 0]
    through = fx.mesh(np.array([apex, [2, -1, 0], [2, 1, 0], [1, 0, -1], [1, 0, 1]]), [[0, 1, 2], [0, 3, 4]])
    touching = fx.mesh(np.array([apex, [2, -1, 0], [2, 1, 0], [-1, 0, -1], [-1, 0, 1]]), [[0, 1, 2], [0, 3, 4]])
    assert self_intersection(through).count == 1 and self_intersection(touching).count == 0


def test_orient_2d_is_exact_on_nearly_collinear_points():
    a, b = np.array([0.1, 0.1]), np.array([0.3, 0.3])
    c = np.array([0.2, np.nextafter(0.2, 1.0)])
    assert orient_2d(a, b, c) == 1 and orient_2d(a, b, np.array([0.5, 0.5])) == 0


def brute_force_near_pairs(mesh) -> set:
    """``brute_force_pairs`` with the pairs whose (closed) boxes are apart left out, as they cannot meet."""
    lows, highs = mesh.lows, mesh.highs
    overlap = np.all((lows[:, None] <= highs[None]) & (lows[None] <= highs[:, None]), axis=2)
    corners = mesh.corners
    return {(i, j) for i, j in zip(*np.nonzero(np.triu(overlap, 1)))
            if reference_intersects(corners[i], corners[j])}


def crumpled_sphere(seed: int, rings: int, segments: int, noise: float):
    """A closed UV sphere with its vertices pushed about at random: folds, crossings between neighbours."""
    sphere = fx.uv_sphere(1.0, rings, segments)
    rng = np.random.default_rng(seed)
    return fx.mesh(sphere.vertices + rng.normal(scale=noise, size=sphere.vertices.shape), sphere.triangles)


def fan(angles, heights, radii) -> "fx.TriangleMesh":
    """A closed fan around the origin: ring points at the given angles (which may wind more than once)."""
    ring = np.column_stack([radii * np.cos(angles), radii * np.sin(angles), heights])
    count = len(ring)
    return fx.mesh(np.vstack([[0.0, 0.0, 0.0], ring]),
                   [[0, 1 + k, 1 + (k + 1) % count] for k in range(count)])


def test_stars_of_smooth_closed_surfaces_are_certified():
    for shape in (fx.uv_sphere(), fx.torus(), crumpled_sphere(0, 10, 14, 0.001)):
        assert embedded_stars(shape).all()


@pytest.mark.parametrize("seed", range(6))
def test_certified_stars_never_hold_an_intersecting_pair(seed):
    """Faces pushed about until neighbours cross: every pair of faces sharing a certified vertex is apart by the
    exact reference, and the check finds exactly the reference's pairs."""
    shape = crumpled_sphere(seed, 9, 12, 0.12)
    certified = embedded_stars(shape)
    expected = brute_force_near_pairs(shape)
    triangles = shape.triangles
    star_pairs = {(i, j) for i, j in combinations(range(len(triangles)), 2)
                  if any(certified[v] for v in set(triangles[i]) & set(triangles[j]))}
    assert not star_pairs & expected
    assert 0 < certified.sum() < len(certified)  # both kinds of vertex are there
    found = self_intersection(shape)
    assert {tuple(pair) for pair in found.pairs.tolist()} == expected
    assert any(set(triangles[i]) & set(triangles[j]) for i, j in expected)  # neighbours among the crossings


def test_listing_and_deciding_in_small_blocks_give_the_same_answer(monkeypatch):
    """A big mesh is listed and decided a block at a time: with blocks of a few pairs (entries whose pairs run
    across a block's end, decisions joined from several listed blocks) the answer is the same, number for number,
    and the exact reference's."""
    shape = crumpled_sphere(2, 10, 14, 0.1)
    whole = self_intersection(shape)
    monkeypatch.setattr(self_intersection_module, "PAIRS_PER_BLOCK", 37)
    monkeypatch.setattr(self_intersection_module, "PAIRS_DECIDED_TOGETHER", 5)
    blocks = list(self_candidate_pairs(shape))
    assert len(blocks) > 50  # many blocks
    listed = np.concatenate(blocks)
    lows, highs = shape.lows, shape.highs
    overlap = np.all((lows[:, None] <= highs[None]) & (lows[None] <= highs[:, None]), axis=2)
    assert len(listed) == np.triu(overlap, 1).sum()
    assert {tuple(pair) for pair in listed.tolist()} == set(zip(*np.nonzero(np.triu(overlap, 1))))
    pieces = self_intersection(shape)
    for field in ("pairs", "coplanar", "segments", "curve_of_segment"):
        assert np.array_equal(getattr(pieces, field), getattr(whole, field))
    assert {tuple(pair) for pair in pieces.pairs.tolist()} == brute_force_near_pairs(shape)
    assert whole.count > 5 and whole.curve_count > 1


def test_a_fan_winding_twice_is_not_certified_and_its_faces_cross():
    count = 12
    angles = np.linspace(0.0, 4.0 * np.pi, count, endpoint=False)
    twice = fan(angles, 0.3 * np.sin(angles / 2.0), np.ones(count))
    once = fan(angles / 2.0, 0.3 * np.sin(angles / 2.0), np.ones(count))
    assert not embedded_stars(twice)[0] and embedded_stars(once)[0]
    expected = brute_force_pairs(twice)
    assert expected and {tuple(pair) for pair in self_intersection(twice).pairs.tolist()} == expected
    assert self_intersection(once).count == 0 == len(brute_force_pairs(once))


def test_bow_tie_pinched_fan_and_duplicate_faces_match_the_exact_reference():
    # two fans sharing their apex (a non-manifold vertex), one passing through the other
    first = fan(np.linspace(0, 2 * np.pi, 8, endpoint=False), np.full(8, 0.5), np.ones(8))
    second = fx.transformed(first, np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]]))
    bow_tie = fx.mesh(np.vstack([first.vertices, second.vertices[1:]]),
                      np.vstack([first.triangles, np.where(second.triangles == 0, 0, second.triangles + 8)]))
    # a fan one of whose faces is folded back over its neighbour (its shadow turns the other way)
    angles = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    angles[3] = angles[1] + 0.05
    pinched = fan(angles, np.array([0, 0, 0.5, 0.3, 0, 0, 0, 0]), np.ones(8))
    # a sphere with one face twice (the same corners) and one face twice the other way round
    sphere = fx.uv_sphere(1.0, 6, 8)
    doubled = fx.mesh(sphere.vertices, np.vstack([sphere.triangles, sphere.triangles[[5]],
                                                  sphere.triangles[[9], ::-1]]))
    for shape, star_certified in ((bow_tie, False), (pinched, False), (doubled, None)):
        if star_certified is not None:
            assert embedded_stars(shape)[0] == star_certified
        expected = brute_force_pairs(shape)
        assert expected and {tuple(pair) for pair in self_intersection(shape).pairs.tolist()} == expected
    twin = len(sphere.triangles)
    assert not embedded_stars(doubled)[sphere.triangles[5]].any()
    assert (5, twin) in brute_force_pairs(doubled)


def test_coplanar_fold_between_faces_sharing_an_edge_inside_a_closed_surface():
    box = fx.box()  # its top (z = 1) is faces (7, 4, 5) and (5, 6, 7), sharing the edge from 5 to 7
    vertices = box.vertices.copy()
    vertices[4] = [0.75, 0.75, 1.0]  # corner 4 moved across that edge, still in the top's plane
    folded = fx.mesh(vertices, box.triangles)
    expected = brute_force_pairs(folded)
    found = self_intersection(folded)
    assert (2, 3) in expected and not embedded_stars(folded)[[5, 7]].any()
    assert {tuple(pair) for pair in found.pairs.tolist()} == expected
    assert found.coplanar[np.flatnonzero((found.pairs == [2, 3]).all(1))].all()


def test_balanced_vertices_are_those_whose_edges_run_both_ways_equally():
    sphere = fx.uv_sphere(1.0, 6, 8)
    assert balanced_vertices(sphere.triangles, len(sphere.vertices)).all()
    opened = sphere.triangles[1:]  # the first face's corners now have an edge used one way only
    balanced = balanced_vertices(opened, len(sphere.vertices))
    assert set(np.flatnonzero(~balanced)) == set(sphere.triangles[0])
    flipped = sphere.triangles.copy()
    flipped[0] = flipped[0, ::-1]  # its three edges now run the same way as their neighbours' uses
    assert set(np.flatnonzero(~balanced_vertices(flipped, len(sphere.vertices)))) == set(sphere.triangles[0])


def test_faces_too_big_for_the_grid_are_paired_by_the_sweep_less_their_certified_neighbours():
    """A fan with two faces reaching far out (boxes spanning many cells of the sphere's fine grid) slicing a
    crumpled sphere: the big faces' pairs come from the sweep, their neighbours in the fan are left out there too."""
    angles = np.linspace(0.0, 2.0 * np.pi, 8, endpoint=False)
    radii = np.ones(8)
    radii[2] = 40.0
    big = fan(angles, 0.05 * np.cos(3 * angles), radii)
    shape = fx.joined(crumpled_sphere(3, 9, 12, 0.12), fx.transformed(big, offset=(0.3, 0.2, 0.1)))
    certified = embedded_stars(shape)
    apex = len(shape.vertices) - 9  # the fan's centre, certified: its faces' pairs are not listed
    assert certified[apex]
    found = {tuple(pair) for pair in self_intersection(shape).pairs.tolist()}
    assert found == brute_force_near_pairs(shape)
    fan_faces = set(range(len(shape.triangles) - 8, len(shape.triangles)))
    assert any(i in fan_faces or j in fan_faces for i, j in found)
    listed = np.concatenate(list(self_candidate_pairs(shape, np.where(certified[shape.triangles], shape.triangles,
                                                                       -1 - np.arange(shape.triangles.size)
                                                                       .reshape(-1, 3)))))
    assert not any(i in fan_faces and j in fan_faces for i, j in listed.tolist())


@pytest.mark.parametrize("seed", range(3))
def test_side_tests_are_the_exact_signs(seed):
    """The side tests' float filter (the permanent's bound) lets through only signs it gets right: every corner of
    every triangle against every other triangle's plane, on turned lattice faces whose points are coplanar only to
    rounding, nudged by an ulp, and exactly coplanar ones, against the exact signs in rational arithmetic."""
    rng = np.random.default_rng(seed)
    lattice = rng.integers(-3, 4, (60, 3)).astype(float)
    turned = lattice @ fx.rotation_z(0.3 + seed)[:3, :3].T * 0.37 + 10.0  # off the origin: large coordinates
    vertices = np.concatenate([lattice, turned, np.nextafter(turned, np.inf)])
    triangles = rng.integers(0, len(vertices), (90, 3))
    triangles = triangles[(triangles[:, 0] != triangles[:, 1]) & (triangles[:, 1] != triangles[:, 2])
                          & (triangles[:, 0] != triangles[:, 2])]
    mesh = fx.mesh(vertices, triangles)
    t, s = (pair.ravel() for pair in np.meshgrid(np.arange(len(triangles)), np.arange(len(triangles)), indexing="ij"))
    sides = self_intersection_module._sides(mesh, self_intersection_module._Planes.of(mesh), t, s)
    expected = np.zeros(sides.shape, dtype=int)
    corners = mesh.corners
    for row in range(len(t)):
        a, b, c = _rational(corners[t[row]])
        normal = _cross(_sub(b, a), _sub(c, a))
        for k, q in enumerate(_rational(corners[s[row]])):
            value = _dot(normal, _sub(q, a))
            expected[row, k] = (value > 0) - (value < 0)
    np.testing.assert_array_equal(sides, expected)
    assert (expected == 0).sum() > 200 and (expected != 0).sum() > 2000
