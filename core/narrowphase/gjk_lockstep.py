"""``gjk.gjk`` of many prepared pairs at once, as ``collide`` starts it (from the pair's first direction, to its
solver tolerance): every pair still running takes one step per round over numpy arrays, and ends on the same
simplex, weights, bounds and iteration count as alone, bit for bit. See docs/architecture.md, section
"Narrow phase: GJK in lockstep".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..shapes.convex import IDENTITY, Polytope
from ..vector.arrays import cross, dot
from .gjk import GjkResult
from .stacked_simplex import closest_on_segments, closest_on_tetrahedra, closest_on_triangles

#: Shapes with more vertices than this answer their supports alone (an index or a table answers them faster).
MAX_VERTICES = 1024
#: How far apart (relative to the numbers a support's dot products add up) the highest and the next highest value
#: along a direction must be for the stacked products to pick the point the shape's own support picks, whatever
#: the order or fusing of their roundings (four times the 3-term bound, and more): nearer, the shape decides.
_SUPPORT_SLACK = 2.0 ** -48
_NO_BODY = np.zeros((1, 3))  # stands in for a shape that answers its supports alone


class WholeSeeds(NamedTuple):
    """The pairs (``index``, positions in the list given) whose GJK enclosed the origin in a tetrahedron that
    ``epa.expand_simplex`` keeps whole as its seed, and that tetrahedron's vertices: ``w`` (points of A - B), ``a``
    and ``b`` (their support points), each (len(index), 4, 3) in the seed's order."""

    index: np.ndarray
    w: np.ndarray
    a: np.ndarray
    b: np.ndarray


def gjk_many(pairs: list, seed_tolerance: np.ndarray | None = None,
             sides: tuple[StackedShapes, StackedShapes] | None = None) -> tuple[list[GjkResult], WholeSeeds]:
    """``gjk(pair.support, pair.first_direction(), tolerance=pair.local_solver_tolerance,
    max_iterations=pair.max_iterations)`` of every ``PreparedPair`` (solved unscaled, ``pair.unit == 1``), and the
    pairs whose GJK tetrahedron ``epa.expand_simplex`` at ``seed_tolerance`` (one per pair) keeps whole (none
    without ``seed_tolerance``). ``sides`` are the pairs' ``stacked_sides`` when the caller has them already."""
    count = len(pairs)
    enclosing = np.zeros((count, 3, 4, 3))  # w, a, b of the tetrahedron about the origin where GJK found one
    kept_whole = np.zeros(count, dtype=bool)
    if count == 0:
        return [], WholeSeeds(np.zeros(0, dtype=np.int64), *enclosing.transpose(1, 0, 2, 3))
    side_a, side_b = stacked_sides(pairs) if sides is None else sides
    tolerance = np.array([pair.local_solver_tolerance for pair in pairs])
    cap = np.array([pair.max_iterations for pair in pairs])
    everyone = np.arange(count)

    def support(directions: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a, b = side_a.support(directions, rows), side_b.support(-directions, rows)
        return a - b, a, b

    # The simplex: slots 0..size-1 of w, a, b (the vertices of A - B and their support points), with its weights.
    w, a, b = np.zeros((count, 4, 3)), np.zeros((count, 4, 3)), np.zeros((count, 4, 3))
    size, weights = np.ones(count, dtype=np.int64), np.zeros((count, 4))
    weights[:, 0] = 1.0
    w[:, 0], a[:, 0], b[:, 0] = support(first_directions(pairs), everyone)
    v = w[:, 0].copy()
    lower, best = np.full(count, -np.inf), np.zeros((count, 3))
    results: list = [None] * count

    def finish(rows: np.ndarray, overlapping, status, iterations: int, normal=None, closest=None,
               simplex=None) -> None:
        """``GjkResult`` of the pairs ``rows`` (from their current simplex, or the given candidate one)."""
        if rows.size == 0:
            return
        points = v[rows] if closest is None else closest
        taken_w, taken_a, taken_b, used, taken_weights = (w[rows], a[rows], b[rows], size[rows], weights[rows]) \
            if simplex is None else simplex
        flags = np.broadcast_to(overlapping, rows.shape).tolist()
        statuses = [status] * len(rows) if isinstance(status, str) else status
        # Flat lists of floats, read by index: a list per row and slot (``tolist`` of the stacks) would be thousands
        # of short-lived lists a chunk, which set off the garbage collector's full passes over the whole heap.
        simplex_w, simplex_a, simplex_b, slot_weights, point, direction = (
            x.ravel().tolist() for x in (taken_w, taken_a, taken_b, taken_weights, points,
                                         points if normal is None else normal))
        for k, (row, n, low, flag, state) in enumerate(zip(rows.tolist(), used.tolist(), lower[rows].tolist(), flags,
                                                          statuses)):
            vertices = [((simplex_w[i], simplex_w[i + 1], simplex_w[i + 2]),
                         (simplex_a[i], simplex_a[i + 1], simplex_a[i + 2]),
                         (simplex_b[i], simplex_b[i + 1], simplex_b[i + 2])) for i in range(12 * k, 12 * k + 3 * n, 3)]
            results[row] = GjkResult(flag, (point[3 * k], point[3 * k + 1], point[3 * k + 2]), vertices,
                                     tuple(slot_weights[4 * k:4 * k + n]), low, iterations, state,
                                     None if normal is None else
                                     (direction[3 * k], direction[3 * k + 1], direction[3 * k + 2]))

    running = everyone
    iteration = 0
    while running.size:
        iteration += 1
        capped = cap[running] < iteration
        if capped.any():  # the loop ran out: overlapping only if v lies on the origin
            rows = running[capped]
            finish(rows, dot(v[rows], v[rows]) <= 0.0, "iteration_limit", iteration - 1)
            running = running[~capped]
        here = v[running]
        vv = dot(here, here)
        met = vv <= 0.0
        if met.any():
            finish(running[met], True, "converged", iteration - 1)
            running, here, vv = running[~met], here[~met], vv[~met]
        length = np.sqrt(vv)
        direction = here * (-1.0 / length)[:, None]  # unit: a tiny v would underflow in the support products
        new_w, new_a, new_b = support(direction, running)
        along_v = -dot(direction, new_w)
        better = along_v > lower[running]
        lower[running[better]], best[running[better]] = along_v[better], direction[better]
        tolerance_here = tolerance[running]
        # Stop on the gap along the current direction, so the reported normal achieves the value.
        gap = length - along_v <= tolerance_here
        finish(running[gap], False, "converged", iteration, normal=direction[gap])
        slots = np.arange(4) < size[running, None]
        repeated = ~gap & ((w[running] == new_w[:, None, :]).all(axis=2) & slots).any(axis=1)
        rows = running[repeated]
        finish(rows, False, _settled(length[repeated], lower[rows], tolerance_here[repeated]), iteration,
               normal=best[rows])
        going = ~gap & ~repeated
        running, vv, length, tolerance_here = running[going], vv[going], length[going], tolerance_here[going]
        new_w, new_a, new_b = new_w[going], new_a[going], new_b[going]
        candidate_size = size[running] + 1
        candidate = [x[running] for x in (w, a, b)]
        here = np.arange(len(running))
        for x, new in zip(candidate, (new_w, new_a, new_b)):
            x[here, candidate_size - 1] = new
        closest, candidate_weights, enclosed = closest_on_simplices(candidate[0], candidate_size)
        whole = enclosed & (candidate_size == 4)
        enclosing[running[whole]] = np.stack(candidate, axis=1)[whole]
        kept_whole[running[whole]] = True
        finish(running[enclosed], True, "converged", iteration, closest=np.zeros((int(enclosed.sum()), 3)),
               simplex=(*(x[enclosed] for x in candidate), candidate_size[enclosed], candidate_weights[enclosed]))
        stuck = ~enclosed & (dot(closest, closest) >= vv)
        rows = running[stuck]
        finish(rows, False, _settled(length[stuck], lower[rows], tolerance_here[stuck]), iteration,
               normal=best[rows])
        going = ~enclosed & ~stuck
        running = running[going]
        # The candidate's vertices of positive weight, in order, are the new simplex.
        kept = candidate_weights[going] > 0.0
        order = np.argsort(~kept, axis=1, kind="stable")
        rows = np.arange(len(running))[:, None]
        for x, new in zip((w, a, b), candidate):
            x[running] = new[going][rows, order]
        weights[running] = np.where(kept, candidate_weights[going], 0.0)[rows, order]
        size[running] = kept.sum(axis=1)
        v[running] = closest[going]
    rows = np.flatnonzero(kept_whole) if seed_tolerance is not None else np.zeros(0, dtype=np.int64)
    rows = rows[whole_seeds(enclosing[rows, 0], seed_tolerance[rows])] if rows.size else rows
    return results, WholeSeeds(rows, *enclosing[rows].transpose(1, 0, 2, 3))


def first_directions(pairs: list) -> np.ndarray:
    """``pair.first_direction()`` of every pair (P, 3)."""
    toward = np.array([pair.a_to_b for pair in pairs])
    return np.where((np.sqrt(dot(toward, toward)) > 0.0)[:, None], toward * -1.0, (1.0, 0.0, 0.0))


def whole_seeds(points: np.ndarray, tolerance: np.ndarray) -> np.ndarray:
    """Per tetrahedron of ``points`` (m, 4, 3: vertices of A - B), whether ``epa.expand_simplex`` keeps it whole as
    its seed: its vertices more than ``tolerance`` apart and none within it of the plane of the other three
    (``epa._thinnest_height``'s arithmetic); False where that is not certain (numbers that are not finite)."""
    corner = [points[:, k] for k in range(4)]
    apart = np.ones(len(points), dtype=bool)
    for i in range(4):
        for j in range(i):
            step = corner[i] - corner[j]
            apart &= np.sqrt(dot(step, step)) > tolerance
    volume6 = abs(dot(cross(corner[1] - corner[0], corner[2] - corner[0]), corner[3] - corner[0]))
    for skip in range(4):
        p, q, r = (corner[k] for k in range(4) if k != skip)
        area = cross(q - p, r - p)
        area2 = np.sqrt(dot(area, area))
        with np.errstate(all="ignore"):
            apart &= (area2 > 0.0) & (volume6 / area2 > tolerance)
    return apart


def _settled(length: np.ndarray, lower: np.ndarray, tolerance: np.ndarray) -> list[str]:
    """``gjk._settled`` of each row."""
    return np.where(length - lower <= tolerance, "converged", "stalled").tolist()


def closest_on_simplices(points: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``gjk.closest_on_simplex`` of each row's first ``sizes[row]`` (1-4) slots of ``points`` (m, 4, 3): the points,
    the weights (m, 4; 0 in the unused slots) and whether the origin is enclosed."""
    count = len(points)
    closest, weights, enclosed = np.empty((count, 3)), np.zeros((count, 4)), np.zeros(count, dtype=bool)
    rows = sizes == 1
    closest[rows], weights[rows, 0] = points[rows, 0], 1.0
    rows = sizes == 2
    if rows.any():
        closest[rows], weights[rows, :2] = closest_on_segments(points[rows, 0], points[rows, 1])
    rows = sizes == 3
    if rows.any():
        closest[rows], weights[rows, :3] = closest_on_triangles(points[rows, 0], points[rows, 1], points[rows, 2])
    rows = sizes == 4
    if rows.any():
        closest[rows], weights[rows], enclosed[rows] = closest_on_tetrahedra(points[rows])
    return closest, weights, enclosed


def stacked_sides(pairs: list) -> tuple[StackedShapes, StackedShapes]:
    """The ``StackedShapes`` of the pairs' A shapes and of their B shapes (in the pairs' frames)."""
    return StackedShapes([pair.local_a for pair in pairs]), StackedShapes([pair.local_b for pair in pairs])


class StackedShapes:
    """One side's shapes (A's or B's, in their pairs' frames) for stacked supports: local points padded to a common
    count with each shape's first point (``counts`` of them its own), linear parts and offsets as ``Shape.support``
    uses them. A shape that is no small ``Polytope`` with a plain scan for its supports answers through its own
    ``support``."""

    def __init__(self, shapes: list):
        self.shapes = shapes
        bodies, alone, offset, turned, linear = [], [], [], [], []
        for shape in shapes:
            # (Clouds this small have no support table or index: ``Polytope`` scans them, as here.)
            body = shape.vertices() if isinstance(shape, Polytope) else None
            if body is None or len(body) > MAX_VERTICES:
                body = _NO_BODY
            bodies.append(body)
            alone.append(body is _NO_BODY)
            matrix, translation = shape.affine
            offset.append(translation)
            turned.append(matrix is not IDENTITY)
            if matrix is not IDENTITY:
                linear.append(matrix)
        self.alone, self.turned = np.array(alone), np.array(turned)
        self.counts = counts = np.array([len(body) for body in bodies])
        width = int(counts.max())
        self.unused = np.arange(width) >= counts[:, None]
        starts = np.cumsum(counts) - counts
        self.points = np.concatenate(bodies)[starts[:, None] + np.where(self.unused, 0, np.arange(width))]
        # The sum of a point's absolute coordinates, at most: bounds the numbers a support's dot products add up.
        self.reach = np.abs(self.points).sum(axis=2).max(axis=1)
        self.offset = np.concatenate(offset).reshape(-1, 3)  # (concatenating is quicker than stacking)
        self.linear = np.zeros((len(shapes), 3, 3))
        if linear:
            self.linear[self.turned] = np.concatenate(linear).reshape(-1, 3, 3)

    def support(self, directions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``shape.support(direction)`` of the shapes ``rows`` (world directions, one per row), as (len(rows), 3)."""
        local = directions.copy()
        turned = self.turned[rows]
        if turned.any():  # the direction into the shape's frame: (a dx + e dy) + h dz, ... as ``Shape.support``
            linear, d = self.linear[rows[turned]], directions[turned]
            local[turned] = (linear[:, 0] * d[:, 0, None] + linear[:, 1] * d[:, 1, None]) + linear[:, 2] * d[:, 2, None]
        points = self.points[rows]
        with np.errstate(all="ignore"):
            values = (points[:, :, 0] * local[:, 0, None] + points[:, :, 1] * local[:, 1, None]
                      + points[:, :, 2] * local[:, 2, None])
            values[self.unused[rows]] = -np.inf
            here = np.arange(len(rows))
            top = values.argmax(axis=1)
            highest = values[here, top]
            values[here, top] = -np.inf
            # A near tie (or a number that is not finite) is the shape's own to break.
            sure = highest - values.max(axis=1) > _SUPPORT_SLACK * self.reach[rows] * np.abs(local).max(axis=1)
        sure &= ~self.alone[rows]
        chosen = points[here, top]
        placed = chosen + self.offset[rows]
        if turned.any():  # ``Shape.placed``: ((a px + b py) + c pz) + tx, ...
            linear, p = self.linear[rows[turned]], chosen[turned]
            placed[turned] = ((linear[:, :, 0] * p[:, 0, None] + linear[:, :, 1] * p[:, 1, None])
                              + linear[:, :, 2] * p[:, 2, None]) + self.offset[rows[turned]]
        for k in np.flatnonzero(~sure).tolist():
            placed[k] = self.shapes[int(rows[k])].support(tuple(directions[k].tolist()))
        return placed
