"""``collide_warm``: ``collide`` for a pair queried again and again as it moves (animation frames, live
edits), EPA started from the pair's previous polytope instead of from GJK's simplex.

EPA's final polytope is kept as its triangulation and, per vertex, the direction whose support point
it is (``WarmStart``). At the next query the supports along those directions are taken again (all at
once, on the shapes' vertices) and the triangulation is laid over them: a closed mesh wound outward
whose vertices are points of A - B. If every face has the origin certainly on its inner side (its
distance, lowered by its plane's rounding error, positive), EPA goes on from that mesh: its bounds are
then as certain as a cold start's (see ``epa.resume``), and a pair that moved a little needs a step or
two where a cold start needs dozens. Otherwise (the pair came apart, a face collapsed, the supports
jumped) and whenever the warm answer's bounds do not meet the tolerance, the pair is solved cold, as
``collide`` solves it. Either way the answer meets ``collide``'s certificate: same tolerance, certain
bounds; the depth agrees with a cold start to the tolerance, witness points may sit elsewhere on the
same contact face.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .collide import _contact, _Pair, solve_pair
from .contact import Contact
from .epa import EpaPolytope, EpaResult, _sliver_plane, resume
from .gjk import SupportFn, Vertex
from .shapes import Shape
from .simplex import EPSILON


@dataclass(frozen=True)
class WarmStart:
    """An EPA polytope to start a pair's next query from: per vertex the indices of its points on A and on B
    in the shapes' ``vertices()`` (V,) each, the outward triangles (F, 3) and the faces across each
    triangle's edges ij, jk, ki (F, 3)."""

    vertices_a: np.ndarray
    vertices_b: np.ndarray
    triangles: np.ndarray
    neighbours: np.ndarray


def collide_warm(shape_a: Shape, shape_b: Shape, warm: WarmStart | None = None, *, tolerance: float | None = None,
                 touch_tolerance: float | None = None, max_iterations: int | None = None
                 ) -> tuple[Contact, WarmStart | None]:
    """``(collide(shape_a, shape_b, ...), warm start for the next query)``: the contact as ``collide``
    gives it (same keywords, same certificate), EPA started from ``warm`` when that still encloses the
    origin. The warm start returned is None when the answer did not come from EPA (the shapes apart, or
    A - B flat)."""
    pair = _Pair(shape_a, shape_b, tolerance, touch_tolerance, max_iterations)
    found_along: dict[tuple, tuple] = {}
    pair.support = _logged(pair.support, found_along)
    known: dict[tuple, tuple[int, int]] = {}
    solved = None if warm is None else _resumed(pair, warm, known)
    if solved is not None and solved[1].polytope.grown == 0:
        return solved[0], warm  # converged on the warm polytope itself
    contact, found = solved if solved is not None else solve_pair(pair)
    return contact, None if found is None else _kept(pair, found, found_along, known)


def _logged(support: SupportFn, found_along: dict) -> SupportFn:
    """``support`` that remembers, for each point of A - B it returns, the first direction that found it."""
    def remembering(d):
        vertex = support(d)
        found_along.setdefault(vertex[0], d)
        return vertex
    return remembering


def _kept(pair: _Pair, found: EpaResult, found_along: dict, known: dict) -> WarmStart:
    """The warm start of EPA's final polytope: its faces renumbered from 0, its used vertices too, each named
    by its points' indices on A and on B (``known`` for the warm start's own vertices, else found from the
    direction that found the vertex)."""
    polytope = found.polytope
    ids = {face_id: row for row, face_id in enumerate(polytope.faces)}
    faces = list(polytope.faces.values())
    triangles = np.array([face[:3] for face in faces], dtype=np.int64)
    neighbours = np.array([(ids[face[6]], ids[face[7]], ids[face[8]]) for face in faces], dtype=np.int64)
    used, triangles = np.unique(triangles, return_inverse=True)
    vertices = [polytope.vertices[index] for index in used.tolist()]
    indices = np.array([known.get(vertex[0], (-1, -1)) for vertex in vertices], dtype=np.int64).reshape(-1, 2)
    new = [row for row, vertex in enumerate(vertices) if vertex[0] not in known]
    if new:
        directions = np.array([found_along.get(vertices[row][0], (0.0, 0.0, 0.0)) for row in new])
        inverse = 1.0 / pair.unit
        for column, (shape, sign) in enumerate(((pair.a, 1.0), (pair.b, -1.0))):
            points = np.array([vertices[row][column + 1] for row in new])
            indices[new, column] = _indices(shape, sign * directions, points, -pair.center, inverse)
    return WarmStart(indices[:, 0], indices[:, 1], triangles.reshape(-1, 3), neighbours)


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


def _resumed(pair: _Pair, warm: WarmStart, known: dict) -> tuple[Contact, EpaResult] | None:
    """The pair solved by EPA from the warm polytope; None when that polytope does not certainly enclose
    the origin or the answer's bounds do not meet the tolerance (then a cold start decides). ``known``
    gets each warm vertex's indices."""
    placed = _vertices(pair, warm)
    if placed is None:
        return None
    points, vertices = placed
    planes = _planes(points, warm.triangles)
    if planes is None or min(distance - error for _, distance, error in planes) <= 0.0:
        return None
    known.update(zip((vertex[0] for vertex in vertices), zip(warm.vertices_a.tolist(), warm.vertices_b.tolist())))
    polytope = EpaPolytope.from_mesh(vertices, warm.triangles.tolist(), warm.neighbours.tolist(), planes)
    found = resume(polytope, pair.support, tolerance=pair.local_solver_tolerance, max_iterations=pair.max_iterations,
                   rounding=pair.local_rounding)
    tol = pair.local_tolerance
    bounds = (found.lower_bound - pair.local_support_rounding, found.upper_bound)
    if found.status != "converged" or bounds[1] - bounds[0] > tol or \
            not bounds[0] - tol <= found.signed_distance <= bounds[1] + tol:
        return None
    return _contact(pair, found.signed_distance, found.normal, found.point_a, found.point_b, bounds, 0,
                    found.iterations, "converged"), found


def _vertices(pair: _Pair, warm: WarmStart) -> tuple[np.ndarray, list[Vertex]] | None:
    """The warm polytope's points of A - B (V, 3) and vertices ``(w, a, b)`` where the shapes are now, in the
    pair's frame; None when an index is beyond a shape's vertices (another shape than the warm start's)."""
    if warm.vertices_a.max() >= len(pair.a.vertices()) or warm.vertices_b.max() >= len(pair.b.vertices()):
        return None
    inverse = 1.0 / pair.unit
    side_a = _placed(pair.a, warm.vertices_a, -pair.center, inverse)
    side_b = _placed(pair.b, warm.vertices_b, -pair.center, inverse)
    w = side_a - side_b
    return w, list(zip(map(tuple, w.tolist()), map(tuple, side_a.tolist()), map(tuple, side_b.tolist())))


def _placed(shape: Shape, indices: np.ndarray, shift: np.ndarray, inverse: float) -> np.ndarray:
    """(V, 3) ``shape``'s local vertices at ``indices`` mapped by ``L p + t``, shifted by ``shift`` and
    scaled by ``inverse`` (a power of two): ``Shape.support``'s arithmetic, term by term in the same
    order (then ``gjk.minkowski_support``'s), so the same floats."""
    linear, offset = shape.affine
    chosen = shape.vertices()[indices]
    t = offset + shift
    x, y, z = chosen[:, 0:1], chosen[:, 1:2], chosen[:, 2:3]
    placed = linear[:, 0] * x + linear[:, 1] * y + linear[:, 2] * z + t
    return placed if inverse == 1.0 else placed * inverse
def _planes(points: np.ndarray, triangles: np.ndarray) -> list | None:
    """``epa._plane`` of every triangle (computed together, with the same operations in the same order,
    so the same floats); None when a triangle has no area."""
    a, b, c = points[triangles[:, 0]], points[triangles[:, 1]], points[triangles[:, 2]]
    ax, ay, az = a.T
    ux, uy, uz = (b - a).T
    vx, vy, vz = (c - a).T
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    n2 = nx * nx + ny * ny + nz * nz
    spread2 = (ux * ux + uy * uy + uz * uz) * (vx * vx + vy * vy + vz * vz)
    sliver = n2 <= 1e-4 * spread2
    with np.errstate(divide="ignore", invalid="ignore"):
        length = np.sqrt(n2)
        nx, ny, nz = nx / length, ny / length, nz / length
        error = 8.0 * EPSILON * (1.0 + np.sqrt(spread2 / n2)) * (np.abs(ax) + np.abs(ay) + np.abs(az))
    distance = nx * ax + ny * ay + nz * az
    planes = list(zip(zip(nx.tolist(), ny.tolist(), nz.tolist()), distance.tolist(), error.tolist()))
    for row in np.flatnonzero(sliver).tolist():
        planes[row] = _sliver_plane(*(tuple(corner) for corner in (a[row].tolist(), b[row].tolist(),
                                                                  c[row].tolist())))
        if planes[row] is None:
            return None
    return planes
