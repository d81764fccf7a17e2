"""Rigid-body collision shapes as Blender's physics (Bullet) builds them, from plain data (no bpy): size, placement
and margin as ``rigidbody.cc`` and ``rb_bullet_api.cpp`` compute them.
See docs/architecture.md, section "Shapes: Blender's rigid-body shapes".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .hull import convex_hull
from .primitives import Capsule, Cone, Cylinder, Rounded
from .convex import Box, Polytope, Shape, Sphere
from ..validation import as_affine, as_length, as_points, as_vector3

RIGID_BODY_KINDS = ("BOX", "SPHERE", "CAPSULE", "CYLINDER", "CONE", "CONVEX_HULL")
#: Bullet's default collision margin, used by Blender when ``use_margin`` is off.
DEFAULT_MARGIN = 0.04


def effective_margin(kind: str, collision_margin: float, use_margin: bool) -> float:
    """Blender's ``RBO_GET_MARGIN``: the object's margin if ``use_margin`` or a cone or hull, else 0.04."""
    _check_kind(kind)
    return as_length(collision_margin, "margin") if use_margin or kind in ("CONE", "CONVEX_HULL") \
        else DEFAULT_MARGIN


def rigid_body_shape(kind: str, local_bounds: ArrayLike, matrix_world: ArrayLike, margin: float,
                     points: ArrayLike | None = None, *,
                     use_margin: bool = True) -> Shape:
    """The world-space ``core`` shape Bullet collides for a Blender rigid body.

    ``kind`` is ``rigid_body.collision_shape``; ``local_bounds`` is ``(low, high)`` of the evaluated
    mesh in object space; ``matrix_world`` the object's 4x4 matrix; ``margin`` and ``use_margin`` are
    ``rigid_body.collision_margin`` and ``rigid_body.use_margin``; ``points`` are the mesh's local
    vertices (required for ``CONVEX_HULL``). See the module docstring for the conventions.
    """
    _check_kind(kind)
    low, high = as_vector3(local_bounds[0], "local_bounds low"), as_vector3(local_bounds[1], "local_bounds high")
    if (high < low).any():
        raise ValueError("local_bounds must be (low, high) with low <= high")
    half = 0.5 * (high - low)
    frame, scale = body_frame(matrix_world)
    bullet_margin = effective_margin(kind, margin, use_margin)
    if kind == "BOX":
        return _embedded(Box(np.maximum(half * scale - bullet_margin, 0.0), frame), bullet_margin)
    if kind == "SPHERE":
        return Sphere(frame[:3, 3], float(half.max()) * scale[0])
    radius, half_height = max(half[0], half[1]), half[2]
    if kind == "CAPSULE":
        straight = max(half_height - radius, 0.0) * scale[2]
        axis = frame[:3, 2] * straight
        return Capsule(frame[:3, 3] - axis, frame[:3, 3] + axis, radius * scale[1])
    if kind == "CYLINDER":
        core_radius = max(radius * scale[0] - bullet_margin, 0.0)
        return _embedded(Cylinder(core_radius, max(half_height * scale[2] - bullet_margin, 0.0), frame),
                         bullet_margin)
    if kind == "CONE":
        return _embedded(Cone(radius * 0.5 * (scale[0] + scale[1]), half_height * scale[2], frame), bullet_margin)
    if points is None:
        raise ValueError("points (the mesh's local vertices) are required for a CONVEX_HULL shape")
    return _convex_hull_shape(as_points(points, "points"), half, frame, scale, margin, use_margin)


def body_frame(matrix_world: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(4x4 rigid motion of the body, per-axis scale) from an object's world matrix, as Blender
    hands them to Bullet: location, normalised axes (negated when the matrix mirrors) and column
    lengths."""
    linear, offset = as_affine(matrix_world, "matrix_world")
    scale = np.linalg.norm(linear, axis=0)
    if not (scale > 0.0).all():
        raise ValueError("matrix_world has a zero scale: the rigid body has no size")
    axes = linear / scale
    if np.linalg.det(axes) < 0.0:
        axes = -axes
    left, _, right = np.linalg.svd(axes)  # nearest rotation (the axes themselves unless sheared)
    frame = np.eye(4)
    frame[:3, :3], frame[:3, 3] = left @ right, offset
    return frame, scale


def shrunk_hull(points: np.ndarray, amount: float) -> np.ndarray | None:
    """Vertices of the hull of ``points`` with every face moved inward by ``amount`` (the polytope
    that, inflated by a ball of ``amount``, has the hull's faces), or ``None`` when the hull is flat
    or a face comes within ``amount`` of the hull's centroid.

    The moved faces are intersected by duality about the centroid c: face n·x <= h becomes the
    point n / (h - amount - n·c); each facet of the hull of those points is a vertex of the result.
    """
    hull = convex_hull(points)
    if hull.dimension < 3:
        return None
    corners = hull.vertices[hull.triangles]  # (F, 3, 3)
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    twice_areas = np.linalg.norm(normals, axis=1)
    normals = normals / twice_areas[:, None]
    centroid = _solid_centroid(corners)
    room = np.einsum("ij,ij->i", normals, corners[:, 0] - centroid) - amount
    if not (room > 0.0).all():
        return None
    dual = convex_hull(normals / room[:, None])
    if dual.dimension < 3:
        return None
    planes = dual.vertices[dual.triangles]  # (G, 3, 3): rows q with q·y = 1 at the vertex y
    return centroid + np.linalg.solve(planes, np.ones((len(planes), 3, 1)))[..., 0]


def _solid_centroid(corners: np.ndarray) -> np.ndarray:
    """Volume centroid of a closed outward-wound triangle mesh (signed tetrahedra from the origin)."""
    volumes = np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2]))
    return (volumes[:, None] * corners.sum(axis=1)).sum(axis=0) / (4.0 * volumes.sum())


def _convex_hull_shape(points: np.ndarray, half: np.ndarray, frame: np.ndarray, scale: np.ndarray,
                       margin: float, use_margin: bool) -> Shape:
    if use_margin:
        return _embedded(Polytope(points * scale, frame, index=False), as_length(margin, "margin"))
    shrunk = shrunk_hull(points, DEFAULT_MARGIN) if half.min() > 0.0 else None
    if shrunk is None:  # nothing embedded: Blender sets the margin to 0
        return Polytope(points * scale, frame, index=False)
    return _embedded(Polytope(shrunk * scale, frame, index=False), DEFAULT_MARGIN * float(scale.min()))


def _embedded(shape: Shape, margin: float) -> Shape:
    return Rounded(shape, margin) if margin > 0.0 else shape


def _check_kind(kind: str) -> None:
    if kind not in RIGID_BODY_KINDS:
        raise ValueError(f"kind must be one of {RIGID_BODY_KINDS}, got {kind!r}")
