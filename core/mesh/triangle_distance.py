"""Exact closest points between triangles, and between a point and a triangle, vectorised over many pairs; cheap
separating-axis lower bounds let a search skip most pairs.
See docs/architecture.md, section "Mesh: distances between triangles".
"""

from __future__ import annotations

import numpy as np

from ..vector.arrays import NEXT_CORNER, cross, dot, largest3, smallest3

#: Relative slack taken off ``facing_lower_bound_sq``: its axes are orthogonal and of unit length up to a few
#: roundings (some 1e-16), far less than this.
FACING_SLACK = 1e-12


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` clamped to [0, 1]; 0 where the denominator is not positive."""
    safe = np.where(denominator > 0.0, denominator, 1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(denominator > 0.0, np.clip(numerator / safe, 0.0, 1.0), 0.0)


def _dot3(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Dot products over the first axis (coordinates first), in ``dot``'s order: the same numbers."""
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def _scaled(scalars: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``scalars`` (...) times the (..., 3) ``vectors``."""
    return scalars[..., None] * vectors


def segment_closest_parameters(p1: np.ndarray, q1: np.ndarray, p2: np.ndarray, q2: np.ndarray, product=dot
                               ) -> tuple[np.ndarray, np.ndarray]:
    """Parameters (s, t) of closest points ``p1 + s (q1 - p1)`` and ``p2 + t (q2 - p2)`` of two segments.

    Broadcasts over leading axes of the (..., 3) endpoints. Zero-length segments are points; parallel
    segments get one of their closest pairs (the clamped solution of Ericson, Real-Time Collision
    Detection, 5.1.9). ``product``: ``_dot3`` for endpoints given coordinates first ((3, ...) arrays).
    """
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, b = product(d1, d1), product(d2, d2), product(d1, d2)
    c, f = product(d1, r), product(d2, r)
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
    return _plane_foot(points, tri[..., 0, :], tri[..., 1, :], tri[..., 2, :], dot, _scaled)


def _plane_foot(points: np.ndarray, t0: np.ndarray, t1: np.ndarray, t2: np.ndarray, product=dot,
                scaled=_scaled) -> tuple[np.ndarray, np.ndarray]:
    """``_barycentric_inside`` of points and triangle corners ``t0``, ``t1``, ``t2``; ``product`` and ``scaled``
    ``_dot3`` and ``np.multiply`` for vectors given coordinates first."""
    e0, e1, w = t1 - t0, t2 - t0, points - t0
    d00, d01, d11 = product(e0, e0), product(e0, e1), product(e1, e1)
    d20, d21 = product(w, e0), product(w, e1)
    denominator = d00 * d11 - d01 * d01
    valid = denominator > 1e-24 * d00 * d11
    safe = np.where(valid, denominator, 1.0)
    v = (d11 * d20 - d01 * d21) / safe
    u = (d00 * d21 - d01 * d20) / safe
    inside = valid & (v >= 0.0) & (u >= 0.0) & (v + u <= 1.0)
    v, u = np.where(inside, v, 0.0), np.where(inside, u, 0.0)
    return t0 + scaled(v, e0) + scaled(u, e1), inside


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


def triangle_pair_distance(tri_a: np.ndarray, tri_b: np.ndarray, *,
                           apart: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact distance and closest points of K triangle pairs: (distance (K,), point_a (K, 3), point_b (K, 3)).

    ``tri_a``, ``tri_b``: (K, 3, 3) corner positions. The answer is the least of the 6 corner-face
    and 9 edge-edge cases; when an edge of one triangle passes through the other, the distance is 0
    and both points are that crossing point. ``point_b - point_a`` has length ``distance``.
    ``apart``: the caller knows that no pair touches (a separating axis), so crossings are not looked for.
    The candidates are computed rows last (coordinate, side or edge, corner, row: whole rows of memory at a time,
    ``dot``'s arithmetic), both triangles' corners over the other's face in the same arrays; of equal candidates
    the first in the order above counts.
    """
    tri_a = np.asarray(tri_a, dtype=float).reshape(-1, 3, 3)
    tri_b = np.asarray(tri_b, dtype=float).reshape(-1, 3, 3)
    count = len(tri_a)
    sides = np.ascontiguousarray(np.stack([tri_a, tri_b]).transpose(3, 0, 2, 1))  # (coordinate, side, corner, row)
    a, b = sides[:, 0], sides[:, 1]
    face_sq, foot = _corners_over_faces(sides)
    edge_sq, on_a, on_b = _edge_pairs(a, b)
    distance_sq = np.concatenate([face_sq.reshape(6, count), edge_sq])
    pick = np.argmin(distance_sq, axis=0)
    rows = np.arange(count)
    least = distance_sq[pick, rows]
    point_a = np.concatenate([a, foot[:, 1], on_a], axis=1)[:, pick, rows]
    point_b = np.concatenate([foot[:, 0], b, on_b], axis=1)[:, pick, rows]
    if not apart:
        pair, points = _first_crossings(tri_a, tri_b, sides)
        pair, points = pair[0.0 < least[pair]], points[0.0 < least[pair]].T
        least[pair] = 0.0
        point_a[:, pair] = points
        point_b[:, pair] = points
    return np.sqrt(least), point_a.T.copy(), point_b.T.copy()


def _corners_over_faces(sides: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each side's corners over the interior of the other side's triangle (``sides`` (3, 2, 3, K): coordinate, side,
    corner, pair): squared distances (2, 3, K) (inf where the foot is outside the triangle) and the feet (3, 2, 3,
    K). A corner whose foot is outside is closest to an edge of the other, and that case is one of the edge pairs."""
    other = sides[:, ::-1]
    foot, inside = _plane_foot(sides, other[:, :, :1], other[:, :, 1:2], other[:, :, 2:], _dot3, np.multiply)
    return np.where(inside, _dot3(foot - sides, foot - sides), np.inf), foot


def _edge_pairs(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 9 edge pairs of triangles (3, 3, K) (coordinate, corner, pair), A's edge major: squared distances (9, K),
    points on A and on B (3, 9, K)."""
    count = a.shape[-1]
    starts_a, ends_a = a[:, :, None], a[:, NEXT_CORNER, None]
    starts_b, ends_b = b[:, None, :], b[:, None, NEXT_CORNER]
    s, t = segment_closest_parameters(starts_a, ends_a, starts_b, ends_b, _dot3)
    on_a = (starts_a + s * (ends_a - starts_a)).reshape(3, 9, count)
    on_b = (starts_b + t * (ends_b - starts_b)).reshape(3, 9, count)
    return _dot3(on_b - on_a, on_b - on_a), on_a, on_b


def _first_crossings(tri_a: np.ndarray, tri_b: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where an edge of one triangle passes through the other (K, 3, 3 each; ``sides`` both coordinate first, as
    ``triangle_pair_distance`` holds them): the pairs with a crossing and each one's first crossing point (A's edges
    in order, then B's). Only the edges whose ends lie on both sides of the other's plane are followed."""
    other = sides[:, ::-1]
    u, v = other[:, :, 1] - other[:, :, 0], other[:, :, 2] - other[:, :, 0]
    normal = np.stack([u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]])[:, :, None]
    h0 = _dot3(sides - other[:, :, :1], normal)  # each corner's height over the other's plane: an edge's start, end
    h1 = h0[:, NEXT_CORNER]
    side, edge, pair = np.nonzero(((h0 < 0.0) & (h1 > 0.0)) | ((h0 > 0.0) & (h1 < 0.0)))
    low, high = h0[side, edge, pair], h1[side, edge, pair]
    triangles = np.stack([tri_a, tri_b])
    start, end = triangles[side, pair, edge], triangles[side, pair, NEXT_CORNER[edge]]
    points = start + (low / (low - high))[:, None] * (end - start)
    _, inside = _barycentric_inside(points, triangles[1 - side, pair])
    pair, points = pair[inside], points[inside]
    order = np.lexsort(((3 * side + edge)[inside], pair))
    pair, points = pair[order], points[order]
    first = np.r_[True, pair[1:] != pair[:-1]] if len(pair) else np.zeros(0, dtype=bool)
    return pair[first], points[first].reshape(-1, 3)


def _interval_gap(axis: np.ndarray, tri_a: np.ndarray, tri_b: np.ndarray) -> np.ndarray:
    """Gap between the projections of triangles A and B (K, 3, 3) on (K, 3) axes; negative if they overlap."""
    along_a, along_b = dot(tri_a, axis[:, None]), dot(tri_b, axis[:, None])
    return np.maximum(smallest3(along_b) - largest3(along_a), smallest3(along_a) - largest3(along_b))


def unit_vectors(vectors: np.ndarray) -> np.ndarray:
    """Unit vectors; zero where the vector is zero."""
    length = np.sqrt(dot(vectors, vectors))
    return vectors / np.where(length > 0.0, length, 1.0)[:, None]


def unit_normals(tri: np.ndarray) -> np.ndarray:
    """(K, 3) unit normals of triangles (K, 3, 3) by the right-hand rule; zero for zero-area triangles."""
    return unit_vectors(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]))


def separation_lower_bound(tri_a: np.ndarray, tri_b: np.ndarray, normal_a: np.ndarray | None = None,
                           normal_b: np.ndarray | None = None, bound: float = np.inf) -> np.ndarray:
    """Cheap lower bounds (K,) on the distances of K triangle pairs (K, 3, 3), 0 where none is found.

    Largest gap of the projections on three separating axes: the line through the centroids, and both
    triangles' normals (for facing, nearly parallel triangles the normal gap is nearly exact).
    ``normal_a``, ``normal_b``: the triangles' ``unit_normals`` when already known. Pairs whose
    centroid-line gap already exceeds ``bound`` skip the normals (their bound stays above ``bound``).
    """
    centre_line = unit_vectors(tri_b[:, 0] + tri_b[:, 1] + tri_b[:, 2] - tri_a[:, 0] - tri_a[:, 1] - tri_a[:, 2])
    gap = _interval_gap(centre_line, tri_a, tri_b)
    near = np.flatnonzero(gap <= bound)
    near_a, near_b = tri_a[near], tri_b[near]
    normal_a = unit_normals(near_a) if normal_a is None else normal_a[near]
    normal_b = unit_normals(near_b) if normal_b is None else normal_b[near]
    gap[near] = np.maximum(np.maximum(gap[near], _interval_gap(normal_a, near_a, near_b)),
                           _interval_gap(normal_b, near_a, near_b))
    return np.maximum(gap, 0.0)


def facing_lower_bound_sq(tri_a: np.ndarray, tri_b: np.ndarray, normal_a: np.ndarray, normal_b: np.ndarray,
                          margin: np.ndarray) -> np.ndarray:
    """Lower bounds (K,) on the squared distances of K triangle pairs (K, 3, 3), tight for nearly parallel faces
    offset sideways, where ``separation_lower_bound`` sees only the faces' gap.

    For each triangle T of a pair: the gap g along T's unit normal n and the largest gap h along the three in-plane
    axes ``n x edge`` of T's edges, each less ``margin`` (K,) (the projections' rounding, as a caller's bounds take
    it off) and at least 0. n and an in-plane axis are orthogonal unit vectors, so every point pair of the triangles
    is at least sqrt(g^2 + h^2) apart. An edge nearly along the computed normal (a sliver's normal is rounding) gives
    no axis. The larger of both triangles' bounds, less a relative ``FACING_SLACK`` for the axes' rounding (nearly
    orthogonal, nearly unit)."""
    bound = np.zeros(len(tri_a))
    for tri, normal in ((tri_a, normal_a), (tri_b, normal_b)):
        across = np.maximum(_interval_gap(normal, tri_a, tri_b) - margin, 0.0)
        sideways = np.zeros(len(tri_a))
        edges = tri[:, NEXT_CORNER] - tri
        for edge in range(3):
            axis = cross(normal, edges[:, edge])
            length_sq = dot(axis, axis)
            usable = length_sq > 0.25 * dot(edges[:, edge], edges[:, edge])
            axis = axis / np.sqrt(np.where(usable, length_sq, 1.0))[:, None]
            sideways = np.maximum(sideways, np.where(usable, _interval_gap(axis, tri_a, tri_b) - margin, 0.0))
        bound = np.maximum(bound, across * across + sideways * sideways)
    return bound * (1.0 - FACING_SLACK)


def separating_axes(tri_a: np.ndarray, tri_b: np.ndarray, normal_a: np.ndarray,
                    normal_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of ``separation_lower_bound``'s three axes, the one with the largest gap per pair, turned to point from A
    toward B: (axes (K, 3), gaps (K,), negative where the projections overlap). Moving B by ``t`` moves its
    projection by ``axes @ t`` and leaves A's: the pair's distance is then at least ``gaps + axes @ t``."""
    centre_line = unit_vectors(tri_b[:, 0] + tri_b[:, 1] + tri_b[:, 2] - tri_a[:, 0] - tri_a[:, 1] - tri_a[:, 2])
    candidates = np.stack([centre_line, normal_a, normal_b])  # (3, K, 3)
    along_a, along_b = dot(tri_a[None], candidates[:, :, None]), dot(tri_b[None], candidates[:, :, None])
    forward = smallest3(along_b) - largest3(along_a)
    backward = smallest3(along_a) - largest3(along_b)
    signed = np.where(forward >= backward, 1.0, -1.0)
    gaps = np.maximum(forward, backward)
    best = np.argmax(gaps, axis=0)
    pairs = np.arange(len(best))
    return candidates[best, pairs] * signed[best, pairs][:, None], gaps[best, pairs]
