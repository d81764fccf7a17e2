"""Capsules, cylinders, cones and rounded shapes through ``core.collide`` against analytic answers."""

from __future__ import annotations

import numpy as np
import pytest

import core
from checks import NORMAL_TOLERANCE, angle, assert_conventions
from core.shapes.primitives import Capsule, Cone, Cylinder, Rounded
from generators import affine, box, random_rotation, rotation_about
from reference import reference_contact

SOLVER = 1e-10  # requested solver accuracy on the curved pairs below (about 4 across)
TOL = 1e-8
#: On a curved boundary a value error e tilts the normal by about sqrt(2 e / curvature radius).
CURVED_NORMAL_TOLERANCE = 1e-4


def frame(axis, center) -> np.ndarray:
    """4x4 matrix taking the local z axis to ``axis`` and the origin to ``center``."""
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    z = np.array([0.0, 0.0, 1.0])
    turn = np.cross(z, axis)
    rotation = np.eye(3) if np.linalg.norm(turn) < 1e-15 else rotation_about(turn, np.arccos(np.clip(axis @ z, -1, 1)))
    return affine(rotation, center)


def perpendicular(u: np.ndarray) -> np.ndarray:
    p = np.cross(u, [0.3, 0.5, 0.8])
    return p / np.linalg.norm(p)


@pytest.mark.parametrize("gap", [-0.2, -1e-5, 0.0, 1e-5, 0.7])
def test_parallel_cylinders_side_by_side(gap):
    axis = np.array([1.0, 2.0, -0.5]) / np.linalg.norm([1.0, 2.0, -0.5])
    side = perpendicular(axis)
    r1, r2 = 0.6, 0.35
    c1 = np.array([3.0, -1.0, 2.0])
    c2 = c1 + (r1 + r2 + gap) * side + 0.1 * axis
    contact = core.collide(Cylinder(r1, 1.0, frame(axis, c1)), Cylinder(r2, 0.8, frame(-axis, c2)),
                           tolerance=SOLVER)
    assert_conventions(contact, 4.0)
    assert contact.signed_distance == pytest.approx(gap, abs=TOL)
    assert angle(contact.normal, side) <= CURVED_NORMAL_TOLERANCE
    assert contact.status == ("touching" if gap == 0.0 else "penetrating" if gap < 0 else "separated")


@pytest.mark.parametrize("gap", [-0.05, 0.0, 0.3])
def test_coaxial_cylinders_stacked(gap):
    axis = np.array([0.2, -0.3, 1.0]) / np.linalg.norm([0.2, -0.3, 1.0])
    c1 = np.array([0.5, 0.5, 0.5])
    c2 = c1 + (0.4 + 0.25 + gap) * axis
    contact = core.collide(Cylinder(0.7, 0.4, frame(axis, c1)), Cylinder(0.5, 0.25, frame(axis, c2)),
                           tolerance=SOLVER)
    assert_conventions(contact, 4.0)
    assert contact.signed_distance == pytest.approx(gap, abs=TOL)
    assert angle(contact.normal, axis) <= NORMAL_TOLERANCE


@pytest.mark.parametrize("gap", [-0.1, 0.25])
def test_crossed_cylinders(gap):
    rotation = random_rotation(np.random.default_rng(3))
    x, y, z = rotation.T
    r1, r2 = 0.3, 0.45
    contact = core.collide(Cylinder(r1, 1.5, frame(x, [0, 0, 0])),
                           Cylinder(r2, 1.5, frame(y, (r1 + r2 + gap) * z)), tolerance=SOLVER)
    assert contact.signed_distance == pytest.approx(gap, abs=TOL)
    assert angle(contact.normal, z) <= CURVED_NORMAL_TOLERANCE


def test_cylinder_bounds_are_analytic():
    axis = np.array([0.3, -0.4, 0.8]) / np.linalg.norm([0.3, -0.4, 0.8])
    center, r, h = np.array([1.0, 2.0, 3.0]), 0.5, 0.7
    low, high = Cylinder(r, h).transformed(frame(axis, center)).bounds()
    extent = h * np.abs(axis) + r * np.sqrt(1.0 - axis ** 2)
    np.testing.assert_allclose(low, center - extent, atol=1e-12)
    np.testing.assert_allclose(high, center + extent, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_capsules_are_segments_minus_radii(seed):
    rng = np.random.default_rng(seed)
    seg_a, seg_b = rng.normal(size=(2, 3)), rng.normal(size=(2, 3)) * 0.8 + rng.normal(size=3) * 0.5
    r1, r2 = rng.uniform(0.05, 0.5, size=2)
    contact = core.collide(Capsule(*seg_a, r1), Capsule(*seg_b, r2))
    ref = reference_contact(seg_a, seg_b)
    assert_conventions(contact, 4.0)
    assert contact.signed_distance == pytest.approx(ref.signed_distance - r1 - r2, abs=1e-9)
    if ref.normal is not None and ref.signed_distance > 1e-6:
        assert angle(contact.normal, ref.normal) <= NORMAL_TOLERANCE
    assert contact.solver_status in ("converged", "degenerate")


def test_capsule_transformed_by_a_similarity_scales_its_radius():
    capsule = Capsule([0, 0, 0], [1, 0, 0], 0.2)
    moved = capsule.transformed(affine(2.0 * rotation_about([0, 0, 1], np.pi / 2), [1.0, 0.0, 0.0]))
    np.testing.assert_allclose(moved.a, [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(moved.b, [1, 2, 0], atol=1e-15)
    assert moved.radius == pytest.approx(0.4)
    with pytest.raises(ValueError, match="similarity"):
        capsule.transformed(affine(np.diag([1.0, 2.0, 1.0])))


@pytest.mark.parametrize("tilt, height", [(0.0, 0.3), (0.4, 0.2), (0.4, -0.1), (2.0, 0.15), (np.pi, -0.2)])
def test_cone_above_a_slab(tilt, height):
    """A tilted cone over a wide slab whose top is z = 0: the signed distance is the cone's lowest z."""
    r, h = 0.4, 0.5
    axis = np.array([np.sin(tilt), 0.0, np.cos(tilt)])
    apex_z, base_z = h * axis[2], -h * axis[2] - r * np.sqrt(1.0 - axis[2] ** 2)
    center = np.array([0.2, -0.1, height - min(apex_z, base_z)])
    slab = core.Box([5.0, 5.0, 1.0], affine(np.eye(3), [0.0, 0.0, -1.0]))
    contact = core.collide(slab, Cone(r, h, frame(axis, center)), tolerance=SOLVER)
    assert_conventions(contact, 10.0)
    assert contact.signed_distance == pytest.approx(height, abs=TOL)
    if abs(axis[2]) > 0.01:  # not resting on the cone's rim tangent line
        assert angle(contact.normal, [0, 0, 1]) <= CURVED_NORMAL_TOLERANCE


def test_cone_support_is_apex_or_rim():
    cone = Cone(0.5, 1.0)
    assert cone.support((0.0, 0.0, 1.0)) == (0.0, 0.0, 1.0)
    assert cone.support((0.0, 0.0, -1.0))[2] == -1.0
    np.testing.assert_allclose(cone.support((1.0, 0.0, 0.0)), (0.5, 0.0, -1.0))


def aabb_signed_distance(low_a, high_a, low_b, high_b) -> float:
    """Signed distance of two axis-aligned boxes: gap norm when apart, minus the smallest overlap otherwise."""
    gaps = np.maximum(low_b - high_a, low_a - high_b)
    if (gaps > 0).any():
        return float(np.linalg.norm(np.maximum(gaps, 0.0)))
    return float(gaps.max())


@pytest.mark.parametrize("offset", [(1.5, 1.2, 0.9), (1.3, 0.1, 0.0), (0.9, 0.2, 0.1), (2.0, 1.1, -1.4)])
def test_rounded_box_against_box(offset):
    half_a, half_b, margin = np.array([0.5, 0.4, 0.3]), np.array([0.6, 0.5, 0.4]), 0.15
    shift = np.array([4.0, -2.0, 1.0])
    a = Rounded(core.Box(half_a, affine(np.eye(3), shift)), margin)
    b = core.Box(half_b, affine(np.eye(3), shift + offset))
    expected = aabb_signed_distance(shift - half_a, shift + half_a, shift + offset - half_b,
                                    shift + offset + half_b) - margin
    contact = core.collide(a, b)
    assert_conventions(contact, 4.0)
    assert contact.signed_distance == pytest.approx(expected, abs=1e-10)
    assert contact.solver_status == "converged"


@pytest.mark.parametrize("seed", range(3))
def test_rounded_shapes_add_their_margins(seed):
    rng = np.random.default_rng(10 + seed)
    rotation = random_rotation(rng)
    half, cloud = rng.uniform(0.2, 0.5, 3), rng.normal(size=(20, 3)) * 0.3 + rng.normal(size=3)
    m1, m2 = rng.uniform(0.0, 0.3, 2)
    matrix = affine(rotation, rng.normal(size=3) * 0.3)
    contact = core.collide(Rounded(core.Box(half, matrix), m1), Rounded(core.Polytope(cloud), m2))
    ref = reference_contact(box(half) @ rotation.T + matrix[:3, 3], cloud)
    assert contact.signed_distance == pytest.approx(ref.signed_distance - m1 - m2, abs=1e-9)
    moved = Rounded(core.Sphere([0, 0, 0], 0.1), 0.2).transformed(affine(2.0 * np.eye(3), [1.0, 0.0, 0.0]))
    assert moved.margin == pytest.approx(0.6)
    np.testing.assert_allclose(moved.bounds()[0], [0.4, -0.6, -0.6])


def test_bad_primitive_arguments_name_themselves():
    with pytest.raises(ValueError, match="radius"):
        Cylinder(-1.0, 1.0)
    with pytest.raises(ValueError, match="half_height"):
        Cone(1.0, float("nan"))
    with pytest.raises(ValueError, match="shape"):
        Rounded(np.zeros((3, 3)), 0.1)
    with pytest.raises(ValueError, match="margin"):
        Rounded(core.Box([1, 1, 1]), -0.1)


@pytest.mark.parametrize("seed", range(40))
def test_stacked_cylinders_touching_at_any_orientation_give_the_axis(seed):
    """Flat on flat with the origin of A - B inside the shared face: EPA's closest face passes through the origin
    to rounding, on either side. Its checked normal (the axis) is the answer, never the direction to a point of
    A - B a few ulps from the origin (rounding noise: it once gave a normal 88 degrees off)."""
    rng = np.random.default_rng(seed)
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    c1 = rng.uniform(-2.0, 2.0, size=3)
    r1, h1, r2, h2 = rng.uniform(0.2, 1.0, size=4)
    c2 = c1 + (h1 + h2) * axis + 0.1 * min(r1, r2) * perpendicular(axis)
    contact = core.collide(Cylinder(r1, h1, frame(axis, c1)), Cylinder(r2, h2, frame(axis, c2)), tolerance=SOLVER)
    assert_conventions(contact, 4.0)
    assert contact.status == "touching" and abs(contact.signed_distance) <= TOL
    assert angle(contact.normal, axis) <= NORMAL_TOLERANCE
