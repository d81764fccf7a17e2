"""Exact primitives as support mappings: capsules, cylinders, cones, and rounded versions of any shape (margins are
added after the cores are solved, so capsules and rounded shapes are exact).
See docs/architecture.md, section "Shapes: primitives and margins".
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .convex import Shape, Vec3, similarity_scale
from ..validation import as_affine, as_length, as_vector3


def _local_affine(transform) -> tuple[np.ndarray | None, np.ndarray]:
    return (None, np.zeros(3)) if transform is None else as_affine(transform, "transform")


class Capsule(Shape):
    """The segment ``a``-``b`` inflated by ``radius``: a segment core with a margin, so answers are exact."""

    def __init__(self, a, b, radius):
        start, end = as_vector3(a, "a"), as_vector3(b, "b")
        self.margin = as_length(radius, "radius")
        self._half = tuple((0.5 * (end - start)).tolist())
        super().__init__(None, 0.5 * (start + end))

    @property
    def a(self) -> np.ndarray:
        return self._offset - self._half

    @property
    def b(self) -> np.ndarray:
        return self._offset + self._half

    @property
    def radius(self) -> float:
        return self.margin

    def _local_support(self, d: Vec3) -> Vec3:
        hx, hy, hz = self._half
        return (hx, hy, hz) if d[0] * hx + d[1] * hy + d[2] * hz >= 0.0 else (-hx, -hy, -hz)

    def transformed(self, matrix: ArrayLike) -> "Capsule":
        """The moved capsule; only similarities keep it a capsule."""
        linear, offset = as_affine(matrix, "matrix")
        scale = float(similarity_scale(linear))
        return Capsule(linear @ self.a + offset, linear @ self.b + offset, self.margin * scale)

    def _with_affine(self, linear, offset) -> "Capsule":
        half = np.array(self._half)
        return Capsule(offset - half, offset + half, self.margin)


class _AxialShape(Shape):
    """A solid of revolution along its local z axis (``radius``, ``half_height``), optionally transformed."""

    def __init__(self, radius, half_height, transform=None):
        self._radius = as_length(radius, "radius")
        self._half_height = as_length(half_height, "half_height")
        super().__init__(*_local_affine(transform))

    _with_affine = Shape._moved_copy


class Cylinder(_AxialShape):
    """A solid cylinder along its local z axis, centred at its local origin, optionally transformed."""

    def _local_support(self, d: Vec3) -> Vec3:
        x, y, z = d
        radial = math.hypot(x, y)
        s = self._radius / radial if radial > 0.0 else 0.0
        return (x * s, y * s, self._half_height if z >= 0.0 else -self._half_height)


class Cone(_AxialShape):
    """A solid cone along its local z axis: apex at ``+half_height``, base disc of ``radius`` at
    ``-half_height`` (the local origin is the middle of the axis), optionally transformed."""

    def _local_support(self, d: Vec3) -> Vec3:
        x, y, z = d
        radial = math.hypot(x, y)
        h = self._half_height
        if radial == 0.0 or h * z >= self._radius * radial - h * z:  # apex at least as far as the rim
            return (0.0, 0.0, h if z >= 0.0 else -h)
        s = self._radius / radial
        return (x * s, y * s, -h)


class Rounded(Shape):
    """``shape`` inflated by a ball of radius ``margin`` (a rounded box, a rounded polytope...).

    The core is ``shape``'s core and the margins add up, so the answer is as exact as it is for
    ``shape`` itself.
    """

    def __init__(self, shape: Shape, margin):
        if not isinstance(shape, Shape):
            raise ValueError(f"shape must be a core Shape, got {type(shape).__name__}")
        self.inner = shape
        self.rounding = as_length(margin, "margin")
        self.margin = shape.margin + self.rounding
        super().__init__(None, np.zeros(3))

    def support(self, d: Vec3) -> Vec3:
        return self.inner.support(d)

    def support_reach(self) -> float:
        return self.inner.support_reach()

    def transformed(self, matrix: ArrayLike) -> "Rounded":
        """The moved shape; only similarities keep the rounding round."""
        linear, _ = as_affine(matrix, "matrix")
        return Rounded(self.inner.transformed(matrix), self.rounding * float(similarity_scale(linear)))

    def translated(self, offset: ArrayLike) -> "Rounded":
        return Rounded(self.inner.translated(offset), self.rounding)
