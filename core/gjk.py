"""GJK on the Minkowski difference A - B: separation distance, closest points, or "they overlap".

The support of A - B along ``d`` is ``support_A(d) - support_B(-d)``; each simplex vertex keeps both
support points so witness points come out as the same barycentric mix. The loop keeps an upper bound
``|v|`` and a lower bound ``v·w/|v|`` on the distance and stops when they are within ``tolerance``,
when a support point repeats (a polytope has no better one: the answer is exact), or when the
distance stops shrinking (rounding). On polytopes the result is the exact distance up to rounding,
whatever the first search direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .simplex import closest_on_segment, closest_on_tetrahedron, closest_on_triangle
from .vec3 import Vec3, dot, scale

#: A vertex of the Minkowski difference with its support points: (w = a - b, a, b).
Vertex = tuple[Vec3, Vec3, Vec3]
SupportFn = Callable[[Vec3], Vertex]


@dataclass
class GjkResult:
    """Where GJK stopped. ``v`` is the closest point of A - B found (the origin when enclosed)."""

    overlapping: bool
    v: Vec3
    simplex: list
    weights: tuple
    lower_bound: float
    iterations: int
    converged: bool

    @property
    def distance(self) -> float:
        return math.sqrt(dot(self.v, self.v))


def minkowski_support(support_a, support_b) -> SupportFn:
    """Support function of A - B that also returns the two support points."""

    def support(d: Vec3) -> Vertex:
        a = support_a(d)
        b = support_b((-d[0], -d[1], -d[2]))
        return (a[0] - b[0], a[1] - b[1], a[2] - b[2]), a, b

    return support


def _closest_on_simplex(points):
    if len(points) == 1:
        return points[0], (1.0,), False
    if len(points) == 2:
        return (*closest_on_segment(*points), False)
    if len(points) == 3:
        return (*closest_on_triangle(*points), False)
    return closest_on_tetrahedron(points)


def gjk(support: SupportFn, first_direction: Vec3, *, tolerance: float, max_iterations: int,
        overlap_below: float, separated_above: float = math.inf) -> GjkResult:
    """Run GJK until the distance is known to ``tolerance``.

    It stops early as overlapping when ``|v| <= overlap_below`` or the origin is enclosed, and as
    separated when the lower bound exceeds ``separated_above`` (for yes/no queries).
    """
    simplex = [support(first_direction)]
    v, weights, lower = simplex[0][0], (1.0,), -math.inf
    for iteration in range(1, max_iterations + 1):
        vv = dot(v, v)
        if vv <= overlap_below * overlap_below:
            return GjkResult(True, v, simplex, weights, 0.0, iteration - 1, True)
        length = math.sqrt(vv)
        vertex = support(scale(v, -1.0))
        along_v = dot(v, vertex[0]) / length  # separation along -v: a lower bound
        lower = max(lower, along_v)
        # Stop on the gap along the current direction, so the reported normal achieves the value.
        if lower > separated_above or length - along_v <= tolerance:
            return GjkResult(False, v, simplex, weights, lower, iteration, True)
        if any(vertex[0] == old[0] for old in simplex):
            return GjkResult(False, v, simplex, weights, lower, iteration, True)
        candidate = simplex + [vertex]
        closest, candidate_weights, enclosed = _closest_on_simplex([p[0] for p in candidate])
        if enclosed:
            return GjkResult(True, (0.0, 0.0, 0.0), candidate, candidate_weights, 0.0, iteration, True)
        if dot(closest, closest) >= vv:
            return GjkResult(False, v, simplex, weights, lower, iteration, True)
        kept = [i for i, w in enumerate(candidate_weights) if w > 0.0]
        simplex = [candidate[i] for i in kept]
        weights = tuple(candidate_weights[i] for i in kept)
        v = closest
    overlapping = dot(v, v) <= overlap_below * overlap_below  # the cap may fall on the origin
    return GjkResult(overlapping, v, simplex, weights, 0.0 if overlapping else lower, max_iterations, False)
