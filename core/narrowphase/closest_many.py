"""``simplex.closest_on_triangle`` for many triangles at once: the same floats (each step's arithmetic written out in
the scalar function's order, its ``min``/``max`` as they pick), for callers that answer many small problems together
(EPA's witness points in lockstep). A row that takes the scalar function's last resort (the nearest of three edges
of a triangle too flat for its face test) is left undecided, for the scalar function.
"""

from __future__ import annotations

import numpy as np

from ..vector.arrays import cross, dot
from .simplex import EPSILON

_MARGIN = 8.0 * EPSILON  # the region tests' rounding margin, formed as ``8.0 * EPSILON * ...`` forms it
_AT_A, _AT_B, _AT_C = np.eye(3)


def closest_on_triangles(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points, weights, decided)`` for the triangles with corners ``a``, ``b``, ``c`` (n, 3 each): where
    ``decided``, ``closest_on_triangle(a[k], b[k], c[k])``'s point and weights, bit for bit."""
    count = len(a)
    with np.errstate(all="ignore"):
        ab, ac = b - a, c - a
        d1, d2, d3, d4, d5, d6 = -dot(ab, a), -dot(ac, a), -dot(ab, b), -dot(ac, b), -dot(ab, c), -dot(ac, c)
        margin_c, vc = _MARGIN * (abs(d1 * d4) + abs(d3 * d2)), d1 * d4 - d3 * d2
        margin_b, vb = _MARGIN * (abs(d5 * d2) + abs(d1 * d6)), d5 * d2 - d1 * d6
        margin_a, va = _MARGIN * (abs(d3 * d6) + abs(d5 * d4)), d3 * d6 - d5 * d4
        normal = cross(ab, ac)
        n2 = dot(normal, normal)
        longest = _largest(_largest(dot(ab, ab), dot(ac, ac)), dot(ac - ab, ac - ab))
        # Python's power, as the scalar test takes it (a square beyond float64 raises there: the scalar function's)
        squared = np.array([x ** 2 if x < 1e150 else np.nan for x in longest.tolist()])
        # The regions in the scalar function's order: each row takes the first that holds.
        regions = [(d1 <= 0.0) & (d2 <= 0.0), (d3 >= 0.0) & (d4 <= d3), (vc <= -margin_c) & (d1 >= 0.0) & (d3 <= 0.0),
                   (d6 >= 0.0) & (d5 <= d6), (vb <= -margin_b) & (d2 >= 0.0) & (d6 <= 0.0),
                   (va <= -margin_a) & (d4 - d3 >= 0.0) & (d5 - d6 >= 0.0),
                   (va > margin_a) & (vb > margin_b) & (vc > margin_c) & (n2 > 1e-2 * squared),
                   np.ones(count, dtype=bool)]
        region = np.argmax(np.stack(regions), axis=0)
        points, weights = np.empty((count, 3)), np.empty((count, 3))
        decided = longest < 1e150
        for corner, (point, weight) in enumerate(((a, _AT_A), (b, _AT_B))):
            rows = region == corner
            points[rows], weights[rows] = point[rows], weight
        rows = region == 3
        points[rows], weights[rows] = c[rows], _AT_C
        for where, (p, q), slots in ((2, (a, b), [0, 1]), (4, (a, c), [0, 2]), (5, (b, c), [1, 2])):
            rows = np.flatnonzero(region == where)
            weights[rows] = 0.0
            points[rows], weights[rows[:, None], slots] = _closest_on_segments(p[rows], q[rows])
        rows = region == 6
        total = va[rows] + vb[rows] + vc[rows]
        points[rows] = normal[rows] * (dot(a[rows], normal[rows]) / n2[rows])[:, None]
        weights[rows] = np.column_stack([va[rows] / total, vb[rows] / total, vc[rows] / total])
        rows = np.flatnonzero(region == 7)
        points[rows], weights[rows], inside = _feet_on_faces(a[rows], b[rows], c[rows])
        decided[rows] &= inside
    return points, weights, decided


def _largest(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``max(x, y)`` element-wise as Python picks: ``y`` only when it is larger."""
    return np.where(y > x, y, x)


def _smallest(x, y) -> np.ndarray:
    """``min(x, y)`` element-wise as Python picks: ``y`` only when it is smaller."""
    return np.where(y < x, y, x)


def _closest_on_segments(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``simplex.closest_on_segment`` of every row: ``(points, weights (n, 2))``."""
    pq = q - p
    length2, t = dot(pq, pq), -dot(p, pq)
    first = (t <= 0.0) | (length2 <= 0.0)
    last = ~first & (t >= length2)
    t = t / length2
    foot = (0.0 + (1.0 - t)[:, None] * p) + t[:, None] * q  # ``combine``'s sum, from 0.0
    point = foot - pq * (dot(foot, pq) / length2)[:, None]
    point = np.where(first[:, None], p, np.where(last[:, None], q, point))
    u = np.where(first, 1.0, np.where(last, 0.0, 1.0 - t))
    return point, np.column_stack([u, np.where(first, 0.0, np.where(last, 1.0, t))])


def _feet_on_faces(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scalar function's sliver branch (``triangle_frame``, the foot of the origin on the plane it gives and
    ``_face_weights``) of every row: ``(feet, weights, inside)``; a row outside needs the nearest edge instead."""
    here = np.arange(len(a))
    corners = np.stack([a, b, c], axis=1)
    lengths = np.column_stack([dot(c - b, c - b), dot(a - c, a - c), dot(b - a, b - a)])
    r = np.where(lengths[:, 0] >= _largest(lengths[:, 1], lengths[:, 2]), 0,
                 np.where(lengths[:, 1] >= lengths[:, 2], 1, 2))
    start, end, apex = corners[here, (r + 1) % 3], corners[here, (r + 2) % 3], corners[here, r]
    edge, rise = end - start, apex - start
    length2 = lengths[here, r]
    apex_along = np.where(length2 > 0.0, dot(rise, edge) / length2, 0.0)
    perpendicular = rise - edge * apex_along[:, None]
    height2 = dot(perpendicular, perpendicular)
    normal = cross(edge, perpendicular)
    normal2 = dot(normal, normal)
    foot = normal * (dot(start, normal) / normal2)[:, None]
    offset = foot - start
    along = dot(offset, edge) / length2
    u = dot(perpendicular, offset - edge * along[:, None]) / height2
    inside = (u >= 0.0) & (apex_along * u <= along) & (along <= 1.0 - u * (1.0 - apex_along))
    along = _smallest(_largest(along, 0.0), 1.0)
    apex_along = _smallest(_largest(apex_along, 0.0), 1.0)
    limit = np.ones(len(a))  # the cross-section at height u must still reach ``along``
    limit = np.where(apex_along > 0.0, _smallest(limit, along / apex_along), limit)
    limit = np.where(apex_along < 1.0, _smallest(limit, (1.0 - along) / (1.0 - apex_along)), limit)
    u = _smallest(_largest(u, 0.0), limit)
    t = _smallest(_largest(along - u * apex_along, 0.0), 1.0 - u)
    weights = np.empty((len(a), 3))
    weights[here, r], weights[here, (r + 1) % 3], weights[here, (r + 2) % 3] = u, 1.0 - u - t, t
    return foot, weights, (height2 > 0.0) & (normal2 > 0.0) & inside
