"""Plane mode: the basis, projection and lifting, and in-plane contacts of boxes seen from the top,
front and side (analytic), and of random clouds against the 3D solver on long prisms through them."""

from __future__ import annotations

import numpy as np
import pytest

import core
from checks import angle, assert_tangents
from core.planar.projection import collide_in_plane, lift_from_plane, plane_basis, project_to_plane
from generators import box, cloud, random_rotation, unit_vectors
from test_planar_gjk_epa import reference_2d

TOL = 1e-9


@pytest.mark.parametrize("normal, u, v", [
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),     # top view
    ((0, 0, -1), (1, 0, 0), (0, -1, 0)),   # bottom view
    ((0, -1, 0), (1, 0, 0), (0, 0, 1)),    # front view, normal toward the viewer
    ((1, 0, 0), (0, 1, 0), (0, 0, 1)),     # right view
    ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),   # left view
])
def test_basis_of_the_blender_views(normal, u, v):
    got_u, got_v = plane_basis(normal)
    np.testing.assert_allclose(got_u, u, atol=1e-15)
    np.testing.assert_allclose(got_v, v, atol=1e-15)


def test_basis_is_orthonormal_right_handed_and_deterministic():
    rng = np.random.default_rng(1)
    for n in unit_vectors(rng, 200) * rng.uniform(0.1, 10.0, size=(200, 1)):
        u, v = plane_basis(n)
        unit = n / np.linalg.norm(n)
        assert_tangents(np.array([u, v]), unit)
        again = plane_basis(n.copy())
        assert np.array_equal(again[0], u) and np.array_equal(again[1], v)


def test_projection_and_lifting_round_trip():
    rng = np.random.default_rng(2)
    origin, n = rng.normal(size=3), rng.normal(size=3)
    u, v = plane_basis(n)
    flat = rng.normal(size=(50, 2))
    np.testing.assert_allclose(project_to_plane(lift_from_plane(flat, origin, u, v), origin, u, v), flat, atol=1e-14)
    points = rng.normal(size=(50, 3)) * 5
    unit = n / np.linalg.norm(n)
    lifted = lift_from_plane(project_to_plane(points, origin, u, v), origin, u, v)
    # lifting the projection is the orthogonal projection onto the plane
    expected = points - np.outer((points - origin) @ unit, unit)
    np.testing.assert_allclose(lifted, expected, atol=1e-13)


def box_at(center, half):
    return box(half) + center


# A: 2 x 1 x 0.6 at the origin; B: 1.6 x 0.8 x 0.4 up and to the right, apart in 3D
A = box_at([0.0, 0.0, 0.0], [1.0, 0.5, 0.3])
B = box_at([1.5, 0.2, 2.0], [0.8, 0.4, 0.2])


def test_top_view_overlap_of_boxes_apart_in_3d():
    assert core.collide(A, B).status == "separated"
    contact = collide_in_plane(A, B, [0, 0, 0], [0, 0, 1])
    # x overlap [0.7, 1] = 0.3 is the smallest push-out (y would need 0.7)
    assert contact.status == "penetrating"
    assert contact.depth == pytest.approx(0.3, abs=TOL)
    np.testing.assert_allclose(contact.normal, [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(contact.point_a - contact.point_b, 0.3 * contact.normal, atol=TOL)
    assert contact.point_a[2] == 0.0 and contact.point_b[2] == 0.0  # in the plane through the origin
    assert contact.point_a[0] == pytest.approx(1.0, abs=TOL)  # on A's right edge


@pytest.mark.parametrize("normal", [(0, -1, 0), (1, 0, 0)])
def test_front_and_side_views_show_the_vertical_gap(normal):
    origin = np.array([0.0, 5.0, 0.0]) if normal[1] else np.array([5.0, 0.0, 0.0])
    contact = collide_in_plane(A, B, origin, normal)
    assert contact.status == "separated"
    assert contact.distance == pytest.approx(2.0 - 0.2 - 0.3, abs=TOL)
    np.testing.assert_allclose(contact.normal, [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(contact.point_b - contact.point_a, 1.5 * contact.normal, atol=TOL)
    plane_normal = np.array(normal, dtype=float)
    for point in (contact.point_a, contact.point_b):
        assert (point - origin) @ plane_normal == pytest.approx(0.0, abs=1e-12)
    assert_tangents(contact.tangents, contact.normal)
    np.testing.assert_allclose(contact.tangents[1], plane_normal, atol=1e-15)


def test_touching_outlines_in_a_tilted_plane():
    # two unit cubes side by side along x, seen in a plane tilted about x: their outlines touch
    cube_a, cube_b = box_at([0, 0, 0], [0.5] * 3), box_at([1.0, 0.3, -0.2], [0.5] * 3)
    contact = collide_in_plane(cube_a, cube_b, [0, 0, 0], [0.0, -np.sin(0.4), np.cos(0.4)])
    assert contact.status == "touching"
    np.testing.assert_allclose(contact.normal, [1, 0, 0], atol=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_random_clouds_match_the_3d_solver_on_long_prisms(seed):
    rng = np.random.default_rng(seed)
    a = cloud(rng, 30) @ random_rotation(rng).T
    b = cloud(rng, 20) @ random_rotation(rng).T + rng.normal(scale=0.4, size=3)
    n = unit_vectors(rng, 1)[0]
    origin = rng.normal(size=3)
    contact = collide_in_plane(a, b, origin, n)
    # the projections' contact is the contact of the infinite prisms through the shapes along n
    prism_a, prism_b = (np.vstack([p, p + 50 * n, p - 50 * n]) for p in (a, b))
    reference = core.collide(prism_a, prism_b)
    assert contact.signed_distance == pytest.approx(reference.signed_distance, abs=1e-8)
    assert abs(contact.normal @ n) <= 1e-12
    if abs(reference.signed_distance) > 1e-6:
        assert angle(contact.normal, reference.normal) <= 1e-6
    # and an independent 2D reference (Qhull) in the plane's own coordinates
    u, v = plane_basis(n)
    flat_sd, _ = reference_2d(project_to_plane(a, origin, u, v), project_to_plane(b, origin, u, v))
    assert contact.signed_distance == pytest.approx(flat_sd, abs=TOL)
    np.testing.assert_allclose(contact.point_a - contact.point_b, -contact.signed_distance * contact.normal,
                               atol=TOL)


@pytest.mark.parametrize("normal", [(0, 0, 0), (np.inf, 0, 1)])
def test_bad_plane_normals_are_refused(normal):
    with pytest.raises(ValueError, match="normal"):
        collide_in_plane(A, B, [0, 0, 0], normal)
