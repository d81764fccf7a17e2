"""Exact minimum distance between the surfaces of two triangle meshes, and nearest surface points.

Both queries run a box-tree traversal (``bvh.py``) that keeps every leaf that may hold the answer,
then measure the surviving triangle pairs (or point-triangle pairs) exactly, closest boxes first,
stopping as soon as no remaining box can beat the best distance found.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..steps import Steps, run_to_end
from ..validation import as_points
from .bvh import (
    BOUND_SLACK,
    TriangleBVH,
    close_leaf_pair_steps,
    box_distance_sq,
    close_point_leaves,
    leaf_pair_triangles,
    leaf_triangles,
    near_leaf_pair_steps,
    point_box_distance_sq,
)
from .triangle_distance import (
    point_triangle_closest,
    separating_axes,
    separation_lower_bound,
    triangle_pair_distance,
    unit_normals,
)
from .trimesh import TriangleMesh, corner_highs, corner_lows

#: Triangle pairs measured in the first batch; each following batch is twice as large.
FIRST_BATCH = 256
#: Triangle pairs screened by their cheap lower bounds at a time.
SCREEN_CHUNK = 65536
#: Triangle pairs screened per step by ``near_triangle_pair_steps`` (a few milliseconds).
STEP_PAIRS = 8192
#: Query points traversed together by ``nearest_on_surface``.
POINT_CHUNK = 4096


@dataclass(frozen=True)
class MeshDistance:
    """Closest points of two triangle-mesh surfaces, world space, float64.

    ``distance`` >= 0 (0 when the surfaces touch or cross); ``point_a`` on triangle ``triangle_a`` of A,
    ``point_b`` on triangle ``triangle_b`` of B, with ``point_b - point_a == distance * normal`` for the
    unit normal from A toward B (the convention of ``core.Contact`` for separated pairs); when the
    distance is 0 both points are one common point of the two surfaces. Of several triangle pairs equally close
    (apart surfaces), the one with the smallest ``triangle_a``, then ``triangle_b``: the answer does not depend on
    how the search ran.
    """

    distance: float
    point_a: np.ndarray
    point_b: np.ndarray
    triangle_a: int
    triangle_b: int


def _tree_of(mesh: TriangleMesh, bvh: TriangleBVH | None, name: str) -> TriangleBVH:
    """The given tree (checked to be ``mesh``'s) or a new one."""
    if bvh is None:
        return TriangleBVH.build(mesh)
    if bvh.mesh is not mesh:
        raise ValueError(f"{name} was built for another mesh")
    return bvh


def mesh_distance(mesh_a: TriangleMesh, mesh_b: TriangleMesh, *, bvh_a: TriangleBVH | None = None,
                  bvh_b: TriangleBVH | None = None, upper_bound: float | None = None) -> MeshDistance:
    """Exact minimum distance between the surfaces of ``mesh_a`` and ``mesh_b`` and its closest points.

    ``bvh_a``, ``bvh_b``: trees built once with ``TriangleBVH.build`` for these meshes (built here when
    omitted). ``upper_bound``: a distance the answer is known not to exceed (e.g. from the previous
    frame); it only prunes the search, and if it turns out too small the search is repeated without it,
    so the answer is exact either way. Surfaces only: a mesh inside the other is at a positive distance.
    """
    return run_to_end(mesh_distance_steps(mesh_a, mesh_b, bvh_a=bvh_a, bvh_b=bvh_b, upper_bound=upper_bound))


def mesh_distance_steps(mesh_a: TriangleMesh, mesh_b: TriangleMesh, *, bvh_a: TriangleBVH | None = None,
                        bvh_b: TriangleBVH | None = None, upper_bound: float | None = None) -> Steps[MeshDistance]:
    """``mesh_distance`` a step at a time (``core.steps``: a tree level, a screen of ``SCREEN_CHUNK`` triangle pairs or
    a batch of exact distances per step, about a millisecond each at 10k vertices), for a caller that must answer in
    time (the live update). The arguments are checked at once."""
    tree_a, tree_b = _tree_of(mesh_a, bvh_a, "bvh_a"), _tree_of(mesh_b, bvh_b, "bvh_b")
    bound = np.inf if upper_bound is None else float(upper_bound)
    if not bound >= 0.0:
        raise ValueError(f"upper_bound must be a number >= 0, got {upper_bound}")
    return _distance_steps(tree_a, tree_b, bound)


def _distance_steps(tree_a: TriangleBVH, tree_b: TriangleBVH, bound: float) -> Steps[MeshDistance]:
    """The closest triangle pair within ``bound``, else with no bound (it was too small: then a pair found among
    those whose lower bounds are within it may be further apart than one left out)."""
    found = yield from _closest_triangle_pair(tree_a, tree_b, bound)
    if found is None or found.distance > bound:
        found = yield from _closest_triangle_pair(tree_a, tree_b, np.inf)
    return found


def _closest_triangle_pair(bvh_a: TriangleBVH, bvh_b: TriangleBVH, bound: float) -> Steps[MeshDistance | None]:
    """The closest triangle pair at most ``bound`` apart, or None when there is none; a step at a time."""
    candidates = yield from close_leaf_pair_steps(bvh_a, bvh_b, bound)
    triangles_a, triangles_b = leaf_pair_triangles(bvh_a, candidates.leaves_a, bvh_b, candidates.leaves_b)
    mesh_a, mesh_b = bvh_a.mesh, bvh_b.mesh
    triangles_a, triangles_b, lower_sq = yield from _separated_enough(bvh_a, triangles_a, bvh_b, triangles_b,
                                                                      candidates.bound)
    by_bound = np.argsort(lower_sq)
    lower_sq = lower_sq[by_bound]
    best, start, size = None, 0, FIRST_BATCH
    if candidates.triangle_a >= 0:  # the pair that gave the bound: a first answer, exact when it is 0
        best = _better(None, np.array([candidates.triangle_a]), np.array([candidates.triangle_b]), mesh_a, mesh_b)
    while start < len(by_bound) and (best is None or best.distance > 0.0):
        # Only pairs whose lower bound does not exceed the best distance so far can still beat it.
        stop = start + size if best is None else min(start + size, _count_below(lower_sq, best.distance))
        if stop <= start:
            break
        yield
        batch = by_bound[start:stop]
        best = _better(best, triangles_a[batch], triangles_b[batch], mesh_a, mesh_b)
        start, size = stop, 2 * size
    return best


def windowed_mesh_distance(mesh_a: TriangleMesh, mesh_b: TriangleMesh) -> MeshDistance:
    """``mesh_distance`` without a tree over either whole mesh: trees over only the triangles that can hold the closest
    pair (for a sculpt of a million triangles next to a prop, building its whole tree is most of the work).

    An upper bound U is the distance between two vertices found by walking from one mesh's box to the other's
    nearest corner and back (``corner_pair_bound``); any pair of triangles at most U apart has each triangle's box
    within U of the other mesh's triangles' box, so the triangles outside those windows are left out. Exact like
    ``mesh_distance``; the triangle indices are the whole meshes'.
    """
    bound = corner_pair_bound(mesh_a, mesh_b)
    keep_a = _boxes_near(mesh_a, mesh_b.lows.min(axis=0), mesh_b.highs.max(axis=0), bound)
    keep_b = _boxes_near(mesh_b, mesh_a.lows[keep_a].min(axis=0), mesh_a.highs[keep_a].max(axis=0), bound)
    found = mesh_distance(_window(mesh_a, keep_a), _window(mesh_b, keep_b), upper_bound=bound)
    return MeshDistance(found.distance, found.point_a, found.point_b, int(keep_a[found.triangle_a]),
                        int(keep_b[found.triangle_b]))


def corner_pair_bound(mesh_a: TriangleMesh, mesh_b: TriangleMesh) -> float:
    """The distance between a corner of A's triangles and one of B's, near the closest such pair: B's corner nearest
    A's box, A's corner nearest it, B's corner nearest that (an upper bound on the surfaces' distance)."""
    corners_a, corners_b = _used_vertices(mesh_a), _used_vertices(mesh_b)
    low_a, high_a = mesh_a.lows.min(axis=0), mesh_a.highs.max(axis=0)
    point_b = corners_b[np.argmin(point_box_distance_sq(corners_b, low_a, high_a))]
    point_a = corners_a[np.argmin(_squared_distances(corners_a, point_b))]
    return float(np.sqrt(_squared_distances(corners_b, point_a).min()))


def _used_vertices(mesh: TriangleMesh) -> np.ndarray:
    """The vertices that are corners of triangles, each once (a third of the corners of a closed mesh, or less)."""
    used = np.zeros(len(mesh.vertices), dtype=bool)
    used[mesh.triangles] = True
    return mesh.vertices[used]


def _squared_distances(points: np.ndarray, point: np.ndarray) -> np.ndarray:
    offset = points - point
    return offset[:, 0] ** 2 + offset[:, 1] ** 2 + offset[:, 2] ** 2


def _boxes_near(mesh: TriangleMesh, low: np.ndarray, high: np.ndarray, bound: float) -> np.ndarray:
    """Indices of the triangles whose boxes lie within ``bound`` of the box [low, high] (rounding slack kept)."""
    reach = bound + _rounding_margin(mesh, mesh)
    gap_sq = box_distance_sq(mesh.lows, mesh.highs, low, high)
    return np.flatnonzero(gap_sq <= reach * reach * (1.0 + BOUND_SLACK))


def _window(mesh: TriangleMesh, triangles: np.ndarray) -> TriangleMesh:
    """The mesh's triangles at ``triangles`` (the vertex array shared, not copied)."""
    kept = mesh.triangles[triangles]
    kept.flags.writeable = False
    return TriangleMesh(mesh.vertices, kept)


class NearTrianglePairs(NamedTuple):
    """Every pair of triangles of two meshes that may lie within ``horizon`` of each other: ``triangles_a``,
    ``triangles_b``, their corners (K, 3, 3), a separating axis each (``triangle_distance.separating_axes``: from A
    toward B) with the gap of the triangles' projections on it (a lower bound on their distance), by increasing
    gap, and the rounding ``margin`` of those gaps (any other pair of triangles is further apart than
    ``horizon``)."""

    triangles_a: np.ndarray
    triangles_b: np.ndarray
    corners_a: np.ndarray
    corners_b: np.ndarray
    axes: np.ndarray
    gaps: np.ndarray
    horizon: float
    margin: float


def near_triangle_pairs(bvh_a: TriangleBVH, bvh_b: TriangleBVH, horizon: float,
                        limit: int | None = None) -> NearTrianglePairs:
    """The triangle pairs of the two trees' meshes that may lie within ``horizon`` (>= 0) of each other; with a
    ``limit``, only that many of the smallest gaps (any other pair's gap is at least the last one's)."""
    return run_to_end(near_triangle_pair_steps(bvh_a, bvh_b, horizon, limit))


def near_triangle_pair_steps(bvh_a: TriangleBVH, bvh_b: TriangleBVH, horizon: float,
                             limit: int | None = None) -> Steps[NearTrianglePairs]:
    """``near_triangle_pairs`` a step at a time (``core.steps``): a tree level, then ``STEP_PAIRS`` triangle pairs
    screened, per step (the pairs kept are ordered by gap without gathering those beyond the ``limit``: a wide
    contact zone has some 10^5 of them)."""
    leaves_a, leaves_b = yield from near_leaf_pair_steps(bvh_a, bvh_b, horizon)
    triangles_a, triangles_b = leaf_pair_triangles(bvh_a, leaves_a, bvh_b, leaves_b)
    margin = _rounding_margin(bvh_a.mesh, bvh_b.mesh)
    yield
    kept = []
    for chunk in _boxes_within(bvh_a.mesh, triangles_a, bvh_b.mesh, triangles_b, horizon + margin, STEP_PAIRS):
        yield
        ia, ib, corners_a, corners_b = chunk
        axes, gaps = separating_axes(corners_a, corners_b, unit_normals(corners_a), unit_normals(corners_b))
        near = gaps - margin <= horizon * (1.0 + BOUND_SLACK)
        kept.append((ia[near], ib[near], corners_a[near], corners_b[near], axes[near], gaps[near]))
    yield
    columns = list(zip(*kept))
    gaps = np.concatenate(columns[5])
    if limit is not None and len(gaps) > limit:
        smallest = np.argpartition(gaps, limit - 1)[:limit]
        by_gap = smallest[np.argsort(gaps[smallest])]
    else:
        by_gap = np.argsort(gaps)
    picks = _chunk_picks([len(part) for part in columns[5]], by_gap)
    return NearTrianglePairs(*(_gathered(parts, picks) for parts in columns[:5]), gaps[by_gap], horizon, margin)


def _chunk_picks(sizes: list[int], rows: np.ndarray) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Where ``rows`` of arrays split into chunks of ``sizes`` lie: ``(chunk, positions in rows, rows in the
    chunk)`` per chunk taken from."""
    ends = np.cumsum(sizes)
    chunks = np.searchsorted(ends, rows, side="right")
    by_chunk = np.argsort(chunks, kind="stable")
    bounds = np.searchsorted(chunks[by_chunk], np.arange(len(sizes) + 1))
    return [(chunk, by_chunk[start:stop], rows[by_chunk[start:stop]] - (ends[chunk] - sizes[chunk]))
            for chunk, (start, stop) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist())) if stop > start]


def _gathered(parts: list[np.ndarray], picks: list[tuple[int, np.ndarray, np.ndarray]]) -> np.ndarray:
    """``np.concatenate(parts)[rows]`` for the rows ``picks`` locates (``_chunk_picks``), without copying the
    others."""
    count = sum(len(positions) for _chunk, positions, _rows in picks)
    gathered = np.empty((count, *parts[0].shape[1:]), dtype=parts[0].dtype)
    for chunk, positions, rows in picks:
        gathered[positions] = parts[chunk][rows]
    return gathered


def _rounding_margin(mesh_a: TriangleMesh, mesh_b: TriangleMesh) -> float:
    """Rounding of the triangles' projections and boxes: it scales with the coordinates, not with the distance."""
    return 1e-13 * float(max(np.abs(mesh_a.vertices).max(), np.abs(mesh_b.vertices).max()))


def _separated_enough(bvh_a: TriangleBVH, triangles_a: np.ndarray, bvh_b: TriangleBVH, triangles_b: np.ndarray,
                      bound: float) -> Steps[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The triangle pairs whose separating-axis lower bounds do not exceed ``bound``, ``SCREEN_CHUNK`` pairs per step.

    Returns (triangles_a, triangles_b, squared lower bounds).
    """
    bound_sq = bound * bound * (1.0 + BOUND_SLACK)
    margin = _rounding_margin(bvh_a.mesh, bvh_b.mesh)
    kept = []
    for ia, ib, corners_a, corners_b in _boxes_within(bvh_a.mesh, triangles_a, bvh_b.mesh, triangles_b,
                                                      bound + margin, SCREEN_CHUNK):
        yield
        gap = separation_lower_bound(corners_a, corners_b, unit_normals(corners_a), unit_normals(corners_b),
                                     bound + margin)
        lower_sq = np.maximum(gap - margin, 0.0) ** 2
        near = lower_sq <= bound_sq
        kept.append((ia[near], ib[near], lower_sq[near]))
    return tuple(np.concatenate(parts) for parts in zip(*kept))


def _boxes_within(mesh_a: TriangleMesh, triangles_a: np.ndarray, mesh_b: TriangleMesh, triangles_b: np.ndarray,
                  bound: float, chunk: int):
    """The triangle pairs whose triangles' boxes lie within ``bound`` of each other (the cheapest screen: it
    leaves less than half of a near region's pairs to the separating axes), with their corners: (triangles_a,
    triangles_b, corners_a, corners_b), ``chunk`` pairs at a time (to bound memory). Each triangle's corners and
    box are found once, however many pairs it is in."""
    corners_a, lows_a, highs_a, rows_a = _distinct_boxes(mesh_a, triangles_a)
    corners_b, lows_b, highs_b, rows_b = _distinct_boxes(mesh_b, triangles_b)
    bound_sq = bound * bound * (1.0 + BOUND_SLACK)
    for start in range(0, max(len(triangles_a), 1), chunk):
        ra, rb = rows_a[start:start + chunk], rows_b[start:start + chunk]
        near = np.flatnonzero(box_distance_sq(lows_a[ra], highs_a[ra], lows_b[rb], highs_b[rb]) <= bound_sq)
        ra, rb = ra[near], rb[near]
        yield triangles_a[start + near], triangles_b[start + near], corners_a[ra], corners_b[rb]


def _distinct_boxes(mesh: TriangleMesh, triangles: np.ndarray):
    """The corners and boxes of the distinct triangles among ``triangles``, and each entry's row in them."""
    present = np.zeros(len(mesh.triangles), dtype=bool)
    present[triangles] = True
    corners = mesh.corners_of(np.flatnonzero(present))
    rows = np.cumsum(present)[triangles] - 1
    return corners, corner_lows(corners), corner_highs(corners), rows


def _count_below(sorted_lower_sq: np.ndarray, distance: float) -> int:
    """How many of the sorted squared lower bounds do not exceed ``distance`` (with rounding slack)."""
    return int(np.searchsorted(sorted_lower_sq, distance * distance * (1.0 + BOUND_SLACK), side="right"))


def _better(best: MeshDistance | None, triangles_a: np.ndarray, triangles_b: np.ndarray, mesh_a: TriangleMesh,
            mesh_b: TriangleMesh) -> MeshDistance:
    """The closer of ``best`` and the closest of the given triangle pairs; of pairs equally close, the one with the
    smallest triangle of A, then of B (whatever order the tree measured them in)."""
    distance, point_a, point_b = triangle_pair_distance(mesh_a.corners_of(triangles_a),
                                                        mesh_b.corners_of(triangles_b))
    ties = np.flatnonzero(distance == distance.min())
    i = int(ties[np.lexsort((triangles_b[ties], triangles_a[ties]))[0]])
    if best is not None and (best.distance, best.triangle_a, best.triangle_b) <= (distance[i], triangles_a[i],
                                                                                   triangles_b[i]):
        return best
    return MeshDistance(float(distance[i]), point_a[i].copy(), point_b[i].copy(), int(triangles_a[i]),
                        int(triangles_b[i]))


def nearest_on_surface(mesh: TriangleMesh, points, bvh: TriangleBVH | None = None):
    """For each of the (P, 3) ``points``: distance to ``mesh``'s surface, closest point, its triangle.

    Returns ``(distance (P,), closest (P, 3), triangle (P,))``, float64/float64/int64. Unsigned: a point
    inside a closed mesh gets its distance to the surface. ``bvh``: ``TriangleBVH.build(mesh)``, reused.
    Points are processed in chunks of ``POINT_CHUNK`` to bound memory.
    """
    tree = _tree_of(mesh, bvh, "bvh")
    points = as_points(points, "points")
    parts = [_nearest_in_tree(tree, points[start:start + POINT_CHUNK]) for start in range(0, len(points), POINT_CHUNK)]
    return tuple(np.concatenate(part) for part in zip(*parts))


def _nearest_in_tree(tree: TriangleBVH, points: np.ndarray):
    """``nearest_on_surface`` for one chunk of points."""
    mesh = tree.mesh
    owners, leaves, bounds_sq = close_point_leaves(tree, points, np.full(len(points), np.inf))
    leaf_of, triangles = leaf_triangles(tree, leaves)
    owners = owners[leaf_of]
    lower_sq = point_box_distance_sq(points[owners], mesh.lows[triangles], mesh.highs[triangles])
    keep = lower_sq <= bounds_sq[owners] * (1.0 + BOUND_SLACK)
    owners, triangles = owners[keep], triangles[keep]
    distance, closest = point_triangle_closest(points[owners], mesh.corners_of(triangles))
    first = np.lexsort((distance, owners))
    first = first[np.r_[True, owners[first][1:] != owners[first][:-1]]]
    return distance[first], closest[first], triangles[first]
