"""``collide_2d``: GJK and EPA in the plane for convex polygons (hulls of (N, 2) clouds) and circles, with
``core.collide``'s fields and conventions in 2D.
See docs/architecture.md, section "Planar: GJK and EPA in the plane".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike

from ..contact import Contact, classify, touch_band
from ..validation import as_iteration_cap, as_length, as_points

Vec2 = tuple[float, float]
#: A vertex of A - B with its support points: (w = a - b, a, b).
Vertex = tuple[Vec2, Vec2, Vec2]

DEFAULT_RELATIVE_TOLERANCE = 1e-12
MIN_RELATIVE_TOLERANCE = 1e-13
DEFAULT_MAX_ITERATIONS = 256


def _sub(p: Vec2, q: Vec2) -> Vec2:
    return (p[0] - q[0], p[1] - q[1])


def _dot(p: Vec2, q: Vec2) -> float:
    return p[0] * q[0] + p[1] * q[1]


def _cross(p: Vec2, q: Vec2) -> float:
    return p[0] * q[1] - p[1] * q[0]


def _scale(p: Vec2, s: float) -> Vec2:
    return (p[0] * s, p[1] * s)


def _combine(weights, points) -> Vec2:
    return (sum(w * p[0] for w, p in zip(weights, points)), sum(w * p[1] for w, p in zip(weights, points)))


def _unit(p: Vec2) -> Vec2:
    return _scale(p, 1.0 / math.hypot(*p))


def _outward(p: Vec2, q: Vec2) -> Vec2:
    """Unit outward normal of the edge p -> q of a counter-clockwise polygon."""
    return _unit((q[1] - p[1], p[0] - q[0]))


class Shape2D:
    """A convex body in the plane given by its support mapping; ``margin`` inflates it by a disc."""

    margin: float = 0.0

    def support(self, d: Vec2) -> Vec2:
        raise NotImplementedError

    def translated(self, offset: ArrayLike) -> "Shape2D":
        raise NotImplementedError

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact axis-aligned bounding box, margin included."""
        low = np.array([self.support((-1.0, 0.0))[0], self.support((0.0, -1.0))[1]])
        high = np.array([self.support((1.0, 0.0))[0], self.support((0.0, 1.0))[1]])
        return low - self.margin, high + self.margin


class Polygon(Shape2D):
    """The convex hull of an (N, 2) point cloud (segments and single points included)."""

    def __init__(self, points):
        self.points = as_points(points, "points", columns=2)

    def support(self, d: Vec2) -> Vec2:
        return tuple(self.points[(self.points @ np.array(d)).argmax()].tolist())

    def translated(self, offset: ArrayLike) -> "Polygon":
        return Polygon(self.points + np.asarray(offset, dtype=np.float64))


class Circle(Shape2D):
    """A disc: its core is the centre and its radius a margin, so answers are exact."""

    def __init__(self, center, radius):
        self.center = as_points(np.reshape(center, (1, -1)), "center", columns=2)[0]
        self.margin = as_length(radius, "radius")
        self._core = tuple(self.center.tolist())

    @property
    def radius(self) -> float:
        return self.margin

    def support(self, d: Vec2) -> Vec2:
        return self._core

    def translated(self, offset: ArrayLike) -> "Circle":
        return Circle(self.center + np.asarray(offset, dtype=np.float64), self.margin)


def as_shape_2d(value, name: str) -> Shape2D:
    if isinstance(value, Shape2D):
        return value
    try:
        return Polygon(value)
    except ValueError as exc:
        raise ValueError(str(exc).replace("points", name, 1)) from None


# -- GJK ------------------------------------------------------------------------------------------

def _closest_on_segment(p: Vec2, q: Vec2) -> tuple[Vec2, tuple[float, float]]:
    pq = _sub(q, p)
    length2 = _dot(pq, pq)
    t = -_dot(p, pq)
    if t <= 0.0 or length2 <= 0.0:
        return p, (1.0, 0.0)
    if t >= length2:
        return q, (0.0, 1.0)
    t /= length2
    # Project with the segment's perpendicular: the direction of a tiny distance stays exact.
    across = (-pq[1], pq[0])
    return _scale(across, _dot(across, p) / length2), (1.0 - t, t)


def _closest_on_simplex(points: list) -> tuple[Vec2, tuple, bool]:
    """Closest point to the origin on 1-3 points, barycentric weights, and whether a triangle encloses it."""
    if len(points) == 1:
        return points[0], (1.0,), False
    if len(points) == 2:
        return (*_closest_on_segment(*points), False)
    a, b, c = points
    area = _cross(_sub(b, a), _sub(c, a))
    sides = (_cross(_sub(b, a), _scale(a, -1.0)), _cross(_sub(c, b), _scale(b, -1.0)),
             _cross(_sub(a, c), _scale(c, -1.0)))
    if area != 0.0 and all(s * area > 0.0 for s in sides):
        # barycentric weights of the origin: the sub-triangle opposite each corner over the whole
        return (0.0, 0.0), (sides[1] / area, sides[2] / area, sides[0] / area), True
    best = None
    for i, j in ((0, 1), (1, 2), (2, 0)):
        point, (u, v) = _closest_on_segment(points[i], points[j])
        if best is None or _dot(point, point) < best[0]:
            weights = [0.0, 0.0, 0.0]
            weights[i], weights[j] = u, v
            best = (_dot(point, point), point, tuple(weights))
    return best[1], best[2], False


@dataclass
class _Gjk:
    overlapping: bool
    v: Vec2
    simplex: list
    weights: tuple
    lower_bound: float
    iterations: int
    converged: bool

    @property
    def distance(self) -> float:
        return math.hypot(*self.v)


def _gjk(support: Callable[[Vec2], Vertex], first: Vec2, tolerance: float, max_iterations: int) -> _Gjk:
    """Distance from the origin to A - B, or "overlapping" when it is within ``tolerance``."""
    simplex = [support(first)]
    v, weights, lower = simplex[0][0], (1.0,), -math.inf
    for iteration in range(1, max_iterations + 1):
        vv = _dot(v, v)
        if vv <= tolerance * tolerance:
            return _Gjk(True, v, simplex, weights, 0.0, iteration - 1, True)
        length = math.sqrt(vv)
        vertex = support(_scale(v, -1.0))
        lower = max(lower, _dot(v, vertex[0]) / length)
        if length - lower <= tolerance or any(vertex[0] == old[0] for old in simplex):
            return _Gjk(False, v, simplex, weights, lower, iteration, True)
        candidate = simplex + [vertex]
        closest, candidate_weights, enclosed = _closest_on_simplex([p[0] for p in candidate])
        if enclosed:
            return _Gjk(True, (0.0, 0.0), candidate, candidate_weights, 0.0, iteration, True)
        if _dot(closest, closest) >= vv:
            return _Gjk(False, v, simplex, weights, lower, iteration, True)
        kept = [i for i, w in enumerate(candidate_weights) if w > 0.0]
        simplex, weights, v = [candidate[i] for i in kept], tuple(candidate_weights[i] for i in kept), closest
    overlapping = _dot(v, v) <= tolerance * tolerance
    return _Gjk(overlapping, v, simplex, weights, 0.0 if overlapping else lower, max_iterations, False)


# -- EPA ------------------------------------------------------------------------------------------

def _blow_up(support, simplex: list, tolerance: float) -> tuple[list, Vec2 | None]:
    """A counter-clockwise triangle around (or within tolerance of) the origin, or ([], line normal)
    when A - B has no area (collinear: the normal of its line; a point: None)."""
    vertices: list[Vertex] = []
    for vertex in simplex:
        if all(math.hypot(*_sub(vertex[0], kept[0])) > tolerance for kept in vertices):
            vertices.append(vertex)
    if len(vertices) == 3 and _thinnest_height(*(v[0] for v in vertices)) <= tolerance:
        vertices = max(((vertices[0], vertices[1]), (vertices[1], vertices[2]), (vertices[2], vertices[0])),
                       key=lambda pair: math.hypot(*_sub(pair[1][0], pair[0][0])))
        vertices = list(vertices)
    if len(vertices) == 1:
        for axis in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)):
            candidate = support(axis)
            if math.hypot(*_sub(candidate[0], vertices[0][0])) > tolerance:
                vertices.append(candidate)
                break
        else:
            return [], None
    if len(vertices) == 2:
        p, q = vertices[0][0], vertices[1][0]
        across = _outward(p, q)
        options = []
        for direction in (across, _scale(across, -1.0)):
            candidate = support(direction)
            options.append((_dot(direction, _sub(candidate[0], p)), candidate))
        height, apex = max(options, key=lambda option: option[0])
        if height <= tolerance:
            return [], across
        vertices.append(apex)
    a, b, c = vertices
    return ([a, b, c] if _cross(_sub(b[0], a[0]), _sub(c[0], a[0])) > 0.0 else [a, c, b]), None


def _thinnest_height(a: Vec2, b: Vec2, c: Vec2) -> float:
    area2 = abs(_cross(_sub(b, a), _sub(c, a)))
    longest = max(math.hypot(*_sub(b, a)), math.hypot(*_sub(c, b)), math.hypot(*_sub(a, c)))
    return area2 / longest if longest > 0.0 else 0.0


@dataclass
class _Epa:
    signed_distance: float
    normal: Vec2
    point_a: Vec2
    point_b: Vec2
    bounds: tuple[float, float]
    iterations: int
    status: str


def _edges(polygon: list) -> list[tuple[float, Vec2]]:
    """(signed distance from the origin, outward unit normal) of each edge i -> i + 1."""
    result = []
    for i, vertex in enumerate(polygon):
        p, q = vertex[0], polygon[(i + 1) % len(polygon)][0]
        normal = _outward(p, q)
        result.append((_dot(normal, p), normal))
    return result


def _epa(support, polygon: list, tolerance: float, max_iterations: int, rounding: float) -> _Epa:
    """Expand the counter-clockwise ``polygon`` until its closest edge lies on the boundary of A - B."""
    min_support, tightest, status, iterations = math.inf, None, "iteration_limit", 0
    while iterations < max_iterations:
        iterations += 1
        edges = _edges(polygon)
        closest = min(range(len(edges)), key=lambda i: edges[i][0])
        distance, normal = edges[closest]
        vertex = support(normal)
        height = _dot(normal, vertex[0])
        if height < min_support:
            min_support, tightest = height, (normal, vertex)
        if height - distance <= tolerance:
            status = "converged"
            break
        seen = [_dot(n, vertex[0]) - d > rounding for d, n in edges]
        if any(vertex[0] == old[0] for old in polygon) or not _one_run(seen):
            status = "stalled"
            break
        polygon = _replace_run(polygon, seen, vertex)
    if status != "converged":
        normal, (_, point_a, point_b) = tightest
        return _Epa(-min_support, normal, point_a, point_b, (-min_support, math.inf), iterations, status)
    return _finish(polygon, edges[closest], closest, min_support, iterations)


def _one_run(seen: list[bool]) -> bool:
    """The visible edges form one contiguous cyclic run (as they must on a convex polygon)."""
    changes = sum(seen[i] != seen[i - 1] for i in range(len(seen)))
    return any(seen) and changes <= 2


def _replace_run(polygon: list, seen: list[bool], vertex: Vertex) -> list:
    """Drop the vertices strictly inside the run of visible edges and put ``vertex`` in their place."""
    count = len(polygon)
    start = next(i for i in range(count) if seen[i] and not seen[i - 1]) if not all(seen) else 0
    run = 0
    while run < count and seen[(start + run) % count]:
        run += 1
    kept = [polygon[(start + run + k) % count] for k in range(count - run + 1)]
    return kept + [vertex]


def _finish(polygon: list, edge, index: int, min_support: float, iterations: int) -> _Epa:
    """Normal of the closest edge; witness points from the foot of the origin on that edge."""
    distance, normal = edge
    p, q = polygon[index], polygon[(index + 1) % len(polygon)]
    foot = _scale(normal, distance)
    pq = _sub(q[0], p[0])
    t = min(1.0, max(0.0, _dot(_sub(foot, p[0]), pq) / _dot(pq, pq)))
    point_a = _combine((1.0 - t, t), (p[1], q[1]))
    point_b = _combine((1.0 - t, t), (p[2], q[2]))
    nearest, _ = _closest_on_segment(p[0], q[0])
    upper = min(math.hypot(*nearest), -distance if distance > 0.0 else math.inf)
    lower = -min_support
    return _Epa(-distance, normal, point_a, point_b, (min(lower, -distance), max(upper, -distance)),
                iterations, "converged")


# -- the query ------------------------------------------------------------------------------------

class _Pair2D:
    """Both shapes shifted so the pair's bounding box is centred on the origin, with scaled tolerances."""

    def __init__(self, a, b, tolerance, touch_tolerance, max_iterations):
        self.a, self.b = as_shape_2d(a, "points_a"), as_shape_2d(b, "points_b")
        tolerance = as_length(tolerance, "tolerance", allow_none=True)
        touch_tolerance = as_length(touch_tolerance, "touch_tolerance", allow_none=True)
        self.max_iterations = as_iteration_cap(max_iterations, "max_iterations")
        (low_a, high_a), (low_b, high_b) = self.a.bounds(), self.b.bounds()
        low, high = np.minimum(low_a, low_b), np.maximum(high_a, high_b)
        self.center = 0.5 * (low + high)
        size = float((high - low).max())
        self.rounding = MIN_RELATIVE_TOLERANCE * size
        self.tolerance, self.touch_tolerance = touch_band(size, tolerance, touch_tolerance, DEFAULT_RELATIVE_TOLERANCE,
                                                          self.rounding)
        self.margin = self.a.margin + self.b.margin
        self.a_to_b = tuple((0.5 * (low_b + high_b - low_a - high_a)).tolist())
        local_a, local_b = self.a.translated(-self.center), self.b.translated(-self.center)

        def support(d: Vec2) -> Vertex:
            pa, pb = local_a.support(d), local_b.support((-d[0], -d[1]))
            return (pa[0] - pb[0], pa[1] - pb[1]), pa, pb

        self.support = support

    def first_direction(self) -> Vec2:
        return _scale(self.a_to_b, -1.0) if math.hypot(*self.a_to_b) > 0.0 else (1.0, 0.0)

    def orient(self, normal: Vec2 | None) -> Vec2:
        """Sign an undetermined normal (no area in A - B) so that it points from A toward B."""
        if normal is None:
            normal = self.a_to_b if math.hypot(*self.a_to_b) > 0.0 else (0.0, 1.0)
        normal = _unit(normal)
        alignment = _dot(normal, self.a_to_b)
        if alignment == 0.0:
            alignment = max(normal, key=abs)
        return _scale(normal, -1.0) if alignment < 0.0 else normal


def collide_2d(points_a, points_b, *, tolerance: float | None = None, touch_tolerance: float | None = None,
               max_iterations: int = DEFAULT_MAX_ITERATIONS) -> Contact:
    """Contact between two convex shapes in the plane: (N, 2) clouds (their hulls), ``Polygon`` or ``Circle``.

    Returns a ``core.Contact`` whose vectors have two components: ``normal`` from A toward B,
    ``point_a - point_b == -signed_distance * normal``, and ``tangents`` (1, 2) holding the normal
    turned a quarter clockwise. Keywords as in ``core.collide``.
    """
    pair = _Pair2D(points_a, points_b, tolerance, touch_tolerance, max_iterations)
    found = _gjk(pair.support, pair.first_direction(), pair.tolerance, pair.max_iterations)
    epa_iterations = 0
    if not found.overlapping:
        signed_distance, normal = found.distance, _unit(_scale(found.v, -1.0))
        point_a, point_b = _witnesses(found)
        bounds = (found.lower_bound, signed_distance)
        solver_status = "converged" if found.converged else "iteration_limit"
    else:
        polygon, line_normal = _blow_up(pair.support, found.simplex, pair.tolerance)
        if not polygon:
            signed_distance = found.distance
            normal = _unit(_scale(found.v, -1.0)) if signed_distance > 0.0 else pair.orient(line_normal)
            point_a, point_b = _witnesses(found)
            bounds, solver_status = (-pair.tolerance, signed_distance), "degenerate"
        else:
            result = _epa(pair.support, polygon, pair.tolerance, pair.max_iterations, pair.rounding)
            signed_distance, normal = result.signed_distance, result.normal
            point_a, point_b = result.point_a, result.point_b
            bounds = (result.bounds[0], min(result.bounds[1], found.distance))
            solver_status, epa_iterations = result.status, result.iterations
    return _contact(pair, signed_distance, normal, point_a, point_b, bounds, found.iterations,
                    epa_iterations, solver_status)


def _witnesses(found: _Gjk) -> tuple[Vec2, Vec2]:
    return (_combine(found.weights, [v[1] for v in found.simplex]),
            _combine(found.weights, [v[2] for v in found.simplex]))


def _contact(pair: _Pair2D, core_signed_distance: float, normal: Vec2, point_a: Vec2, point_b: Vec2,
             core_bounds, gjk_iterations: int, epa_iterations: int, solver_status: str) -> Contact:
    """Add the margins, place the witness points symmetrically so the convention holds, go back to world."""
    signed_distance = core_signed_distance - pair.margin + 0.0
    n = np.array(normal) + 0.0
    point_a = np.array(point_a) + pair.a.margin * n
    point_b = np.array(point_b) - pair.b.margin * n
    middle, half = 0.5 * (point_a + point_b), 0.5 * signed_distance * n
    return Contact(
        status=classify(signed_distance, pair.touch_tolerance),
        signed_distance=signed_distance,
        normal=n,
        point_a=middle - half + pair.center,
        point_b=middle + half + pair.center,
        bounds=(min(core_bounds[0] - pair.margin, signed_distance),
                max(core_bounds[1] - pair.margin, signed_distance)),
        tolerance=pair.touch_tolerance,
        gjk_iterations=gjk_iterations,
        epa_iterations=epa_iterations,
        solver_status=solver_status,
        tangents=np.array([[n[1], -n[0]]]),
    )
