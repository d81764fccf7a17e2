"""``collide_warm``: ``collide`` for a pair queried again and again as it moves (animation frames, live edits), EPA
started from the pair's previous polytope: a step or two instead of dozens, with a cold start's certificate.
See docs/architecture.md, section "Narrow phase: warm-started EPA".
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter, sub

import numpy as np

from .collide import PreparedPair, pair_contact, solve_pair
from ..contact import Contact
from .epa import EpaPolytope, EpaResult, plane_of, resume, settled_on
from .gjk import SupportFn, Vertex
from ..shapes.convex import IDENTITY, Shape
from .simplex import EPSILON
from ..vector.arrays import dot


#: Columns of a cross product's factors: (u x v)_k = u_next v_last - u_last v_next.
_NEXT, _LAST = np.array([1, 2, 0]), np.array([2, 0, 1])
#: Pairs prepared and placed together at a time when a deadline may leave the rest unsolved.
PLACED_BEFORE_DEADLINE = 5
#: A single pair's warm polytope of at most this many faces is placed in plain floats (numpy's per-call cost is
#: more than the arithmetic there).
PLACED_ALONE_FACES = 200
#: An ``EpaPolytope`` face's corners and the ids of the faces across its edges.
_CORNERS_AND_ACROSS = itemgetter(0, 1, 2, 6, 7, 8)


@dataclass(frozen=True)
class WarmStart:
    """An EPA polytope to start a pair's next query from: per vertex the indices of its points on A and on B
    in the shapes' ``vertices()`` (V,) each, the outward triangles (F, 3) and the faces across each
    triangle's edges ij, jk, ki (F, 3)."""

    vertices_a: np.ndarray
    vertices_b: np.ndarray
    triangles: np.ndarray
    neighbours: np.ndarray
    #: How many vertices the shapes had (a warm start serves shapes with those counts only).
    counts: tuple[int, int]

    @property
    def apart(self) -> bool:
        """A start for GJK, not EPA: the 1-3 vertices of the simplex nearest the origin when the pair was apart (no
        triangles; ``keep_apart``)."""
        return len(self.triangles) == 0

    def serves(self, shape_a: Shape, shape_b: Shape) -> bool:
        """The shapes have the vertex counts this warm start was made on."""
        return self.counts == (len(shape_a.vertices()), len(shape_b.vertices()))


def collide_warm(shape_a: Shape, shape_b: Shape, warm: WarmStart | None = None, *, tolerance: float | None = None,
                 touch_tolerance: float | None = None, max_iterations: int | None = None, keep_apart: bool = False
                 ) -> tuple[Contact, WarmStart | None]:
    """``(collide(shape_a, shape_b, ...), warm start for the next query)``: the contact as ``collide``
    gives it (same keywords, same certificate), EPA started from ``warm`` when that still encloses the
    origin. The warm start returned is None when the answer did not come from EPA (the shapes apart, or
    A - B flat), unless ``keep_apart``: then a pair found apart keeps GJK's last simplex, which the next query's
    GJK starts from (``WarmStart.apart``)."""
    contacts, warms = collide_warm_many([shape_a], [shape_b], [warm], tolerance=tolerance,
                                        touch_tolerance=touch_tolerance, max_iterations=max_iterations,
                                        keep_apart=keep_apart)
    return contacts[0], warms[0]


def collide_warm_many(shapes_a: Sequence[Shape], shapes_b: Sequence[Shape], warms: Sequence[WarmStart | None], *,
                      tolerance: float | None = None, touch_tolerance: float | None = None,
                      max_iterations: int | None = None, deadline: float | None = None, keep_apart: bool = False
                      ) -> tuple[list[Contact | None], list[WarmStart | None]]:
    """``collide_warm`` of every pair ``(shapes_a[i], shapes_b[i])`` from ``warms[i]``: the contacts and the
    warm starts for the next query, the warm polytopes placed and their planes computed together. With a
    ``deadline`` (a ``time.perf_counter()`` value) no pair is solved once it has passed, in the order given:
    those left are None, their warm starts returned as they came (for a caller that must answer in time).
    ``keep_apart``: see ``collide_warm``."""
    contacts: list[Contact | None] = [None] * len(shapes_a)
    kept = list(warms)
    together = len(shapes_a) if deadline is None else PLACED_BEFORE_DEADLINE
    for first in range(0, len(shapes_a), max(together, 1)):
        chosen = range(first, min(first + together, len(shapes_a)))
        pairs = [PreparedPair(shapes_a[k], shapes_b[k], tolerance, touch_tolerance, max_iterations) for k in chosen]
        for k, pair, placed in zip(chosen, pairs, placed_together(pairs, [warms[k] for k in chosen])):
            if deadline is not None and time.perf_counter() >= deadline:
                return contacts, kept
            contacts[k], kept[k] = solve_warm(pair, warms[k], placed, keep_apart)
    return contacts, kept


def signed_distance_warm(shape_a: Shape, shape_b: Shape, warm: WarmStart | None = None, *,
                         tolerance: float | None = None, touch_tolerance: float | None = None,
                         max_iterations: int | None = None) -> tuple[float, WarmStart | None]:
    """``collide_warm``'s signed distance and warm start, to the same tolerance: when the warm polytope's
    closest face already lies on the boundary of A - B (the support along its normal is within the
    tolerance of the certified depth), the value is read off it, without EPA's normal and witness points."""
    values, warms = signed_distances_warm([shape_a], [shape_b], [warm], tolerance=tolerance,
                                          touch_tolerance=touch_tolerance, max_iterations=max_iterations)
    return values[0], warms[0]


def signed_distances_warm(shapes_a: Sequence[Shape], shapes_b: Sequence[Shape], warms: Sequence[WarmStart | None], *,
                          tolerance: float | None = None, touch_tolerance: float | None = None,
                          max_iterations: int | None = None) -> tuple[list[float], list[WarmStart | None]]:
    """``signed_distance_warm`` of every pair ``(shapes_a[i], shapes_b[i])`` from ``warms[i]``: the warm
    polytopes are placed and their planes computed together."""
    pairs = [PreparedPair(a, b, tolerance, touch_tolerance, max_iterations) for a, b in zip(shapes_a, shapes_b)]
    values, kept = [], []
    for pair, warm, placed in zip(pairs, warms, placed_together(pairs, warms)):
        value = None if placed is None else placed.settled(pair)
        start = warm  # read off the warm polytope: it serves again as it is
        if value is None:
            contact, start = solve_warm(pair, warm, placed)
            value = contact.signed_distance
        values.append(value)
        kept.append(start)
    return values, kept


def solve_warm(pair: PreparedPair, warm: WarmStart | None, placed: _Placed | None, keep_apart: bool = False
               ) -> tuple[Contact, WarmStart | None]:
    """``collide_warm`` on a prepared pair: from the ``placed`` warm polytope when it serves, else cold (GJK from
    the warm start's simplex when it is one, ``WarmStart.apart``)."""
    found_along: dict[tuple, tuple] = {}
    support = pair.support
    pair.support = _logged(support, found_along)
    try:
        return _solved_warm(pair, warm, placed, keep_apart, found_along)
    finally:
        pair.support = support  # (the pair serves again as it was)


def _solved_warm(pair: PreparedPair, warm: WarmStart | None, placed: _Placed | None, keep_apart: bool,
                 found_along: dict) -> tuple[Contact, WarmStart | None]:
    """``solve_warm`` once the pair's support logs into ``found_along``."""
    solved = None if placed is None else _resumed(pair, placed)
    if solved is None:
        start = None
        if warm is not None and warm.apart and warm.serves(pair.a, pair.b):
            side_a, side_b, points = _placed_vertices(pair, warm)
            start = list(zip(points, side_a, side_b))
        contact, found, simplex = solve_pair(pair, start)
        if found is not None:
            return contact, _kept(pair, found, found_along)
        return contact, _simplex_kept(pair, simplex, found_along, warm, start) if keep_apart and simplex else None
    contact, found = solved
    # The warm vertices come first in the polytope, in the warm start's order.
    grown = found.polytope is not None and found.polytope.grown > 0
    return contact, _kept(pair, found, found_along, warm) if grown else warm


def _logged(support: SupportFn, found_along: dict) -> SupportFn:
    """``support`` that remembers, for each point of A - B it returns, the first direction that found it."""
    def remembering(d):
        vertex = support(d)
        found_along.setdefault(vertex[0], d)
        return vertex
    return remembering


def _kept(pair: PreparedPair, found: EpaResult, found_along: dict, warm: WarmStart | None = None) -> WarmStart:
    """The warm start of EPA's final polytope: its faces renumbered from 0, its used vertices too, each named
    by its points' indices on A and on B (the polytope's first vertices are ``warm``'s, when it grew from that;
    the others are found from the direction that found them)."""
    polytope = found.polytope
    faces = np.array(list(map(_CORNERS_AND_ACROSS, polytope.faces.values())), dtype=np.int64)
    # Face ids grow as faces are added, so the faces are kept in ascending id order: a face's row is its id's rank.
    neighbours = np.searchsorted(np.fromiter(polytope.faces, dtype=np.int64, count=len(faces)), faces[:, 3:])
    used, triangles = np.unique(faces[:, :3], return_inverse=True)
    vertices = [polytope.vertices[index] for index in used.tolist()]
    indices = np.full((len(used), 2), -1, dtype=np.int64)
    if warm is not None:
        inherited = used < len(warm.vertices_a)
        indices[inherited, 0], indices[inherited, 1] = (warm.vertices_a[used[inherited]],
                                                        warm.vertices_b[used[inherited]])
    new = np.flatnonzero(indices[:, 0] < 0).tolist()
    if new:
        indices[new] = _found_indices(pair, [vertices[row] for row in new], found_along)
    return WarmStart(indices[:, 0], indices[:, 1], triangles.reshape(-1, 3), neighbours,
                     (len(pair.a.vertices()), len(pair.b.vertices())))


#: A warm start's (empty) triangles and neighbours when it is GJK's simplex.
_NO_FACES = np.zeros((0, 3), dtype=np.int64)


def _simplex_kept(pair: PreparedPair, simplex: list, found_along: dict, warm: WarmStart | None,
                  start: list | None) -> WarmStart:
    """The warm start of GJK's final ``simplex`` (``WarmStart.apart``): ``warm`` itself when the simplex is its
    ``start`` (placed from it) unchanged, else each vertex named by its points' indices on A and on B (those of
    the start from ``warm``, the others from the direction that found them)."""
    if start is not None and len(simplex) == len(start) and all(v is w for v, w in zip(simplex, start)):
        return warm
    indices = np.full((len(simplex), 2), -1, dtype=np.int64)
    for row, vertex in enumerate(simplex):
        for k, placed in enumerate(start or ()):
            if vertex is placed:
                indices[row] = warm.vertices_a[k], warm.vertices_b[k]
    new = np.flatnonzero(indices[:, 0] < 0).tolist()
    if new:
        indices[new] = _found_indices(pair, [simplex[row] for row in new], found_along)
    return WarmStart(indices[:, 0], indices[:, 1], _NO_FACES, _NO_FACES, (len(pair.a.vertices()), len(pair.b.vertices())))


def _found_indices(pair: PreparedPair, vertices: list, found_along: dict) -> np.ndarray:
    """Which vertices of A and of B (V, 2) the ``vertices`` ``(w, a, b)`` of A - B are, from the directions that
    found them (``_logged``)."""
    directions = np.array([found_along.get(vertex[0], (0.0, 0.0, 0.0)) for vertex in vertices])
    inverse = 1.0 / pair.unit
    indices = np.empty((len(vertices), 2), dtype=np.int64)
    for column, (shape, sign) in enumerate(((pair.a, 1.0), (pair.b, -1.0))):
        points = np.array([vertex[column + 1] for vertex in vertices])
        indices[:, column] = _indices(shape, sign * directions, points, -pair.center, inverse)
    return indices


def _indices(shape: Shape, directions: np.ndarray, points: np.ndarray, shift: np.ndarray, inverse: float
             ) -> np.ndarray:
    """Which of ``shape``'s vertices each of ``points`` (in the pair's frame) is: the support along its
    direction, as ``Shape.support`` picks it, else (a tie broken another way, or no direction) the vertex
    placed nearest to it."""
    linear, _offset = shape.affine
    indices = shape.support_rows(directions @ linear)
    wrong = np.flatnonzero((placed_points([shape], [indices], shift[None], np.array([inverse])) != points).any(axis=1))
    if wrong.size:
        every = placed_points([shape], [np.arange(len(shape.vertices()))], shift[None], np.array([inverse]))
        gaps = ((every[None, :, :] - points[wrong, None, :]) ** 2).sum(axis=2)
        indices[wrong] = gaps.argmin(axis=1)
    return indices


def _resumed(pair: PreparedPair, placed: _Placed) -> tuple[Contact, EpaResult] | None:
    """The pair solved by EPA from the placed warm polytope (read off its arrays when its closest face already
    lies on the boundary: ``epa.settled_on``; the result's ``polytope`` is then None, nothing grew); None when the
    answer's bounds do not meet the tolerance (then a cold start decides)."""
    found = settled_on(placed, placed.normals, placed.distances, placed.errors, placed.triangles, placed.closest,
                       placed.facet, placed.certified, pair.support, tolerance=pair.local_solver_tolerance)
    if found is None:
        polytope = EpaPolytope.from_mesh(placed.vertices(), placed.triangles, placed.warm.neighbours.tolist(),
                                         placed.planes())
        found = resume(polytope, pair.support, tolerance=pair.local_solver_tolerance,
                       max_iterations=pair.max_iterations, rounding=pair.local_rounding)
    tol = pair.local_tolerance
    bounds = (found.lower_bound - pair.local_support_rounding, found.upper_bound)
    if found.status != "converged" or bounds[1] - bounds[0] > tol or \
            not bounds[0] - tol <= found.signed_distance <= bounds[1] + tol:
        return None
    return pair_contact(pair, found.signed_distance, found.normal, found.point_a, found.point_b, bounds, 0,
                    found.iterations, "converged"), found


class _Placed:
    """A warm start laid over the shapes where they are now, in the pair's frame, in plain floats: its points on A,
    on B and of A - B (V tuples each), its triangles (F lists of 3 indices), its faces' planes (``epa.plane_of`` of
    each): unit normals (F tuples), distances and errors (F floats), and ``epa.settled_on``'s first findings: the
    closest face, its facet and the smallest distance lowered by its error."""

    def __init__(self, warm: WarmStart, side_a: list, side_b: list, points: list, triangles: list,
                 planes: tuple[list, list, list], closest_facet: tuple[int, list[int], float]):
        self.warm, self.side_a, self.side_b, self.points, self.triangles = warm, side_a, side_b, points, triangles
        self.normals, self.distances, self.errors = planes
        self.closest, self.facet, self.certified = closest_facet

    def __getitem__(self, index: int) -> Vertex:
        """``(w, a, b)`` of vertex ``index``, as ``vertices`` gives it."""
        return self.points[index], self.side_a[index], self.side_b[index]

    def vertices(self) -> list[Vertex]:
        """``(w, a, b)`` of every vertex, as EPA keeps them."""
        return list(zip(self.points, self.side_a, self.side_b))

    def planes(self) -> list:
        """``(normal, distance, error)`` of every face, as EPA keeps them."""
        return list(zip(self.normals, self.distances, self.errors))

    def settled(self, pair: PreparedPair) -> float | None:
        """The pair's signed distance (world units) when the closest face lies on the boundary of A - B to
        the tolerance: certainly between minus the support value along its normal (less the support rounding)
        and minus the smallest face distance lowered by its error (see ``epa.resume``); None when those bounds
        are further apart than the tolerance."""
        normal = self.normals[self.closest]
        point = pair.support(normal)[0]
        lower = -(normal[0] * point[0] + normal[1] * point[1] + normal[2] * point[2]) - pair.local_support_rounding
        upper = -self.certified
        if upper - lower > pair.local_tolerance:
            return None
        value = min(max(-self.distances[self.closest], lower), upper)
        return value * pair.unit - pair.margin + 0.0


def placed_together(pairs: list[PreparedPair], warms: Sequence[WarmStart | None]) -> list[_Placed | None]:
    """Each pair's warm start placed where its shapes are now, the planes of all of them computed at once, and
    what ``epa.settled_on`` needs of each: its closest face, that face's facet and its certified distance;
    None for a pair without a warm start, with shapes of other vertex counts than its warm start's, or whose
    placed polytope does not certainly enclose the origin (every face's distance, lowered by its error,
    positive) or has a face with no area."""
    ready = [k for k, (pair, warm) in enumerate(zip(pairs, warms))
             if warm is not None and not warm.apart and warm.serves(pair.a, pair.b)]
    if len(ready) <= 1 and sum(len(warms[k].triangles) for k in ready) <= PLACED_ALONE_FACES:
        return [_placed_alone(pairs[k], warms[k]) if k in ready else None for k in range(len(pairs))]
    shifts = np.array([pairs[k].center for k in ready])
    inverses = np.array([1.0 / pairs[k].unit for k in ready])
    side_a = placed_points([pairs[k].a for k in ready], [warms[k].vertices_a for k in ready], -shifts, inverses)
    side_b = placed_points([pairs[k].b for k in ready], [warms[k].vertices_b for k in ready], -shifts, inverses)
    points = side_a - side_b
    first_vertex = np.cumsum([0] + [len(warms[k].vertices_a) for k in ready])
    face_counts = [len(warms[k].triangles) for k in ready]
    first_face = np.cumsum([0] + face_counts)
    normals, distances, errors = _planes(points, np.concatenate([warms[k].triangles + first_vertex[row]
                                                                 for row, k in enumerate(ready)]))
    certified = np.minimum.reduceat(distances - errors, first_face[:-1])
    certain = certified > 0.0  # False for NaN: no plane
    closest, facets = _closest_facets(normals, distances, first_face, certain,
                                      np.array([pairs[k].local_rounding for k in ready]))
    placed: list[_Placed | None] = [None] * len(pairs)
    for row, k in enumerate(ready):
        if certain[row]:
            faces = slice(first_face[row], first_face[row + 1])
            vertices = slice(first_vertex[row], first_vertex[row + 1])
            sides = [list(map(tuple, rows.tolist())) for rows in (side_a[vertices], side_b[vertices], points[vertices])]
            placed[k] = _Placed(warms[k], *sides, warms[k].triangles.tolist(),
                                (list(map(tuple, normals[faces].tolist())), distances[faces].tolist(),
                                 errors[faces].tolist()),
                                (closest[row], facets[row], float(certified[row])))
    return placed


def _placed_vertices(pair: PreparedPair, warm: WarmStart) -> tuple[list, list, list]:
    """The warm start's vertices on A, on B and of A - B (V tuples each) where the shapes are now, in the pair's
    frame, placed as the pair's supports place them (the same floats)."""
    inverse = 1.0 / pair.unit
    sides = []
    for shape, rows in ((pair.local_a, warm.vertices_a), (pair.local_b, warm.vertices_b)):
        placed = shape.placed_vertices(rows.tolist())
        sides.append(placed if inverse == 1.0 else [(x * inverse, y * inverse, z * inverse) for x, y, z in placed])
    side_a, side_b = sides
    return side_a, side_b, [(ax - bx, ay - by, az - bz) for (ax, ay, az), (bx, by, bz) in zip(side_a, side_b)]


def _placed_alone(pair: PreparedPair, warm: WarmStart) -> _Placed | None:
    """``placed_together`` of one pair, in plain floats (the same floats: each vertex placed as the shapes' supports
    place it, each plane by ``epa.plane_of``)."""
    side_a, side_b, points = _placed_vertices(pair, warm)
    triangles = warm.triangles.tolist()
    planes = [plane_of(points[i], points[j], points[k]) for i, j, k in triangles]
    if None in planes:
        return None
    normals, distances, errors = map(list, zip(*planes))
    certified = min(math.inf, *map(sub, distances, errors))  # (from infinity: a NaN never counts)
    if not certified > 0.0:
        return None
    lowest = min(math.inf, *distances)
    closest = distances.index(lowest)  # the first of the smallest, as np.argmin picks it
    (bx, by, bz), rounding = normals[closest], pair.local_rounding
    facet = [k for k, ((nx, ny, nz), distance) in enumerate(zip(normals, distances))
             if distance - lowest <= rounding and (nx * bx + ny * by) + nz * bz >= 1.0 - 1e-6]
    return _Placed(warm, side_a, side_b, points, triangles, (normals, distances, errors), (closest, facet, certified))


def _closest_facets(normals: np.ndarray, distances: np.ndarray, first_face: np.ndarray, certain: np.ndarray,
                    rounding: np.ndarray) -> tuple[list[int], list[list[int]]]:
    """Per polytope (faces ``first_face[i]:first_face[i + 1]``) whose planes are ``certain``: its closest face
    (the first of smallest distance, as ``np.argmin`` picks it) and that face's facet, the faces within
    ``rounding`` of its distance and aligned with it (``epa.settled``'s test, term by term), as indices
    within the polytope; the other polytopes get 0 and no facet."""
    if not certain.any():
        return [0] * len(certain), [[] for _ in range(len(certain))]
    owner = np.repeat(np.arange(len(certain)), np.diff(first_face))
    lowest = np.minimum.reduceat(distances, first_face[:-1])
    at_lowest = np.flatnonzero(distances == lowest[owner])
    closest = at_lowest[np.minimum(np.searchsorted(at_lowest, first_face[:-1]), len(at_lowest) - 1)]
    closest = np.where(certain, closest, first_face[:-1])
    normal, distance = normals[closest][owner], distances[closest][owner]
    aligned = (normals[:, 0] * normal[:, 0] + normals[:, 1] * normal[:, 1]) + normals[:, 2] * normal[:, 2] >= 1.0 - 1e-6
    rows = np.flatnonzero((distances - distance <= rounding[owner]) & aligned & certain[owner])
    ends = np.searchsorted(rows, first_face)
    local = (rows - first_face[owner[rows]]).tolist()
    facets = [local[ends[k]:ends[k + 1]] for k in range(len(certain))]
    return (closest - first_face[:-1]).tolist(), facets


def _planes(points: np.ndarray, triangles: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``epa.plane_of`` of every triangle, by its formulas, all at once: unit normals (F, 3), distances and
    errors (F,); NaN for a triangle with no area."""
    return corner_planes(points[triangles[:, 0]], points[triangles[:, 1]], points[triangles[:, 2]])


def corner_planes(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``epa.plane_of`` of the triangles with corners ``a``, ``b``, ``c`` (F, 3 each), as ``_planes``."""
    u, v = b - a, c - a
    n = u[:, _NEXT] * v[:, _LAST] - u[:, _LAST] * v[:, _NEXT]  # u x v
    n2 = (n * n).sum(axis=1)
    spread2 = (u * u).sum(axis=1) * (v * v).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        normals = n / np.sqrt(n2)[:, None]
        errors = 8.0 * EPSILON * (1.0 + np.sqrt(spread2 / n2)) * np.abs(a).sum(axis=1)
    distances = dot(normals, a)  # summed x, y, z as ``plane_of`` sums them (a sum over the axis may drop a -0.0)
    slivers = np.flatnonzero(n2 <= 1e-4 * spread2)
    if slivers.size:
        normals[slivers], distances[slivers], errors[slivers] = sliver_planes(a[slivers], b[slivers], c[slivers])
    return normals, distances, errors


def sliver_planes(p: np.ndarray, q: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``epa.sliver_plane`` of the triangles with corners ``p``, ``q``, ``r`` (F, 3 each), its arithmetic term by term
    over arrays (the same floats): unit normals (F, 3), distances and errors (F,); NaN where it finds no plane."""
    a, b, c = r - q, p - r, q - p  # the edges opposite p, q and r
    la, lb, lc = dot(a, a), dot(b, b), dot(c, c)
    first, second = (la >= lb) & (la >= lc), lb >= lc  # the longest edge: a, else b, else c (ties as it breaks them)
    pick = first[:, None]
    start = np.where(pick, q, np.where(second[:, None], r, p))
    edge = np.where(pick, a, np.where(second[:, None], b, c))
    rise = -np.where(pick, c, np.where(second[:, None], a, b))  # the apex minus the start
    length2 = np.where(first, la, np.where(second, lb, lc))
    with np.errstate(divide="ignore", invalid="ignore"):
        along = dot(rise, edge) / length2
        offset = rise - along[:, None] * edge  # the apex's offset from the edge's line
        height2 = dot(offset, offset)
        normal = np.stack([edge[:, 1] * offset[:, 2] - edge[:, 2] * offset[:, 1],
                           edge[:, 2] * offset[:, 0] - edge[:, 0] * offset[:, 2],
                           edge[:, 0] * offset[:, 1] - edge[:, 1] * offset[:, 0]], axis=1)
        length = np.sqrt(dot(normal, normal))
        normal /= length[:, None]
        foot = dot(start, edge) / length2
        from_line = start - foot[:, None] * edge
        from_line2 = dot(from_line, from_line)
        rounding = 4.0 * EPSILON * (np.abs(start[:, 0]) + np.abs(start[:, 1]) + np.abs(start[:, 2]))
        tilt = 8.0 * EPSILON * np.sqrt(length2 / height2)
        error = np.where(length2 < 1e20 * height2,
                         8.0 * EPSILON * (1.0 + 1e-5) * np.sqrt(length2 * from_line2 / height2),
                         np.where(2.0 < tilt * (1.0 + tilt), 2.0, tilt * (1.0 + tilt)) * np.sqrt(from_line2)) + rounding
    distance = dot(normal, start)
    none = (length2 == 0.0) | (height2 == 0.0) | (length == 0.0)
    normal[none], distance[none], error[none] = np.nan, np.nan, np.nan
    return normal, distance, error


def placed_points(shapes: list[Shape], indices: list[np.ndarray], shifts: np.ndarray,
                  inverses: np.ndarray) -> np.ndarray:
    """The vertices of every shape at ``indices[i]`` mapped by ``L p + t``, shifted by ``shifts[i]`` and scaled by
    ``inverses[i]`` (a power of two), stacked (sum of V, 3): ``Shape.support``'s arithmetic, term by term in the
    same order (then ``gjk.minkowski_support``'s), so the same floats; each shape's vertices are gathered, then
    every map applied at once (``placed_gathered``)."""
    chosen = np.concatenate([shape.vertices()[rows] for shape, rows in zip(shapes, indices)])
    return placed_gathered(shapes, chosen, [len(rows) for rows in indices], shifts, inverses)


def placed_gathered(shapes: list[Shape], chosen: np.ndarray, counts, shifts: np.ndarray,
                    inverses: np.ndarray) -> np.ndarray:
    """``placed_points`` of local points already gathered: ``chosen`` (sum of counts, 3) holds ``counts[i]`` points
    of ``shapes[i]``, one shape after the other."""
    t = np.repeat(np.array([shape.affine[1] for shape in shapes]) + shifts, counts, axis=0)
    turned = np.repeat([shape.affine[0] is not IDENTITY for shape in shapes], counts)
    placed = chosen + t
    if turned.any():
        linear = np.repeat(np.array([shape.affine[0] for shape in shapes]), counts, axis=0)[turned]
        x, y, z = (chosen[turned, axis:axis + 1] for axis in range(3))
        placed[turned] = linear[:, :, 0] * x + linear[:, :, 1] * y + linear[:, :, 2] * z + t[turned]
    inverse = np.repeat(inverses, counts)
    scaled = inverse != 1.0
    placed[scaled] *= inverse[scaled, None]
    return placed
