"""EPA on the Minkowski difference A - B: penetration depth, contact normal and witness points, with bounds on the
depth that are certain (each face's distance lowered by its plane's rounding error).
See docs/architecture.md, section "Narrow phase: EPA and its certain bounds".
"""

from __future__ import annotations

import heapq
import math
from math import sqrt
from dataclasses import dataclass, field

import numpy as np

from .gjk import SupportFn, Vertex
from .simplex import EIGHT_EPSILON, EPSILON, closest_on_triangle, triangle_frame
from ..vector.vec3 import Vec3, combine, cross, dot, norm, normalized, orthonormal_basis, scale, sub


@dataclass
class Blowup:
    """A tetrahedron around the origin, or the dimension of a degenerate A - B. ``lower_bound`` is the
    best certain lower bound on the signed distance from the support queries made on the way."""

    vertices: list
    dimension: int
    flat_normal: Vec3 | None = None
    lower_bound: float = -math.inf


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
    #: The final polytope (what ``core.narrowphase.warm_epa`` keeps to start the same pair's next query from).
    polytope: EpaPolytope | None = field(default=None, repr=False, compare=False)


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
    if len(vertices) == 3 and triangle_frame(*(vertex[0] for vertex in vertices))[6] == 0.0:
        vertices = _farthest_pair(vertices)  # collinear to rounding
    lower = -math.inf

    def probe(direction: Vec3) -> Vertex:
        """Support point along a unit direction; -n·w bounds the signed distance from below."""
        nonlocal lower
        candidate = support(direction)
        lower = max(lower, -dot(direction, candidate[0]))
        return candidate

    if len(vertices) == 1:
        for axis in ((1.0, 0, 0), (-1.0, 0, 0), (0, 1.0, 0), (0, -1.0, 0), (0, 0, 1.0), (0, 0, -1.0)):
            candidate = probe(axis)
            if norm(sub(candidate[0], vertices[0][0])) > tolerance:
                vertices.append(candidate)
                break
        else:
            return Blowup(vertices, 0, None, lower)
    if len(vertices) == 2:
        base = vertices[0][0]
        axis = normalized(sub(vertices[1][0], base))
        e0, e1 = orthonormal_basis(axis)
        for k in range(6):
            angle = k * math.pi / 3.0
            direction = combine((math.cos(angle), math.sin(angle)), (e0, e1))
            candidate = probe(direction)
            if _distance_to_line(candidate[0], base, axis) > tolerance:
                vertices.append(candidate)
                break
        else:
            return Blowup(vertices, 1, e0, lower)
    if len(vertices) == 3:
        normal = _triangle_normal(*(vertex[0] for vertex in vertices))
        heights = []
        for direction in (normal, scale(normal, -1.0)):
            candidate = probe(direction)
            # Above every corner: on a sliver base the normal is not exact, and a corner must not count.
            height = min(dot(direction, sub(candidate[0], vertex[0])) for vertex in vertices)
            heights.append((height, candidate))
        height, apex = max(heights, key=lambda pair: pair[0])
        if height <= tolerance:
            return Blowup(vertices, 2, normal, lower)
        vertices.append(apex)  # the origin lies on the base triangle: the tetrahedron's closure holds it
    return Blowup(vertices, 3, None, lower)


def _triangle_normal(p: Vec3, q: Vec3, r: Vec3) -> Vec3:
    """Unit normal as ``edge x perpendicular`` from the longest edge (see ``triangle_frame``)."""
    _, _, edge, _, _, perpendicular, _ = triangle_frame(p, q, r)
    return normalized(cross(edge, perpendicular))


def _farthest_pair(vertices) -> list:
    """The two of three (collinear) vertices farthest apart."""
    pairs = ((0, 1), (0, 2), (1, 2))
    i, j = max(pairs, key=lambda p: norm(sub(vertices[p[0]][0], vertices[p[1]][0])))
    return [vertices[i], vertices[j]]


def _thinnest_height(vertices) -> float:
    """Smallest distance of a tetrahedron's vertex from the plane of the other three (in plain floats: the
    arithmetic of ``vec3``'s helpers written out, the same floats)."""
    (ax, ay, az), (bx, by, bz), (cx, cy, cz), (dx, dy, dz) = (vertex[0] for vertex in vertices)
    ux, uy, uz, vx, vy, vz, wx, wy, wz = bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az, dx - ax, dy - ay, dz - az
    volume6 = abs((uy * vz - uz * vy) * wx + (uz * vx - ux * vz) * wy + (ux * vy - uy * vx) * wz)
    heights = []
    # The faces opposite each corner, each crossing the edges from its first corner (b: c - b, d - b; a: the rest).
    for (px, py, pz), (qx, qy, qz) in (((cx - bx, cy - by, cz - bz), (dx - bx, dy - by, dz - bz)),
                                       ((vx, vy, vz), (wx, wy, wz)), ((ux, uy, uz), (wx, wy, wz)),
                                       ((ux, uy, uz), (vx, vy, vz))):
        nx, ny, nz = py * qz - pz * qy, pz * qx - px * qz, px * qy - py * qx
        area2 = sqrt(nx * nx + ny * ny + nz * nz)
        heights.append(volume6 / area2 if area2 > 0.0 else 0.0)
    return min(heights)


def _largest_triangle(vertices) -> list:
    """The three vertices of a flat tetrahedron spanning the largest triangle."""
    def area(subset):
        a, b, c = (vertices[i][0] for i in subset)
        return norm(cross(sub(b, a), sub(c, a)))

    best = max(((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)), key=area)
    return [vertices[i] for i in best]


def plane_of(a: Vec3, b: Vec3, c: Vec3):
    """(unit normal, distance, error) of a triangle's plane, or None for a zero-area triangle;
    ``distance - error`` is certain whatever the rounding.

    Crossing the two edges at corner a tilts the normal by at most 5 eps / sin(angle at i), which
    moves the distance by that times the corner's distance from the origin: cheap and exact enough
    unless the angle is tiny (or near 180 degrees), where ``sliver_plane`` takes over.
    """
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = a, b, c
    ux, uy, uz = bx - ax, by - ay, bz - az
    vx, vy, vz = cx - ax, cy - ay, cz - az
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    n2 = nx * nx + ny * ny + nz * nz
    spread2 = (ux * ux + uy * uy + uz * uz) * (vx * vx + vy * vy + vz * vz)  # n2 / sin(angle)^2
    if n2 <= 1e-4 * spread2:
        return sliver_plane(a, b, c)
    length = sqrt(n2)
    nx, ny, nz = nx / length, ny / length, nz / length
    # (8 eps is formed first either way: the same floats as 8.0 * EPSILON * ...)
    error = EIGHT_EPSILON * (1.0 + sqrt(spread2 / n2)) * (abs(ax) + abs(ay) + abs(az))
    return (nx, ny, nz), nx * ax + ny * ay + nz * az, error


def sliver_plane(p: Vec3, q: Vec3, r: Vec3):
    """``plane_of`` of a sliver: the normal is ``edge x perpendicular`` from the longest edge (see
    ``triangle_frame``, inlined here): it can only tilt about that edge, by about eps |edge| / height,
    which moves the plane at the triangle by eps |edge| and the distance by the tilt times the origin's
    distance from the edge's line. ``error`` bounds that change.
    """
    (px, py, pz), (qx, qy, qz), (rx, ry, rz) = p, q, r
    ax, ay, az = rx - qx, ry - qy, rz - qz  # the edge opposite p, from q to r
    bx, by, bz = px - rx, py - ry, pz - rz  # opposite q, from r to p
    cx, cy, cz = qx - px, qy - py, qz - pz  # opposite r, from p to q
    la, lb, lc = ax * ax + ay * ay + az * az, bx * bx + by * by + bz * bz, cx * cx + cy * cy + cz * cz
    if la >= lb and la >= lc:  # (start, edge, rise = apex - start)
        (sx, sy, sz), (ex, ey, ez), (ux, uy, uz), length2 = (qx, qy, qz), (ax, ay, az), (-cx, -cy, -cz), la
    elif lb >= lc:
        (sx, sy, sz), (ex, ey, ez), (ux, uy, uz), length2 = (rx, ry, rz), (bx, by, bz), (-ax, -ay, -az), lb
    else:
        (sx, sy, sz), (ex, ey, ez), (ux, uy, uz), length2 = (px, py, pz), (cx, cy, cz), (-bx, -by, -bz), lc
    if length2 == 0.0:
        return None
    along = (ux * ex + uy * ey + uz * ez) / length2
    ux, uy, uz = ux - along * ex, uy - along * ey, uz - along * ez  # the apex's offset from the edge's line
    height2 = ux * ux + uy * uy + uz * uz
    if height2 == 0.0:
        return None
    nx, ny, nz = ey * uz - ez * uy, ez * ux - ex * uz, ex * uy - ey * ux
    length = math.sqrt(nx * nx + ny * ny + nz * nz)
    if length == 0.0:  # the offset is a rounding residue along the edge itself: no area either
        return None
    nx, ny, nz = nx / length, ny / length, nz / length
    # The normal tilts about the edge by at most tilt = 8 eps |edge| / height. Both planes hold the
    # edge's line, so the distance moves by at most (tilt + tilt^2) times the origin's distance from
    # that line, and never by more than twice it; plus the rounding of the dot product.
    foot = (sx * ex + sy * ey + sz * ez) / length2
    fx, fy, fz = sx - foot * ex, sy - foot * ey, sz - foot * ez
    from_line2 = fx * fx + fy * fy + fz * fz
    rounding = 4.0 * EPSILON * (abs(sx) + abs(sy) + abs(sz))
    if length2 < 1e20 * height2:  # tilt < 1e-5: one square root
        error = 8.0 * EPSILON * (1.0 + 1e-5) * math.sqrt(length2 * from_line2 / height2) + rounding
    else:
        tilt = 8.0 * EPSILON * math.sqrt(length2 / height2)
        error = min(tilt * (1.0 + tilt), 2.0) * math.sqrt(from_line2) + rounding
    return (nx, ny, nz), nx * sx + ny * sy + nz * sz, error


#: The faces of a seed tetrahedron (opposite corners 3, 2, 1, 0), all wound one way.
SEED_FACES = ((0, 1, 2), (0, 3, 1), (0, 2, 3), (1, 3, 2))


class EpaPolytope:
    """Triangle mesh of a polytope (convex when grown from a seed; a warm start's, ``from_mesh``, need not be
    exactly: see ``resume``). A face is a list ``[i, j, k, normal, distance, error, across_ij,
    across_jk, across_ki]``: its corners (wound outward), its plane (see ``plane_of``) and the ids of the
    faces across its three edges. ``points`` are the vertices' points of A - B (``vertices`` keep the
    support points on A and B too); ``grown`` counts the points added since it was built."""

    def __init__(self, seed: list, planes: list):
        """``planes`` are those of ``SEED_FACES`` on ``seed``. The winding is read off the face whose
        opposite corner is farthest from it (a sliver tetrahedron's volume has no reliable sign), and
        all four faces follow it, so that the mesh is consistent."""
        self.vertices = list(seed)
        self.points = [vertex[0] for vertex in seed]
        self.faces: dict[int, list] = {}
        self.heap: list[tuple[float, int]] = []
        heights = [dot(normal, seed[opposite][0]) - distance
                   for (normal, distance, _), opposite in zip(planes, (3, 2, 1, 0))]
        outward = min(heights, key=lambda h: -abs(h)) < 0.0
        owners = {}
        for face_id, ((i, j, k), (normal, distance, error)) in enumerate(zip(SEED_FACES, planes)):
            if not outward:
                j, k, normal, distance = k, j, scale(normal, -1.0), -distance
            self.faces[face_id] = [i, j, k, normal, distance, error, None, None, None]
            owners[i, j], owners[j, k], owners[k, i] = (face_id, 6), (face_id, 7), (face_id, 8)
            heapq.heappush(self.heap, (distance, face_id))
        for (a, b), (face_id, slot) in owners.items():
            self.faces[face_id][slot] = owners[b, a][0]
        self._next_id = len(self.faces)
        self.grown = 0

    @classmethod
    def from_mesh(cls, vertices: list, triangles: list, neighbours: list, planes: list) -> EpaPolytope:
        """A polytope from a closed triangle mesh wound outward: ``triangles`` index ``vertices``,
        ``neighbours`` name the faces across each triangle's edges (ij, jk, ki) and ``planes`` are their
        ``plane_of``s."""
        polytope = cls.__new__(cls)
        polytope.vertices = vertices
        polytope.points = [vertex[0] for vertex in vertices]
        polytope.faces = {face_id: [i, j, k, normal, distance, error, across_ij, across_jk, across_ki]
                          for face_id, ((i, j, k), (across_ij, across_jk, across_ki), (normal, distance, error))
                          in enumerate(zip(triangles, neighbours, planes))}
        polytope.heap = [(plane[1], face_id) for face_id, plane in enumerate(planes)]
        heapq.heapify(polytope.heap)
        polytope._next_id = len(planes)
        polytope.grown = 0
        return polytope

    def closest_face(self) -> int:
        heap, faces = self.heap, self.faces
        while heap[0][1] not in faces:
            heapq.heappop(heap)
        return heap[0][1]

    def visible_region(self, start: int, point: Vec3, tolerance: float) -> tuple[set, list]:
        """Faces that see ``point`` (flood fill from ``start``) and the horizon around them: edges
        ``(a, b, id of the hidden face across)``."""
        faces = self.faces
        px, py, pz = point
        visible, hidden, horizon, stack = {start}, set(), [], [faces[start]]
        while stack:
            face = stack.pop()
            i, j, k = face[0], face[1], face[2]
            for a, b, neighbour in ((i, j, face[6]), (j, k, face[7]), (k, i, face[8])):
                if neighbour in visible:
                    continue
                if neighbour not in hidden:
                    other = faces[neighbour]
                    nx, ny, nz = other[3]
                    if nx * px + ny * py + nz * pz - other[4] > tolerance:
                        visible.add(neighbour)
                        stack.append(other)
                        continue
                    hidden.add(neighbour)
                horizon.append((a, b, neighbour))
        return visible, horizon

    def expand(self, vertex: Vertex, visible: set, horizon: list) -> bool:
        """Replace the visible faces by a cone from ``vertex`` to the horizon; False (and no change)
        when the horizon is not one loop or a new face would have no area."""
        starting = _single_loop(horizon)
        if starting is None:
            return False
        points, apex = self.points, vertex[0]
        planes = [plane_of(points[a], points[b], apex) for a, b, _ in horizon]
        if None in planes:
            return False
        new_index = len(points)
        self.vertices.append(vertex)
        points.append(apex)
        faces, heap, first = self.faces, self.heap, self._next_id
        for face in visible:
            del faces[face]
        ending = {edge[1]: first + position for position, edge in enumerate(horizon)}
        push = heapq.heappush
        for face_id, ((a, b, neighbour), (normal, distance, error)) in enumerate(zip(horizon, planes), first):
            # Across (b, apex): the new face of the edge leaving b; across (apex, a): the one entering a.
            faces[face_id] = [a, b, new_index, normal, distance, error, neighbour, first + starting[b], ending[a]]
            other = faces[neighbour]
            other[6 if other[0] == b else (7 if other[1] == b else 8)] = face_id
            push(heap, (distance, face_id))
        self._next_id = first + len(horizon)
        self.grown += 1
        return True

    def grow(self, support: SupportFn, tolerance: float, max_iterations: int, rounding: float):
        """EPA's loop (see ``epa``): ``(min_support, tightest, iterations, status)``, with ``min_support``
        the smallest support value seen along a face normal (it bounds the depth above) and
        ``tightest`` the face whose normal gave it."""
        faces, heap, known_points = self.faces, self.heap, set(self.points)
        pop, visible_region, expand = heapq.heappop, self.visible_region, self.expand
        min_support, tightest = math.inf, None
        iterations = 0
        while iterations < max_iterations:
            iterations += 1
            while heap[0][1] not in faces:
                pop(heap)
            face_id = heap[0][1]
            face = faces[face_id]
            normal = face[3]
            vertex = support(normal)
            point = vertex[0]
            height = normal[0] * point[0] + normal[1] * point[1] + normal[2] * point[2]
            if height < min_support:
                min_support, tightest = height, face
            if height - face[4] <= tolerance:
                return min_support, tightest, iterations, "converged"
            if point in known_points:  # nothing new to add, yet the bounds are apart: say so
                return min_support, tightest, iterations, "stalled"
            if not expand(vertex, *visible_region(face_id, point, rounding)):
                return min_support, tightest, iterations, "stalled"
            known_points.add(point)
        return min_support, tightest, iterations, "iteration_limit"


def _single_loop(edges) -> dict | None:
    """If the directed edges ``(a, b, ...)`` form one closed loop through distinct vertices, in order,
    each start vertex's position in the list; else None."""
    if not edges:
        return None
    starting = {edge[0]: position for position, edge in enumerate(edges)}
    count = len(edges)
    if len(starting) != count:
        return None
    position = 0
    for _ in range(count - 1):
        position = starting.get(edges[position][1])
        if position is None or position == 0:
            return None
    return starting if edges[position][1] == edges[0][0] else None


def epa(support: SupportFn, seed: list, *, tolerance: float, max_iterations: int,
        rounding: float) -> EpaResult | None:
    """Expand ``seed`` (from ``expand_simplex``) until the closest face lies on the boundary.

    ``rounding`` is the pair's floating-point noise level. A face sees a new point when the point is
    more than that in front of it, whatever the (possibly much coarser) ``tolerance`` that ends the
    expansion: a coarser visibility test would leave faces behind the new point and the polytope
    would stop being convex. Faces whose planes agree to ``rounding`` belong to the same facet.
    None when rounding makes a face of the seed tetrahedron flat (nothing to expand from).
    """
    polytope = seed_polytope(seed)
    if polytope is None:
        return None
    return resume(polytope, support, tolerance=tolerance, max_iterations=max_iterations, rounding=rounding)


def seed_polytope(seed: list) -> EpaPolytope | None:
    """The polytope EPA grows from ``seed`` (four vertices from ``expand_simplex``); None when rounding makes a
    face of it flat."""
    planes = [plane_of(seed[i][0], seed[j][0], seed[k][0]) for i, j, k in SEED_FACES]
    return None if None in planes else EpaPolytope(seed, planes)


def resume(polytope: EpaPolytope, support: SupportFn, *, tolerance: float, max_iterations: int,
           rounding: float) -> EpaResult:
    """EPA's loop from ``polytope`` (see ``epa``), and the answer with the final polytope attached.

    The polytope need not come from a seed: any closed triangle mesh wound outward whose vertices are
    points of A - B gives certain bounds (the depth is at least its smallest face distance, lowered by the
    planes' errors, when that is positive: every ray from the origin then meets the mesh, and the segment
    to it lies in the hull of the vertices).
    """
    min_support, tightest, iterations, status = polytope.grow(support, tolerance, max_iterations, rounding)
    found = _finish(polytope, min_support, tightest, iterations, status, rounding, tolerance)
    found.polytope = polytope
    return found


def _finish(polytope: EpaPolytope, min_support: float, tightest: tuple, iterations: int, status: str,
            rounding: float, tolerance: float) -> EpaResult:
    """Answer from the closest face: normal from the best-conditioned face of its facet, witness
    points from the face whose triangle holds the foot of the origin, and certain bounds."""
    best_id = polytope.closest_face()
    best_distance, (bx, by, bz) = polytope.faces[best_id][4], polytope.faces[best_id][3]
    # One pass: the closest face's facet, and the smallest face distance lowered by its error (while
    # the polytope holds the origin, a ball of that radius, when positive, lies inside it).
    certified, facet = math.inf, []
    for face in polytope.faces.values():
        distance, error = face[4], face[5]
        if distance - error < certified:
            certified = distance - error
        if distance - best_distance <= rounding:
            nx, ny, nz = face[3]
            if nx * bx + ny * by + nz * bz >= 1.0 - 1e-6:
                facet.append(face)
    return polytope_answer(polytope.vertices, facet, tightest, certified, min_support, iterations, status, tolerance)


def polytope_answer(vertices, facet: list, tightest: list, certified: float, min_support: float, iterations: int,
                    status: str, tolerance: float) -> EpaResult:
    """``_finish``'s answer (also ``settled_on``'s and the lockstep's: ``epa_lockstep``) from the closest face's
    ``facet`` (faces in the polytope's order), the face whose normal gave the smallest support value
    (``tightest``), the smallest face distance lowered by its error (``certified``) and that support value;
    ``vertices[index]`` is a vertex ``(w, a, b)``.

    On a polytope with sliver faces the closest face's plane can be off by more than the tolerance;
    when its value misses the certain bounds, the ``tightest`` face (the lower bound itself) answers instead.
    The normal is the tightest face's when it belongs to the facet: a support query checked it, whereas the
    facet's other faces may tilt by rounding (on a thin A - B, by far more than the tolerance over its width).
    """
    lower = -min_support
    normal, distance, error = min(facet, key=lambda f: f[5])[3:6]
    if any(face[:3] == tightest[:3] for face in facet):
        normal = tightest[3]
    upper = -certified if certified > 0.0 else math.inf
    if not lower - tolerance <= -distance <= upper + tolerance:
        facet, (normal, distance, error) = [tightest], tightest[3:6]
    if distance < -error:  # the origin is outside: the answer is the facet's point nearest to it
        # (within the plane's error the origin is on the face, touching: the direction to a point of A - B
        # that close to it is rounding noise, while the face's normal was checked by a support query)
        point, point_a, point_b = _witnesses(vertices, facet, (0.0, 0.0, 0.0))
        nearest = norm(point)
        if nearest > 0.0:
            # Within the tolerance of the lower bound the tightest face's normal achieves the value (a support
            # query checked it), whereas the direction to a point of A - B that near the origin may be rounding.
            normal = tightest[3] if nearest - lower <= tolerance else scale(point, -1.0 / nearest)
            return EpaResult(nearest, normal, point_a, point_b, lower, min(upper, nearest), iterations, status)
    point, point_a, point_b = _witnesses(vertices, facet, scale(normal, distance))
    return EpaResult(-distance, normal, point_a, point_b, lower, min(upper, norm(point)), iterations, status)


def settled(vertices, normals: np.ndarray, distances: np.ndarray, errors: np.ndarray, triangles: np.ndarray,
            support: SupportFn, *, tolerance: float, rounding: float) -> EpaResult | None:
    """``resume``'s answer on a polytope given as arrays (face planes (F, 3), (F,), (F,) as ``plane_of`` gives
    them, triangles (F, 3) of ``vertices[index]``, a vertex ``(w, a, b)``) when its closest face already lies
    on the boundary of A - B (the first support query converges), without building the polytope: the same
    floats, in the same order. None when the polytope would have to grow."""
    closest = int(np.argmin(distances))  # the heap's first: the smallest distance, then the lowest face id
    bx, by, bz = normals[closest].tolist()
    aligned = (normals[:, 0] * bx + normals[:, 1] * by) + normals[:, 2] * bz >= 1.0 - 1e-6
    facet = np.flatnonzero((distances - distances[closest] <= rounding) & aligned).tolist()
    return settled_on(vertices, list(map(tuple, normals.tolist())), distances.tolist(), errors.tolist(),
                      triangles.tolist(), closest, facet, float((distances - errors).min()), support,
                      tolerance=tolerance)


def settled_on(vertices, normals: list, distances: list, errors: list, triangles: list, closest: int,
               facet: list[int], certified: float, support: SupportFn, *, tolerance: float) -> EpaResult | None:
    """``settled`` on the planes and triangles as plain floats and ints (normals as tuples), given what it finds
    first: the closest face, the faces of its facet (within the rounding of its distance and aligned with it) and
    the smallest face distance lowered by its error (a caller with many polytopes finds those for all of them at
    once)."""
    normal, distance = normals[closest], distances[closest]
    point = support(normal)[0]
    height = normal[0] * point[0] + normal[1] * point[1] + normal[2] * point[2]
    if not height - distance <= tolerance:
        return None
    faces = [[*triangles[k], normals[k], distances[k], errors[k]] for k in facet]
    tightest = [*triangles[closest], normal, distance, errors[closest]]
    used = {index: vertices[index] for face in faces + [tightest] for index in face[:3]}  # each read once
    return polytope_answer(used, faces, tightest, certified, height, 1, "converged", tolerance)


def _witnesses(vertices, facet: list, target: Vec3) -> tuple[Vec3, Vec3, Vec3]:
    """The point of the facet's triangles nearest ``target`` (a point of A - B, so its distance from
    the origin bounds the signed distance from above) and its witness points on A and on B
    (``vertices[index]`` is a vertex ``(w, a, b)``; ``vec3``'s arithmetic written out, the same floats)."""
    tx, ty, tz = target
    best = None
    for face in facet:
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = (vertices[index][0] for index in face[:3])
        (ox, oy, oz), weights = closest_on_triangle((ax - tx, ay - ty, az - tz), (bx - tx, by - ty, bz - tz),
                                                    (cx - tx, cy - ty, cz - tz))
        gap2 = ox * ox + oy * oy + oz * oz
        if best is None or gap2 < best[0]:
            best = (gap2, face, weights)
    _, face, (u, v, w) = best
    (pw, pa, pb), (qw, qa, qb), (rw, ra, rb) = (vertices[index] for index in face[:3])
    return _mix(u, v, w, pw, qw, rw), _mix(u, v, w, pa, qa, ra), _mix(u, v, w, pb, qb, rb)


def _mix(u: float, v: float, w: float, p: Vec3, q: Vec3, r: Vec3) -> Vec3:
    """``combine((u, v, w), (p, q, r))`` written out (the same sums, from 0.0)."""
    return (0.0 + u * p[0] + v * q[0] + w * r[0], 0.0 + u * p[1] + v * q[1] + w * r[1],
            0.0 + u * p[2] + v * q[2] + w * r[2])
