"""A penetrating pair's push-out: the shortest one checked by the exact test over a few directions
(``certified_pushout``), and balls inside both solids, whose diameter bounds it from below."""

from __future__ import annotations

from collections.abc import Callable, Generator

import numpy as np

from ..distance import mesh_distance, nearest_on_surface
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
AXES = np.vstack([np.eye(3), -np.eye(3)])


def _slab(a: Solid, b: Solid, direction: np.ndarray) -> float:
    """How far B must move along ``direction`` to lie wholly beyond A's support plane: always enough."""
    return max(float((a.mesh.vertices @ direction).max() - (b.mesh.vertices @ direction).min()), 0.0)


def pushout_witnesses(a: Solid, b: Solid, depth: float, normal: np.ndarray, tolerance: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``(point_a, point_b)`` of the push-out ``depth * normal``, on the surfaces: where B so moved meets A. The moved
    pair's closest points are at most the push-out's bisection bracket apart; ``point_a`` is their midpoint and
    ``point_b`` that point moved back with B, so ``point_a - point_b == depth * normal`` and each point lies within
    half that bracket of its object's surface."""
    offset = depth * np.asarray(normal, dtype=np.float64)
    moved = b.translated(offset)
    found = mesh_distance(a.mesh, moved.mesh, bvh_a=a.bvh, bvh_b=moved.bvh,
                          upper_bound=max(depth * WITNESS_SEARCH, tolerance))
    middle = 0.5 * (found.point_a + found.point_b)
    return middle, middle - offset


def certified_pushout(a: Solid, b: Solid, candidates: list[tuple[np.ndarray, float]],
                      separated_after: Callable[[np.ndarray], np.ndarray], lower: float = 0.0,
                      precision: float = 0.0, levels: int = 1) -> tuple[float, np.ndarray]:
    """The shortest checked push-out ``(depth, unit normal)`` over the candidate directions and the axes
    (``pushout_search``), its exact test ``separated_after`` answering a (K, 3) batch of offsets with (K,) bools."""
    search = pushout_search(a, b, candidates, lower, precision, levels)
    try:
        offsets = next(search)
        while True:
            offsets = search.send(np.asarray(separated_after(offsets), dtype=bool))
    except StopIteration as finished:
        return finished.value


def pushout_search(a: Solid, b: Solid, candidates: list[tuple[np.ndarray, float]], lower: float = 0.0,
                   precision: float = 0.0, levels: int = 1
                   ) -> Generator[np.ndarray, np.ndarray, tuple[float, np.ndarray]]:
    """``certified_pushout`` as a generator: it yields each batch of offsets (K, 3) for the exact test and is sent
    whether B moved by each separates (K,) (so that the batches of many pairs can be answered together); it returns
    ``(depth, unit normal)``.

    The first direction starts from a length known to separate (its candidate length when that checks
    out, else the slab length, which always separates) and bisects towards zero. Every further direction
    is tried only if the best length so far also separates along it, and then bisects below that.
    Whatever comes back has passed the exact test. No push-out shorter than ``lower`` (a proven lower bound) is
    tried, and bisection stops once its bracket is ``precision`` wide.

    With ``levels`` above 1 the test is asked ``levels`` bisection steps at once (every midpoint either answer can
    lead to, and a direction's first check with those below it): the same answer as asking offset after offset,
    in a few batches, for a test whose batches cost about what one offset does (``shares_interior_after``).
    """
    directions = [(np.asarray(n, dtype=np.float64), float(t)) for n, t in candidates]
    # The axes on the first candidate's side (all six without one): a box-like overlap often leaves
    # along an axis even when the hulls' normal is diagonal.
    axes = AXES if not directions else AXES[AXES @ directions[0][0] > 0.0]
    directions += [(axis, _slab(a, b, axis)) for axis in axes]
    directions.sort(key=lambda item: item[1])
    best_depth, best_normal = np.inf, directions[0][0]
    for normal, start in directions:
        if best_depth <= lower + precision:
            break  # proven shortest: no direction can do better
        search = _Bisection(normal, lower, precision, levels)
        if np.isfinite(best_depth):
            if not (yield from search.separates(best_depth)):
                continue
            high = best_depth
        else:
            high = start if (yield from search.separates(start)) else _slab(a, b, normal)
        best_depth, best_normal = (yield from search.shortest_below(high)), normal
    return float(best_depth), best_normal


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
