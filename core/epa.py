"""EPA on the Minkowski difference A - B: penetration depth, contact normal and witness points.

The polytope starts from GJK's final simplex, blown up to a full-dimensional body around the origin
(or found to be flat, a segment or a point: then there is no interior, the depth is zero and
``expand_simplex`` says so). Each step takes the face closest to the origin, asks for the support
point along its normal, and stops when that point is within ``tolerance`` of the face plane: the
face then lies on the boundary of A - B. Otherwise every face the point can see (a connected region
found by flood fill from the closest face) is removed and the horizon is re-triangulated, which
keeps the polytope convex. Faces keep their winding from the horizon, so orientation never depends
on where the origin is; a face's signed distance can be slightly negative when the origin sits on or
just outside the boundary, which makes touching cases come out as (tiny) distances, never NaN.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from .gjk import SupportFn, Vertex
from .simplex import closest_on_triangle
from .vec3 import Vec3, combine, cross, dot, norm, orthonormal_basis, scale, sub


@dataclass
class Blowup:
    """A tetrahedron whose closure holds the origin, or the dimension of a degenerate A - B."""

    vertices: list
    dimension: int
    flat_normal: Vec3 | None = None


@dataclass
class EpaResult:
    signed_distance: float
    normal: Vec3
    point_a: Vec3
    point_b: Vec3
    lower_bound: float
    upper_bound: float
    iterations: int
    status: str


def _unit(v: Vec3) -> Vec3:
    return scale(v, 1.0 / norm(v))


def _distance_to_line(p: Vec3, origin: Vec3, unit_direction: Vec3) -> float:
    offset = sub(p, origin)
    return norm(sub(offset, scale(unit_direction, dot(offset, unit_direction))))


def expand_simplex(support: SupportFn, simplex: list, tolerance: float) -> Blowup:
    """Grow GJK's simplex (1-4 vertices near the origin) into a tetrahedron around the origin."""
    vertices: list[Vertex] = []
    for vertex in simplex:
        if all(norm(sub(vertex[0], kept[0])) > tolerance for kept in vertices):
            vertices.append(vertex)
    if len(vertices) == 4 and _thinnest_height(vertices) <= tolerance:
        vertices = _largest_triangle(vertices)
    if len(vertices) == 1:
        for axis in ((1.0, 0, 0), (-1.0, 0, 0), (0, 1.0, 0), (0, -1.0, 0), (0, 0, 1.0), (0, 0, -1.0)):
            candidate = support(axis)
            if norm(sub(candidate[0], vertices[0][0])) > tolerance:
                vertices.append(candidate)
                break
        else:
            return Blowup(vertices, 0)
    if len(vertices) == 2:
        base = vertices[0][0]
        axis = _unit(sub(vertices[1][0], base))
        e0, e1 = orthonormal_basis(axis)
        for k in range(6):
            angle = k * math.pi / 3.0
            direction = combine((math.cos(angle), math.sin(angle)), (e0, e1))
            candidate = support(direction)
            if _distance_to_line(candidate[0], base, axis) > tolerance:
                vertices.append(candidate)
                break
        else:
            return Blowup(vertices, 1, e0)
    if len(vertices) == 3:
        base = vertices[0][0]
        normal = _unit(cross(sub(vertices[1][0], base), sub(vertices[2][0], base)))
        heights = []
        for direction in (normal, scale(normal, -1.0)):
            candidate = support(direction)
            heights.append((dot(direction, sub(candidate[0], base)), candidate))
        height, apex = max(heights, key=lambda pair: pair[0])
        if height <= tolerance:
            return Blowup(vertices, 2, normal)
        vertices.append(apex)  # the origin lies on the base triangle: the tetrahedron's closure holds it
    return Blowup(vertices, 3)


def _thinnest_height(vertices) -> float:
    """Smallest distance of a tetrahedron's vertex from the plane of the other three."""
    points = [v[0] for v in vertices]
    volume6 = abs(dot(cross(sub(points[1], points[0]), sub(points[2], points[0])), sub(points[3], points[0])))
    heights = []
    for skip in range(4):
        a, b, c = (points[i] for i in range(4) if i != skip)
        area2 = norm(cross(sub(b, a), sub(c, a)))
        heights.append(volume6 / area2 if area2 > 0.0 else 0.0)
    return min(heights)


def _largest_triangle(vertices) -> list:
    """The three vertices of a flat tetrahedron spanning the largest triangle."""
    def area(subset):
        a, b, c = (vertices[i][0] for i in subset)
        return norm(cross(sub(b, a), sub(c, a)))

    best = max(((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)), key=area)
    return [vertices[i] for i in best]


class _Polytope:
    """Triangle mesh of a convex polytope: faces wound outward, directed edges mapped to faces."""

    def __init__(self, seed: list):
        self.vertices = list(seed)
        self.faces: dict[int, tuple] = {}  # id -> (i, j, k, normal, distance)
        self.edge_face: dict[tuple[int, int], int] = {}
        self.heap: list[tuple[float, int]] = []
        self._next_id = 0
        centroid = scale(combine([1.0] * len(seed), [v[0] for v in seed]), 1.0 / len(seed))
        for i, j, k in ((0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2)):
            normal = self.raw_normal(i, j, k)
            if dot(normal, sub(self.vertices[i][0], centroid)) < 0.0:
                j, k = k, j
            self.add_face(i, j, k, self.raw_normal(i, j, k))

    def raw_normal(self, i: int, j: int, k: int) -> Vec3:
        a = self.vertices[i][0]
        return cross(sub(self.vertices[j][0], a), sub(self.vertices[k][0], a))

    def add_face(self, i: int, j: int, k: int, raw_normal: Vec3) -> None:
        normal = _unit(raw_normal)
        distance = dot(normal, self.vertices[i][0])
        face_id = self._next_id
        self._next_id += 1
        self.faces[face_id] = (i, j, k, normal, distance)
        for edge in ((i, j), (j, k), (k, i)):
            self.edge_face[edge] = face_id
        heapq.heappush(self.heap, (distance, face_id))

    def remove_face(self, face_id: int) -> None:
        i, j, k, _, _ = self.faces.pop(face_id)
        for edge in ((i, j), (j, k), (k, i)):
            if self.edge_face.get(edge) == face_id:
                del self.edge_face[edge]

    def closest_face(self) -> int:
        while self.heap[0][1] not in self.faces:
            heapq.heappop(self.heap)
        return self.heap[0][1]

    def visible_region(self, start: int, point: Vec3, tolerance: float):
        """Faces that see ``point`` (flood fill from ``start``) and the horizon edges around them."""
        visible, horizon, stack = {start}, [], [start]
        while stack:
            i, j, k, _, _ = self.faces[stack.pop()]
            for a, b in ((i, j), (j, k), (k, i)):
                neighbour = self.edge_face[(b, a)]
                if neighbour in visible:
                    continue
                _, _, _, normal, distance = self.faces[neighbour]
                if dot(normal, point) - distance > tolerance:
                    visible.add(neighbour)
                    stack.append(neighbour)
                else:
                    horizon.append((a, b))
        return visible, horizon


def _is_single_loop(edges) -> bool:
    successor = dict(edges)
    if len(successor) != len(edges) or set(successor) != set(successor.values()):
        return False
    start = edges[0][0]
    node, steps = successor[start], 1
    while node != start and steps <= len(edges):
        node, steps = successor[node], steps + 1
    return node == start and steps == len(edges)


def epa(support: SupportFn, seed: list, *, tolerance: float, max_iterations: int,
        rounding: float) -> EpaResult:
    """Expand ``seed`` (from ``expand_simplex``) until the closest face lies on the boundary.

    ``rounding`` is the pair's floating-point noise level. A face sees a new point when the point is
    more than that in front of it, whatever the (possibly much coarser) ``tolerance`` that ends the
    expansion: a coarser visibility test would leave faces behind the new point and the polytope
    would stop being convex. Faces whose planes agree to ``rounding`` belong to the same facet.
    """
    polytope = _Polytope(seed)
    known_points = {vertex[0] for vertex in seed}
    min_support = math.inf  # smallest support value seen along a face normal: bounds the depth above
    tightest = None  # (normal, support vertex) that gave it
    status, iterations = "iteration_limit", 0
    while iterations < max_iterations:
        iterations += 1
        face_id = polytope.closest_face()
        i, j, k, normal, distance = polytope.faces[face_id]
        vertex = support(normal)
        height = dot(normal, vertex[0])
        if height < min_support:
            min_support, tightest = height, (normal, vertex)
        if height - distance <= tolerance:
            status = "converged"
            break
        if vertex[0] in known_points:  # nothing new to add, yet the bounds are apart: say so
            status = "stalled"
            break
        visible, horizon = polytope.visible_region(face_id, vertex[0], rounding)
        new_index = len(polytope.vertices)
        polytope.vertices.append(vertex)
        normals = [polytope.raw_normal(a, b, new_index) for a, b in horizon]
        if not horizon or not _is_single_loop(horizon) or any(dot(n, n) == 0.0 for n in normals):
            polytope.vertices.pop()
            status = "stalled"
            break
        known_points.add(vertex[0])
        for face in visible:
            polytope.remove_face(face)
        for (a, b), raw in zip(horizon, normals):
            polytope.add_face(a, b, new_index, raw)
    if status != "converged" and tightest is not None:
        return _conservative(polytope, min_support, tightest, iterations, status)
    return _finish(polytope, min_support, iterations, status, rounding)


def _finish(polytope: _Polytope, min_support: float, iterations: int, status: str,
            rounding: float) -> EpaResult:
    """Answer from the closest face: normal from the best-shaped face of its facet, witness points
    from the face whose triangle holds the foot of the origin."""
    best_id = polytope.closest_face()
    best_distance, best_normal = polytope.faces[best_id][4], polytope.faces[best_id][3]
    facet = [face for face in polytope.faces.values()
             if face[4] - best_distance <= rounding and dot(face[3], best_normal) >= 1.0 - 1e-6]
    i, j, k, normal, distance = max(facet, key=lambda f: norm(polytope.raw_normal(*f[:3])))
    foot = scale(normal, distance)
    best = None
    for face in facet:
        corners = [sub(polytope.vertices[index][0], foot) for index in face[:3]]
        offset, weights = closest_on_triangle(*corners)
        if best is None or dot(offset, offset) < best[0]:
            best = (dot(offset, offset), face, weights)
    _, face, weights = best
    point_a = combine(weights, [polytope.vertices[index][1] for index in face[:3]])
    point_b = combine(weights, [polytope.vertices[index][2] for index in face[:3]])
    lower = -min_support if math.isfinite(min_support) else -distance
    # Any point of A - B bounds the signed distance from above; so does the closest face's distance
    # when the origin is strictly inside the polytope (which lies inside A - B).
    nearest, _ = closest_on_triangle(*(polytope.vertices[index][0] for index in face[:3]))
    upper = min(norm(nearest), -best_distance if best_distance > 0.0 else math.inf)
    return EpaResult(-distance, normal, point_a, point_b, min(lower, -distance),
                     max(upper, -distance), iterations, status)


def _conservative(polytope: _Polytope, min_support: float, tightest, iterations: int,
                  status: str) -> EpaResult:
    """Unfinished expansion: report the depth bound that is certain.

    The smallest support value seen, ``h = n·w``, bounds the depth from above, and moving B by
    ``h·n`` is certain to separate the pair; the closest face bounds it from below. The witness points
    are the support points along ``n`` (``collide`` shifts them to match the convention).
    """
    normal, (_, point_a, point_b) = tightest
    closest_distance = polytope.faces[polytope.closest_face()][4]
    upper = -closest_distance if closest_distance > 0.0 else math.inf
    return EpaResult(-min_support, normal, point_a, point_b, -min_support, upper, iterations, status)
