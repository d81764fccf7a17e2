"""``collide_2d`` against a brute-force reference: Qhull's hull of the 2D Minkowski difference."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from core.planar.gjk_epa import Circle, Polygon, collide_2d

VALUE_TOLERANCE = 1e-9  # relative to the pair's size


def closest_on_segments(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    length2 = np.einsum("ij,ij->i", ab, ab)
    t = np.einsum("ij,ij->i", p - a, ab) / np.where(length2 > 0, length2, 1.0)
    return a + np.clip(t, 0.0, 1.0)[:, None] * ab


def reference_2d(points_a: np.ndarray, points_b: np.ndarray):
    """(signed distance, normal A toward B or None when not unique) from the hull of A - B."""
    difference = (points_a[:, None, :] - points_b[None, :, :]).reshape(-1, 2)
    centred = difference - difference.mean(axis=0)
    size = np.ptp(np.vstack([points_a, points_b]), axis=0).max()
    if np.linalg.svd(centred, compute_uv=False)[-1] > 1e-9 * size * np.sqrt(len(difference)):
        hull = ConvexHull(difference)
        normals, offsets = hull.equations[:, :2], -hull.equations[:, 2]
        ring = difference[hull.vertices]
        if (offsets >= 0).all():  # the origin is inside: the depth is the nearest edge
            order = np.argsort(offsets)
            unique = len(offsets) == 1 or offsets[order[1]] - offsets[order[0]] > 1e-9 * size
            return -offsets[order[0]], normals[order[0]] if unique else None
        starts, ends = ring, np.roll(ring, -1, axis=0)
    else:  # no area: the segment between the extreme points
        axis = np.linalg.svd(centred)[2][0]
        along = difference @ axis
        starts, ends = difference[[along.argmin()]], difference[[along.argmax()]]
    nearest = closest_on_segments(np.zeros(2), starts, ends)
    distances = np.linalg.norm(nearest, axis=1)
    best = nearest[distances.argmin()]
    distance = float(distances.min())
    return distance, (-best / distance if distance > 1e-9 * size else None)


def distance_to_hull(point: np.ndarray, points: np.ndarray) -> float:
    """Euclidean distance from a point to the hull of a cloud (0 inside)."""
    return max(0.0, reference_2d(points, point[None])[0])


def assert_conventions_2d(contact, size):
    tol = VALUE_TOLERANCE * size
    sd = contact.signed_distance
    assert contact.normal.shape == contact.point_a.shape == contact.point_b.shape == (2,)
    assert abs(np.linalg.norm(contact.normal) - 1.0) <= 1e-12
    np.testing.assert_allclose(contact.point_a - contact.point_b, -sd * contact.normal, atol=tol)
    assert contact.bounds[0] <= sd <= contact.bounds[1]
    t = contact.tangents[0]
    assert t @ contact.normal == pytest.approx(0.0, abs=1e-15)
    assert t[0] * contact.normal[1] - t[1] * contact.normal[0] == pytest.approx(1.0, abs=1e-15)
    expected = "touching" if abs(sd) <= contact.tolerance else ("penetrating" if sd < 0 else "separated")
    assert contact.status == expected


def assert_matches(points_a, points_b, contact=None):
    contact = collide_2d(points_a, points_b) if contact is None else contact
    size = float(np.ptp(np.vstack([points_a, points_b]), axis=0).max())
    tol = VALUE_TOLERANCE * size
    expected, normal = reference_2d(points_a, points_b)
    assert_conventions_2d(contact, size)
    assert contact.signed_distance == pytest.approx(expected, abs=tol)
    if normal is not None:
        assert np.linalg.norm(contact.normal - normal) <= 1e-6
    # the normal achieves the value: the gap along it is the signed distance
    gap = (points_b @ contact.normal).min() - (points_a @ contact.normal).max()
    assert gap == pytest.approx(expected, abs=tol)
    assert distance_to_hull(contact.point_a, points_a) <= tol
    assert distance_to_hull(contact.point_b, points_b) <= tol
    assert contact.solver_status in ("converged", "degenerate")
    return contact


def random_polygon(rng, count, scale=1.0):
    return rng.normal(size=(count, 2)) * rng.uniform(0.2, 1.0, 2) * scale


@pytest.mark.parametrize("seed", range(40))
def test_random_polygons_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    a = random_polygon(rng, int(rng.integers(3, 30)))
    b = random_polygon(rng, int(rng.integers(3, 30))) + rng.normal(size=2) * (0.4 if seed % 2 else 1.5)
    assert_matches(a, b)


@pytest.mark.parametrize("gap", [-0.4, -1e-6, 1e-6, 0.5])
def test_polygons_placed_at_a_signed_distance(gap):
    rng = np.random.default_rng(7)
    a, b = random_polygon(rng, 12), random_polygon(rng, 9)
    start, normal = reference_2d(a, b)
    moved = b + (gap - start) * normal  # pushing along an optimal normal changes the value by exactly that
    contact = assert_matches(a, moved)
    assert contact.signed_distance == pytest.approx(gap, abs=1e-12)


def test_touching_squares_and_vertex_on_edge():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    side = assert_matches(square, square + [1.0, 0.3])
    assert side.status == "touching" and side.signed_distance == 0.0
    np.testing.assert_array_equal(side.normal, [1.0, 0.0])
    corner = assert_matches(square, np.array([[0.5, 1.0], [0.0, 2.0], [1.0, 2.0]]))
    assert corner.status == "touching"
    np.testing.assert_allclose(corner.point_a, [0.5, 1.0], atol=1e-15)


def test_flat_and_degenerate_shapes():
    crossing = collide_2d([[-1.0, 0.0], [1.0, 0.0]], [[0.0, -1.0], [0.0, 1.0]])
    assert crossing.status == "penetrating" and crossing.depth == pytest.approx(1.0)  # A - B is a square
    collinear = collide_2d([[0.0, 0.0], [2.0, 0.0]], [[1.0, 0.0], [3.0, 0.0]])
    assert collinear.status == "touching" and collinear.solver_status == "degenerate"
    assert abs(collinear.normal[1]) == 1.0
    assert_matches(np.array([[0.0, 0.0], [2.0, 0.0]]), np.array([[3.0, 1.0], [5.0, 1.0]]))
    on_segment = collide_2d([[0.0, 0.0], [2.0, 2.0]], [[1.0, 1.0]])
    assert on_segment.status == "touching" and on_segment.solver_status == "degenerate"
    points = collide_2d([[1.0, 1.0]], [[4.0, 5.0]])
    assert points.distance == pytest.approx(5.0)
    np.testing.assert_allclose(points.normal, [0.6, 0.8])
    same = collide_2d([[1.0, 1.0]], [[1.0, 1.0]])
    assert same.status == "touching" and same.solver_status == "degenerate"
    rng = np.random.default_rng(3)
    segment = np.array([[-0.3, -0.2], [0.4, 0.35]])
    for _ in range(5):
        assert_matches(segment, random_polygon(rng, 8) * 0.5)
    assert_matches(random_polygon(rng, 10), np.repeat(rng.normal(size=(1, 2)) * 0.3, 3, axis=0))


@pytest.mark.parametrize("seed", range(8))
def test_swap_and_translation_invariance(seed):
    rng = np.random.default_rng(50 + seed)
    a = random_polygon(rng, 10)
    b = random_polygon(rng, 7) + rng.normal(size=2) * 0.6
    forward, backward = collide_2d(a, b), collide_2d(b, a)
    assert backward.signed_distance == pytest.approx(forward.signed_distance, abs=1e-12)
    np.testing.assert_allclose(backward.normal, -forward.normal, atol=1e-9)
    shift = np.array([1e6, -3e5])
    moved = collide_2d(a + shift, b + shift)
    assert moved.signed_distance == pytest.approx(forward.signed_distance, abs=1e-9)
    np.testing.assert_allclose(moved.point_a - shift, forward.point_a, atol=1e-9)


@pytest.mark.parametrize("gap", [-0.3, 0.0, 0.8])
def test_circles_are_exact(gap):
    direction = np.array([0.6, -0.8])
    c1, r1, r2 = np.array([0.3, 0.2]), 0.7, 0.4
    contact = collide_2d(Circle(c1, r1), Circle(c1 + (r1 + r2 + gap) * direction, r2))
    assert contact.signed_distance == pytest.approx(gap, abs=1e-12)
    np.testing.assert_allclose(contact.normal, direction, atol=1e-12)
    np.testing.assert_allclose(contact.point_a, c1 + r1 * direction, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_polygon_against_circle_is_reference_minus_radius(seed):
    rng = np.random.default_rng(80 + seed)
    polygon = random_polygon(rng, 9)
    centre, radius = rng.normal(size=2) * 0.8, rng.uniform(0.05, 0.5)
    contact = collide_2d(Polygon(polygon), Circle(centre, radius))
    expected, _ = reference_2d(polygon, centre[None])
    assert_conventions_2d(contact, 3.0)
    assert contact.signed_distance == pytest.approx(expected - radius, abs=1e-9)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="points_a"):
        collide_2d(np.zeros((3, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="points_b"):
        collide_2d(np.zeros((3, 2)), [[np.nan, 0.0]])
    with pytest.raises(ValueError, match="radius"):
        Circle([0.0, 0.0], -1.0)
    with pytest.raises(ValueError, match="max_iterations"):
        collide_2d(np.zeros((1, 2)), np.ones((1, 2)), max_iterations=0)
