"""Plane mode: two shapes seen in a plane (top, front, side, a view or any custom plane), measured by ``collide_2d``
on their projections and lifted back into world space; the plane's basis matches Blender's orthographic views.
See docs/architecture.md, section "Planar: plane mode".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..contact import Contact
from .gjk_epa import collide_2d
from ..validation import as_points, as_vector3

#: Planes whose normal is at least this close to vertical (|n_z|) take their u axis from world X;
#: steeper planes take their v axis from world Z (world up, as in Blender's side views).
MOSTLY_HORIZONTAL = float(np.sqrt(0.5))


def plane_basis(normal: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal in-plane axes ``(u, v)`` with ``u x v == normal / |normal|``.

    Planes facing up or down (|n_z| >= sqrt(1/2)) get ``u`` = world X projected into the plane;
    the others get ``v`` = world Z (up) projected into the plane, so walls read upright.
    """
    n = _unit(as_vector3(normal, "normal"), "normal")
    if abs(n[2]) >= MOSTLY_HORIZONTAL:
        u = _unit(np.array([1.0, 0.0, 0.0]) - n[0] * n, "u")
        return u, np.cross(n, u)
    v = _unit(np.array([0.0, 0.0, 1.0]) - n[2] * n, "v")
    return np.cross(v, n), v


def project_to_plane(points: ArrayLike, origin: ArrayLike, u: ArrayLike, v: ArrayLike) -> np.ndarray:
    """(N, 2) in-plane coordinates ``((p - origin)·u, (p - origin)·v)`` of (N, 3) points."""
    cloud = as_points(points, "points")
    return (cloud - as_vector3(origin, "origin")) @ np.column_stack([as_vector3(u, "u"), as_vector3(v, "v")])


def lift_from_plane(points2d: ArrayLike, origin: ArrayLike, u: ArrayLike, v: ArrayLike) -> np.ndarray:
    """(N, 3) world points ``origin + x u + y v`` of (N, 2) in-plane coordinates."""
    flat = np.asarray(points2d, dtype=np.float64)
    if flat.ndim != 2 or flat.shape[1] != 2:
        raise ValueError(f"points2d must have shape (N, 2), got {flat.shape}")
    return as_vector3(origin, "origin") + flat @ np.vstack([as_vector3(u, "u"), as_vector3(v, "v")])


def collide_in_plane(points_a: ArrayLike, points_b: ArrayLike, origin: ArrayLike, normal: ArrayLike,
                     **options) -> Contact:
    """In-plane contact of two (N, 3) clouds projected onto the plane through ``origin`` with ``normal``.

    Returns a ``core.Contact`` in world space with ``collide``'s conventions: ``signed_distance``,
    ``depth`` and ``distance`` are in-plane (the overlap or gap of the two outlines), ``normal`` is a
    unit vector in the plane from A toward B, ``point_a`` and ``point_b`` lie in the plane, and
    ``tangents`` are ``(normal_of_plane x normal, normal_of_plane)``. ``options`` go to
    ``collide_2d`` (``tolerance``, ``touch_tolerance``, ``max_iterations``).
    """
    origin = as_vector3(origin, "origin")
    u, v = plane_basis(normal)
    plane_normal = np.cross(u, v)
    flat = collide_2d(project_to_plane(points_a, origin, u, v), project_to_plane(points_b, origin, u, v),
                      **options)
    axes = np.vstack([u, v])
    in_plane = flat.normal @ axes
    witnesses = lift_from_plane(np.vstack([flat.point_a, flat.point_b]), origin, u, v)
    return Contact(status=flat.status, signed_distance=flat.signed_distance, normal=in_plane,
                   point_a=witnesses[0], point_b=witnesses[1], bounds=flat.bounds, tolerance=flat.tolerance,
                   gjk_iterations=flat.gjk_iterations, epa_iterations=flat.epa_iterations,
                   solver_status=flat.solver_status,
                   tangents=np.array([np.cross(plane_normal, in_plane), plane_normal]))


def _unit(vector: np.ndarray, name: str) -> np.ndarray:
    length = float(np.linalg.norm(vector))
    if length == 0.0:
        raise ValueError(f"{name} must be a non-zero vector")
    return vector / length
