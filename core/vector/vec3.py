"""Tiny 3-vector helpers on float tuples (faster than numpy for the solver's per-step arithmetic)."""

from __future__ import annotations

import math

Vec3 = tuple[float, float, float]


def sub(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def add(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def scale(a: Vec3, s: float) -> Vec3:
    return (a[0] * s, a[1] * s, a[2] * s)


def dot(a: Vec3, b: Vec3) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec3, b: Vec3) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a: Vec3) -> float:
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


def normalized(a: Vec3) -> Vec3:
    return scale(a, 1.0 / norm(a))


def combine(weights, points) -> Vec3:
    """Weighted sum of points."""
    x = y = z = 0.0
    for w, p in zip(weights, points):
        x += w * p[0]
        y += w * p[1]
        z += w * p[2]
    return (x, y, z)


def orthonormal_basis(n: Vec3) -> tuple[Vec3, Vec3]:
    """Two unit tangents t0, t1 with t0 x t1 == n for a unit n, without a degenerate direction.

    Duff et al., "Building an Orthonormal Basis, Revisited" (JCGT 2017): branch on the sign of n.z
    instead of picking a helper axis, so the basis is continuous except across n.z == 0 and never
    divides by a small number.
    """
    x, y, z = n
    sign = math.copysign(1.0, z)
    a = -1.0 / (sign + z)
    b = x * y * a
    return (1.0 + sign * x * x * a, sign * b, -sign * x), (b, sign + y * y * a, -y)
