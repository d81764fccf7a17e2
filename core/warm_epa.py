"""``collide_warm``: ``collide`` for a pair queried again and again as it moves (animation frames, live
edits), EPA started from the pair's previous polytope instead of from GJK's simplex.

EPA's final polytope is kept as its triangulation and, per vertex, the indices of its two points on A and
on B among the shapes' vertices (``WarmStart``). At the next query those vertices are placed where the
shapes are now (all at once) and the triangulation is laid over them: a closed mesh wound outward whose
vertices are points of A - B. If every face has the origin certainly on its inner side (its distance,
lowered by its plane's rounding error, positive), EPA goes on from that mesh: its bounds are then as
certain as a cold start's (see ``epa.resume``), and a pair that moved a little needs a step or two where a
cold start needs dozens. Otherwise (the pair came apart, a face collapsed, other shapes) and whenever the
warm answer's bounds do not meet the tolerance, the pair is solved cold, as ``collide`` solves it. Either
way the answer meets ``collide``'s certificate: same tolerance, certain bounds; the depth agrees with a
cold start to the tolerance, witness points may sit elsewhere on the same contact face.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .collide import _contact, _Pair, solve_pair
from .contact import Contact
from .epa import EpaPolytope, EpaResult, _sliver_plane, resume
from .gjk import SupportFn, Vertex
from .shapes import _IDENTITY, Shape
from .simplex import EPSILON


#: Columns of a cross product's factors: (u x v)_k = u_next v_last - u_last v_next.
_NEXT, _LAST = np.array([1, 2, 0]), np.array([2, 0, 1])


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


def collide_warm(shape_a: Shape, shape_b: Shape, warm: WarmStart | None = None, *, tolerance: float | None = None,
                 touch_tolerance: float | None = None, max_iterations: int | None = None
                 ) -> tuple[Contact, WarmStart | None]:
    """``(collide(shape_a, shape_b, ...), warm start for the next query)``: the contact as ``collide``
    gives it (same keywords, same certificate), EPA started from ``warm`` when that still encloses the
    origin. The warm start returned is None when the answer did not come from EPA (the shapes apart, or
    A - B flat)."""
    pair = _Pair(shape_a, shape_b, tolerance, touch_tolerance, max_iterations)
    return _solved(pair, warm, None if warm is None else _Placed.of(pair, warm))


def signed_distance_warm(shape_a: Shape, shape_b: Shape, warm: WarmStart | None = None, *,
                         tolerance: float | None = None, touch_tolerance: float | None = None,
                         max_iterations: int | None = None) -> tuple[float, WarmStart | None]:
    """``collide_warm``'s signed distance and warm start, to the same tolerance: when the warm polytope's
    closest face already lies on the boundary of A - B (the support along its normal is within the
    tolerance of the certified depth), the value is read off it, without EPA's normal and witness points."""
    pair = _Pair(shape_a, shape_b, tolerance, touch_tolerance, max_iterations)
    placed = None if warm is None else _Placed.of(pair, warm)
    value = None if placed is None else placed.settled(pair)
    if value is not None:
        return value, warm
    contact, kept = _solved(pair, warm, placed)
    return contact.signed_distance, kept


def _solved(pair: _Pair, warm: WarmStart | None, placed: _Placed | None) -> tuple[Contact, WarmStart | None]:
    """``collide_warm`` on a prepared pair: from the ``placed`` warm polytope when it serves, else cold."""
    found_along: dict[tuple, tuple] = {}
    pair.support = _logged(pair.support, found_along)
    solved = None if placed is None else _resumed(pair, placed)
    if solved is None:
        contact, found = solve_pair(pair)
        return contact, None if found is None else _kept(pair, found, found_along)
    contact, found = solved
    # The warm vertices come first in the polytope, in the warm start's order.
    return contact, warm if found.polytope.grown == 0 else _kept(pair, found, found_along, warm)


def _logged(support: SupportFn, found_along: dict) -> SupportFn:
    """``support`` that remembers, for each point of A - B it returns, the first direction that found it."""
    def remembering(d):
        vertex = support(d)
        found_along.setdefault(vertex[0], d)
        return vertex
    return remembering


def _kept(pair: _Pair, found: EpaResult, found_along: dict, warm: WarmStart | None = None) -> WarmStart:
    """The warm start of EPA's final polytope: its faces renumbered from 0, its used vertices too, each named
    by its points' indices on A and on B (the polytope's first vertices are ``warm``'s, when it grew from that;
    the others are found from the direction that found them)."""
    polytope = found.polytope
    ids = {face_id: row for row, face_id in enumerate(polytope.faces)}
    faces = list(polytope.faces.values())
    triangles = np.array([face[:3] for face in faces], dtype=np.int64)
    neighbours = np.array([(ids[face[6]], ids[face[7]], ids[face[8]]) for face in faces], dtype=np.int64)
    used, triangles = np.unique(triangles, return_inverse=True)
    vertices = [polytope.vertices[index] for index in used.tolist()]
    indices = np.full((len(used), 2), -1, dtype=np.int64)
    if warm is not None:
        inherited = used < len(warm.vertices_a)
        indices[inherited, 0], indices[inherited, 1] = (warm.vertices_a[used[inherited]],
                                                        warm.vertices_b[used[inherited]])
    new = np.flatnonzero(indices[:, 0] < 0).tolist()
    if new:
        directions = np.array([found_along.get(vertices[row][0], (0.0, 0.0, 0.0)) for row in new])
        inverse = 1.0 / pair.unit
        for column, (shape, sign) in enumerate(((pair.a, 1.0), (pair.b, -1.0))):
            points = np.array([vertices[row][column + 1] for row in new])
            indices[new, column] = _indices(shape, sign * directions, points, -pair.center, inverse)
    return WarmStart(indices[:, 0], indices[:, 1], triangles.reshape(-1, 3), neighbours,
                     (len(pair.a.vertices()), len(pair.b.vertices())))


def _indices(shape: Shape, directions: np.ndarray, points: np.ndarray, shift: np.ndarray, inverse: float
             ) -> np.ndarray:
    """Which of ``shape``'s vertices each of ``points`` (in the pair's frame) is: the support along its
    direction, as ``Shape.support`` picks it, else (a tie broken another way, or no direction) the vertex
    placed nearest to it."""
    linear, _offset = shape.affine
    local = shape.vertices()
    indices = np.argmax(local @ (directions @ linear).T, axis=0)
    wrong = np.flatnonzero((_placed(shape, indices, shift, inverse) != points).any(axis=1))
    if wrong.size:
        every = _placed(shape, np.arange(len(local)), shift, inverse)
        gaps = ((every[None, :, :] - points[wrong, None, :]) ** 2).sum(axis=2)
        indices[wrong] = gaps.argmin(axis=1)
    return indices


def _resumed(pair: _Pair, placed: _Placed) -> tuple[Contact, EpaResult] | None:
    """The pair solved by EPA from the placed warm polytope; None when the answer's bounds do not meet the
    tolerance (then a cold start decides)."""
    polytope = EpaPolytope.from_mesh(placed.vertices(), placed.warm.triangles.tolist(),
                                     placed.warm.neighbours.tolist(), placed.planes())
    found = resume(polytope, pair.support, tolerance=pair.local_solver_tolerance, max_iterations=pair.max_iterations,
                   rounding=pair.local_rounding)
    tol = pair.local_tolerance
    bounds = (found.lower_bound - pair.local_support_rounding, found.upper_bound)
    if found.status != "converged" or bounds[1] - bounds[0] > tol or \
            not bounds[0] - tol <= found.signed_distance <= bounds[1] + tol:
        return None
    return _contact(pair, found.signed_distance, found.normal, found.point_a, found.point_b, bounds, 0,
                    found.iterations, "converged"), found


class _Placed:
    """A warm start laid over the shapes where they are now, in the pair's frame: its points on A, on B and
    of A - B (V, 3) each, and its faces' planes (``epa._plane`` of each, by its formulas, all faces at once):
    unit normals (F, 3), distances and errors (F,)."""

    def __init__(self, warm: WarmStart, side_a: np.ndarray, side_b: np.ndarray):
        self.warm, self.side_a, self.side_b = warm, side_a, side_b
        self.points = side_a - side_b
        triangles = warm.triangles
        a, b, c = self.points[triangles[:, 0]], self.points[triangles[:, 1]], self.points[triangles[:, 2]]
        u, v = b - a, c - a
        n = u[:, _NEXT] * v[:, _LAST] - u[:, _LAST] * v[:, _NEXT]  # u x v
        n2 = (n * n).sum(axis=1)
        spread2 = (u * u).sum(axis=1) * (v * v).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.normals = n / np.sqrt(n2)[:, None]
            self.errors = 8.0 * EPSILON * (1.0 + np.sqrt(spread2 / n2)) * np.abs(a).sum(axis=1)
        self.distances = (self.normals * a).sum(axis=1)
        self.flat = False  # a sliver face with no area (``_sliver_plane`` finds no plane)
        for row in np.flatnonzero(n2 <= 1e-4 * spread2).tolist():
            plane = _sliver_plane(*(tuple(corner) for corner in (a[row].tolist(), b[row].tolist(), c[row].tolist())))
            if plane is None:
                self.flat = True
                break
            self.normals[row], self.distances[row], self.errors[row] = plane

    @classmethod
    def of(cls, pair: _Pair, warm: WarmStart) -> _Placed | None:
        """The warm start placed, when it certainly encloses the origin (every face's distance, lowered by its
        error, positive); None when not, when a face has no area, or when the shapes have other vertex counts
        than the warm start's."""
        if warm.counts != (len(pair.a.vertices()), len(pair.b.vertices())):
            return None
        inverse = 1.0 / pair.unit
        placed = cls(warm, _placed(pair.a, warm.vertices_a, -pair.center, inverse),
                     _placed(pair.b, warm.vertices_b, -pair.center, inverse))
        return None if placed.flat or not (placed.distances - placed.errors).min() > 0.0 else placed

    def vertices(self) -> list[Vertex]:
        """``(w, a, b)`` of every vertex, as EPA keeps them."""
        rows = np.concatenate([self.points, self.side_a, self.side_b], axis=1).tolist()
        return [((wx, wy, wz), (ax, ay, az), (bx, by, bz)) for wx, wy, wz, ax, ay, az, bx, by, bz in rows]

    def planes(self) -> list:
        """``(normal, distance, error)`` of every face, as EPA keeps them."""
        return list(zip(map(tuple, self.normals.tolist()), self.distances.tolist(), self.errors.tolist()))

    def settled(self, pair: _Pair) -> float | None:
        """The pair's signed distance (world units) when the closest face lies on the boundary of A - B to
        the tolerance: certainly between minus the support value along its normal (less the support rounding)
        and minus the smallest face distance lowered by its error (see ``epa.resume``); None when those bounds
        are further apart than the tolerance."""
        closest = int(self.distances.argmin())
        normal = tuple(self.normals[closest].tolist())
        point = pair.support(normal)[0]
        lower = -(normal[0] * point[0] + normal[1] * point[1] + normal[2] * point[2]) - pair.local_support_rounding
        upper = -float((self.distances - self.errors).min())
        if upper - lower > pair.local_tolerance:
            return None
        value = min(max(-float(self.distances[closest]), lower), upper)
        return value * pair.unit - pair.margin + 0.0


def _placed(shape: Shape, indices: np.ndarray, shift: np.ndarray, inverse: float) -> np.ndarray:
    """(V, 3) ``shape``'s local vertices at ``indices`` mapped by ``L p + t``, shifted by ``shift`` and
    scaled by ``inverse`` (a power of two): ``Shape.support``'s arithmetic, term by term in the same
    order (then ``gjk.minkowski_support``'s), so the same floats."""
    linear, offset = shape.affine
    chosen = shape.vertices()[indices]
    t = offset + shift
    if linear is _IDENTITY:
        placed = chosen + t
    else:
        x, y, z = chosen[:, 0:1], chosen[:, 1:2], chosen[:, 2:3]
        placed = linear[:, 0] * x + linear[:, 1] * y + linear[:, 2] * z + t
    return placed if inverse == 1.0 else placed * inverse
