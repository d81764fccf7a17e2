"""Exact closest points between triangles, and between a point and a triangle, vectorised over many pairs; cheap
separating-axis lower bounds let a search skip most pairs.
See docs/architecture.md, section "Mesh: distances between triangles".
"""

from __future__ import annotations

import numpy as np

from ..vector.arrays import NEXT_CORNER, cross, dot, largest3, smallest3


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` clamped to [0, 1]; 0 where the denominator is not positive."""
    safe = np.where(denominator > 0.0, denominator, 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(denominator > 0.0, np.clip(numerator / safe, 0.0, 1.0), 0.0)


def segment_closest_parameters(p1: np.ndarray, q1: np.ndarray, p2: np.ndarray, q2: np.ndarray
                               ) -> tuple[np.ndarray, np.ndarray]:
    """Parameters (s, t) of closest points ``p1 + s (q1 - p1)`` and ``p2 + t (q2 - p2)`` of two segments.

    Broadcasts over leading axes of the (..., 3) endpoints. Zero-length segments are points; parallel
    segments get one of their closest pairs (the clamped solution of Ericson, Real-Time Collision
    Detection, 5.1.9).
    """
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, b = dot(d1, d1), dot(d2, d2), dot(d1, d2)
    c, f = dot(d1, r), dot(d2, r)
    denominator = a * e - b * b
    skew = denominator > 1e-14 * a * e
    s = np.where(skew, _ratio(b * f - c * e, np.where(skew, denominator, 0.0)), 0.0)
    t_free = b * s + f
    t = _ratio(t_free, e)
    # t was clamped (or seg 2 is a point): s is then the closest parameter on seg 1 to that point of seg 2.
    s = np.where((t_free < 0.0) | (t_free > e) | (e <= 0.0), _ratio(b * t - c, a), s)
    return s, t


def point_segment_closest(points: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Closest points of segments ``starts``-``ends`` to ``points`` (broadcast (..., 3))."""
    direction = ends - starts
    t = _ratio(dot(points - starts, direction), dot(direction, direction))
    return starts + t[..., None] * direction


def _barycentric_inside(points: np.ndarray, tri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Projection of ``points`` onto the triangles' planes and whether it falls inside the triangle.

    Triangles too thin for their plane to be known get ``False`` (their edges answer instead).
    """
    e0, e1, w = tri[..., 1, :] - tri[..., 0, :], tri[..., 2, :] - tri[..., 0, :], points - tri[..., 0, :]
    d00, d01, d11 = dot(e0, e0), dot(e0, e1), dot(e1, e1)
    d20, d21 = dot(w, e0), dot(w, e1)
    denominator = d00 * d11 - d01 * d01
    valid = denominator > 1e-24 * d00 * d11
    safe = np.where(valid, denominator, 1.0)
    v = (d11 * d20 - d01 * d21) / safe
    u = (d00 * d21 - d01 * d20) / safe
    inside = valid & (v >= 0.0) & (u >= 0.0) & (v + u <= 1.0)
    v, u = np.where(inside, v, 0.0), np.where(inside, u, 0.0)
    return tri[..., 0, :] + v[..., None] * e0 + u[..., None] * e1, inside


def _edges(tri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(..., 3, 3) starts and ends of the edges 0-1, 1-2, 2-0."""
    return tri, tri[..., NEXT_CORNER, :]


def _closest_of(distance_sq: np.ndarray, *candidates: np.ndarray):
    """Along the last axis of ``distance_sq`` (..., C): the smallest and the matching (..., C, 3) points."""
    best = np.argmin(distance_sq, axis=-1)[..., None]
    picked = [np.take_along_axis(c, best[..., None], axis=-2)[..., 0, :] for c in candidates]
    return (np.take_along_axis(distance_sq, best, axis=-1)[..., 0], *picked)


def point_triangle_closest(points: np.ndarray, tri: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance and closest point on triangle ``tri`` (..., 3, 3) of each point ``points`` (..., 3).

    The closest point is the projection onto the plane when it falls inside, else the nearest of the
    three edges' closest points; zero-area triangles are answered by their edges.
    """
    points, tri = np.broadcast_arrays(np.asarray(points, dtype=float)[..., None, :], np.asarray(tri, dtype=float))
    starts, ends = _edges(tri)
    on_edges = point_segment_closest(points, starts, ends)
    projection, inside = _barycentric_inside(points[..., 0, :], tri)
    candidates = np.concatenate([on_edges, projection[..., None, :]], axis=-2)
    distance_sq = dot(candidates - points[..., :1, :], candidates - points[..., :1, :])
    distance_sq[..., 3] = np.where(inside, distance_sq[..., 3], np.inf)
    distance_sq, closest = _closest_of(distance_sq, candidates)
    return np.sqrt(distance_sq), closest


def _edge_crossings(tri_a: np.ndarray, tri_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the edges of A (K, 3, 3) pass through triangles B (K, 3, 3): (pair, edge) indices of the crossings
    found and their points (C, 3); only the edges whose ends lie on both sides of B's plane are followed."""
    starts, ends = _edges(tri_a)
    normal = cross(tri_b[:, 1] - tri_b[:, 0], tri_b[:, 2] - tri_b[:, 0])[:, None, :]
    h0 = dot(starts - tri_b[:, :1], normal)  # each corner's height over B's plane: an edge's start and end
    h1 = h0[:, NEXT_CORNER]
    pair, edge = np.nonzero(((h0 < 0.0) & (h1 > 0.0)) | ((h0 > 0.0) & (h1 < 0.0)))
    low, high = h0[pair, edge], h1[pair, edge]
    start, end = starts[pair, edge], ends[pair, edge]
    points = start + (low / (low - high))[:, None] * (end - start)
    _, inside = _barycentric_inside(points, tri_b[pair])
    return pair[inside], edge[inside], points[inside]


def _vertex_candidates(tri_a: np.ndarray, tri_b: np.ndarray):
    """Corners of A over the interior of B: squared distances (K, 3) (inf where the foot is outside B),
    points on A and on B (K, 3, 3). A corner whose foot is outside B is closest to an edge of B, and that
    case is one of the edge pairs.
    """
    foot, inside = _barycentric_inside(tri_a, tri_b[:, None])
    return np.where(inside, dot(foot - tri_a, foot - tri_a), np.inf), tri_a, foot


def _segment_candidates(tri_a: np.ndarray, tri_b: np.ndarray):
    """The 9 edge pairs: squared distances (K, 9), points on A and on B (K, 9, 3)."""
    starts_a, ends_a = (x[:, :, None] for x in _edges(tri_a))
    starts_b, ends_b = (x[:, None, :] for x in _edges(tri_b))
    s, t = segment_closest_parameters(starts_a, ends_a, starts_b, ends_b)
    on_a = (starts_a + s[..., None] * (ends_a - starts_a)).reshape(-1, 9, 3)
    on_b = (starts_b + t[..., None] * (ends_b - starts_b)).reshape(-1, 9, 3)
    return dot(on_b - on_a, on_b - on_a), on_a, on_b


def _crossing_candidates(tri_a: np.ndarray, tri_b: np.ndarray):
    """Edges of either triangle through the other: distance 0 at the crossing point (K, 6), else inf (the point
    there is left 0: never the closest, a segment pair always being finite)."""
    distance_sq, points = np.full((len(tri_a), 6), np.inf), np.zeros((len(tri_a), 6, 3))
    for first, (one, other) in ((0, (tri_a, tri_b)), (3, (tri_b, tri_a))):
        pair, edge, found = _edge_crossings(one, other)
        distance_sq[pair, first + edge] = 0.0
        points[pair, first + edge] = found
    return distance_sq, points, points


def _swap(candidates):
    """B's corners against A, reordered as (distance, point on A, point on B)."""
    distance_sq, on_b, on_a = candidates
    return distance_sq, on_a, on_b


def triangle_pair_distance(tri_a: np.ndarray, tri_b: np.ndarray, *,
                           apart: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact distance and closest points of K triangle pairs: (distance (K,), point_a (K, 3), point_b (K, 3)).

    ``tri_a``, ``tri_b``: (K, 3, 3) corner positions. The answer is the least of the 6 corner-face
    and 9 edge-edge cases; when an edge of one triangle passes through the other, the distance is 0
    and both points are that crossing point. ``point_b - point_a`` has length ``distance``.
    ``apart``: the caller knows that no pair touches (a separating axis), so crossings are not looked for.
    """
    tri_a = np.asarray(tri_a, dtype=float).reshape(-1, 3, 3)
    tri_b = np.asarray(tri_b, dtype=float).reshape(-1, 3, 3)
    distance_sq, point_a, point_b = _closest_of(*_vertex_candidates(tri_a, tri_b))
    groups = [_swap(_vertex_candidates(tri_b, tri_a)), _segment_candidates(tri_a, tri_b)]
    if not apart:
        groups.append(_crossing_candidates(tri_a, tri_b))
    for group in groups:  # the first of the least, as one argmin over all the candidates in this order finds it
        closer = _closest_of(*group)
        better = np.flatnonzero(closer[0] < distance_sq)
        for kept, new in zip((distance_sq, point_a, point_b), closer):
            kept[better] = new[better]
    return np.sqrt(distance_sq), point_a, point_b


def _interval_gap(axis: np.ndarray, tri_a: np.ndarray, tri_b: np.ndarray) -> np.ndarray:
    """Gap between the projections of triangles A and B (K, 3, 3) on (K, 3) axes; negative if they overlap."""
    along_a, along_b = dot(tri_a, axis[:, None]), dot(tri_b, axis[:, None])
    return np.maximum(smallest3(along_b) - largest3(along_a), smallest3(along_a) - largest3(along_b))


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Unit vectors; zero where the vector is zero."""
    length = np.sqrt(dot(vectors, vectors))
    return vectors / np.where(length > 0.0, length, 1.0)[:, None]


def unit_normals(tri: np.ndarray) -> np.ndarray:
    """(K, 3) unit normals of triangles (K, 3, 3) by the right-hand rule; zero for zero-area triangles."""
    return _unit(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]))


def separation_lower_bound(tri_a: np.ndarray, tri_b: np.ndarray, normal_a: np.ndarray | None = None,
                           normal_b: np.ndarray | None = None, bound: float = np.inf) -> np.ndarray:
    """Cheap lower bounds (K,) on the distances of K triangle pairs (K, 3, 3), 0 where none is found.

    Largest gap of the projections on three separating axes: the line through the centroids, and both
    triangles' normals (for facing, nearly parallel triangles the normal gap is nearly exact).
    ``normal_a``, ``normal_b``: the triangles' ``unit_normals`` when already known. Pairs whose
    centroid-line gap already exceeds ``bound`` skip the normals (their bound stays above ``bound``).
    """
    centre_line = _unit(tri_b[:, 0] + tri_b[:, 1] + tri_b[:, 2] - tri_a[:, 0] - tri_a[:, 1] - tri_a[:, 2])
    gap = _interval_gap(centre_line, tri_a, tri_b)
    near = np.flatnonzero(gap <= bound)
    near_a, near_b = tri_a[near], tri_b[near]
    normal_a = unit_normals(near_a) if normal_a is None else normal_a[near]
    normal_b = unit_normals(near_b) if normal_b is None else normal_b[near]
    gap[near] = np.maximum(np.maximum(gap[near], _interval_gap(normal_a, near_a, near_b)),
                           _interval_gap(normal_b, near_a, near_b))
    return np.maximum(gap, 0.0)


def separating_axes(tri_a: np.ndarray, tri_b: np.ndarray, normal_a: np.ndarray,
                    normal_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of ``separation_lower_bound``'s three axes, the one with the largest gap per pair, turned to point from A
    toward B: (axes (K, 3), gaps (K,), negative where the projections overlap). Moving B by ``t`` moves its
    projection by ``axes @ t`` and leaves A's: the pair's distance is then at least ``gaps + axes @ t``."""
    centre_line = _unit(tri_b[:, 0] + tri_b[:, 1] + tri_b[:, 2] - tri_a[:, 0] - tri_a[:, 1] - tri_a[:, 2])
    candidates = np.stack([centre_line, normal_a, normal_b])  # (3, K, 3)
    along_a, along_b = dot(tri_a[None], candidates[:, :, None]), dot(tri_b[None], candidates[:, :, None])
    forward = smallest3(along_b) - largest3(along_a)
    backward = smallest3(along_a) - largest3(along_b)
    signed = np.where(forward >= backward, 1.0, -1.0)
    gaps = np.maximum(forward, backward)
    best = np.argmax(gaps, axis=0)
    pairs = np.arange(len(best))
    return candidates[best, pairs] * signed[best, pairs][:, None], gaps[best, pairs]
