"""The reference itself, on hand-checked cases and against its own optimality certificate."""

import numpy as np
import pytest

from reference import ExactHull, closest_points_on_triangles, reference_contact
from generators import box, cloud, random_rotation, unit_vectors

CUBE = box([0.5, 0.5, 0.5])


def test_closest_point_on_triangle_regions():
    a, b, c = np.array([[0.0, 0, 0]]), np.array([[2.0, 0, 0]]), np.array([[0.0, 2, 0]])
    for point, expected in [((0.5, 0.5, 3.0), (0.5, 0.5, 0.0)),   # face
                            ((-1.0, -1.0, 1.0), (0.0, 0.0, 0.0)),  # vertex
                            ((1.0, -2.0, 0.0), (1.0, 0.0, 0.0)),   # edge
                            ((2.0, 2.0, -1.0), (1.0, 1.0, 0.0))]:  # hypotenuse
        found = closest_points_on_triangles(np.array(point), a, b, c)[0]
        np.testing.assert_allclose(found, expected, atol=1e-15)


def test_closest_point_on_zero_area_triangle():
    a, b, c = np.array([[0.0, 0, 0]]), np.array([[1.0, 0, 0]]), np.array([[2.0, 0, 0]])
    found = closest_points_on_triangles(np.array([1.5, 1.0, 0.0]), a, b, c)[0]
    np.testing.assert_allclose(found, [1.5, 0.0, 0.0], atol=1e-15)


@pytest.mark.parametrize("points, dimension", [
    (CUBE, 3), (CUBE[CUBE[:, 2] > 0], 2), (CUBE[:2], 1), (CUBE[:1], 0),
    (np.repeat(CUBE[:1], 5, axis=0), 0), (np.vstack([CUBE[:4], CUBE[:4] + 1e-13]), 2)])
def test_hull_dimension(points, dimension):
    assert ExactHull(points).dimension == dimension


def test_hull_distance_and_facets():
    hull = ExactHull(CUBE)
    assert hull.distance([0.2, 0.1, 0.0]) == 0.0
    assert hull.distance([1.5, 0.0, 0.0]) == pytest.approx(1.0, abs=1e-15)
    assert hull.distance([1.5, 1.5, 1.5]) == pytest.approx(np.sqrt(3.0), abs=1e-15)
    assert hull.facet_violation([0.7, 0.0, 0.0]) == pytest.approx(0.2, abs=1e-15)
    assert hull.facet_violation([0.0, 0.0, 0.0]) == pytest.approx(-0.5, abs=1e-15)
    square = ExactHull(CUBE[CUBE[:, 2] > 0])
    assert square.distance([0.1, 0.1, 2.5]) == pytest.approx(2.0, abs=1e-15)
    assert square.distance([1.5, 0.0, 0.5]) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("offset, expected_sd, expected_normal", [
    ((1.5, 0.0, 0.0), 0.5, (1, 0, 0)),        # faces 0.5 apart along +x
    ((0.0, -1.25, 0.0), -0.75 + 1.0, (0, -1, 0)),
    ((0.0, 0.0, 0.75), -0.25, (0, 0, 1)),     # overlapping by 0.25 along +z
    ((-0.9, 0.0, 0.1), -0.1, (-1, 0, 0)),
])
def test_cube_pairs(offset, expected_sd, expected_normal):
    ref = reference_contact(CUBE, CUBE + offset)
    assert ref.signed_distance == pytest.approx(expected_sd, abs=1e-15)
    assert ref.normal_unique
    np.testing.assert_allclose(ref.normal, expected_normal, atol=1e-15)


def test_point_inside_cube_off_centre():
    ref = reference_contact(CUBE, [[0.2, 0.0, 0.0]])  # nearest face is x = 0.5, 0.3 away
    assert ref.signed_distance == pytest.approx(-0.3, abs=1e-15)
    np.testing.assert_allclose(ref.normal, [1, 0, 0], atol=1e-15)
    assert ref.normal_unique


def test_point_at_cube_centre_has_six_normals():
    ref = reference_contact(CUBE, [[0.0, 0.0, 0.0]])
    assert ref.signed_distance == pytest.approx(-0.5, abs=1e-15)
    assert not ref.normal_unique
    assert len(ref.candidate_normals) == 6


def test_point_off_cube_corner():
    ref = reference_contact(CUBE, [[1.0, 1.0, 1.0]])
    assert ref.signed_distance == pytest.approx(np.sqrt(3.0) / 2, abs=1e-15)
    np.testing.assert_allclose(ref.normal, np.ones(3) / np.sqrt(3.0), atol=1e-15)


def test_cube_edge_against_rotated_cube_edge():
    """B: the cube turned 45 degrees about x, its lowest edge 0.1 above A's top-front edge line."""
    c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)
    turned = CUBE @ np.array([[1, 0, 0], [0, c, -s], [0, s, c]]).T
    ref = reference_contact(CUBE, turned + [0.0, 0.5, 0.5 + np.sqrt(0.5) + 0.1])
    # Nearest: B's bottom edge (y = 0.5, z = 0.6) over A's top face y-range edge (y = 0.5, z = 0.5).
    assert ref.signed_distance == pytest.approx(0.1, abs=1e-15)
    np.testing.assert_allclose(ref.normal, [0, 0, 1], atol=1e-14)


def test_touching_faces_are_touching_with_face_normal():
    ref = reference_contact(CUBE, CUBE + [0.0, 0.0, 1.0])
    assert ref.signed_distance == pytest.approx(0.0, abs=1e-15)
    assert ref.normal_unique
    np.testing.assert_allclose(ref.normal, [0, 0, 1], atol=1e-15)


def test_touching_edges_have_two_normals():
    ref = reference_contact(CUBE, CUBE + [1.0, 1.0, 0.0])
    assert ref.signed_distance == pytest.approx(0.0, abs=1e-15)
    assert not ref.normal_unique


def test_flat_squares():
    square = CUBE[CUBE[:, 2] > 0] - [0.0, 0.0, 0.5]  # unit square at z = 0
    coplanar = reference_contact(square, square + [0.5, 0.25, 0.0])
    assert coplanar.signed_distance == pytest.approx(0.0, abs=1e-15)
    assert not coplanar.normal_unique
    np.testing.assert_allclose(np.abs(coplanar.candidate_normals), [[0, 0, 1]] * 2, atol=1e-15)
    parallel = reference_contact(square, square + [0.3, 0.0, 0.1])
    assert parallel.signed_distance == pytest.approx(0.1, abs=1e-15)
    np.testing.assert_allclose(parallel.normal, [0, 0, 1], atol=1e-15)
    side_by_side = reference_contact(square, square + [1.2, 0.0, 0.0])
    assert side_by_side.signed_distance == pytest.approx(0.2, abs=1e-15)
    np.testing.assert_allclose(side_by_side.normal, [1, 0, 0], atol=1e-15)


def test_segments_and_points():
    along_x = np.array([[-1.0, 0, 0], [1.0, 0, 0]])
    along_y_above = np.array([[0.3, -1.0, 2.0], [0.3, 1.0, 2.0]])
    ref = reference_contact(along_x, along_y_above)
    assert ref.signed_distance == pytest.approx(2.0, abs=1e-15)
    np.testing.assert_allclose(ref.normal, [0, 0, 1], atol=1e-15)
    crossing = reference_contact(along_x, along_y_above - [0.0, 0.0, 2.0])
    assert crossing.signed_distance == pytest.approx(0.0, abs=1e-15)
    assert not crossing.normal_unique
    points = reference_contact([[1.0, 2.0, 3.0]], [[4.0, 6.0, 3.0]])
    assert points.signed_distance == pytest.approx(5.0, abs=1e-15)
    np.testing.assert_allclose(points.normal, [0.6, 0.8, 0.0], atol=1e-15)
    same = reference_contact([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])
    assert same.signed_distance == 0.0 and same.normal is None


@pytest.mark.parametrize("seed", range(6))
def test_reference_is_optimal(seed):
    """No direction separates more than the reference claims, and the reference normal attains it."""
    rng = np.random.default_rng(seed)
    a = cloud(rng, 30)
    b = cloud(rng, 30) @ random_rotation(rng).T + rng.normal(scale=0.6, size=3)
    ref = reference_contact(a, b)
    assert ref.separation_along(ref.normal) == pytest.approx(ref.signed_distance, abs=1e-14)
    directions = unit_vectors(rng, 20000)
    separations = -(np.max(directions @ a.T, axis=1) - np.min(directions @ b.T, axis=1))
    assert separations.max() <= ref.signed_distance + 1e-14
    if ref.signed_distance > 0:  # and a point of A - B at exactly that distance exists
        closest = ref.difference.closest_point(np.zeros(3))
        assert np.linalg.norm(closest) == pytest.approx(ref.signed_distance, abs=1e-14)
