"""Directional depth: how far B must move along a chosen direction to separate from A, or to reach it (GJK ray cast
on A - B, margins added exactly).
See docs/architecture.md, section "Narrow phase: directional depth".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .collide import PreparedPair, collide
from ..contact import PENETRATING, TOUCHING
from .gjk import SupportFn, closest_on_simplex
from .simplex import closest_on_triangle
from ..shapes.convex import Shape
from ..validation import as_vector3
from ..vector.vec3 import Vec3, combine, dot, norm, scale, sub


@dataclass(frozen=True)
class DirectionalResult:
    """Directional depth of a pair along a unit ``direction``, world space.

    - ``status``: 'penetrating' (B overlaps A now and moving it along ``direction`` separates it),
      'touching' (in contact now, within the touch band) or 'separated'.
    - ``distance``: travel along ``direction`` (world units, >= 0): to separate when penetrating,
      0 when touching, to the first contact when separated, ``inf`` when moving along
      ``direction`` never touches.
    - ``normal``: unit contact normal (from A toward B) of the touching pair reached after the
      travel; ``point``: the contact point there, on A (and on B moved by ``distance * direction``).
      Both ``None`` when ``distance`` is ``inf``.
    - ``interval``: ``(t_enter, t_exit)``: B moved by ``t * direction`` overlaps A exactly for t in
      it; ``(inf, -inf)`` when the line misses.
    - ``iterations``: steps of the two ray casts; ``solver_status``: 'converged',
      'iteration_limit' or 'stalled' (rounding stopped progress); when not converged the hits are
      conservative (never past the true ones).
    - ``status`` is ``core.collide``'s for the pair as it stands, and ``tolerance`` its touch band.
    """

    status: str
    distance: float
    normal: np.ndarray | None
    point: np.ndarray | None
    direction: np.ndarray
    interval: tuple[float, float]
    iterations: int
    solver_status: str
    tolerance: float


@dataclass
class _Hit:
    """Where a ray cast stopped: travel ``t`` along the line, M's outward normal there, witnesses."""

    hit: bool
    t: float
    normal: Vec3
    point_a: Vec3
    iterations: int
    status: str


def directional_depth(shape_a: ArrayLike | Shape, shape_b: ArrayLike | Shape, direction: ArrayLike, *,
                      tolerance: float | None = None, touch_tolerance: float | None = None,
                      max_iterations: int | None = None) -> DirectionalResult:
    """How far B must move along ``direction`` to separate from A (penetrating) or to touch it (apart).

    ``shape_a`` and ``shape_b`` are (N, 3) point clouds (their hulls) or ``core`` shapes;
    ``direction`` is any non-zero 3-vector (normalised here). Keywords as in ``core.collide``:
    ``tolerance`` is the accuracy of each hit in world units (default 1e-12 x the pair's size),
    ``touch_tolerance`` the band reported as touching, ``max_iterations`` caps each of the two ray
    casts. Along the EPA normal of a penetrating pair the distance is the penetration depth.
    """
    d = _unit_direction(direction)
    pair = PreparedPair(shape_a, shape_b, tolerance, touch_tolerance, max_iterations)
    ahead, behind = dot(d, pair.support(d)[0]), dot(d, pair.support(scale(d, -1.0))[0])
    beyond = ahead - behind + 2.0 * pair.margin + 2.0 * pair.tolerance  # M's width along d, and some
    cast = (pair.support, d, pair.margin, pair.tolerance, pair.max_iterations, pair.a.margin)
    enter = _ray_cast(*cast, start=behind - pair.margin - beyond, sign=1.0)
    exit_ = _ray_cast(*cast, start=ahead + pair.margin + beyond, sign=-1.0) if enter.hit else enter
    if enter.hit and not exit_.hit:  # a grazing line, missed by rounding on the way back
        exit_ = enter
    iterations = enter.iterations + (exit_.iterations if exit_ is not enter else 0)
    solver_status = next((h.status for h in (enter, exit_) if h.status != "converged"), "converged")
    interval = (enter.t, exit_.t) if enter.hit else (math.inf, -math.inf)
    contact = collide(pair.a, pair.b, tolerance=tolerance, touch_tolerance=touch_tolerance,
                      max_iterations=pair.max_iterations)
    if contact.status == TOUCHING:
        distance, normal, point = 0.0, contact.normal, contact.point_a
    else:
        distance, end = _travel(contact.status == PENETRATING, enter, exit_)
        normal = None if end is None else np.array(end.normal) + 0.0
        point = None if end is None else np.array(end.point_a) + pair.center
    return DirectionalResult(status=contact.status, distance=distance, normal=normal, point=point,
                             direction=np.array(d), interval=interval, iterations=iterations,
                             solver_status=solver_status, tolerance=pair.touch_tolerance)


def _unit_direction(direction) -> Vec3:
    d = as_vector3(direction, "direction")
    length = float(np.linalg.norm(d))
    if length == 0.0:
        raise ValueError("direction must be a non-zero vector")
    return tuple((d / length).tolist())


def _travel(penetrating: bool, enter: _Hit, exit_: _Hit) -> tuple[float, _Hit | None]:
    """Travel along the line and the hit that ends it (``None`` when moving along it never touches)."""
    if penetrating:
        return max(exit_.t, 0.0), exit_
    if not enter.hit or exit_.t < 0.0:  # the line misses M, or M lies behind
        return math.inf, None
    return max(enter.t, 0.0), enter


def _ray_cast(support: SupportFn, d: Vec3, margin: float, tolerance: float, max_iterations: int,
              margin_a: float, *, start: float, sign: float) -> _Hit:
    """First point of M (cores inflated by ``margin``) on the ray ``t d``, t moving from ``start``
    in the direction of ``sign``; ``start`` must be outside M."""
    r = scale(d, sign)
    t = start
    x = scale(d, t)
    simplex, weights = [support(scale(r, -1.0))], (1.0,)
    v = sub(x, simplex[0][0])
    plane_normal = scale(r, -1.0)  # only kept if the ray starts on M (a point-like M)
    status = "iteration_limit"
    iteration = 0
    while iteration < max_iterations:
        length = norm(v)
        if length <= margin + tolerance:
            status = "converged"
            break
        iteration += 1
        vertex = support(v)
        gap = dot(v, sub(x, vertex[0])) / length - margin  # x beyond the support plane by this much
        advanced = gap > 0.0
        if advanced:
            approach = -dot(v, r) / length
            if approach <= 0.0:
                return _Hit(False, math.inf, r, x, iteration, "converged")
            t += sign * (gap / approach)
            x = scale(d, t)
            plane_normal = scale(v, 1.0 / length)
        candidate = simplex if any(vertex[0] == old[0] for old in simplex) else simplex + [vertex]
        closest, candidate_weights, enclosed = closest_on_simplex([sub(x, p[0]) for p in candidate])
        if enclosed:  # x is on M: take weights from the tetrahedron's face through it, not its volume
            closest, candidate_weights = _closest_on_faces([sub(x, p[0]) for p in candidate])
        if not advanced and not enclosed and dot(closest, closest) >= length * length:
            status = "stalled"
            break
        kept = [i for i, w in enumerate(candidate_weights) if w > 0.0]
        simplex, weights = [candidate[i] for i in kept], tuple(candidate_weights[i] for i in kept)
        v = closest
        if enclosed:
            status = "converged"
            break
    return _finish(simplex, weights, v, plane_normal, margin, margin_a, t, iteration, status)


def _closest_on_faces(points: list) -> tuple[Vec3, tuple[float, ...]]:
    """Closest point to the origin on the faces of a tetrahedron, with weights over its four points.

    At a hit the ray's point lies on the boundary of M, so on a face of any tetrahedron of M's points
    holding it; the face's weights stay valid where rounding makes volume ratios meaningless (four
    nearly coplanar points from one facet of M)."""
    best = None
    for face in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)):
        point, face_weights = closest_on_triangle(*(points[i] for i in face))
        if best is None or dot(point, point) < dot(best[0], best[0]):
            weights = [0.0] * 4
            for i, w in zip(face, face_weights):
                weights[i] = w
            best = (point, tuple(weights))
    return best


def _finish(simplex, weights, v: Vec3, plane_normal: Vec3, margin: float, margin_a: float, t: float,
            iterations: int, status: str) -> _Hit:
    """The hit's normal (toward the ray's point from the core when inflated, else the last plane's)
    and A's witness point (A's core point pushed out by A's margin along the normal)."""
    length = norm(v)
    normal = scale(v, 1.0 / length) if margin > 0.0 and length > 0.0 else plane_normal
    core_a = combine(weights, [p[1] for p in simplex])
    return _Hit(True, t, normal, combine((1.0, margin_a), (core_a, normal)), iterations, status)
