"""GJK on the Minkowski difference A - B: separation distance, closest points, or "they overlap", with an upper and
a lower bound on the signed distance that hold whatever the geometry.
See docs/architecture.md, section "Narrow phase: GJK".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .simplex import closest_on_segment, closest_on_tetrahedron, closest_on_triangle
from ..vector.vec3 import Vec3, dot

#: A vertex of the Minkowski difference with its support points: (w = a - b, a, b).
Vertex = tuple[Vec3, Vec3, Vec3]
SupportFn = Callable[[Vec3], Vertex]


@dataclass
class GjkResult:
    """Where GJK stopped. ``v`` is the closest point of A - B found (the origin when enclosed);
    ``lower_bound`` is a certain lower bound on the signed distance (-inf before any is known) and
    ``normal`` the unit direction (A toward B) along which the shapes are that far apart, when known."""

    overlapping: bool
    v: Vec3
    simplex: list
    weights: tuple
    lower_bound: float
    iterations: int
    status: str
    normal: Vec3 | None = None

    @property
    def converged(self) -> bool:
        return self.status == "converged"

    @property
    def distance(self) -> float:
        return math.sqrt(dot(self.v, self.v))


def minkowski_support(support_a, support_b, unit: float = 1.0) -> SupportFn:
    """Support function of A - B that also returns the two support points, all divided by ``unit``
    (a power of two, so exactly): for pairs so large or small that the solver's squares would leave
    float64's range, it works in a frame where the pair is about 1 across."""
    inverse = 1.0 / unit
    if unit == 1.0:
        def support(d: Vec3) -> Vertex:
            a = support_a(d)
            b = support_b((-d[0], -d[1], -d[2]))
            return (a[0] - b[0], a[1] - b[1], a[2] - b[2]), a, b

        return support

    def scaled_support(d: Vec3) -> Vertex:
        ax, ay, az = support_a(d)
        bx, by, bz = support_b((-d[0], -d[1], -d[2]))
        a, b = (ax * inverse, ay * inverse, az * inverse), (bx * inverse, by * inverse, bz * inverse)
        return (a[0] - b[0], a[1] - b[1], a[2] - b[2]), a, b

    return scaled_support


def closest_on_simplex(points):
    """Closest point to the origin on a simplex of 1-4 points: (point, weights, origin enclosed)."""
    if len(points) == 1:
        return points[0], (1.0,), False
    if len(points) == 2:
        return (*closest_on_segment(*points), False)
    if len(points) == 3:
        return (*closest_on_triangle(*points), False)
    return closest_on_tetrahedron(points)


def gjk(support: SupportFn, first_direction: Vec3, *, tolerance: float, max_iterations: int,
        overlap_below: float = 0.0, separated_above: float = math.inf, start: list | None = None) -> GjkResult:
    """Run GJK until the distance is known to ``tolerance``.

    It stops as overlapping when the origin is enclosed or ``|v| <= overlap_below`` (yes/no queries
    stop early; ``collide`` passes 0 so that a tiny gap is measured, not assumed), and as separated
    when the lower bound exceeds ``separated_above``. ``start`` (1-4 vertices of A - B, say the last query's
    simplex placed anew) is the first simplex instead of the support along ``first_direction``: the bounds
    are as certain from any start, a start near the answer only needs fewer steps.
    """
    if start is None:
        simplex = [support(first_direction)]
        v, weights = simplex[0][0], (1.0,)
    else:
        v, weights, enclosed = closest_on_simplex([vertex[0] for vertex in start])
        if enclosed:
            return GjkResult(True, (0.0, 0.0, 0.0), list(start), weights, -math.inf, 0, "converged")
        kept = [i for i, w in enumerate(weights) if w > 0.0]
        simplex, weights = [start[i] for i in kept], tuple(weights[i] for i in kept)
    lower, best = -math.inf, None
    overlap2 = overlap_below * overlap_below
    # vec3's arithmetic written out (the same floats): a small pair's query is mostly these few lines.
    for iteration in range(1, max_iterations + 1):
        vx, vy, vz = v
        vv = vx * vx + vy * vy + vz * vz
        if vv <= overlap2:
            return GjkResult(True, v, simplex, weights, lower, iteration - 1, "converged")
        length = math.sqrt(vv)
        inverse = -1.0 / length
        direction = (vx * inverse, vy * inverse, vz * inverse)  # unit: a tiny v would underflow in the supports
        vertex = support(direction)
        w = vertex[0]
        along_v = -(direction[0] * w[0] + direction[1] * w[1] + direction[2] * w[2])  # a lower bound
        if along_v > lower:
            lower, best = along_v, direction
        # Stop on the gap along the current direction, so the reported normal achieves the value.
        if lower > separated_above or length - along_v <= tolerance:
            return GjkResult(False, v, simplex, weights, lower, iteration, "converged", direction)
        for old in simplex:
            if w == old[0]:
                return GjkResult(False, v, simplex, weights, lower, iteration, _settled(length, lower, tolerance),
                                 best)
        candidate = simplex + [vertex]
        closest, candidate_weights, enclosed = closest_on_simplex([p[0] for p in candidate])
        if enclosed:
            return GjkResult(True, (0.0, 0.0, 0.0), candidate, candidate_weights, lower, iteration, "converged")
        cx, cy, cz = closest
        if cx * cx + cy * cy + cz * cz >= vv:
            return GjkResult(False, v, simplex, weights, lower, iteration, _settled(length, lower, tolerance), best)
        if all(weight > 0.0 for weight in candidate_weights):
            simplex, weights = candidate, candidate_weights
        else:
            kept = [i for i, weight in enumerate(candidate_weights) if weight > 0.0]
            simplex = [candidate[i] for i in kept]
            weights = tuple(candidate_weights[i] for i in kept)
        v = closest
    overlapping = dot(v, v) <= overlap_below * overlap_below  # the cap may fall on the origin
    return GjkResult(overlapping, v, simplex, weights, lower, max_iterations, "iteration_limit")


def _settled(length: float, lower: float, tolerance: float) -> str:
    """Status of a GJK run that cannot progress: converged only if its bounds say so."""
    return "converged" if length - lower <= tolerance else "stalled"
