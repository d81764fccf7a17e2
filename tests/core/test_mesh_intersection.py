"""Triangle-pair and surface intersection, and winding numbers, against independent references."""

from fractions import Fraction

import manifold3d
import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh import Solid
from core.mesh.intersection import (MeshPairs, chain_segments, default_tolerance, surface_intersection,
                                    surfaces_cross, surfaces_overlap)
from core.mesh.triangle_intersection import (all_same, canonical_edges, edge_orientations, exact_integers,
                                             intersect_triangle_pairs, orientation_signs, pair_crossings,
                                             plane_sides)
from core.mesh.volume import overlap_volume
from core.mesh.inside import contains, solid_angle_windings
from generators import random_rotation


def reference_segment(t, s):
    """t ∩ s for a generic pair, by clipping: each triangle's chord on the other's plane, overlapped on the line."""
    def chord(tri, other):
        n = np.cross(other[1] - other[0], other[2] - other[0])
        h = (tri - other[0]) @ n
        points = [tri[i] + h[i] / (h[i] - h[j]) * (tri[j] - tri[i])
                  for i, j in ((0, 1), (1, 2), (2, 0)) if h[i] * h[j] < 0]
        return points if len(points) == 2 else None
    chord_t, chord_s = chord(t, s), chord(s, t)
    if chord_t is None or chord_s is None:
        return None
    direction = np.cross(np.cross(t[1] - t[0], t[2] - t[0]), np.cross(s[1] - s[0], s[2] - s[0]))
    ends = sorted(chord_t, key=lambda p: p @ direction), sorted(chord_s, key=lambda p: p @ direction)
    start = max((ends[0][0], ends[1][0]), key=lambda p: p @ direction)
    end = min((ends[0][1], ends[1][1]), key=lambda p: p @ direction)
    return (start, end) if start @ direction < end @ direction else None


def test_exact_integers_keep_zeros_integers_beside_large_values():
    values = exact_integers(np.array([0.0, 1.0, 3.0, 2.0 ** 40]))
    assert all(type(value) is int for value in values)  # a float zero turns every sum it enters into a float
    assert values[0] == 0 and values[2] == 3 * values[1] and values[3] == 2 ** 40 * values[1]


@pytest.mark.parametrize("seed", range(3))
def test_orientation_signs_exact_on_large_coordinates_with_a_zero_corner(seed):
    """Nearly flat tetrahedra on integer coordinates of up to 2^40 with one corner at the origin: the float filter
    cannot decide them, and the exact recomputation must (against rational arithmetic)."""
    rng = np.random.default_rng(seed)
    for _ in range(40):
        scale = 2.0 ** rng.integers(20, 40)
        u, v = np.round(rng.uniform(1, 2, 3) * scale), np.round(rng.uniform(1, 2, 3) * scale)
        w = u + v
        w[rng.integers(3)] += rng.choice([-1.0, 0.0, 1.0])
        rows = [[Fraction(float(x)) for x in point] for point in (u, v, w)]
        determinant = (rows[0][0] * (rows[1][1] * rows[2][2] - rows[1][2] * rows[2][1])
                       - rows[0][1] * (rows[1][0] * rows[2][2] - rows[1][2] * rows[2][0])
                       + rows[0][2] * (rows[1][0] * rows[2][1] - rows[1][1] * rows[2][0]))
        expected = (determinant > 0) - (determinant < 0)
        assert int(orientation_signs(np.zeros(3), u, v, w, None)) == expected


@pytest.mark.parametrize("seed", range(4))
def test_triangle_pairs_match_clipping_reference(seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, size=(400, 3, 3))
    b = rng.uniform(-1, 1, size=(400, 3, 3)) + rng.uniform(-0.3, 0.3, size=(400, 1, 3))
    result = intersect_triangle_pairs(a, b)
    crossings = 0
    for k in range(len(a)):
        expected = reference_segment(a[k], b[k])
        assert result.crossing[k] == (expected is not None)
        assert result.proper[k] == (expected is not None)
        if expected is not None:
            crossings += 1
            np.testing.assert_allclose(result.start[k], expected[0], atol=1e-12)
            np.testing.assert_allclose(result.end[k], expected[1], atol=1e-12)
    assert crossings > 20 and not result.coplanar.any()


@pytest.mark.parametrize("seed", range(3))
def test_coplanar_overlap_areas_match_manifold3d(seed):
    rng = np.random.default_rng(seed)
    flat_a = rng.uniform(-1, 1, size=(60, 3, 2))
    flat_b = rng.uniform(-1, 1, size=(60, 3, 2)) * 0.7
    rotation = random_rotation(rng)
    lift = lambda flat: np.concatenate([flat, np.full(flat.shape[:2] + (1,), 0.25)], axis=2) @ rotation.T  # noqa: E731
    result = intersect_triangle_pairs(lift(flat_a), lift(flat_b))

    def ccw(tri):
        return tri if np.cross(np.append(tri[1] - tri[0], 0), np.append(tri[2] - tri[0], 0))[2] > 0 else tri[::-1]
    expected = np.array([(manifold3d.CrossSection([ccw(p)]) ^ manifold3d.CrossSection([ccw(q)])).area()
                         for p, q in zip(flat_a, flat_b)])
    np.testing.assert_allclose(result.coplanar_area, np.where(expected > 1e-6, expected, 0.0), rtol=1e-6, atol=1e-6)
    assert result.coplanar[expected > 1e-6].all() and not result.proper.any()  # rotated: flat up to rounding


def test_degenerate_triangles_give_no_crossing_and_no_nan():
    good = np.array([[0.0, 0, -1], [1, 0, 1], [0, 1, 1]])
    degenerate = [np.zeros((3, 3)), np.array([[0.0, 0, 0], [1, 1, 1], [2, 2, 2]]), np.array([[0.2, 0.2, -1]] * 3)]
    a = np.stack([good] * len(degenerate) + degenerate)
    b = np.stack(degenerate + [np.array([[0.0, 0, 0], [2, 0, 0], [0, 2, 0]])] * len(degenerate))
    result = intersect_triangle_pairs(a, b)
    assert not result.crossing.any() and not result.proper.any()
    assert np.isfinite(result.coplanar_area).all()


def curve_length(points, closed):
    path = np.concatenate([points, points[:1]]) if closed else points
    return np.linalg.norm(np.diff(path, axis=0), axis=1).sum()


def assert_segments_on_their_triangles(result, a, b):
    for mesh, column in ((a, 0), (b, 1)):
        tri = mesh.corners[result.segment_triangles[:, column]]
        normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        for end in (0, 1):
            assert np.abs(np.einsum("ij,ij->i", result.segments[:, end] - tri[:, 0], normal)).max() < 1e-12


def test_box_poking_through_a_face_gives_one_square_loop():
    a, b = fx.box((0, 0, 0), (2, 2, 2)), fx.box((1, 0.5, 0.5), (3, 1.5, 1.5))
    result = surface_intersection(a, b)
    assert result.crossing and len(result.curves) == 1 and result.closed.all()
    assert np.allclose(result.curves[0][:, 0], 2.0)
    assert curve_length(result.curves[0], True) == pytest.approx(4.0, rel=1e-12)
    assert len(result.regions) == 1 and result.regions[0].crossing and not result.patches
    assert_segments_on_their_triangles(result, a, b)


def test_rod_through_a_plate_gives_two_loops_of_the_rod_perimeter():
    segments = 16
    plate, rod = fx.box((-1, -1, -0.2), (1, 1, 0.3)), fx.transformed(fx.rod(0.4, -1, 1, segments), offset=(0.1, 0, 0))
    result = surface_intersection(plate, rod)
    assert len(result.curves) == 2 and result.closed.all()
    heights = sorted(curve[:, 2].mean() for curve in result.curves)
    assert heights == pytest.approx([-0.2, 0.3])
    perimeter = 2 * segments * 0.4 * np.sin(np.pi / segments)
    for curve in result.curves:
        assert curve_length(curve, True) == pytest.approx(perimeter, rel=1e-12)
    assert_segments_on_their_triangles(result, plate, rod)


def test_pin_through_a_ring_tube_gives_two_closed_loops():
    ring = fx.torus(2, 0.5, 32, 16)
    pin = fx.transformed(fx.rod(0.15, -1, 1, 12), offset=(2.0, 0.1, 0))
    result = surface_intersection(ring, pin)
    assert len(result.curves) == 2 and result.closed.all() and result.crossing
    assert sorted(np.sign([c[:, 2].mean() for c in result.curves])) == [-1, 1]  # top and bottom of the tube
    assert_segments_on_their_triangles(result, ring, pin)
    assert surfaces_cross(ring, pin)


def test_sphere_pair_loops_are_closed_and_lie_on_both_surfaces():
    rng = np.random.default_rng(7)
    a = fx.transformed(fx.uv_sphere(1.0, 14, 20), random_rotation(rng))
    b = fx.transformed(fx.uv_sphere(0.7, 10, 12), random_rotation(rng), (0.9, 0.3, -0.2))
    result = surface_intersection(a, b)
    assert len(result.curves) == 1 and result.closed.all() and result.proper.all()
    assert len(result.curves[0]) == len(result.segments)
    assert_segments_on_their_triangles(result, a, b)


TOUCHING = {
    "shared face": (fx.box(), fx.box((1, 0, 0), (2, 1, 1))),
    "shared edge": (fx.box(), fx.box((1, 1, 0), (2, 2, 1))),
    "shared corner": (fx.box(), fx.box((1, 1, 1), (2, 2, 2))),
    "identical": (fx.box(), fx.box()),
    "resting, offset": (fx.box(), fx.box((0.3, 0.4, 1), (1.6, 0.9, 2))),
}
APART = {
    "disjoint": (fx.torus(), fx.transformed(fx.uv_sphere(), offset=(10.0, 0, 0))),
    "nested": (fx.uv_sphere(2.0), fx.torus(0.8, 0.2)),
    "ball in a cup": (fx.cup(), fx.transformed(fx.uv_sphere(0.6), offset=(0.0, 0.0, 1.0))),
    "chain links hanging free": (fx.chain_link(), fx.transformed(
        fx.chain_link(), np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]]), (2.0, 0, 0))),
}


@pytest.mark.parametrize("name", sorted(TOUCHING) + sorted(APART))
@pytest.mark.parametrize("swap", [False, True])
def test_touching_or_apart_surfaces_do_not_cross(name, swap):
    a, b = {**TOUCHING, **APART}[name]
    a, b = (b, a) if swap else (a, b)
    assert not surfaces_cross(a, b)
    assert not surface_intersection(a, b).crossing


def test_push_out_to_contact_is_certified_and_a_hair_less_is_not():
    a, b = fx.box(), fx.box((0.7, 0.2, 0.1), (1.7, 0.8, 0.9))
    assert surfaces_cross(a, b)
    assert not surfaces_cross(a, fx.transformed(b, offset=(0.3, 0, 0)))
    assert surfaces_cross(a, fx.transformed(b, offset=(0.3 - 1e-6, 0, 0)))


def test_coplanar_patches_of_walls_overlapping_end_to_end():
    a, b = fx.wall_with_door(), fx.transformed(fx.wall_with_door(), offset=(2.0, 0, 0))
    result = surface_intersection(a, b)
    # front and back faces overlap on 1 x 3, top and bottom on 1 x 0.2; each door jamb lies on the other
    # wall's end face (2 x 0.2)
    assert sum(p.area for p in result.patches) == pytest.approx(2 * 3.0 + 2 * 0.2 + 2 * 0.4, rel=1e-12)
    assert all(p.same_orientation for p in result.patches)
    assert not result.crossing


def test_face_to_face_contact_is_one_patch_facing_the_other_way():
    result = surface_intersection(fx.box(), fx.box((1, 0.25, 0.5), (2, 1.25, 1.5)))
    assert len(result.patches) == 1
    patch = result.patches[0]
    assert patch.area == pytest.approx(0.75 * 0.5, rel=1e-12) and not patch.same_orientation
    np.testing.assert_allclose(patch.normal, [1, 0, 0])
    assert patch.point[0] == pytest.approx(1.0) and 0.25 <= patch.point[1] <= 1 and 0.5 <= patch.point[2] <= 1
    assert len(result.regions) == 1 and not result.regions[0].crossing


def test_winding_numbers_inside_and_outside():
    rng = np.random.default_rng(0)
    torus = fx.torus(2.0, 0.5, 32, 16)
    points = rng.uniform(-3, 3, size=(1000, 3)) * [1, 1, 0.3]
    tube = np.hypot(np.hypot(points[:, 0], points[:, 1]) - 2.0, points[:, 2])
    clear = np.abs(tube - 0.5) > 0.05  # away from the tessellated surface
    w = solid_angle_windings(torus, points[clear])
    np.testing.assert_allclose(w, (tube[clear] < 0.5).astype(float), atol=1e-9)
    cup = fx.cup()
    assert contains(cup, [[0, 0, 0.05], [0.92, 0, 1.0], [-0.92, 0.0, 0.5]]).all()  # base and walls
    assert not contains(cup, [[0, 0, 0.5], [0, 0, 1.4], [0, 0, -0.1]]).any()  # in the cavity, below it
    assert solid_angle_windings(cup, [[0.5, 0.0, 0.0]])[0] == pytest.approx(0.5, abs=1e-9)  # on the flat bottom


def test_winding_numbers_flip_with_orientation_and_agree_across_chunks():
    sphere = fx.uv_sphere(1.0, 8, 10)
    points = np.random.default_rng(1).normal(size=(2000, 3))
    w = solid_angle_windings(sphere, points)
    np.testing.assert_allclose(solid_angle_windings(fx.mesh(sphere.vertices, sphere.triangles[:, ::-1]), points), -w,
                               atol=1e-12)
    np.testing.assert_allclose(solid_angle_windings(sphere, points[:7]), w[:7], atol=1e-12)
    assert np.all((np.abs(w) < 1e-9) | (np.abs(w - 1) < 1e-9) | (np.linalg.norm(points, axis=1) > 0.9)
                  & (np.linalg.norm(points, axis=1) < 1.0))


def test_chain_segments_orders_paths_and_loops():
    # a path 10 -> 11 -> 12 -> 13 and a loop 20 -> 21 -> 22 -> 20, segments shuffled
    starts = np.array([10, 11, 12, 20, 21, 22])
    ends = np.array([11, 12, 13, 21, 22, 20])
    shuffle = np.random.default_rng(0).permutation(6)
    order, chain, closed = chain_segments(starts[shuffle], ends[shuffle])
    chains = [starts[shuffle][order][chain[order] == k].tolist() for k in range(2)]
    by_closed = dict(zip(closed.tolist(), chains))
    assert by_closed[False] == [10, 11, 12]
    assert by_closed[True] in ([20, 21, 22], [21, 22, 20], [22, 20, 21])


def test_open_surface_gives_open_curves_and_empty_or_flat_meshes_give_nothing():
    plate = fx.box((-1, -1, 0), (1, 1, 0.1))
    top_only = fx.mesh(plate.vertices, plate.triangles[2:4])  # the top face alone: an open sheet
    result = surface_intersection(top_only, fx.transformed(fx.rod(0.3, -1, 1, 12), offset=(0.95, 0.1, 0)))
    assert len(result.curves) == 1 and not result.closed[0]  # the rod sticks out over the sheet's edge
    empty = fx.mesh(np.zeros((3, 3)), np.zeros((0, 3), dtype=np.int64))
    flat = fx.mesh([[0, 0, 0], [1, 1, 1], [2, 2, 2]], [[0, 1, 2]])
    for a, b in ((empty, plate), (plate, empty), (flat, plate), (flat, flat)):
        assert not surfaces_cross(a, b) and not surface_intersection(a, b).segments.size
        assert overlap_volume(a, b) == (0.0, None)


@pytest.mark.parametrize("name", ["spheres", "torus and rod", "walls end to end", "face to face", "links"])
def test_candidates_from_the_triangle_trees_give_the_same_intersection(name):
    """``candidate_pairs`` with the meshes' trees leaves out only pairs that cannot matter: every pair that
    crosses or shares a coplanar patch is among them, and the curves, patches and overlap verdict are the
    sweep's exactly (here with B's tree moved along with it, as the push-out's tests move it)."""
    a, b = {
        "spheres": lambda: (fx.uv_sphere(1.0, 24, 48), fx.uv_sphere(0.8, 20, 40)),
        "torus and rod": lambda: (fx.torus(2.0, 0.5, 32, 16), fx.rod(0.3, -2.0, 2.0)),
        "walls end to end": lambda: (fx.box((0, 0, 0), (2, 0.2, 1)), fx.box((1.5, 0, 0), (3.5, 0.2, 1))),
        "face to face": lambda: (fx.box((0, 0, 0), (1, 1, 1)), fx.box((1, 0.25, 0.25), (2, 0.75, 0.75))),
        "links": lambda: (fx.chain_link(), fx.chain_link()),
    }[name]()
    matrix = np.eye(4)
    if name == "spheres":
        matrix[:3, 3] = (1.1, 0.3, 0.05)
    elif name == "torus and rod":
        matrix[:3, 3] = (2.0, 0.1, 0.0)
    elif name == "links":
        matrix[:3, :3] = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]  # a quarter turn about x, through the other's wire
        matrix[:3, 3] = (0.2, 0.0, 0.0)
    solid_a, moved_b = Solid(a), Solid(b).transformed(matrix)
    trees = (solid_a.bvh, moved_b.bvh)
    tolerance = default_tolerance(solid_a.mesh, moved_b.mesh, None)
    swept = MeshPairs.build(solid_a.mesh, moved_b.mesh, tolerance)
    treed = MeshPairs.build(solid_a.mesh, moved_b.mesh, tolerance, trees)
    kept = {tuple(pair) for pair in treed.pairs.tolist()}
    assert kept <= {tuple(pair) for pair in swept.pairs.tolist()}
    assert {tuple(pair) for pair in swept.segment_pairs.tolist()} <= kept
    assert {tuple(pair) for pair in swept.pairs[swept.coplanar[0]].tolist()} <= kept
    plain = surface_intersection(solid_a.mesh, moved_b.mesh)
    fast = surface_intersection(solid_a.mesh, moved_b.mesh, trees=trees)
    assert len(plain.curves) == len(fast.curves) and len(plain.patches) == len(fast.patches)
    for curve, same in zip(plain.curves, fast.curves):
        np.testing.assert_array_equal(curve, same)
    np.testing.assert_array_equal(plain.segments, fast.segments)
    assert surfaces_overlap(solid_a.mesh, moved_b.mesh) == surfaces_overlap(solid_a.mesh, moved_b.mesh, trees=trees)
    assert len(plain.segments) + len(plain.patches) > 0


def reference_orientation(points, moving):
    """Sign of det(p1 - p0, p2 - p0, p3 - p0) with the ``moving`` points shifted by δ = (ε, ε², ε³), ε -> 0+, in
    exact rational arithmetic: the determinant is linear in δ, so its coefficient along each axis is the
    determinant with that unit shift minus the unshifted one, and the first non-zero one decides a tie."""
    from fractions import Fraction

    def det(shift):
        p = [[Fraction(x) + (s if k in moving else 0) for x, s in zip(point, shift)] for k, point in enumerate(points)]
        u, v, w = ([p[k][i] - p[0][i] for i in range(3)] for k in (1, 2, 3))
        return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
                + u[2] * (v[0] * w[1] - v[1] * w[0]))

    base = det((0, 0, 0))
    values = [base] + [det(tuple(int(i == axis) for i in range(3))) - base for axis in range(3)]
    return next((int(np.sign(value)) for value in values if value != 0), 0)


@pytest.mark.parametrize("seed", range(2))
def test_orientation_signs_with_coinciding_points_match_exact_rational_arithmetic(seed):
    """The float and shortcut paths of ``orientation_signs`` (equal points, the derivative's components decided
    in floats) against rationals, on points that coincide, lie in one plane or on one line, far from the origin
    (so that differences round)."""
    from core.mesh.triangle_intersection import orientation_signs
    rng = np.random.default_rng(seed)
    count = 400
    points = 1000.0 + rng.integers(-2, 3, size=(count, 4, 3)) * rng.choice([0.1, 1.0, 1 / 3, 7e-9], size=(count, 1, 1))
    for k in range(count):
        if rng.random() < 0.6:
            i, j = rng.choice(4, 2, replace=False)
            points[k, j] = points[k, i]
        if rng.random() < 0.3:
            points[k, 3] = points[k, 0] + rng.integers(-1, 2) * (points[k, 1] - points[k, 0])
    for tie, moving in (("edges", (2, 3)), ("point_moves", (3,)), ("plane_moves", (0, 1, 2)), (None, ())):
        signs = orientation_signs(points[:, 0], points[:, 1], points[:, 2], points[:, 3], tie)
        expected = [reference_orientation(points[k], moving) for k in range(count)]
        np.testing.assert_array_equal(signs, expected)


@pytest.mark.parametrize("seed", range(2))
def test_orientation_signs_of_nearly_coplanar_points_match_rationals_with_and_without_extended_precision(
        seed, monkeypatch):
    """Points on rotated planes (in one plane only to rounding, as on flush tiles), some nudged by an ulp, some
    sharing a coordinate, some exactly in one plane: the float filter leaves them unsure; the extended-precision stage (where the platform has
    it) and the integer arithmetic without it both give the rational signs, and the first leaves fewer rows to
    integers."""
    import core.mesh.triangle_intersection as module
    rng = np.random.default_rng(seed)
    count = 300
    rotation = np.stack([random_rotation(rng) for _ in range(count)])
    flat = rng.uniform(-1.0, 1.0, size=(count, 4, 3)) * [1.0, 1.0, 0.0]
    points = 10.0 * rng.uniform(-1.0, 1.0, size=(count, 1, 3)) + np.einsum("kij,kpj->kpi", rotation, flat)
    nudged = rng.random(count) < 0.3
    points[nudged, 3, 0] = np.nextafter(points[nudged, 3, 0], np.inf)
    shared = rng.random(count) < 0.2
    points[shared, :, 2] = points[shared, :1, 2]
    # exactly in one plane, with products rounding in either precision: big integers (scaled by a power of two)
    # origin + a u + b v
    lattice = rng.random(count) < 0.3
    spans = rng.integers(-2 ** 15, 2 ** 15, size=(count, 2, 3)).astype(float)
    steps = rng.integers(-2 ** 10, 2 ** 10, size=(count, 4, 2)).astype(float)
    origins = rng.integers(-2 ** 40, 2 ** 40, size=(count, 1, 3)).astype(float)
    points[lattice] = (origins + np.einsum("kpa,kai->kpi", steps, spans))[lattice] * 2.0 ** -30
    integer_rows = []

    def counted(values):
        integer_rows.append(values.shape[1])
        return exact_integers(values)

    monkeypatch.setattr(module, "exact_integers", counted)
    answers = {}
    for extended in (True, False):
        if not extended:
            monkeypatch.setattr(module, "_extended_precision", lambda: False)
        integer_rows.clear()
        for tie, moving in (("edges", (2, 3)), ("point_moves", (3,)), ("plane_moves", (0, 1, 2)), (None, ())):
            signs = orientation_signs(points[:, 0], points[:, 1], points[:, 2], points[:, 3], tie)
            expected = [reference_orientation(points[k], moving) for k in range(count)]
            np.testing.assert_array_equal(signs, expected)
        answers[extended] = sum(integer_rows)
    assert answers[False] > count  # the float filter leaves most rows unsure
    assert answers[True] <= answers[False]
    if module._extended_precision():
        assert answers[True] < answers[False] / 4


@pytest.mark.parametrize("seed", range(3))
def test_curves_run_through_their_segments_in_order(seed):
    """Each curve is its chain's segments end to end: every two consecutive points (and a loop's last and first) are
    one segment's start and end, each segment used once, an open curve one point longer than its segments. Closed
    loops where closed meshes cross, open curves where an open sheet ending inside a box cuts it."""
    rng = np.random.default_rng(seed)
    grid = np.array([(x, y, 0.0) for x in (-2.0, -0.5, 0.3) for y in (-2.0, 0.0, 2.0)])
    sheet = fx.mesh(grid, np.array([(i, i + 3, i + 4) for i in (0, 1, 3, 4)] + [(i, i + 4, i + 1) for i in (0, 1, 3, 4)]))
    pairs = [(fx.uv_sphere(1.0, rings=8, segments=12), fx.transformed(fx.torus(1.0, 0.3), random_rotation(rng),
                                                                       rng.uniform(-0.3, 0.3, 3))),
             (fx.box((-1, -1, -1), (1, 1, 1)), fx.transformed(sheet, np.eye(3) + 0.2 * rng.uniform(-1, 1, (3, 3)),
                                                              rng.uniform(-0.2, 0.2, 3))),
             (fx.l_bracket(), fx.transformed(fx.rod(0.3, -2.0, 2.0, 10), random_rotation(rng), (0.5, 0.5, 0.5)))]
    open_curves = closed_curves = 0
    for a, b in pairs:
        found = surface_intersection(a, b)
        assert len(found.curves) > 0
        for k, curve in enumerate(found.curves):
            segments = found.segments[found.curve_of_segment == k]
            steps = np.stack([curve[:-1], curve[1:]], axis=1)
            if found.closed[k]:
                steps = np.concatenate([steps, [[curve[-1], curve[0]]]])
                closed_curves += 1
            else:
                open_curves += 1
            assert len(steps) == len(segments)
            np.testing.assert_array_equal(np.unique(steps.reshape(len(steps), -1), axis=0),
                                          np.unique(segments.reshape(len(segments), -1), axis=0))
    assert open_curves > 0 and closed_curves > 0


@pytest.mark.parametrize("seed", range(4))
def test_piercings_from_four_orientations_match_all_nine(seed):
    """``pair_crossings`` decides which edges pierce from the four orientations between the two edges across each
    other's plane on each side; an edge pierces when all three of the other's edges see it on one side (every
    orientation of the pair): the same answers on random pairs near each other, lattice points (exact zeros,
    parallel and shared edges), shared corners and edges, and triangles without area."""
    rng = np.random.default_rng(seed)
    count = 4000
    a, b = rng.uniform(-1, 1, (count, 3, 3)), rng.uniform(-1, 1, (count, 3, 3))
    b[1::4, 0] = a[1::4, 0]  # a shared corner
    b[2::4, :2] = a[2::4, :2]  # a shared edge
    b[3::4] = a[3::4] + rng.normal(scale=1e-6, size=(count // 4, 3, 3))  # nearly coincident
    if seed % 2:
        a, b = np.round(2.0 * a), np.round(2.0 * b)  # lattice points
    a[::7, 2] = a[::7, 1]  # no area
    b[::9, 2] = 0.5 * (b[::9, 0] + b[::9, 1])
    ids_a = np.broadcast_to(np.arange(3), (count, 3))
    ids_b = np.broadcast_to(np.array([5, 3, 4]) if seed % 3 else np.arange(3, 6), (count, 3))
    normals_a, normals_b = np.cross(a[:, 1] - a[:, 0], a[:, 2] - a[:, 0]), np.cross(b[:, 1] - b[:, 0], b[:, 2] - b[:, 0])
    found = pair_crossings(a, ids_a, normals_a, b, ids_b, normals_b)
    side_a, side_b = plane_sides(a, b[:, None], points_move=False), plane_sides(b, a[:, None], points_move=True)
    (low_a, high_a, flip_a), (low_b, high_b, flip_b) = canonical_edges(a, ids_a), canonical_edges(b, ids_b)
    orient = (edge_orientations(low_a[:, :, None], high_a[:, :, None], low_b[:, None, :], high_b[:, None, :])
              * flip_a[:, :, None] * flip_b[:, None, :])
    a_across, b_across = side_a * np.roll(side_a, -1, axis=1) < 0, side_b * np.roll(side_b, -1, axis=1) < 0
    straddle = (a_across.any(axis=1) & b_across.any(axis=1))[:, None]
    np.testing.assert_array_equal(found.a_crosses, a_across & straddle & all_same(orient))
    np.testing.assert_array_equal(found.b_crosses, b_across & straddle & all_same(np.swapaxes(orient, 1, 2)))
    assert found.a_crosses.any(axis=1).sum() > 0.05 * count and (a_across & straddle & ~found.a_crosses).any()
