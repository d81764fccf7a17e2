"""Named degenerate pairs with hand-checked answers: touching, identical, nested, flat, segments, points..."""

from __future__ import annotations

import numpy as np
import pytest

import core
from checks import VALUE_TOLERANCE, angle, assert_matches_reference, assert_on_shape
from generators import box, cloud, random_rotation, rotation_about, sphere
from reference import ExactHull, reference_contact

CUBE = box([0.5, 0.5, 0.5])
SQUARE = CUBE[CUBE[:, 2] > 0] - [0.0, 0.0, 0.5]  # unit square in the plane z = 0
TOL = VALUE_TOLERANCE  # the cases below are about 1 across


def solve(points_a, points_b, **options):
    """Contact from core, checked against the reference; returns both for the hand-checked asserts."""
    points_a, points_b = np.asarray(points_a, dtype=float), np.asarray(points_b, dtype=float)
    contact = core.collide(points_a, points_b, **options)
    ref = reference_contact(points_a, points_b)
    assert_matches_reference(contact, ref, points_a, points_b)
    return contact, ref


# -- exactly touching boxes ----------------------------------------------------------------------

def test_touching_boxes_face():
    contact, _ = solve(CUBE, CUBE + [1.0, 0.3, -0.2])
    assert contact.status == "touching" and contact.colliding
    assert abs(contact.signed_distance) <= contact.tolerance
    np.testing.assert_allclose(contact.normal, [1, 0, 0], atol=1e-12)
    assert contact.point_a[0] == pytest.approx(0.5, abs=TOL)
    assert contact.point_b[0] == pytest.approx(0.5, abs=TOL)
    assert core.intersect(CUBE, CUBE + [1.0, 0.3, -0.2])


def test_touching_boxes_edge():
    contact, _ = solve(CUBE, CUBE + [1.0, 1.0, 0.0])
    assert contact.status == "touching"
    n = contact.normal  # any normal in the quarter circle between +x and +y is exact
    assert abs(n[2]) <= 1e-9 and n[0] >= -1e-9 and n[1] >= -1e-9
    np.testing.assert_allclose(contact.point_a[:2], [0.5, 0.5], atol=TOL)
    assert core.intersect(CUBE, CUBE + [1.0, 1.0, 0.0])


def test_touching_boxes_vertex():
    contact, _ = solve(CUBE, CUBE + [1.0, 1.0, 1.0])
    assert contact.status == "touching"
    assert np.all(contact.normal >= -1e-9)  # inside the corner's cone of normals
    np.testing.assert_allclose(contact.point_a, [0.5, 0.5, 0.5], atol=TOL)
    np.testing.assert_allclose(contact.point_b, [0.5, 0.5, 0.5], atol=TOL)


def test_touching_rotated_boxes_face():
    """The same face contact with both boxes turned: no axis-aligned luck."""
    rotation = random_rotation(np.random.default_rng(7))
    turn = CUBE @ rotation.T
    contact, _ = solve(turn, turn + rotation @ [0.0, 1.0, 0.0])
    assert contact.status == "touching"
    assert angle(contact.normal, rotation @ [0.0, 1.0, 0.0]) <= 1e-9


# -- identical and nested shapes ----------------------------------------------------------------------

def test_identical_boxes_in_same_place():
    contact, _ = solve(CUBE, CUBE)
    assert contact.status == "penetrating"
    assert contact.depth == pytest.approx(1.0, abs=TOL)  # push B a full width along any axis
    assert np.max(np.abs(contact.normal)) == pytest.approx(1.0, abs=1e-12)


def test_identical_clouds_in_same_place():
    points = cloud(np.random.default_rng(3), 200)
    contact, ref = solve(points, points)
    # Depth of a shape against itself is its minimum width; check it against a direct scan.
    directions = np.vstack([ref.difference.normals, np.eye(3)])
    widths = np.ptp(directions @ points.T, axis=1)
    assert contact.depth == pytest.approx(widths.min(), abs=TOL)


def test_small_box_inside_big_box():
    small = box([0.1, 0.1, 0.1]) + [0.2, 0.0, 0.0]
    contact, ref = solve(CUBE, small)
    assert ref.normal_unique
    assert contact.depth == pytest.approx(0.4, abs=TOL)  # 0.5 - 0.2 + 0.1 to clear the +x face
    np.testing.assert_allclose(contact.normal, [1, 0, 0], atol=1e-9)
    swapped, _ = solve(small, CUBE)
    assert swapped.depth == pytest.approx(0.4, abs=TOL)
    np.testing.assert_allclose(swapped.normal, [-1, 0, 0], atol=1e-9)


def test_point_inside_box():
    contact, _ = solve(CUBE, [[0.1, 0.2, -0.35]])
    assert contact.depth == pytest.approx(0.15, abs=TOL)  # nearest face z = -0.5
    np.testing.assert_allclose(contact.normal, [0, 0, -1], atol=1e-9)
    np.testing.assert_allclose(contact.point_b, [0.1, 0.2, -0.35], atol=TOL)
    np.testing.assert_allclose(contact.point_a, [0.1, 0.2, -0.5], atol=TOL)


# -- stacked boxes ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("overlap", [1e-9, 1e-6, 1e-3])
def test_face_aligned_stacked_boxes_small_overlap(overlap):
    base = box([1.0, 1.0, 0.5])
    top = box([0.3, 0.4, 0.5]) + [0.2, -0.1, 1.0 - overlap]
    contact, ref = solve(base, top)
    assert contact.status == "penetrating"
    assert contact.depth == pytest.approx(overlap, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-9)
    assert contact.point_a[2] == pytest.approx(0.5, abs=TOL)
    assert contact.point_b[2] == pytest.approx(0.5 - overlap, abs=TOL)


# -- flat quads -----------------------------------------------------------------------------------------------

def test_quad_above_box():
    contact, _ = solve(CUBE, SQUARE + [0.2, 0.1, 0.6])
    assert contact.distance == pytest.approx(0.1, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-9)


def test_quad_cutting_through_box():
    big_square = SQUARE * 2 + [0.0, 0.0, 0.2]  # 2 x 2 square at z = 0.2 through a unit cube
    contact, ref = solve(big_square, CUBE)
    assert ref.normal_unique
    assert contact.depth == pytest.approx(0.3, abs=TOL)  # push the cube down until its top is at 0.2
    np.testing.assert_allclose(contact.normal, [0, 0, -1], atol=1e-9)


def test_quad_through_middle_of_box_has_two_normals():
    contact, ref = solve(SQUARE * 2, CUBE)
    assert not ref.normal_unique
    assert contact.depth == pytest.approx(0.5, abs=TOL)
    assert abs(contact.normal[2]) == pytest.approx(1.0, abs=1e-9)


def test_coplanar_overlapping_quads_touch():
    contact, _ = solve(SQUARE, SQUARE + [0.5, 0.25, 0.0])
    assert contact.status == "touching"
    assert contact.solver_status != "iteration_limit"
    assert abs(contact.normal[2]) == pytest.approx(1.0, abs=1e-9)  # either side of the shared plane
    assert contact.point_a[2] == pytest.approx(0.0, abs=TOL)


def test_coplanar_separated_quads():
    contact, _ = solve(SQUARE, SQUARE + [1.2, 0.3, 0.0])
    assert contact.distance == pytest.approx(0.2, abs=TOL)
    np.testing.assert_allclose(contact.normal, [1, 0, 0], atol=1e-9)


def test_crossing_quads():
    """A in the xy-plane, B upright in the xz-plane, mostly above: lift B by 0.2 to clear A."""
    upright = np.array([[-0.25, 0.0, -0.2], [0.25, 0.0, -0.2], [-0.25, 0.0, 0.8], [0.25, 0.0, 0.8]])
    contact, ref = solve(SQUARE, upright)
    assert ref.normal_unique
    assert contact.depth == pytest.approx(0.2, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-9)


def test_parallel_quads():
    contact, _ = solve(SQUARE, SQUARE + [0.3, 0.1, 0.05])
    assert contact.distance == pytest.approx(0.05, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-9)
    assert contact.status == "separated"


# -- segments and points --------------------------------------------------------------------------------------

X_SEGMENT = np.array([[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


def test_skew_segments():
    contact, _ = solve(X_SEGMENT, [[0.3, -1.0, 2.0], [0.3, 1.0, 2.0]])
    assert contact.distance == pytest.approx(2.0, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(contact.point_a, [0.3, 0, 0], atol=TOL)
    np.testing.assert_allclose(contact.point_b, [0.3, 0, 2], atol=TOL)


def test_crossing_segments_touch():
    contact, _ = solve(X_SEGMENT, [[0.3, -1.0, 0.0], [0.3, 1.0, 0.0]])
    assert contact.status == "touching"
    np.testing.assert_allclose(contact.point_a, [0.3, 0, 0], atol=TOL)
    np.testing.assert_allclose(contact.point_b, [0.3, 0, 0], atol=TOL)


def test_parallel_segments():
    contact, _ = solve(X_SEGMENT, X_SEGMENT + [0.5, 0.0, 1.0])
    assert contact.distance == pytest.approx(1.0, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-9)


def test_collinear_overlapping_segments_touch():
    contact, _ = solve(X_SEGMENT, X_SEGMENT + [1.0, 0.0, 0.0])
    assert contact.status == "touching"
    assert abs(contact.normal[0]) <= 1e-9  # any normal across the shared line


def test_segment_through_box():
    contact, ref = solve(CUBE, [[0.1, 0.0, -2.0], [0.1, 0.0, 2.0]])
    assert ref.normal_unique
    assert contact.depth == pytest.approx(0.4, abs=TOL)  # slide the segment out through x = +0.5
    np.testing.assert_allclose(contact.normal, [1, 0, 0], atol=1e-9)


def test_points():
    contact, _ = solve([[1.0, 2.0, 3.0]], [[4.0, 6.0, 3.0]])
    assert contact.distance == pytest.approx(5.0, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0.6, 0.8, 0.0], atol=1e-12)
    np.testing.assert_allclose(contact.point_a, [1, 2, 3], atol=TOL)
    np.testing.assert_allclose(contact.point_b, [4, 6, 3], atol=TOL)


def test_coincident_points_touch():
    contact = core.collide([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])
    assert contact.status == "touching" and contact.signed_distance == 0.0
    assert np.linalg.norm(contact.normal) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(contact.point_a, [1, 2, 3], atol=1e-12)


def test_point_on_box_face_touches():
    contact, _ = solve(CUBE, [[0.5, 0.1, 0.2]])
    assert contact.status == "touching"
    np.testing.assert_allclose(contact.normal, [1, 0, 0], atol=1e-9)


def test_point_near_box():
    contact, _ = solve(CUBE, [[0.7, 0.1, 0.2]])
    assert contact.distance == pytest.approx(0.2, abs=TOL)


# -- duplicated vertices ---------------------------------------------------------------------------------------

def test_duplicated_and_near_duplicated_vertices():
    rng = np.random.default_rng(11)
    plain = (CUBE, CUBE @ rotation_about([1, 2, 3], 0.4).T + [0.9, 0.2, 0.1])
    expected = core.collide(*plain)
    near_a, near_b = (p + rng.uniform(-1e-12, 1e-12, size=p.shape) for p in plain)
    noisy_a = np.vstack([plain[0], plain[0], near_a])
    noisy_b = np.vstack([near_b, plain[1], plain[1][::-1]])
    contact, _ = solve(noisy_a, noisy_b)
    assert contact.signed_distance == pytest.approx(expected.signed_distance, abs=TOL)
    assert angle(contact.normal, expected.normal) <= 1e-6


# -- offsets, scales, nearly parallel edges ------------------------------------------------------------------------

def random_pair(seed: int, gap: float):
    """Two clouds about 1 across, B moved along the pair's normal to the given signed distance."""
    rng = np.random.default_rng(seed)
    a, b = cloud(rng, 40), cloud(rng, 40) + [0.4, 0.0, 0.0]
    ref = reference_contact(a, b)
    return a, b + (gap - ref.signed_distance) * ref.normal if gap >= ref.signed_distance else b


@pytest.mark.parametrize("gap", [-0.05, 1e-6, 0.05])
def test_offset_1e6(gap):
    a, b = random_pair(21, gap)
    at_origin = core.collide(a, b)
    shift = np.array([1e6, -1e6, 1e6])
    contact, _ = solve(a + shift, b + shift)
    assert contact.signed_distance == pytest.approx(at_origin.signed_distance, abs=TOL)
    assert angle(contact.normal, at_origin.normal) <= 1e-6
    np.testing.assert_allclose(contact.point_a - shift, at_origin.point_a, atol=1e-9)


@pytest.mark.parametrize("scale", [1e-4, 1e4])
@pytest.mark.parametrize("gap", [-0.05, 1e-6, 0.05])
def test_scales(scale, gap):
    a, b = random_pair(22, gap)
    unit = core.collide(a, b)
    contact, ref = solve(a * scale, b * scale)
    assert contact.signed_distance == pytest.approx(unit.signed_distance * scale, abs=TOL * ref.size)
    assert angle(contact.normal, unit.normal) <= 1e-6
    assert contact.status == unit.status


@pytest.mark.parametrize("tilt", [0.0, 1e-9, 1e-6])
@pytest.mark.parametrize("gap", [-1e-6, 1e-6])
def test_nearly_parallel_edges(tilt, gap):
    """B's bottom edge (a cube turned 45 degrees about x) runs over A's top edge, turned by ``tilt``."""
    turned = CUBE @ (rotation_about([0, 0, 1], tilt) @ rotation_about([1, 0, 0], np.pi / 4)).T
    lowest = turned[:, 2].min()
    b = turned + [0.0, 0.5, 0.5 - lowest + gap]
    contact, ref = solve(CUBE, b)
    # At tilt 0 the edges are parallel. Apart, the gap is vertical; overlapping, B's edge sits on A's
    # side face and the shortest way out is across B's 45-degree face: gap / sqrt(2).
    expected = gap if gap > 0 else gap / np.sqrt(2.0)
    assert contact.signed_distance == pytest.approx(expected, abs=TOL + tilt)


# -- large tessellations -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("prepared", [False, True])
@pytest.mark.parametrize("gap", [-0.01, 1e-5])
def test_sphere_with_6000_vertices_against_box(prepared, gap):
    ball = sphere(6000, radius=0.5) @ random_rotation(np.random.default_rng(5)).T
    slab = box([0.3, 0.3, 0.3]) + [ball[:, 0].max() + 0.3 + gap, 0.05, -0.02]
    shape = core.Polytope(ball) if prepared else ball
    contact = core.collide(shape, slab)
    ref = reference_contact(ball, slab)
    assert_matches_reference(contact, ref, ball, slab)
    assert contact.signed_distance == pytest.approx(gap, abs=TOL)
    np.testing.assert_allclose(contact.normal, [1, 0, 0], atol=1e-6)
    assert_on_shape(contact.point_a, ExactHull(ball), 1.0, "point_a")


@pytest.mark.parametrize("prepared", [False, True])
@pytest.mark.parametrize("gap", [-0.05, -1e-6, 1e-6])
def test_two_spheres_with_6000_vertices(prepared, gap):
    """Too big for the reference (36M differences), so the answer is certified by support values:
    the normal attains the reported signed distance, no nearby direction does better, and (apart)
    the witness points lie on the shapes."""
    rng = np.random.default_rng(12)
    a, b = sphere(6000, 0.5) @ random_rotation(rng).T, sphere(6000, 0.5) @ random_rotation(rng).T
    centre_line = np.array([0.48, -0.6, 0.64])
    b = b + (1.0 + gap) * centre_line
    contact = core.collide(*((core.Polytope(a), core.Polytope(b)) if prepared else (a, b)))

    def separation(m: np.ndarray) -> np.ndarray:
        return np.min(m @ b.T, axis=-1) - np.max(m @ a.T, axis=-1)

    assert contact.signed_distance == pytest.approx(separation(contact.normal), abs=TOL)
    assert angle(contact.normal, centre_line) <= 0.05
    tilts = rng.normal(size=(300, 3)) * np.geomspace(1e-6, 1e-2, 300)[:, None]
    nearby = contact.normal + tilts
    nearby /= np.linalg.norm(nearby, axis=1)[:, None]
    assert np.all(separation(nearby) <= contact.signed_distance + TOL)
    if gap > 0:
        assert_on_shape(contact.point_a, ExactHull(a), 1.0, "point_a")
        assert_on_shape(contact.point_b, ExactHull(b), 1.0, "point_b")


@pytest.mark.parametrize("multiple", [-3.0, -1.5, -0.5, 0.0, 0.5, 1.5, 3.0])
def test_touch_band_edges(multiple):
    """Gaps in multiples of the touch tolerance: inside the band 'touching', outside by sign; intersect agrees."""
    tolerance = core.collide(CUBE, CUBE + [1.0, 0.0, 0.0]).tolerance
    expected = "touching" if abs(multiple) <= 1 else ("penetrating" if multiple < 0 else "separated")
    for a, b in [(CUBE, CUBE + [1.0 + multiple * tolerance, 0.2, 0.1]),
                 (core.Sphere([0, 0, 0], 0.5), core.Sphere([1.0 + multiple * tolerance, 0, 0], 0.5))]:
        contact = core.collide(a, b)
        assert contact.status == expected
        assert contact.signed_distance == pytest.approx(multiple * tolerance, abs=0.01 * tolerance)
        assert core.intersect(a, b) == (expected != "separated")
