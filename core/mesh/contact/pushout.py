"""A penetrating pair's push-out: the shortest one checked by the exact test over a few directions
(``certified_pushout``), and balls inside both solids, whose diameter bounds it from below."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import NamedTuple

import numpy as np

from ..distance import mesh_distance, nearest_on_surface
from ..inside import stacked_crossing_windings
from ..stacked import STACKED_TRIANGLES, StackedMeshes, segment_firsts
from ..pair_distances import ROUNDING, STACKED_TRIANGLE_PAIRS, mesh_distances, nearest_distances
from ..solid import Solid
from .containment import indices_in_box, points_inside, strided_sample

#: Bisection steps per push-out direction: the push-out is within 2^-steps of its bracket.
PUSHOUT_STEPS = 12
#: Witness points of a push-out are looked for at most this share of it apart first (its bisection leaves the moved
#: pair closer than its bracket, 2^-PUSHOUT_STEPS of the push-out when the bisection ran to the end); further only
#: when none are that close.
WITNESS_SEARCH = 2.0 ** (2 - PUSHOUT_STEPS)
#: Vertices sampled per object for ball centres of the depth's lower bound.
LOWER_BOUND_SAMPLES = 16
#: Bisection steps asked at once of an exact test that answers a batch for about the cost of one offset (small
#: meshes): 2^levels - 1 offsets a batch, a direction's bisection in PUSHOUT_STEPS / levels batches.
BATCH_LEVELS = 3
#: Gap ends (``pushout_gaps``) tried before bisecting, and how many the exact test is asked at once.
GAP_TRIES = 4
GAP_BATCH = 1
#: Relative slack of a ball's radius over half its vertex's depth (``_may_exceed``): the centre is that far inward
#: from the vertex, on the inner surface, up to a few roundings (some 1e-16).
BALL_SLACK = 1e-9
AXES = np.vstack([np.eye(3), -np.eye(3)])


def _slab(a: Solid, b: Solid, direction: np.ndarray) -> float:
    """How far B must move along ``direction`` to lie wholly beyond A's support plane: always enough."""
    return max(float((a.mesh.vertices @ direction).max() - (b.mesh.vertices @ direction).min()), 0.0)


def _axis_slabs(a: Solid, b: Solid) -> list[float]:
    """``_slab`` along each of the six ``AXES``, from the meshes' boxes: a vertex's product with an axis is its
    coordinate or its negation, exactly (a zero's sign aside, which shows only where both extremes are zeros: such
    an axis is measured as ``_slab`` measures it), so the products' extremes are the boxes' sides, bit for bit."""
    (low_a, high_a), (low_b, high_b) = a.mesh.box, b.mesh.box
    reaching = zip(high_a.tolist() + (-low_a).tolist(), low_b.tolist() + (-high_b).tolist())
    return [_slab(a, b, AXES[k]) if far == near == 0.0 else max(far - near, 0.0)
            for k, (far, near) in enumerate(reaching)]


def pushout_witnesses(a: Solid, b: Solid, depth: float, normal: np.ndarray, tolerance: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``(point_a, point_b)`` of the push-out ``depth * normal``, on the surfaces: where B so moved meets A. The moved
    pair's closest points are at most the push-out's bisection bracket apart; ``point_a`` is their midpoint and
    ``point_b`` that point moved back with B, so ``point_a - point_b == depth * normal`` and each point lies within
    half that bracket of its object's surface."""
    return pushout_witnesses_many([(a, b, depth, normal, tolerance)])[0]


def pushout_witnesses_many(requests: list[tuple[Solid, Solid, float, np.ndarray, float]]
                           ) -> list[tuple[np.ndarray, np.ndarray]]:
    """``pushout_witnesses`` of every ``(a, b, depth, normal, tolerance)``: small pairs' closest points found together
    (``pair_distances.mesh_distances``, B moved by its offset there, its triangles screened along the push-out's
    normal), larger ones down their triangle trees."""
    offsets = [depth * np.asarray(normal, dtype=np.float64) for _a, _b, depth, normal, _tolerance in requests]
    bounds = [max(depth * WITNESS_SEARCH, tolerance) for _a, _b, depth, _normal, tolerance in requests]
    small = [k for k, (a, b, *_rest) in enumerate(requests) if stacked_pair(a, b)]
    found = dict(zip(small, mesh_distances([(requests[k][0].mesh, requests[k][1].mesh) for k in small],
                                           [bounds[k] for k in small], np.array([offsets[k] for k in small]),
                                           np.array([requests[k][3] for k in small]))))
    answers = []
    for k, (a, b, *_rest) in enumerate(requests):
        if k in found:
            closest = found[k]
        else:
            moved = b.translated(offsets[k])
            closest = mesh_distance(a.mesh, moved.mesh, bvh_a=a.bvh, bvh_b=moved.bvh, upper_bound=bounds[k])
        middle = 0.5 * (closest.point_a + closest.point_b)
        answers.append((middle, middle - offsets[k]))
    return answers


def stacked_pair(a: Solid, b: Solid) -> bool:
    """Pairs small enough to be measured without trees, stacked with others (``pair_distances``)."""
    return len(a.mesh.triangles) * len(b.mesh.triangles) <= STACKED_TRIANGLE_PAIRS


def certified_pushout(a: Solid, b: Solid, candidates: list[tuple[np.ndarray, float]],
                      separated_after: Callable[[np.ndarray], np.ndarray], lower: float = 0.0,
                      precision: float = 0.0, levels: int = 1, gaps: np.ndarray | None = None
                      ) -> tuple[float, np.ndarray]:
    """The shortest checked push-out ``(depth, unit normal)`` over the candidate directions and the axes
    (``pushout_search`` over ``pushout_directions``, with the ``gaps`` it is given), its exact test
    ``separated_after`` answering a (K, 3) batch of offsets with (K,) bools."""
    search = pushout_search(a, b, pushout_directions(a, b, candidates), lower, precision, levels, gaps)
    try:
        offsets = next(search)
        while True:
            offsets = search.send(np.asarray(separated_after(offsets), dtype=bool))
    except StopIteration as finished:
        return finished.value


class Direction(NamedTuple):
    """A direction the push-out search tries: its unit ``normal``, the length its bisection ``start``s from and
    its ``slab`` length (``_slab``: always separates)."""

    normal: np.ndarray
    start: float
    slab: float


def pushout_directions(a: Solid, b: Solid, candidates: list[tuple[np.ndarray, float]]) -> list[Direction]:
    """The directions ``pushout_search`` tries: the candidates (starting from their lengths), then the axes on the
    first candidate's side (all six without one; a box-like overlap often leaves along an axis even when the hulls'
    normal is diagonal) starting from their slab lengths, shortest start first."""
    directions = []
    for normal, length in candidates:
        normal = np.asarray(normal, dtype=np.float64)
        directions.append(Direction(normal, float(length), _slab(a, b, normal)))
    slabs = _axis_slabs(a, b)
    if directions:  # the axes with a positive product with the first normal (its coordinate, or minus it)
        x, y, z = directions[0].normal.tolist()
        sides = (x > 0.0, y > 0.0, z > 0.0, -x > 0.0, -y > 0.0, -z > 0.0)
    else:
        sides = (True,) * 6
    directions += [Direction(AXES[k].copy(), slabs[k], slabs[k]) for k in range(6) if sides[k]]
    directions.sort(key=lambda direction: direction.start)
    return directions


def gap_request(a: Solid, b: Solid, directions: list[Direction], lower: float
                ) -> tuple[Solid, Solid, np.ndarray, float, float]:
    """What ``pushout_gaps.pushout_gap_ends`` is asked for the search's ``directions`` (``pushout_directions``):
    ``(a, b, normals, lower, reach)``, ``reach`` the shortest slab length among them (it separates: no longer
    length is worth testing)."""
    return a, b, np.array([direction.normal for direction in directions]), lower, min(
        direction.slab for direction in directions)


def pushout_search(a: Solid, b: Solid, directions: list[Direction], lower: float = 0.0, precision: float = 0.0,
                   levels: int = 1, gaps: np.ndarray | None = None
                   ) -> Generator[np.ndarray, np.ndarray, tuple[float, np.ndarray]]:
    """``certified_pushout`` as a generator over ``directions`` (``pushout_directions``): it yields each batch of
    offsets (K, 3) for the exact test and is sent whether B moved by each separates (K,) (so that the batches of
    many pairs can be answered together); it returns ``(depth, unit normal)``. Whatever comes back has passed the
    exact test.

    With ``gaps`` ((D, G), per direction the lengths where the surfaces stop meeting,
    ``pushout_gaps.pushout_gap_ends``), those lengths are asked first, shortest first, each followed by itself
    lengthened by the bisection's bracket (for rounding): the first that separates is the push-out. Only when none
    does (an object inside the other there, or a length off by rounding) is it bisected as follows.

    The first direction starts from a length known to separate (its candidate length when that checks
    out, else the slab length, which always separates) and bisects towards zero. Every further direction
    is tried only if the best length so far also separates along it, and then bisects below that.
    No push-out shorter than ``lower`` (a proven lower bound) is
    tried, and bisection stops once its bracket is ``precision`` wide.

    With ``levels`` above 1 the test is asked ``levels`` bisection steps at once (every midpoint either answer can
    lead to, and a direction's first check with those below it): the same answer as asking offset after offset,
    in a few batches, for a test whose batches cost about what one offset does (``shares_interior_after``).
    """
    if gaps is not None:
        found = yield from _first_separating(_gap_lengths(directions, gaps, precision))
        if found is not None:
            return found
    best_depth, best_normal = np.inf, directions[0].normal
    for normal, start, slab in directions:
        if best_depth <= lower + precision:
            break  # proven shortest: no direction can do better
        search = _Bisection(normal, lower, precision, levels)
        if np.isfinite(best_depth):
            if not (yield from search.separates(best_depth)):
                continue
            high = best_depth
        else:
            high = start if (yield from search.separates(start)) else slab
        best_depth, best_normal = (yield from search.shortest_below(high)), normal
    return float(best_depth), best_normal


def _gap_lengths(directions: list[Direction], gaps: np.ndarray, precision: float) -> list[tuple[float, np.ndarray]]:
    """``(length, normal)`` to try, shortest first: each finite gap end, and it lengthened by the bisection's
    bracket, at most ``GAP_TRIES`` of them. A gap at 0 is left out: the pair unmoved shares interior (what a push-out
    is searched for), so there one object lies inside the other."""
    tries = []
    for direction, ends in zip(directions, np.asarray(gaps).tolist()):
        for end in ends:
            if 0.0 < end < np.inf:
                tries += [(end, direction.normal), (end + max(precision, end * 0.5**PUSHOUT_STEPS), direction.normal)]
    tries.sort(key=lambda item: item[0])
    return tries[:GAP_TRIES]


def _first_separating(tries: list[tuple[float, np.ndarray]]):
    """The first of ``tries`` (shortest first) that separates, ``GAP_BATCH`` asked a batch; None when none does."""
    for start in range(0, len(tries), GAP_BATCH):
        batch = tries[start:start + GAP_BATCH]
        answers = yield np.array([length * normal for length, normal in batch]).reshape(-1, 3)
        for (length, normal), separated in zip(batch, np.asarray(answers, dtype=bool).tolist()):
            if separated:
                return float(length), normal
    return None


class _Bisection:
    """One direction's search: lengths checked by the exact test (remembered), ``levels`` bisection steps a batch;
    its methods are generators yielding the batches (see ``pushout_search``)."""

    def __init__(self, normal: np.ndarray, lower: float, precision: float, levels: int):
        self.normal, self.lower, self.precision, self.levels, self.known = normal, lower, precision, levels, {}

    def separates(self, length: float):
        """Whether moving B by ``length`` along the normal separates the pair (with the bisection below it asked
        in the same batch when batching)."""
        if length not in self.known:
            below = self._midpoints(min(self.lower, length), length, self.levels - 1, PUSHOUT_STEPS)
            yield from self._ask([length] + below)
        return self.known[length]

    def shortest_below(self, high: float):
        """Bisection from a separating ``high`` towards ``lower``: the shortest separating length it finds."""
        low = min(self.lower, high)
        for step in range(PUSHOUT_STEPS):
            if self._done(low, high):
                break
            middle = 0.5 * (low + high)
            if middle not in self.known:
                yield from self._ask(self._midpoints(low, high, self.levels, PUSHOUT_STEPS - step))
            if self.known[middle]:
                high = middle
            else:
                low = middle
        return high

    def _done(self, low: float, high: float) -> bool:
        return high - low <= max(self.precision, high * 0.5**PUSHOUT_STEPS)

    def _midpoints(self, low: float, high: float, levels: int, steps: int) -> list[float]:
        """The midpoints the next ``min(levels, steps)`` bisection steps from ``(low, high)`` can ask for."""
        if levels <= 0 or steps <= 0 or self._done(low, high):
            return []
        middle = 0.5 * (low + high)
        return ([middle] + self._midpoints(low, middle, levels - 1, steps - 1)
                + self._midpoints(middle, high, levels - 1, steps - 1))

    def _ask(self, lengths: list[float]):
        answers = yield np.array(lengths)[:, None] * self.normal
        self.known.update(zip(lengths, np.asarray(answers, dtype=bool).tolist()))


def common_ball(a: Solid, b: Solid, centroid: np.ndarray | None) -> tuple[np.ndarray, float] | None:
    """``(centre, r)`` of the largest ball found inside both objects (None when none is found): 2r bounds the
    depth from below.

    Any translation shorter than 2r leaves the two copies of that ball overlapping, so no shorter
    push-out can separate the objects. Ball centres tried: the overlap's centroid, and for sampled
    vertices of each object lying inside the other at depth d, the point d/2 inward from the vertex.
    """
    if not (a.closed and b.closed):
        return None
    centres = [np.asarray(centroid, dtype=np.float64)[None, :]] if centroid is not None else []
    centres += [_inward_centres(b, a), _inward_centres(a, b)]
    return largest_ball(a, b, np.vstack(centres))


def common_balls(requests: list[tuple[Solid, Solid, np.ndarray | None]]) -> list[tuple[np.ndarray, float] | None]:
    """``common_ball`` of every ``(a, b, centroid)``: the ball centres of closed pairs of meshes short of sculpts
    (``stacked.STACKED_TRIANGLES``), their winding numbers and their distances to the surfaces found for all of them
    together, a few stacked passes in all (``inside.stacked_crossing_windings``, ``pair_distances.nearest_distances``,
    triangles screened a group at a time); larger pairs one by one down their trees. The same
    balls: each number is computed as ``common_ball`` computes it."""
    answers: list = [None] * len(requests)
    small = []
    for k, (a, b, centroid) in enumerate(requests):
        if a.closed and b.closed and max(len(a.mesh.triangles), len(b.mesh.triangles)) <= STACKED_TRIANGLES:
            small.append(k)
        else:
            answers[k] = common_ball(a, b, centroid)
    if small:
        for k, ball in zip(small, _stacked_balls([requests[k] for k in small])):
            answers[k] = ball
    return answers


def _stacked_balls(requests: list[tuple[Solid, Solid, np.ndarray | None]]) -> list[tuple[np.ndarray, float] | None]:
    """``common_ball`` of closed pairs of small meshes, stacked: meshes ``2k`` and ``2k + 1`` are pair k's A and B.

    The centroids' balls first: a centre d/2 inward from a vertex at depth d has a ball of radius at most about d/2
    (the vertex lies on the inner surface), and d is at most the vertex's distance to the outer's box, so the
    vertices and centres whose bound falls short of their pair's centroid ball (``_may_exceed``) cannot hold the
    largest ball and are not tested. The largest of the rest is ``common_ball``'s (the first of equal ones)."""
    solids = [solid for a, b, _centroid in requests for solid in (a, b)]
    meshes = StackedMeshes([solid.mesh for solid in solids])
    count = len(requests)
    with_centroid = np.array([k for k, (_a, _b, centroid) in enumerate(requests) if centroid is not None],
                             dtype=np.int64)
    centroids = np.array([requests[k][2] for k in with_centroid], dtype=np.float64).reshape(-1, 3)
    kept, radius = _inside_both(meshes, with_centroid, centroids)
    least = np.full(count, -np.inf)
    least[with_centroid[kept]] = radius
    keys, points, radii = [3 * with_centroid[kept]], [centroids[kept]], [radius]
    boxes = (np.array([solid.bounds[0] for solid in solids]).reshape(-1, 3),
             np.array([solid.bounds[1] for solid in solids]).reshape(-1, 3))
    inner, centres = _stacked_inward_centres(meshes, boxes, least)
    kept, radius = _inside_both(meshes, inner // 2, centres)
    keys.append(3 * (inner[kept] // 2) + 2 - inner[kept] % 2)  # B's vertices inside A before A's inside B
    points.append(centres[kept])
    radii.append(radius)
    key, centres, radius = (np.concatenate(column) for column in (keys, points, radii))
    order = np.argsort(key, kind="stable")  # a pair's centres in common_ball's order
    pair, centres, radius = key[order] // 3, centres[order], radius[order]
    best = segment_firsts(-radius, pair, count)
    return [None if row < 0 else (centres[row].copy(), float(radius[row])) for row in best.tolist()]


def _inside_both(meshes: StackedMeshes, pair: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which of the ``centres`` of pairs ``pair`` (meshes ``2k``, ``2k + 1``) lie inside both meshes (their indices,
    in order) and the radii of their balls (the distance to the nearer surface): ``largest_ball``'s numbers. Both
    meshes' windings in one call, both distances in another (each point's numbers are its own, in any company)."""
    count = len(pair)
    windings = stacked_crossing_windings(meshes, np.vstack([centres, centres]), _both_meshes(pair))
    kept = np.flatnonzero((windings[:count] > 0) & (windings[count:] > 0))
    pair, centres = pair[kept], centres[kept]
    distance = nearest_distances(meshes, np.vstack([centres, centres]), _both_meshes(pair))
    return kept, np.minimum(distance[:len(kept)], distance[len(kept):])


def _both_meshes(pair: np.ndarray) -> np.ndarray:
    """The stacked meshes of pairs ``pair``: every pair's A (mesh 2k), then every pair's B (mesh 2k + 1)."""
    return np.concatenate([2 * pair, 2 * pair + 1])


def _may_exceed(half_depth: np.ndarray, least: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Whether a ball of radius up to about ``half_depth`` may reach ``least`` (a radius found already): its radius
    is at most ``half_depth`` up to roundings (relative ``BALL_SLACK``, absolute ``pair_distances.ROUNDING`` of the
    coordinates' ``scale``), so one that stays short of ``least`` cannot be the largest ball."""
    return half_depth * (1.0 + BALL_SLACK) + ROUNDING * scale >= least


def _stacked_inward_centres(meshes: StackedMeshes, boxes: tuple[np.ndarray, np.ndarray], least: np.ndarray
                            ) -> tuple[np.ndarray, np.ndarray]:
    """``_inward_centres(inner, outer)`` of each mesh of ``meshes`` inside the other of its pair (mesh m's is m ^ 1,
    both of pair m // 2), all at once: (inner mesh (N,), centres (N, 3)), mesh after mesh, each in
    ``_inward_centres``' order, less those whose balls cannot reach their pair's ``least`` radius (``_may_exceed``:
    a vertex's depth is at most its distance to the outer's box, a closed surface inside the box). ``boxes``: each
    mesh's solid's bounds, (lows, highs) (2n, 3)."""
    vertices, owner = meshes.vertices, meshes.vertex_owner
    lows, highs = boxes
    in_box = np.flatnonzero(((vertices >= lows[owner ^ 1]) & (vertices <= highs[owner ^ 1])).all(axis=1))
    # strided_sample per mesh: every step-th of its vertices in the other's box, at most LOWER_BOUND_SAMPLES
    found = np.bincount(owner[in_box], minlength=len(meshes.meshes))
    rank = np.arange(len(in_box)) - (np.cumsum(found) - found)[owner[in_box]]
    step = np.maximum(1, found // LOWER_BOUND_SAMPLES)[owner[in_box]]
    picked = in_box[(rank % step == 0) & (rank // step < LOWER_BOUND_SAMPLES)]
    inner, points = owner[picked], vertices[picked]
    outer, pair = inner ^ 1, inner // 2
    scale = np.maximum(meshes.scales[2 * pair], meshes.scales[2 * pair + 1])
    to_box = np.minimum((points - lows[outer]).min(axis=1), (highs[outer] - points).min(axis=1))
    keep = np.flatnonzero(_may_exceed(0.5 * to_box, least[pair], scale))
    keep = keep[stacked_crossing_windings(meshes, points[keep], outer[keep]) > 0]
    depth = nearest_distances(meshes, points[keep], outer[keep])
    deep = _may_exceed(0.5 * depth, least[pair[keep]], scale[keep])
    keep, depth = keep[deep], depth[deep]
    normals = _stacked_vertex_normals(meshes)[picked[keep]]
    return inner[keep], points[keep] - 0.5 * depth[:, None] * normals


def _stacked_vertex_normals(meshes: StackedMeshes) -> np.ndarray:
    """``_vertex_normals`` of every vertex of the stacked meshes, each sum taken in ``_vertex_normals``' order
    (corner 0's triangles in order, then corner 1's, then corner 2's)."""
    normals = np.concatenate([mesh.area_normals for mesh in meshes.meshes]).reshape(-1, 3)
    corners = meshes.ids.T.ravel()
    total = int(meshes.vertex_starts[-1])
    sums = np.stack([np.bincount(corners, weights=np.tile(normals[:, axis], 3), minlength=total)
                     for axis in range(3)], axis=1)
    length = np.linalg.norm(sums, axis=1, keepdims=True)
    return sums / np.where(length > 0.0, length, 1.0)


def largest_ball(a: Solid, b: Solid, centres: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``(centre, r)`` of the largest ball inside both objects centred at one of ``centres`` (N, 3): r is the
    centre's distance to the nearer surface; None when no centre lies inside both."""
    inside = points_inside(a, centres)
    inside[inside] = points_inside(b, centres[inside])
    if not inside.any():
        return None
    centres = centres[inside]
    radius = np.minimum(nearest_on_surface(a.mesh, centres, bvh=a.bvh)[0],
                        nearest_on_surface(b.mesh, centres, bvh=b.bvh)[0])
    best = int(radius.argmax())
    return centres[best].copy(), float(radius[best])


def _inward_centres(inner: Solid, outer: Solid) -> np.ndarray:
    """For ``inner``'s vertices (up to a sample) strictly inside ``outer`` at depth d: the point d/2 inward
    along ``inner``'s vertex normal, where a ball of radius about d/2 may fit inside both."""
    vertices = inner.mesh.vertices
    picked = strided_sample(indices_in_box(vertices, outer.bounds), LOWER_BOUND_SAMPLES)
    points = vertices[picked]
    inside = points_inside(outer, points)
    if not inside.any():
        return np.empty((0, 3))
    picked, points = picked[inside], points[inside]
    depth = nearest_on_surface(outer.mesh, points, bvh=outer.bvh)[0]
    return points - 0.5 * depth[:, None] * _vertex_normals(inner.mesh, picked)


def _vertex_normals(mesh, vertices: np.ndarray) -> np.ndarray:
    """Unit outward normals of the ``vertices`` (indices): the area-weighted sum of the adjacent triangles'
    normals."""
    slot = np.full(len(mesh.vertices), -1, dtype=np.int64)
    slot[vertices] = np.arange(len(vertices))
    sums = np.zeros((len(vertices), 3))
    for corner in range(3):
        rows = slot[mesh.triangles[:, corner]]
        adjacent = np.flatnonzero(rows >= 0)
        np.add.at(sums, rows[adjacent], mesh.area_normals[adjacent])
    length = np.linalg.norm(sums, axis=1, keepdims=True)
    return sums / np.where(length > 0.0, length, 1.0)
