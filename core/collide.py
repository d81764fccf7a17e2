"""``collide`` and ``intersect``: GJK, then EPA when the shapes overlap, in a pair-local frame.

Both shapes are shifted so the pair's bounding box is centred on the origin, and tolerances are
scaled by the pair's size: the same pair gives the same answer at an offset of 1e6 as at the origin
and at any scale. Margins (a sphere's radius) are added exactly after the cores are solved: inflating
both shapes by r moves every boundary point of A - B out by r along the normal.
"""

from __future__ import annotations

import math

import numpy as np

from .contact import Contact, classify
from .epa import epa, expand_simplex
from .gjk import gjk, minkowski_support
from .shapes import Shape, as_shape
from .validation import as_iteration_cap, as_length
from .vec3 import Vec3, combine, dot, norm, orthonormal_basis, scale, sub

#: Default solver accuracy, relative to the pair's size.
DEFAULT_RELATIVE_TOLERANCE = 1e-12
#: Floor of the solver accuracy, relative to the pair's size: float64 cannot do better.
MIN_RELATIVE_TOLERANCE = 1e-13
DEFAULT_MAX_ITERATIONS = 256


class _Pair:
    """Two shapes in their shared local frame, with the tolerances that frame implies."""

    def __init__(self, a, b, tolerance, touch_tolerance, max_iterations):
        self.a, self.b = as_shape(a, "points_a"), as_shape(b, "points_b")
        tolerance = as_length(tolerance, "tolerance", allow_none=True)
        touch_tolerance = as_length(touch_tolerance, "touch_tolerance", allow_none=True)
        self.max_iterations = as_iteration_cap(max_iterations, "max_iterations")
        (low_a, high_a), (low_b, high_b) = self.a.bounds(), self.b.bounds()
        low, high = np.minimum(low_a, low_b), np.maximum(high_a, high_b)
        self.center = 0.5 * (low + high)
        size = float((high - low).max())
        floor = MIN_RELATIVE_TOLERANCE * size
        self.rounding = floor
        self.tolerance = max(DEFAULT_RELATIVE_TOLERANCE * size if tolerance is None else tolerance, floor)
        self.touch_tolerance = max(self.tolerance if touch_tolerance is None else touch_tolerance,
                                   self.tolerance)
        self.margin = self.a.margin + self.b.margin
        self.a_to_b = tuple((0.5 * (low_b + high_b - low_a - high_a)).tolist())
        local_a, local_b = self.a.translated(-self.center), self.b.translated(-self.center)
        self.support = minkowski_support(local_a.support, local_b.support)

    def first_direction(self) -> Vec3:
        """Search A - B first toward B-to-A: any direction gives the same distance."""
        return scale(self.a_to_b, -1.0) if norm(self.a_to_b) > 0.0 else (1.0, 0.0, 0.0)

    def orient(self, normal: Vec3) -> Vec3:
        """Sign an undetermined normal (flat contact) so that it points from A toward B."""
        if normal is None:
            normal = self.a_to_b if norm(self.a_to_b) > 0.0 else (0.0, 0.0, 1.0)
        normal = _unit(normal)
        alignment = dot(normal, self.a_to_b)
        if alignment == 0.0:  # no preferred side: make the largest component positive
            alignment = max(normal, key=abs)
        return scale(normal, -1.0) if alignment < 0.0 else normal


def collide(points_a, points_b, *, tolerance: float | None = None, touch_tolerance: float | None = None,
            max_iterations: int = DEFAULT_MAX_ITERATIONS) -> Contact:
    """Contact between the convex hulls of two point clouds (or two prepared ``core`` shapes).

    See ``Contact`` for the conventions. ``tolerance`` is the solver accuracy in world units (default
    1e-12 x the pair's size); ``touch_tolerance`` is the band reported as 'touching' (default: the
    solver accuracy, never less); ``max_iterations`` caps GJK and EPA each.
    """
    pair = _Pair(points_a, points_b, tolerance, touch_tolerance, max_iterations)
    result = gjk(pair.support, pair.first_direction(), tolerance=pair.tolerance,
                 max_iterations=pair.max_iterations, overlap_below=pair.tolerance)
    epa_iterations = 0
    if not result.overlapping:
        signed_distance = result.distance
        normal = _unit(scale(result.v, -1.0))
        point_a, point_b = _witnesses(result.simplex, result.weights)
        bounds = (result.lower_bound, signed_distance)
        solver_status = "converged" if result.converged else "iteration_limit"
    else:
        seed = expand_simplex(pair.support, result.simplex, pair.tolerance)
        if seed.dimension < 3:
            signed_distance = result.distance
            if signed_distance > 0.0:
                normal = _unit(scale(result.v, -1.0))
            else:
                normal = pair.orient(seed.flat_normal)
            point_a, point_b = _witnesses(result.simplex, result.weights)
            bounds = (-pair.tolerance, signed_distance)  # flat within the tolerance: so deep at most
            solver_status = "degenerate"
        else:
            found = epa(pair.support, seed.vertices, tolerance=pair.tolerance,
                        max_iterations=pair.max_iterations, rounding=pair.rounding)
            signed_distance, normal = found.signed_distance, found.normal
            point_a, point_b = found.point_a, found.point_b
            bounds = (found.lower_bound, min(found.upper_bound, result.distance))
            solver_status, epa_iterations = found.status, found.iterations
    return _contact(pair, signed_distance, normal, point_a, point_b, bounds, result.iterations,
                    epa_iterations, solver_status)


def intersect(points_a, points_b, *, tolerance: float | None = None, touch_tolerance: float | None = None,
              max_iterations: int = DEFAULT_MAX_ITERATIONS) -> bool:
    """Do the shapes touch or overlap? Same answer as ``collide(...).colliding``, found by GJK alone,
    which stops as soon as the bounds decide it."""
    pair = _Pair(points_a, points_b, tolerance, touch_tolerance, max_iterations)
    threshold = pair.touch_tolerance + pair.margin
    result = gjk(pair.support, pair.first_direction(), tolerance=pair.tolerance,
                 max_iterations=pair.max_iterations, overlap_below=threshold, separated_above=threshold)
    return result.overlapping or result.distance - pair.margin <= pair.touch_tolerance


def _unit(v: Vec3) -> Vec3:
    return scale(v, 1.0 / norm(v))


def _witnesses(simplex, weights) -> tuple[Vec3, Vec3]:
    return combine(weights, [v[1] for v in simplex]), combine(weights, [v[2] for v in simplex])


def _contact(pair: _Pair, core_signed_distance: float, normal: Vec3, point_a: Vec3, point_b: Vec3,
             core_bounds, gjk_iterations: int, epa_iterations: int, solver_status: str) -> Contact:
    """Add the margins, make the witness points satisfy the convention exactly, go back to world."""
    signed_distance = core_signed_distance - pair.margin + 0.0  # + 0.0 turns -0.0 into 0.0
    point_a = combine((1.0, pair.a.margin), (point_a, normal))
    point_b = combine((1.0, -pair.b.margin), (point_b, normal))
    middle = scale(combine((1.0, 1.0), (point_a, point_b)), 0.5)
    half = scale(normal, 0.5 * signed_distance)
    normal_array = np.array(normal) + 0.0  # no -0.0 components
    return Contact(
        status=classify(signed_distance, pair.touch_tolerance),
        signed_distance=signed_distance,
        normal=normal_array,
        point_a=np.array(sub(middle, half)) + pair.center,
        point_b=np.array(combine((1.0, 1.0), (middle, half))) + pair.center,
        # Rounding may put a bound an ulp past the value itself; the value is always inside.
        bounds=(min(core_bounds[0] - pair.margin, signed_distance), max(core_bounds[1] - pair.margin, signed_distance)),
        tolerance=pair.touch_tolerance,
        gjk_iterations=gjk_iterations,
        epa_iterations=epa_iterations,
        solver_status=solver_status,
        tangents=np.array(orthonormal_basis(normal)),
    )
