"""Assertions shared by the core tests: a contact agrees with the exact reference and keeps its conventions."""

from __future__ import annotations

import numpy as np

from reference import ExactHull, Reference

VALUE_TOLERANCE = 1e-9  # depth/distance and witness points, relative to the pair's size
NORMAL_TOLERANCE = 1e-6  # radians, where the normal is unique
BOUNDS_SLACK = 1e-13  # rounding allowed on the bounds, relative to size


def angle(u: np.ndarray, v: np.ndarray) -> float:
    """Angle between two vectors, accurate for tiny angles."""
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    return float(np.arctan2(np.linalg.norm(np.cross(u, v)), u @ v))


def assert_conventions(contact, size: float) -> None:
    """The contact's own fields agree with each other (sign conventions, status, tangents)."""
    tol = VALUE_TOLERANCE * size
    sd = contact.signed_distance
    assert np.isfinite(sd) and np.all(np.isfinite(contact.normal))
    assert abs(np.linalg.norm(contact.normal) - 1.0) <= 1e-12
    np.testing.assert_allclose(contact.point_a - contact.point_b, -sd * contact.normal, rtol=0, atol=tol)
    assert contact.depth == max(0.0, -sd) and contact.distance == max(0.0, sd)
    expected = "touching" if abs(sd) <= contact.tolerance else ("penetrating" if sd < 0 else "separated")
    assert contact.status == expected
    assert contact.colliding == (expected != "separated")
    slack = BOUNDS_SLACK * size
    assert contact.bounds[0] - slack <= sd <= contact.bounds[1] + slack
    assert_tangents(contact.tangents, contact.normal)


def assert_tangents(tangents: np.ndarray, normal: np.ndarray) -> None:
    """Two unit tangents, orthogonal to each other and to the normal, with t0 x t1 == normal."""
    t0, t1 = np.asarray(tangents, dtype=float)
    basis = np.array([t0, t1, normal])
    np.testing.assert_allclose(basis @ basis.T, np.eye(3), rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.cross(t0, t1), normal, rtol=0, atol=1e-12)


def assert_on_shape(point: np.ndarray, hull: ExactHull, size: float, label: str) -> None:
    """``point`` lies on the shape (within tolerance); for solids also by its facet inequalities."""
    tol = VALUE_TOLERANCE * size
    assert hull.distance(point) <= tol, f"{label} is {hull.distance(point):.3e} off its shape"
    if hull.dimension == 3:
        assert hull.facet_violation(point) <= tol, f"{label} violates a facet of its shape"


def assert_matches_reference(contact, ref: Reference, points_a, points_b) -> None:
    """Signed distance, normal and witness points agree with the exact reference."""
    size = ref.size
    tol = VALUE_TOLERANCE * size
    assert_conventions(contact, size)
    assert abs(contact.signed_distance - ref.signed_distance) <= tol, (
        f"signed distance {contact.signed_distance!r} vs reference {ref.signed_distance!r} "
        f"(error {abs(contact.signed_distance - ref.signed_distance) / size:.2e} x size)")
    # Any valid normal separates the shapes by exactly the signed distance along itself.
    along = ref.separation_along(contact.normal)
    assert abs(along - ref.signed_distance) <= tol, (
        f"normal {contact.normal} achieves {along!r}, reference {ref.signed_distance!r}")
    if ref.normal_unique:
        error = angle(contact.normal, ref.normal)
        assert error <= NORMAL_TOLERANCE, f"normal {contact.normal} is {error:.2e} rad from {ref.normal}"
    assert_on_shape(contact.point_a, ExactHull(points_a), size, "point_a")
    assert_on_shape(contact.point_b, ExactHull(points_b), size, "point_b")
    slack = BOUNDS_SLACK * size
    assert contact.bounds[0] - slack <= ref.signed_distance <= contact.bounds[1] + slack, (
        f"bounds {contact.bounds} miss the reference {ref.signed_distance!r}")
