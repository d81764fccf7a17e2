"""The numpy hull against Qhull, and SAT against GJK/EPA and the Qhull reference."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.spatial import ConvexHull

import core
from core.shapes.hull import convex_hull, convex_polygon
from core.narrowphase.sat import cross_check, sat_polytopes
from generators import box, cloud, random_rotation, sphere
from pairs import make_pair
from reference import reference_contact, size_of

VALUE_TOLERANCE = 1e-9  # relative to the pair's size


def hull_volume(hull) -> float:
    corners = hull.vertices[hull.triangles]
    return float(np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])).sum() / 6.0)


@pytest.mark.parametrize("count", [4, 9, 60, 3000])
def test_hull_matches_qhull(count):
    points = np.random.default_rng(count).normal(size=(count, 3)) * [1.0, 0.3, 2.0]
    hull, ref = convex_hull(points), ConvexHull(points)
    np.testing.assert_array_equal(np.unique(hull.vertices, axis=0), np.unique(points[ref.vertices], axis=0))
    assert hull_volume(hull) == pytest.approx(ref.volume, rel=1e-12)
    centroid = hull.vertices.mean(axis=0)
    corners = hull.vertices[hull.triangles]
    outward = np.einsum("ij,ij->i", np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]),
                        corners[:, 0] - centroid)
    assert (outward > 0).all()


def test_hull_of_a_box_has_six_facets_and_twelve_edges():
    points = np.vstack([box([1.0, 0.5, 0.25]), box([0.5, 0.25, 0.1]), [[1.0, 0.0, 0.0], [0.0, 0.5, 0.25]]])
    points = points @ random_rotation(np.random.default_rng(1)).T
    hull = convex_hull(points)
    assert (hull.dimension, len(hull.vertices), len(hull.normals), len(hull.edges)) == (3, 8, 6, 12)


def test_hull_of_flat_and_thin_clouds():
    rng = np.random.default_rng(2)
    rotation = random_rotation(rng)
    flat = np.column_stack([rng.normal(size=(30, 2)), np.zeros(30)])
    polygon = convex_hull(flat @ rotation.T)
    ref = ConvexHull(flat[:, :2])
    assert polygon.dimension == 2 and len(polygon.vertices) == len(ref.vertices) == len(polygon.edges)
    np.testing.assert_allclose(np.abs(polygon.normals @ rotation[:, 2]), [1.0, 1.0], atol=1e-12)
    segment = convex_hull(np.outer(np.linspace(-1, 2, 7), [1.0, 2.0, 3.0]))
    np.testing.assert_allclose(np.sort(segment.vertices[:, 0]), [-1.0, 2.0])
    assert convex_hull([[1.0, 2.0, 3.0]] * 3).dimension == 0


@pytest.mark.parametrize("count", [3, 8, 200])
def test_polygon_is_counter_clockwise_like_qhull(count):
    points = np.random.default_rng(count).normal(size=(count, 2))
    ring, ref = list(convex_polygon(points)), list(ConvexHull(points).vertices)
    start = ring.index(ref[0])
    assert ring[start:] + ring[:start] == ref


def random_boxes(seed: int, spread: float):
    rng = np.random.default_rng(seed)
    a = box(rng.uniform(0.1, 0.6, 3)) @ random_rotation(rng).T
    b = box(rng.uniform(0.1, 0.6, 3)) @ random_rotation(rng).T + rng.normal(size=3) * spread
    return a, b


def assert_sat_agrees(points_a, points_b):
    """SAT agrees with the Qhull reference (exact when overlapping, a lower bound when apart) and with collide."""
    size = size_of(np.vstack([points_a, points_b]))
    sat, ref = sat_polytopes(points_a, points_b), reference_contact(points_a, points_b)
    contact = core.collide(points_a, points_b)
    tol = VALUE_TOLERANCE * size
    assert sat.separated == (ref.signed_distance > sat.tolerance)
    if ref.signed_distance <= 0.0:
        assert sat.signed_distance == pytest.approx(ref.signed_distance, abs=tol)
        assert contact.signed_distance == pytest.approx(sat.signed_distance, abs=tol)
    else:
        assert 0.0 < sat.signed_distance <= ref.signed_distance + tol
    assert ref.separation_along(sat.axis) == pytest.approx(sat.signed_distance, abs=tol)
    assert cross_check(points_a, points_b, contact) is None


@pytest.mark.parametrize("seed", range(12))
def test_sat_agrees_on_boxes(seed):
    assert_sat_agrees(*random_boxes(seed, 0.3 if seed % 2 else 0.9))


@pytest.mark.parametrize("seed", range(12))
def test_sat_agrees_on_small_random_hulls(seed):
    rng = np.random.default_rng(100 + seed)
    a = cloud(rng, int(rng.integers(4, 20)))
    b = cloud(rng, int(rng.integers(4, 20))) + rng.normal(size=3) * 0.3
    assert_sat_agrees(a, b)


@pytest.mark.parametrize("index, family_a, family_b, gap", [
    (0, "box", "cloud", -0.03), (1, "cylinder", "box", -1e-3), (2, "sphere", "cloud", -0.3),
    (3, "cloud", "cylinder", 0.03), (4, "box", "box", -1e-5), (5, "cylinder", "cylinder", -0.03)])
def test_sat_agrees_on_placed_pairs(index, family_a, family_b, gap):
    points_a, points_b, _ = make_pair(index, family_a, family_b, gap)
    assert_sat_agrees(points_a, points_b)


def test_sat_on_degenerate_pairs():
    square = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=float)
    # coplanar squares overlapping: no interior, touching; apart in their plane: the in-plane gap
    assert sat_polytopes(square, square + [0.5, 0.5, 0.0]).status == "touching"
    apart = sat_polytopes(square, square + [1.25, 0.0, 0.0])
    assert apart.separated and apart.signed_distance == pytest.approx(0.25)
    # skew segments: exact distance along their common perpendicular
    skew = sat_polytopes(np.array([[0, 0, 0], [1, 0, 0]], float), np.array([[0.5, -1, 0.3], [0.5, 1, 0.3]], float))
    assert skew.signed_distance == pytest.approx(0.3) and abs(skew.axis[2]) == pytest.approx(1.0)
    # point over a triangle's plane but beside it, and collinear segments with a gap
    point = sat_polytopes(square[:3], np.array([[2.0, 0.5, 0.0]]))
    assert point.separated and point.signed_distance == pytest.approx(1.0)
    line = sat_polytopes(np.array([[0, 0, 0], [1, 1, 1]], float), np.array([[2, 2, 2], [3, 3, 3]], float))
    assert line.signed_distance == pytest.approx(np.sqrt(3.0))
    assert sat_polytopes(np.zeros((1, 3)), np.array([[0.0, 3.0, 4.0]])).signed_distance == pytest.approx(5.0)


def test_cross_check_reports_what_disagrees():
    a, b = random_boxes(3, 0.3)
    contact = core.collide(a, b)
    assert contact.status == "penetrating"
    deeper = dataclasses.replace(contact, signed_distance=contact.signed_distance - 0.01)
    assert cross_check(a, b, deeper).quantity == "depth"
    apart = dataclasses.replace(contact, signed_distance=0.2, status="separated")
    assert cross_check(a, b, apart).quantity == "status"
    tilted = contact.normal + [0.0, 0.1, 0.1]
    assert cross_check(a, b, dataclasses.replace(contact, normal=tilted / np.linalg.norm(tilted))).quantity == "normal"
    far = core.collide(a, b + [3.0, 0.0, 0.0])
    assert cross_check(a, b + [3.0, 0.0, 0.0], dataclasses.replace(far, signed_distance=0.01)).quantity == "distance"


def test_sat_on_a_fine_sphere_stays_exact():
    a, b = sphere(80, 0.5), sphere(60, 0.4) + [0.6, 0.2, 0.1]
    assert_sat_agrees(a, b)
