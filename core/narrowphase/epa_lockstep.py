"""EPA on many overlapping pairs at once: each pair's GJK and seed tetrahedron found as ``collide`` finds them, then
every polytope grown in lockstep over numpy arrays (a row per pair still growing), each answer finished as
``collide`` finishes it. See docs/architecture.md, section "Narrow phase: EPA in lockstep".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..contact import Contact
from ..shapes.convex import Polytope
from ..vector.arrays import dot
from .collide import PreparedPair, after_epa, pair_contacts, seeded_many, solve_pair
from .epa import SEED_FACES, EpaResult, polytope_answer
from .stacked_simplex import closest_on_triangles
from .gjk_lockstep import MAX_VERTICES, StackedShapes, stacked_sides
from .warm_epa import corner_planes

#: Steps grown in lockstep; a pair still growing after them (below its own cap) is solved by ``collide``.
MAX_STEPS = 512

_RUNNING, _CONVERGED, _STALLED, _CAPPED, _ALONE = range(5)
_STATUS = {_CONVERGED: "converged", _STALLED: "stalled", _CAPPED: "iteration_limit"}
_NEXT_SLOT = np.array([1, 2, 0])


def collide_overlapping(shapes_a: Sequence, shapes_b: Sequence, *, tolerance: float | None = None,
                        touch_tolerance: float | None = None, max_iterations: int | None = None) -> list[Contact]:
    """``[collide(a, b, ...) for a, b in zip(shapes_a, shapes_b)]``, the EPA of pairs that overlap grown together.

    Polytopes of at most ``MAX_VERTICES`` vertices in pairs ``collide`` solves unscaled qualify; the others, and a
    pair whose points seen from a new support point do not form one region of faces (rounding), are solved by
    ``collide``. The answers are ``collide``'s to its tolerance: the same support points and faces, grown one step
    at a time, except where rounding ties (support points along a direction, faces at the same distance) are
    broken differently (see architecture)."""
    pairs = PreparedPair.many(shapes_a, shapes_b, tolerance, touch_tolerance, max_iterations)
    answers: list[Contact | None] = [None] * len(pairs)
    begun = []
    qualified = [k for k, pair in enumerate(pairs) if _qualifies(pair)]
    for k in sorted(set(range(len(pairs))) - set(qualified)):
        answers[k] = solve_pair(pairs[k])[0]
    sides = stacked_sides([pairs[k] for k in qualified]) if qualified else None  # GJK's stacked shapes, EPA's too
    seeds, whole = seeded_many([pairs[k] for k in qualified], arrays=True, sides=sides)
    whole_row = dict(zip(whole.index.tolist(), range(len(whole.index))))
    taken = []  # per pair begun: its row of ``whole``, or -1 when its seed is not GJK's tetrahedron kept whole
    positions = []  # per pair begun: its position among the qualified pairs (its row of ``sides``)
    for position, (k, begins) in enumerate(zip(qualified, seeds)):
        pair = pairs[k]
        if isinstance(begins[0], Contact):
            answers[k] = begins[0]
            continue
        result, seed = begins
        if seed.dimension < 3:
            answers[k] = after_epa(pair, result, seed, None)[0]
        else:
            begun.append((k, result, seed))
            taken.append(whole_row.get(position, -1))
            positions.append(position)
    if not begun:
        return answers
    vertices = _seed_vertices(begun, np.array(taken), whole)
    faces = _seed_faces(vertices[:, :, 0])
    flat = np.isnan(faces[3]).any(axis=1)  # a face of the seed flat to rounding: nothing to expand from
    for k, result, seed in (begun[row] for row in np.flatnonzero(flat).tolist()):
        answers[k] = after_epa(pairs[k], result, seed, None)[0]
    grown = [begun[row] for row in np.flatnonzero(~flat).tolist()]
    if grown:
        found = _Lockstep([pairs[k] for k, _result, _seed in grown], vertices[~flat],
                          [part[~flat] for part in faces], sides, np.array(positions)[~flat]).run()
        for (k, _result, _seed), contact in zip(grown, _after_epa([pairs[k] for k, _r, _s in grown], grown, found)):
            answers[k] = contact
    return answers


def _seed_vertices(begun: list, taken: np.ndarray, whole) -> np.ndarray:
    """The seeds' vertices (pairs, 4 corners, w a b, 3) of the pairs begun (``(k, GJK's result, seed)``): read from
    ``whole``'s arrays (``seeded_many``'s, the same floats) where ``taken`` names a row of them, else from the seed."""
    vertices = np.empty((len(begun), 4, 3, 3))
    kept = taken >= 0
    vertices[kept] = np.stack([whole.w, whole.a, whole.b], axis=2)[taken[kept]]
    rest = np.flatnonzero(~kept).tolist()
    if rest:
        vertices[rest] = np.array([begun[row][2].vertices for row in rest])
    return vertices


def _after_epa(pairs: list[PreparedPair], grown: list, found: list) -> list[Contact]:
    """``after_epa``'s answer of every pair ``(k, GJK's result, seed)`` from its lockstep answer (``collide``'s for a
    pair left to it), its arithmetic over all pairs at once (``pair_contacts``); a pair whose EPA answer misses the
    bounds while GJK's point is within them answers alone."""
    answers: list = [solve_pair(pair)[0] if epa is None else None for pair, epa in zip(pairs, found)]
    rows = [row for row, epa in enumerate(found) if epa is not None]
    if not rows:
        return answers
    results, seeds = [grown[row][1] for row in rows], [grown[row][2] for row in rows]
    epas = [found[row] for row in rows]
    here = [pairs[row] for row in rows]
    tolerance = np.array([pair.local_tolerance for pair in here])
    slack = np.array([pair.local_support_rounding for pair in here])
    gjk_lower, seed_lower = np.array([r.lower_bound for r in results]), np.array([s.lower_bound for s in seeds])
    gjk_distance = np.array([r.distance for r in results])
    epa_lower, epa_upper = np.array([e.lower_bound for e in epas]) - slack, np.array([e.upper_bound for e in epas])
    signed = np.array([e.signed_distance for e in epas])
    lower = np.where(seed_lower > gjk_lower, seed_lower, gjk_lower) - slack  # Python's max and min, as they pick
    low = np.where(lower > epa_lower, lower, epa_lower)
    high = np.where(gjk_distance < epa_upper, gjk_distance, epa_upper)
    wide, narrow = (high - low > tolerance).tolist(), (high - low <= tolerance).tolist()
    statuses = ["stalled" if apart and e.status == "converged" else ("converged" if close else e.status)
                for apart, close, e in zip(wide, narrow, epas)]
    misses = ~((low - tolerance <= signed) & (signed <= high + tolerance))
    alone = misses & (0.0 < gjk_distance) & (gjk_distance <= high + tolerance)
    for k in np.flatnonzero(alone).tolist():
        answers[rows[k]] = after_epa(here[k], results[k], seeds[k], epas[k])[0]
    keep = np.flatnonzero(~alone).tolist()
    if not keep:
        return answers
    contacts = pair_contacts([here[k] for k in keep], signed[keep], np.array([epas[k].normal for k in keep]),
                             np.array([epas[k].point_a for k in keep]), np.array([epas[k].point_b for k in keep]),
                             np.column_stack([low[keep], high[keep]]), [results[k].iterations for k in keep],
                             [epas[k].iterations for k in keep], [statuses[k] for k in keep])
    for k, contact in zip(keep, contacts):
        answers[rows[k]] = contact
    return answers


def _qualifies(pair: PreparedPair) -> bool:
    return (pair.unit == 1.0 and pair.margin == 0.0
            and all(isinstance(shape, Polytope) and len(shape.vertices()) <= MAX_VERTICES
                    for shape in (pair.local_a, pair.local_b)))


class _Side:
    """One side's shapes (A's or B's, in their pairs' frames): local points padded with the first, the linear part
    that turns a direction into their frame (where it is not the identity), and the points placed as their
    ``support`` places them (``warm_epa.placed_gathered``'s arithmetic)."""

    def __init__(self, stacked: StackedShapes, rows: np.ndarray):
        """The shapes ``rows`` of ``stacked`` (GJK's), padded to the most points among them."""
        self.local = stacked.points[rows, :int(stacked.counts[rows].max())]
        self.turned, self.linear = stacked.turned[rows], stacked.linear[rows]
        shift = stacked.offset[rows] + 0.0
        self.placed = self.local + shift[:, None, :]
        if self.turned.any():
            linear, points = self.linear[self.turned, None], self.local[self.turned]
            self.placed[self.turned] = (linear[:, :, :, 0] * points[:, :, 0:1] + linear[:, :, :, 1] * points[:, :, 1:2]
                                        + linear[:, :, :, 2] * points[:, :, 2:3] + shift[self.turned, None, :])

    def support(self, directions: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The support points of the shapes ``rows`` along ``directions`` (world, one per row): the direction taken
        into the shape's frame as ``Shape.support`` takes it, the first of the highest points there. (An unturned
        shape takes the direction as it is: the identity's products and sums give the same values, up to the signs
        of zeros, which no comparison sees.)"""
        turned = self.turned[rows]
        local = directions
        if turned.any():
            local = directions.copy()
            local[turned] = (self.linear[rows[turned]] * directions[turned, :, None]).sum(axis=1)
        best = (self.local[rows] @ local[:, :, None])[:, :, 0].argmax(axis=1)
        return self.placed[rows, best]


class _Lockstep:
    """The polytopes of every pair as arrays: vertices (points of A - B with their support points on A and B),
    faces (corners wound outward, plane as ``epa.plane_of``, the faces across their edges ij, jk, ki; a removed or
    unused face at distance inf), grown as ``EpaPolytope.grow`` grows each."""

    def __init__(self, pairs: list[PreparedPair], seeds: np.ndarray, faces: tuple, sides: tuple, rows: np.ndarray):
        """``seeds`` are the pairs' seed tetrahedra (pairs, 4 corners, w a b, 3), ``faces`` their faces
        (``_seed_faces``), ``sides`` the stacked shapes of A and B (``stacked_sides``) whose ``rows`` they are."""
        self.pairs, count = pairs, len(pairs)
        self.side_a, self.side_b = _Side(sides[0], rows), _Side(sides[1], rows)
        self.tolerance = np.array([pair.local_solver_tolerance for pair in pairs])
        self.rounding = np.array([pair.local_rounding for pair in pairs])
        self.cap = np.array([pair.max_iterations for pair in pairs])
        self.w, self.a, self.b = (np.zeros((count, 16, 3)) for _ in range(3))
        self.w[:, :4], self.a[:, :4], self.b[:, :4] = seeds[:, :, 0], seeds[:, :, 1], seeds[:, :, 2]
        self.vertex_count = np.full(count, 4)
        self.corners = np.zeros((count, 32, 3), dtype=np.int64)
        self.across = np.zeros((count, 32, 3), dtype=np.int64)
        self.normal = np.zeros((count, 32, 3))
        self.distance = np.full((count, 32), np.inf)
        self.error = np.zeros((count, 32))
        self.face_count = np.full(count, 4)
        (self.corners[:, :4], self.across[:, :4], self.normal[:, :4], self.distance[:, :4],
         self.error[:, :4]) = faces
        self.state = np.full(count, _RUNNING)
        self.iterations = np.zeros(count, dtype=np.int64)
        self.min_support = np.full(count, np.inf)
        # The face whose normal gave ``min_support`` and its distance then (growing removes the face from the
        # arrays, whereas ``EpaPolytope.grow`` keeps the face itself).
        self.tightest = np.zeros(count, dtype=np.int64)
        self.tightest_distance = np.zeros(count)

    def run(self) -> list:
        """Each pair's ``EpaResult``, or None for a pair left to ``collide``."""
        self.grow()
        return self._answers()

    def grow(self) -> None:
        """Grow every polytope in lockstep until it converges, stalls or meets its cap."""
        for step in range(1, min(MAX_STEPS, int(self.cap.max())) + 1):
            rows = np.flatnonzero(self.state == _RUNNING)
            if rows.size == 0:
                break
            self._step(rows, step)
        self.state[self.state == _RUNNING] = _ALONE  # (still growing after ``MAX_STEPS``)

    def _step(self, rows: np.ndarray, step: int) -> None:
        """One step of ``EpaPolytope.grow`` for the pairs ``rows``."""
        # (Only the faces and vertices these pairs use: the arrays are as wide as the largest polytope needs.)
        faces = int(self.face_count[rows].max())
        distance = self.distance[rows, :faces]
        here = np.arange(len(rows))
        closest = distance.argmin(axis=1)  # the heap's first: the smallest distance, then the lowest face id
        normal, face_distance = self.normal[rows, closest], distance[here, closest]
        a = self.side_a.support(normal, rows)
        b = self.side_b.support(-normal, rows)
        w = a - b
        height = normal[:, 0] * w[:, 0] + normal[:, 1] * w[:, 1] + normal[:, 2] * w[:, 2]
        self.iterations[rows] = step
        lower = height < self.min_support[rows]
        self.min_support[rows[lower]], self.tightest[rows[lower]] = height[lower], closest[lower]
        self.tightest_distance[rows[lower]] = face_distance[lower]
        converged = height - face_distance <= self.tolerance[rows]
        vertices = int(self.vertex_count[rows].max())
        known = ((self.w[rows, :vertices] == w[:, None, :]).all(axis=2)
                 & (np.arange(vertices) < self.vertex_count[rows, None])).any(axis=1)
        self.state[rows[converged]] = _CONVERGED
        self.state[rows[known & ~converged]] = _STALLED  # nothing new to add, yet the bounds are apart
        growing = ~converged & ~known
        if growing.any():
            rows = rows[growing]
            self._expand(rows, closest[growing], w[growing], a[growing], b[growing], distance[growing], faces)
            self.state[rows[(self.state[rows] == _RUNNING) & (step >= self.cap[rows])]] = _CAPPED

    def _expand(self, rows, closest, w, a, b, distances, faces) -> None:
        """``EpaPolytope.visible_region`` and ``expand`` for the pairs ``rows`` and their new points ``w``, whose
        faces' distances are ``distances`` (rows, faces: their first ``faces`` faces, all they use)."""
        normals, here = self.normal[rows, :faces], np.arange(len(rows))
        seen = (normals[:, :, 0] * w[:, 0, None] + normals[:, :, 1] * w[:, 1, None] + normals[:, :, 2] * w[:, 2, None]
                - distances > self.rounding[rows, None])
        seen[here, closest] = True
        across = self.across[rows, :faces]
        horizon = seen[:, :, None] & ~seen[here[:, None, None], across]
        pair, face, slot = np.nonzero(horizon)  # pair by pair
        owner = rows[pair]
        start, end = self.corners[owner, face, slot], self.corners[owner, face, _NEXT_SLOT[slot]]
        hidden = across[pair, face, slot]
        counts = np.bincount(pair, minlength=len(rows))
        first = np.cumsum(counts) - counts
        following, preceding, loops = _loops(pair, start, end, first, counts, self.w.shape[1])
        normal, distance, error = corner_planes(self.w[owner, start], self.w[owner, end], w[pair])
        flat = np.zeros(len(rows), dtype=bool)
        flat[pair[np.isnan(distance)]] = True  # a new face with no area: ``expand`` refuses, EPA stops
        self.state[rows[~loops]] = _ALONE  # (the faces seen are not the one region ``visible_region`` finds)
        self.state[rows[loops & flat]] = _STALLED
        ok = loops & ~flat
        if not ok.all():
            keep = ok[pair]
            pair, start, end, hidden = pair[keep], start[keep], end[keep], hidden[keep]
            normal, distance, error = normal[keep], distance[keep], error[keep]
            renumber = np.cumsum(keep) - 1
            following, preceding = renumber[following[keep]], renumber[preceding[keep]]
            counts = np.where(ok, counts, 0)
            first = np.cumsum(counts) - counts
            seen &= ok[:, None]
        self._make_room(rows, counts)
        new_vertex = self.vertex_count[rows]
        grown = rows[ok]
        self.w[grown, new_vertex[ok]], self.a[grown, new_vertex[ok]], self.b[grown, new_vertex[ok]] = w[ok], a[ok], b[ok]
        self.vertex_count[grown] += 1
        removed_pair, removed_face = np.nonzero(seen)
        self.distance[rows[removed_pair], removed_face] = np.inf
        owner = rows[pair]
        ids = self.face_count[owner] + (np.arange(len(pair)) - first[pair])
        self.corners[owner, ids] = np.column_stack([start, end, new_vertex[pair]])
        self.across[owner, ids] = np.column_stack([hidden, ids[following], ids[preceding]])
        self.normal[owner, ids], self.distance[owner, ids], self.error[owner, ids] = normal, distance, error
        back = self.corners[owner, hidden]  # the hidden face's slot that pointed at the removed face
        self.across[owner, hidden, np.where(back[:, 0] == end, 0, np.where(back[:, 1] == end, 1, 2))] = ids
        self.face_count[rows] += counts

    def _make_room(self, rows: np.ndarray, counts: np.ndarray) -> None:
        """Grow the arrays when a pair's new faces or vertex would not fit."""
        faces = int((self.face_count[rows] + counts).max())
        if faces > self.distance.shape[1]:
            extra = max(faces, 2 * self.distance.shape[1]) - self.distance.shape[1]
            count = len(self.pairs)
            self.corners = np.concatenate([self.corners, np.zeros((count, extra, 3), dtype=np.int64)], axis=1)
            self.across = np.concatenate([self.across, np.zeros((count, extra, 3), dtype=np.int64)], axis=1)
            self.normal = np.concatenate([self.normal, np.zeros((count, extra, 3))], axis=1)
            self.distance = np.concatenate([self.distance, np.full((count, extra), np.inf)], axis=1)
            self.error = np.concatenate([self.error, np.zeros((count, extra))], axis=1)
        if int(self.vertex_count[rows].max()) + 1 > self.w.shape[1]:
            extra = self.w.shape[1]
            self.w, self.a, self.b = (np.concatenate([x, np.zeros((len(self.pairs), extra, 3))], axis=1)
                                      for x in (self.w, self.a, self.b))

    def facets(self) -> tuple[np.ndarray, np.ndarray]:
        """``epa._finish``'s first pass over every pair's faces: the closest face's facet (faces within the rounding
        of its distance and aligned with it) as a mask (pairs, faces), and the smallest face distance lowered by its
        error."""
        distance, error, normal = self.distance, self.error, self.normal
        here = np.arange(len(self.pairs))
        best = distance.argmin(axis=1)
        best_distance, best_normal = distance[here, best], normal[here, best]
        certified = np.where(np.isinf(distance), np.inf, distance - error).min(axis=1)
        aligned = (normal[:, :, 0] * best_normal[:, 0, None] + normal[:, :, 1] * best_normal[:, 1, None]
                   + normal[:, :, 2] * best_normal[:, 2, None]) >= 1.0 - 1e-6
        return (distance - best_distance[:, None] <= self.rounding[:, None]) & aligned & ~np.isinf(distance), certified

    def _answers(self) -> list:
        """``epa._finish`` of every pair's polytope (None for a pair left to ``collide``): ``polytope_answer``'s
        arithmetic over all pairs at once; a pair whose origin lies outside its facet answers alone (``answer_of``)."""
        distance, error, normal = self.distance, self.error, self.normal
        facets, certified = self.facets()
        rows = np.flatnonzero(self.state != _ALONE)
        facets, tightest, tolerance = facets[rows], self.tightest[rows], self.tolerance[rows]
        lower, upper = -self.min_support[rows], np.where(certified[rows] > 0.0, -certified[rows], np.inf)
        # The facet's face with the smallest error (the first of them), the tightest face's normal when it is one
        # of the facet's; the tightest face alone when the facet's distance misses the bounds.
        chosen = np.where(facets, error[rows], np.inf).argmin(axis=1)
        face_normal, face_distance = normal[rows, chosen], distance[rows, chosen]
        face_error = error[rows, chosen]
        within = np.arange(len(rows))
        face_normal = np.where(facets[within, tightest][:, None], normal[rows, tightest], face_normal)
        misses = ~((lower - tolerance <= -face_distance) & (-face_distance <= upper + tolerance))
        face_normal[misses] = normal[rows, tightest][misses]
        face_distance[misses] = self.tightest_distance[rows][misses]
        face_error[misses] = error[rows, tightest][misses]
        facets[misses] = False
        facets[within[misses], tightest[misses]] = True
        outside = face_distance < -face_error  # the answer is then the facet's point nearest the origin
        answers: list = [None] * len(self.pairs)
        for k in np.flatnonzero(outside).tolist():
            answers[rows[k]] = self.answer_of(int(rows[k]), np.flatnonzero(facets[k]), float(certified[rows[k]]))
        keep = ~outside
        rows, facets, tightest, lower, upper = rows[keep], facets[keep], tightest[keep], lower[keep], upper[keep]
        face_normal, face_distance = face_normal[keep], face_distance[keep]
        target = face_normal * face_distance[:, None]
        face_row, face_id = np.nonzero(facets)  # row by row, faces in the polytope's order
        corners = self.corners[rows[face_row], face_id]
        offsets = self.w[rows[face_row, None], corners] - target[face_row, None, :]
        point, weights = closest_on_triangles(offsets[:, 0], offsets[:, 1], offsets[:, 2])
        # Each row's first face with the nearest point.
        faces_of = np.bincount(face_row, minlength=len(rows))
        first = np.cumsum(faces_of) - faces_of
        nearest, nearest2 = first.copy(), dot(point, point)
        for k in range(1, int(faces_of.max(initial=1))):
            more = np.flatnonzero(faces_of > k)
            closer = more[nearest2[first[more] + k] < nearest2[nearest[more]]]
            nearest[closer] = first[closer] + k
        weights, corners = weights[nearest], corners[nearest]
        points_w, points_a, points_b = (_mixed(weights, points[rows[:, None], corners]) for points in (self.w, self.a,
                                                                                                     self.b))
        length = np.sqrt(dot(points_w, points_w))
        upper = np.where(length < upper, length, upper)
        for row, signed, normal_here, point_a, point_b, low, high in zip(
                rows.tolist(), (-face_distance).tolist(), face_normal.tolist(), points_a.tolist(), points_b.tolist(),
                lower.tolist(), upper.tolist()):
            answers[row] = EpaResult(signed, tuple(normal_here), tuple(point_a), tuple(point_b), low, high,
                                     int(self.iterations[row]), _STATUS[int(self.state[row])])
        return answers

    def answer_of(self, row: int, facet: np.ndarray, certified: float) -> EpaResult:
        """``polytope_answer`` of one pair, from its ``facet`` (face ids in the polytope's order) and ``certified``
        (see ``facets``)."""
        def face_of(face: int, distance: float) -> list:  # a face as ``EpaPolytope`` holds it
            return [*self.corners[row, face].tolist(), tuple(self.normal[row, face].tolist()), distance,
                    float(self.error[row, face])]

        faces = [face_of(face, float(self.distance[row, face])) for face in facet.tolist()]
        tightest = face_of(int(self.tightest[row]), float(self.tightest_distance[row]))
        used = {index: (tuple(self.w[row, index].tolist()), tuple(self.a[row, index].tolist()),
                        tuple(self.b[row, index].tolist())) for face in faces + [tightest] for index in face[:3]}
        return polytope_answer(used, faces, tightest, certified, float(self.min_support[row]),
                               int(self.iterations[row]), _STATUS[int(self.state[row])], float(self.tolerance[row]))


def _mixed(weights: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``vec3.combine`` of each row's weights (R, 3) and points (R, 3, 3): the sum from 0.0, in the points' order."""
    return ((0.0 + weights[:, 0, None] * points[:, 0]) + weights[:, 1, None] * points[:, 1]) \
        + weights[:, 2, None] * points[:, 2]


def _seed_faces(points: np.ndarray) -> tuple[np.ndarray, ...]:
    """The faces ``epa.EpaPolytope`` starts from on each seed tetrahedron (pairs, 4 corners, 3): ``(corners,
    across, normal, distance, error)`` (pairs, 4, ...), planes as ``plane_of`` gives them (a face flat to rounding
    has NaN ones) and wound as ``EpaPolytope`` winds them (outward by the corner farthest from its opposite face)."""
    count = len(points)
    corners = points[:, _SEED_FACES]  # (pairs, 4 faces, 3 corners, 3)
    normal, distance, error = (part.reshape(count, 4, *part.shape[1:]) for part in corner_planes(
        *(corners[:, :, slot].reshape(-1, 3) for slot in range(3))))
    opposite = points[:, _SEED_OPPOSITE]
    heights = (normal[:, :, 0] * opposite[:, :, 0] + normal[:, :, 1] * opposite[:, :, 1]
               + normal[:, :, 2] * opposite[:, :, 2]) - distance
    inward = ~(heights[np.arange(count), np.abs(heights).argmax(axis=1)] < 0.0)
    normal[inward], distance[inward] = normal[inward] * -1.0, -distance[inward]
    return (np.where(inward[:, None, None], _SEED_FACES[:, _TURNED], _SEED_FACES),
            np.where(inward[:, None, None], _SEED_ACROSS[1], _SEED_ACROSS[0]), normal, distance, error)


def _across(faces: np.ndarray) -> np.ndarray:
    """The faces across each face's edges ij, jk, ki in a closed mesh of triangles wound one way."""
    owners = {(face[slot], face[(slot + 1) % 3]): face_id for face_id, face in enumerate(faces.tolist())
              for slot in range(3)}
    return np.array([[owners[face[(slot + 1) % 3], face[slot]] for slot in range(3)] for face in faces.tolist()])


#: ``epa``'s seed faces, the corner opposite each, the faces' corners wound the other way (i, k, j), and the faces
#: across their edges wound either way.
_SEED_FACES = np.array(SEED_FACES)
_SEED_OPPOSITE = np.array([3, 2, 1, 0])
_TURNED = np.array([0, 2, 1])
_SEED_ACROSS = np.array([_across(_SEED_FACES), _across(_SEED_FACES[:, _TURNED])])


def _loops(pair: np.ndarray, start: np.ndarray, end: np.ndarray, first: np.ndarray, counts: np.ndarray,
           vertices: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For horizon edges ``start -> end`` (grouped by ``pair``, each pair's from ``first``): each edge's following
    and preceding edge, and per pair whether its edges form one closed loop through distinct vertices
    (``epa._single_loop``)."""
    total, pairs = len(pair), len(counts)
    starting = np.full(pairs * vertices, -1, dtype=np.int64)
    starting[pair * vertices + start] = np.arange(total)
    distinct = np.bincount(pair * vertices + start, minlength=pairs * vertices).reshape(pairs, -1).max(axis=1) <= 1
    following = starting[pair * vertices + end]
    broken = np.zeros(pairs, dtype=bool)
    broken[pair[following < 0]] = True
    following = np.where(following < 0, np.arange(total), following)
    preceding = np.empty(total, dtype=np.int64)
    preceding[following] = np.arange(total)
    # One loop: every edge reaches its pair's first by following (pointer jumping: the least edge of each cycle).
    least, jump = np.arange(total), following
    for _ in range(int(counts.max(initial=1)).bit_length()):
        least = np.minimum(least, least[jump])
        jump = jump[jump]
    one = np.ones(pairs, dtype=bool)
    one[pair[least != first[pair]]] = False
    return following, preceding, distinct & ~broken & one & (counts >= 3)
