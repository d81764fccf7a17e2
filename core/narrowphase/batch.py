"""Many pairs at once: GJK in lockstep over numpy arrays (one row per pair still running), EPA per pair through
``collide`` for the few that overlap or lie near the touch band, so their answers are ``collide``'s.
See docs/architecture.md, section "Narrow phase: many pairs in lockstep".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..vector.arrays import cross
from .collide import (DEFAULT_RELATIVE_TOLERANCE, MIN_AUTOMATIC_ITERATIONS, MIN_RELATIVE_TOLERANCE, UNSCALED_SIZES,
                      collide)
from ..contact import Contact, classify, frozen_instance
from ..shapes.convex import Shape, Sphere, as_shape, similarity_scale
from ..validation import as_iteration_cap, as_length

#: Shapes with more vertices than this keep their own (indexed) support and go through ``collide``.
MAX_PADDED_VERTICES = 1024

_SEGMENTS = np.array([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])
_TRIANGLES = np.array([(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)])
_NO_BODY = np.zeros((1, 3))  # stands in for a shape that is not padded
_SEPARATED, _OVERLAPPING, _CAPPED = 1, 2, 3  # outcomes; 0 while running


class ShapeSet:
    """Shapes prepared for batches: their local vertices padded to a common count, their affine
    maps and margins as arrays. Build it once and pass it to ``collide_many`` with new matrices at
    every query (a live update, the frames of an animation) so no per-shape work is repeated."""

    def __init__(self, shapes: Sequence, name: str = "shapes"):
        self.shapes = [as_shape(shape, name) for shape in shapes]
        bodies, linear, offset, padded = [], [], [], []
        for shape in self.shapes:
            body = shape.vertices()
            fits = body is not None and len(body) <= MAX_PADDED_VERTICES
            bodies.append(body if fits else _NO_BODY)
            padded.append(fits)
            matrix, translation = shape.affine
            linear.append(matrix)
            offset.append(translation)
        self.padded = np.array(padded, dtype=bool)
        self.spheres = np.array([isinstance(shape, Sphere) for shape in self.shapes], dtype=bool)
        self.margin = np.array([shape.margin for shape in self.shapes], dtype=np.float64)
        self.linear = np.array(linear).reshape(-1, 3, 3)
        self.offset = np.array(offset).reshape(-1, 3)
        # (P, 3, width): coordinates first, so reductions and products over a shape's vertices run
        # over contiguous memory.
        self.local = padded_array(bodies).transpose(0, 2, 1).copy() if bodies else np.zeros((0, 3, 1))

    def __len__(self) -> int:
        return len(self.shapes)

    def take(self, rows) -> "ShapeSet":
        """The shapes at ``rows`` (repeats allowed) as a ShapeSet, without preparing any shape again: the
        way to pair up a few prepared objects in many pairs."""
        rows = np.asarray(rows, dtype=np.int64)
        taken = object.__new__(ShapeSet)
        taken.shapes = [self.shapes[row] for row in rows.tolist()]
        for name in ("padded", "spheres", "margin", "linear", "offset", "local"):
            setattr(taken, name, getattr(self, name)[rows])
        return taken


class _Side:
    """One side of every pair (all the A shapes or all the B shapes), placed by ``matrices``.

    The padded shapes are held as their vertices mapped to the world (the pair-local frame once
    ``shift`` is called); the others only as placed shape objects, for ``collide``.
    """

    def __init__(self, prepared: ShapeSet, matrices: np.ndarray | None):
        self.matrices, self.padded = matrices, prepared.padded
        self.shapes, self.margin = prepared.shapes, prepared.margin
        linear, offset = prepared.linear, prepared.offset
        if matrices is not None:
            self.shapes = list(self.shapes)
            for row in np.flatnonzero(~self.padded):  # the others move as arrays
                self.shapes[row] = self.shapes[row].transformed(matrices[row])
            linear = matrices[:, :3, :3] @ linear
            offset = (matrices[:, :3, :3] @ offset[:, :, None])[..., 0] + matrices[:, :3, 3]
            spheres = prepared.spheres & self.padded
            self.margin = self.margin.copy()
            self.margin[spheres] *= similarity_scale(matrices[spheres, :3, :3])
        self.spheres, self.linear, self.offset = prepared.spheres, linear, offset
        self.turned = linear @ prepared.local  # the bodies turned, not yet moved: numbers about their size
        self.points = self.turned + offset[:, :, None]

    def placed(self, row: int) -> Shape:
        """Shape ``row`` where the matrices put it, as a shape object (from the maps composed above,
        the matrices being checked already; a sphere checks that its matrix keeps it a sphere)."""
        shape = self.shapes[row]
        if self.matrices is None or not self.padded[row]:
            return shape
        if self.spheres[row]:
            return shape.transformed(self.matrices[row])
        return shape.moved_to(self.linear[row], self.offset[row])

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """World boxes of the shapes, margins included."""
        margin = self.margin[:, None]
        low, high = self.points.min(axis=2) - margin, self.points.max(axis=2) + margin
        for row in np.flatnonzero(~self.padded):
            low[row], high[row] = self.shapes[row].bounds()
        return low, high

    def shift(self, offset: np.ndarray) -> None:
        """Move the points into the pair-local frames (``offset`` is subtracted, one per pair): the offsets
        first, so that a body far from the origin keeps the digits of its size."""
        self.points = self.turned + (self.offset - offset)[:, :, None]

    def support(self, directions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Support points of the shapes ``rows`` along ``directions`` (one per row)."""
        points = self.points[rows]
        best = (directions[:, None, :] @ points)[:, 0].argmax(axis=1)
        return points[np.arange(len(rows)), :, best]


def padded_array(bodies: Sequence[np.ndarray]) -> np.ndarray:
    """(P, width, 3) array of the bodies, each padded with copies of its first vertex (a repeated
    vertex never changes the first maximum along a direction)."""
    lengths = np.array([len(body) for body in bodies])
    starts = np.cumsum(lengths) - lengths
    slots = np.arange(lengths.max())
    index = starts[:, None] + np.where(slots < lengths[:, None], slots, 0)
    return np.concatenate(bodies)[index]


def _face_tables():
    """For the 15 faces of a tetrahedron's slots (4 vertices, 6 edges, 4 triangles, the solid): the
    slots each face uses, as a (15, 4) mask."""
    faces = [(i,) for i in range(4)] + [tuple(e) for e in _SEGMENTS] + [tuple(t) for t in _TRIANGLES] + [(0, 1, 2, 3)]
    mask = np.zeros((15, 4), dtype=bool)
    for k, face in enumerate(faces):
        mask[k, list(face)] = True
    return mask


_FACE_SLOTS = _face_tables()
_FACE_SLOTS_BY_SLOT = _FACE_SLOTS.T.astype(np.float64)  # (4, 15): counts missing slots by a product
_EDGE_ROWS, _TRIANGLE_ROWS = np.arange(4, 10), np.arange(10, 14)


def _closest_on_simplices(y: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Closest point to the origin on each simplex (the slots of ``y`` marked ``present``), its
    weights per slot, and whether the origin lies strictly inside a tetrahedron.

    Every face is tried (vertices, edges, triangles, the tetrahedron); a face's candidate counts when
    its slots are all present and its barycentric weights all positive, and the nearest one wins:
    any such candidate lies in the simplex, so the nearest is the closest point.
    """
    m = len(y)
    weights = np.zeros((m, 15, 4))
    weights[:, np.arange(4), np.arange(4)] = 1.0
    edge_points, edge_inside = _edge_candidates(y, weights)
    triangle_points, triangle_inside, volumes = _triangle_candidates(y, weights)
    enclosed = _origin_in_tetrahedra(volumes, weights)
    points = np.concatenate([y, edge_points, triangle_points, np.zeros((m, 1, 3))], axis=1)
    # A face counts when none of its slots is missing (a product: numpy reduces short axes slowly).
    valid = (~present).astype(np.float64) @ _FACE_SLOTS_BY_SLOT == 0.0
    valid[:, 4:] &= np.concatenate([edge_inside, triangle_inside, enclosed[:, None]], axis=1)
    distance2 = np.where(valid, np.einsum("mkj,mkj->mk", points, points), np.inf)
    best = distance2.argmin(axis=1)
    rows = np.arange(m)
    return points[rows, best], weights[rows, best], valid[:, 14]


def _edge_candidates(y: np.ndarray, weights: np.ndarray):
    """Foot of the origin on each edge's line (weights written into ``weights``), and whether it
    falls strictly inside the edge."""
    p, q = y[:, _SEGMENTS[:, 0]], y[:, _SEGMENTS[:, 1]]
    edge = q - p
    length2 = np.einsum("mkj,mkj->mk", edge, edge)
    t = -np.einsum("mkj,mkj->mk", p, edge) / np.where(length2 > 0.0, length2, 1.0)
    weights[:, _EDGE_ROWS, _SEGMENTS[:, 0]] = 1.0 - t
    weights[:, _EDGE_ROWS, _SEGMENTS[:, 1]] = t
    return p + t[..., None] * edge, (length2 > 0.0) & (t > 0.0) & (t < 1.0)


def _triangle_candidates(y: np.ndarray, weights: np.ndarray):
    """Projection of the origin on each triangle's plane along its normal (exact in direction, as in
    ``simplex.closest_on_triangle``; weights written into ``weights``), whether it falls strictly
    inside the triangle, and the triangles' triple products ``a·(b×c)``."""
    a, b, c = (y[:, _TRIANGLES[:, k]] for k in range(3))
    ab, ac = b - a, c - a
    normal = cross(ab, ac)
    normal2 = np.einsum("mkj,mkj->mk", normal, normal)
    safe2 = np.where(normal2 > 0.0, normal2, 1.0)
    volumes = np.einsum("mkj,mkj->mk", a, normal)
    foot = normal * (volumes / safe2)[..., None]
    # Weights of b and c from the 2x2 Gram system of the edges (its determinant is |normal|²).
    ab_ab, ab_ac, ac_ac = (np.einsum("mkj,mkj->mk", u, v) for u, v in ((ab, ab), (ab, ac), (ac, ac)))
    foot_ab, foot_ac = (np.einsum("mkj,mkj->mk", foot - a, u) for u in (ab, ac))
    wb = (ac_ac * foot_ab - ab_ac * foot_ac) / safe2
    wc = (ab_ab * foot_ac - ab_ac * foot_ab) / safe2
    wa = 1.0 - wb - wc
    for k, w in enumerate((wa, wb, wc)):
        weights[:, _TRIANGLE_ROWS, _TRIANGLES[:, k]] = w
    return foot, (normal2 > 0.0) & (wa > 0.0) & (wb > 0.0) & (wc > 0.0), volumes


def _origin_in_tetrahedra(volumes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Barycentric weights of the origin in each tetrahedron (written into ``weights``), from the
    triple products of its faces (signed volumes with the origin as apex), and whether they are all
    positive."""
    signed = volumes[:, ::-1] * [1.0, -1.0, 1.0, -1.0]  # slot k's weight: the face opposite k
    total = signed.sum(axis=1)
    safe = np.where(total != 0.0, total, 1.0)
    weights[:, 14] = signed / safe[:, None]
    return (total != 0.0) & (weights[:, 14] > 0.0).all(axis=1)


class _Lockstep:
    """GJK state of every pair: simplex (w, a, b) in 4 slots with weights (a slot of weight 0 is
    free), v, lower bound and outcome."""

    def __init__(self, side_a: _Side, side_b: _Side, first: np.ndarray, tolerance: np.ndarray):
        count = len(first)
        self.side_a, self.side_b, self.tolerance = side_a, side_b, tolerance
        self.w, self.a, self.b = (np.zeros((count, 4, 3)) for _ in range(3))
        self.weights = np.zeros((count, 4))
        self.weights[:, 0] = 1.0
        self.lower = np.full(count, -np.inf)
        self.outcome = np.zeros(count, dtype=np.int8)
        self.iterations = np.zeros(count, dtype=np.int64)
        everyone = np.arange(count)
        self.w[:, 0], self.a[:, 0], self.b[:, 0] = self.support(first, everyone)
        self.v = self.w[:, 0].copy()

    def support(self, directions: np.ndarray, rows: np.ndarray):
        a = self.side_a.support(directions, rows)
        b = self.side_b.support(-directions, rows)
        return a - b, a, b

    def finish(self, rows: np.ndarray, outcome: int, iteration: int) -> None:
        self.outcome[rows] = outcome
        self.iterations[rows] = iteration

    def run(self, max_iterations: int) -> None:
        """The loop of ``gjk.gjk`` for ``collide``, on all running pairs at once."""
        alive = np.arange(len(self.v))
        v = self.v
        vv = np.einsum("pj,pj->p", v, v)
        for iteration in range(1, max_iterations + 1):
            tolerance = self.tolerance[alive]
            overlapping = vv <= tolerance * tolerance
            if overlapping.any():
                self.finish(alive[overlapping], _OVERLAPPING, iteration - 1)
                keep = ~overlapping
                alive, v, vv, tolerance = alive[keep], v[keep], vv[keep], tolerance[keep]
            if alive.size == 0:
                return
            length = np.sqrt(vv)
            w, a, b = self.support(-v, alive)
            along_v = np.einsum("pj,pj->p", v, w) / length
            self.lower[alive] = np.maximum(self.lower[alive], along_v)
            simplex, weights = self.w[alive], self.weights[alive]
            present = weights > 0.0
            same = simplex == w[:, None, :]
            repeated = (same[..., 0] & same[..., 1] & same[..., 2] & present).any(axis=1)
            done = (length - along_v <= tolerance) | repeated
            if done.any():
                self.finish(alive[done], _SEPARATED, iteration)
                keep = ~done
                alive, w, a, b, vv, simplex, present = (x[keep] for x in (alive, w, a, b, vv, simplex, present))
            slot = present.argmin(axis=1)  # a free slot: at most three are taken
            rows = np.arange(len(alive))
            simplex[rows, slot] = w
            present[rows, slot] = True
            closest, weights, enclosed = _closest_on_simplices(simplex, present)
            stuck = enclosed | (np.einsum("pj,pj->p", closest, closest) >= vv)
            if stuck.any():
                self.finish(alive[enclosed], _OVERLAPPING, iteration)
                self.finish(alive[stuck & ~enclosed], _SEPARATED, iteration)
                keep = ~stuck
                alive, closest, weights, slot, a, b, simplex = (
                    x[keep] for x in (alive, closest, weights, slot, a, b, simplex))
            self.w[alive] = simplex
            self.a[alive, slot], self.b[alive, slot] = a, b
            self.weights[alive] = np.where(weights > 0.0, weights, 0.0)
            self.v[alive] = v = closest
            vv = np.einsum("pj,pj->p", v, v)
            if alive.size == 0:
                return
        overlapping = vv <= self.tolerance[alive] ** 2
        self.finish(alive[overlapping], _OVERLAPPING, max_iterations)
        self.finish(alive[~overlapping], _CAPPED, max_iterations)


def collide_many(shapes_a: ShapeSet | Sequence, shapes_b: ShapeSet | Sequence, *, matrices_a=None, matrices_b=None,
                 tolerance: float | None = None, touch_tolerance: float | None = None,
                 max_iterations: int | None = None, solve_all: bool = True) -> list[Contact | None]:
    """``[collide(a, b, ...) for a, b in zip(shapes_a, shapes_b)]``, computed together.

    Each side is a ``ShapeSet`` or a sequence of prepared ``core`` shapes or (N, 3) point clouds.
    ``matrices_a`` and ``matrices_b``, when given, are (P, 4, 4) affine matrices moving each shape
    (as ``shape.transformed(matrix)`` would, without making P new shapes: with ``ShapeSet`` sides,
    the way to re-query moved objects). The keywords mean what they mean for ``collide``. Pairs that
    overlap, touch or come near the touch band are answered by ``collide`` itself; the others by GJK
    run on all pairs in lockstep. With ``solve_all=False`` the pairs that GJK found overlapping, and those
    with a shape too large for the lockstep (over ``MAX_PADDED_VERTICES``), come back as None instead, for a
    caller with a faster exact way to measure them (SAT, EPA from a previous polytope).
    """
    apart, contacts = screen_many(shapes_a, shapes_b, matrices_a=matrices_a, matrices_b=matrices_b,
                                  tolerance=tolerance, touch_tolerance=touch_tolerance,
                                  max_iterations=max_iterations, solve_all=solve_all)
    for row, contact in zip(apart.index.tolist(), apart.contacts()):
        contacts[row] = contact
    return contacts


def screen_many(shapes_a: ShapeSet | Sequence, shapes_b: ShapeSet | Sequence, *, matrices_a=None, matrices_b=None,
                tolerance: float | None = None, touch_tolerance: float | None = None,
                max_iterations: int | None = None,
                solve_all: bool = True) -> tuple[ApartPairs, list[Contact | None]]:
    """``collide_many``, with the pairs GJK found clearly apart as columns (``ApartPairs``: no Python
    object per pair, for callers that keep many separated pairs as numbers) and None at their places in
    the list; the list holds every other pair's ``Contact`` (None for the pairs left to the caller when
    ``solve_all`` is False). Arguments as for ``collide_many``."""
    if len(shapes_a) != len(shapes_b):
        raise ValueError(f"shapes_a and shapes_b must have the same length, got {len(shapes_a)} and {len(shapes_b)}")
    as_length(tolerance, "tolerance", allow_none=True)
    as_length(touch_tolerance, "touch_tolerance", allow_none=True)
    # None: GJK in lockstep up to the smallest automatic cap; pairs it leaves open go to ``collide``, whose
    # automatic cap grows with the shapes.
    cap = MIN_AUTOMATIC_ITERATIONS if max_iterations is None else as_iteration_cap(max_iterations, "max_iterations")
    if len(shapes_a) == 0:
        return ApartPairs.none(), []
    side_a = _Side(_prepared(shapes_a, "shapes_a"), _matrices(matrices_a, len(shapes_a), "matrices_a"))
    side_b = _Side(_prepared(shapes_b, "shapes_b"), _matrices(matrices_b, len(shapes_b), "matrices_b"))
    frames = _Frames(side_a, side_b, tolerance, touch_tolerance)
    padded = side_a.padded & side_b.padded
    rows = np.flatnonzero(padded & frames.unscaled)
    apart, answered = ApartPairs.none(), ~padded if not solve_all else np.zeros(len(shapes_a), dtype=bool)
    if rows.size:
        lockstep = _Lockstep(_subset(side_a, rows), _subset(side_b, rows), frames.first_direction(rows),
                             frames.tolerance[rows])
        lockstep.run(cap)
        apart = frames.apart(lockstep, rows)
        answered[apart.index] = True
        if not solve_all:
            answered[rows[lockstep.outcome == _OVERLAPPING]] = True
    return apart, [None if done else collide(side_a.placed(i), side_b.placed(i), tolerance=tolerance,
                                             touch_tolerance=touch_tolerance, max_iterations=max_iterations)
                   for i, done in enumerate(answered.tolist())]


def _prepared(shapes, name: str) -> ShapeSet:
    return shapes if isinstance(shapes, ShapeSet) else ShapeSet(shapes, name)


def _matrices(value, count: int, name: str) -> np.ndarray | None:
    """``value`` as a finite (count, 4, 4) array of affine matrices, or None."""
    if value is None:
        return None
    matrices = np.asarray(value, dtype=np.float64)
    if matrices.shape != (count, 4, 4):
        raise ValueError(f"{name} must have shape ({count}, 4, 4), got {matrices.shape}")
    if not np.isfinite(matrices).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    if not (matrices[:, 3] == [0.0, 0.0, 0.0, 1.0]).all():
        raise ValueError(f"{name} must be affine: every last row must be (0, 0, 0, 1)")
    return matrices


class _Frames:
    """Every pair's local frame and tolerances, computed as ``collide`` computes them; moves both
    sides into those frames."""

    def __init__(self, side_a: _Side, side_b: _Side, tolerance, touch_tolerance):
        (low_a, high_a), (low_b, high_b) = side_a.bounds(), side_b.bounds()
        low, high = np.minimum(low_a, low_b), np.maximum(high_a, high_b)
        self.center = 0.5 * (low + high)
        size = (high - low).max(axis=1)
        # Pairs ``collide`` solves as they are; the others (divided by a power of two there, lest squares
        # overflow or underflow) go to ``collide``.
        self.unscaled = (size >= UNSCALED_SIZES[0]) & (size <= UNSCALED_SIZES[1])
        floor = MIN_RELATIVE_TOLERANCE * size
        self.tolerance = np.maximum(DEFAULT_RELATIVE_TOLERANCE * size if tolerance is None else tolerance, floor)
        self.touch_tolerance = np.maximum(self.tolerance if touch_tolerance is None else touch_tolerance,
                                          self.tolerance)
        self.a_to_b = 0.5 * (low_b + high_b - low_a - high_a)
        self.margin_a, self.margin_b = side_a.margin, side_b.margin
        side_a.shift(self.center)
        side_b.shift(self.center)

    def first_direction(self, rows: np.ndarray) -> np.ndarray:
        """Toward B-to-A, as ``collide`` starts (any direction gives the same distance)."""
        length = np.linalg.norm(self.a_to_b[rows], axis=1)
        return np.where(length[:, None] > 0.0, -self.a_to_b[rows], [1.0, 0.0, 0.0])

    def apart(self, run: _Lockstep, rows: np.ndarray) -> ApartPairs:
        """The pairs GJK left clearly apart, as columns of what ``collide`` would answer for them."""
        core_distance = np.sqrt(np.einsum("pj,pj->p", run.v, run.v))
        margin_a, margin_b = self.margin_a[rows], self.margin_b[rows]
        margin = margin_a + margin_b
        tolerance, touch = self.tolerance[rows], self.touch_tolerance[rows]
        signed = core_distance - margin + 0.0
        lower = np.minimum(run.lower - margin, signed)
        upper = np.maximum(core_distance - margin, signed)
        # 'converged' only where the bounds really meet the tolerance; ``collide`` decides the others.
        certain = (run.outcome == _CAPPED) | ((run.outcome == _SEPARATED) & (upper - lower <= tolerance))
        clear = np.flatnonzero(certain & (core_distance > 2.0 * tolerance)
                               & (np.abs(np.abs(signed) - touch) > 2.0 * tolerance))
        toward = -run.v[clear]
        normal = toward * (1.0 / np.sqrt(np.einsum("pj,pj->p", toward, toward)))[:, None]  # v = 0 is never clear
        margin_a, margin_b = margin_a[clear, None], margin_b[clear, None]
        point_a = np.einsum("pk,pkj->pj", run.weights[clear], run.a[clear]) + margin_a * normal
        point_b = np.einsum("pk,pkj->pj", run.weights[clear], run.b[clear]) - margin_b * normal
        middle = 0.5 * (point_a + point_b)
        half = normal * (0.5 * signed[clear])[:, None]
        center = self.center[rows[clear]]
        return ApartPairs(rows[clear], signed[clear], normal + 0.0, middle - half + center, middle + half + center,
                          lower[clear], upper[clear], touch[clear], run.iterations[clear],
                          run.outcome[clear] == _SEPARATED)


class ApartPairs(NamedTuple):
    """Pairs of a batch that GJK found clearly apart, as columns (row ``k`` is pair ``index[k]``): what
    ``collide`` answers for them, without a ``Contact`` per pair. ``converged`` is False where GJK hit
    its iteration cap (still clearly apart: the bounds say so)."""

    index: np.ndarray
    signed_distance: np.ndarray
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    touch_tolerance: np.ndarray
    gjk_iterations: np.ndarray
    converged: np.ndarray

    @classmethod
    def none(cls) -> ApartPairs:
        """No pairs."""
        scalars, vectors = np.empty(0), np.empty((0, 3))
        return cls(np.empty(0, dtype=np.int64), scalars, vectors, vectors, vectors, scalars, scalars, scalars,
                   np.empty(0, dtype=np.int64), np.empty(0, dtype=bool))

    def take(self, rows) -> ApartPairs:
        """The rows ``rows`` (indices or a mask) of every column."""
        return ApartPairs(*(column[rows] for column in self))

    def statuses(self) -> list[str]:
        """``contact.classify`` of every row."""
        return [classify(value, band) for value, band in zip(self.signed_distance.tolist(),
                                                             self.touch_tolerance.tolist())]

    def solver_statuses(self) -> list[str]:
        """'converged', or 'iteration_limit' where GJK stopped at its cap, per row."""
        return np.where(self.converged, "converged", "iteration_limit").tolist()

    def contacts(self) -> list[Contact]:
        """A ``Contact`` per row, as ``collide`` builds it."""
        fields = zip(self.statuses(), self.signed_distance.tolist(), self.normal, self.point_a, self.point_b,
                     zip(self.lower.tolist(), self.upper.tolist()), self.touch_tolerance.tolist(),
                     self.gjk_iterations.tolist(), self.solver_statuses(), orthonormal_bases(self.normal))
        return [frozen_instance(Contact, status=status, signed_distance=value, normal=n, point_a=pa, point_b=pb,
                                bounds=bounds, tolerance=band, gjk_iterations=iterations, epa_iterations=0,
                                solver_status=solver, tangents=t)
                for status, value, n, pa, pb, bounds, band, iterations, solver, t in fields]


def orthonormal_bases(normals: np.ndarray) -> np.ndarray:
    """(P, 2, 3): ``vec3.orthonormal_basis`` of each unit normal, computed on all rows at once."""
    x, y, z = normals.T
    sign = np.copysign(1.0, z)
    a = -1.0 / (sign + z)
    b = x * y * a
    return np.stack([np.stack([1.0 + sign * x * x * a, sign * b, -sign * x], axis=1),
                     np.stack([b, sign + y * y * a, -y], axis=1)], axis=1)


def _subset(side: _Side, rows: np.ndarray) -> _Side:
    """The padded shapes ``rows`` of ``side`` (their points only: all the lockstep reads)."""
    if len(rows) == len(side.points):
        return side
    chosen = object.__new__(_Side)
    chosen.points = side.points[rows]
    return chosen
