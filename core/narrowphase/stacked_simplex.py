"""``simplex.closest_on_segment/triangle/tetrahedron`` on a stack of simplices at once (a row each), the same floats
bit for bit: each branch's arithmetic is the scalar code's, written for arrays in the same order; a row whose branch
the arrays cannot decide for certain (a sliver's face region, a threshold met to within rounding, numbers that are
not finite) is handed to the scalar function. See docs/architecture.md, section "Narrow phase: GJK in lockstep".
"""

from __future__ import annotations

import numpy as np

from ..vector.arrays import cross, dot
from .simplex import EIGHT_EPSILON, ENCLOSED_MISS, TETRAHEDRON_FACES, closest_on_tetrahedron, closest_on_triangle

#: How near ``1e-2 * longest2 ** 2`` a triangle's squared normal may come before the scalar code decides its
#: face region (``**`` is the C library's ``pow``, which need not round as a product does).
_POW_SLACK = 1e-12


def closest_on_segments(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``closest_on_segment`` of each row of the (m, 3) ends: the points (m, 3) and weights (m, 2)."""
    ab = b - a
    length2 = dot(ab, ab)
    t = -dot(a, ab)
    at_a = (t <= 0.0) | (length2 <= 0.0)
    at_b = ~at_a & (t >= length2)
    with np.errstate(all="ignore"):
        t = t / length2
        u = 1.0 - t
        foot = (0.0 + u[:, None] * a) + t[:, None] * b
        along = foot - ab * (dot(foot, ab) / length2)[:, None]
    points = np.where(at_a[:, None], a, np.where(at_b[:, None], b, along))
    weights = np.where(at_a[:, None], (1.0, 0.0), np.where(at_b[:, None], (0.0, 1.0), np.stack([u, t], axis=1)))
    return points, weights


def closest_on_triangles(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``closest_on_triangle`` of each row of the (m, 3) corners: the points (m, 3) and weights (m, 3)."""
    count = len(a)
    points, weights = np.empty((count, 3)), np.empty((count, 3))
    ab, ac = b - a, c - a
    d1, d2 = -dot(ab, a), -dot(ac, a)
    d3, d4 = -dot(ab, b), -dot(ac, b)
    d5, d6 = -dot(ab, c), -dot(ac, c)
    vc, vb, va = d1 * d4 - d3 * d2, d5 * d2 - d1 * d6, d3 * d6 - d5 * d4
    margin_c = EIGHT_EPSILON * (abs(d1 * d4) + abs(d3 * d2))
    margin_b = EIGHT_EPSILON * (abs(d5 * d2) + abs(d1 * d6))
    margin_a = EIGHT_EPSILON * (abs(d3 * d6) + abs(d5 * d4))
    normal = cross(ab, ac)
    n2 = dot(normal, normal)
    bc = ac - ab
    longest2 = np.maximum(np.maximum(dot(ab, ab), dot(ac, ac)), dot(bc, bc))
    threshold = 1e-2 * (longest2 * longest2)
    face = (va > margin_a) & (vb > margin_b) & (vc > margin_c)
    sure = abs(n2 - threshold) > _POW_SLACK * threshold
    with np.errstate(all="ignore"):
        finite = np.isfinite(a + b + c).all(axis=1) & np.isfinite(va + vb + vc + margin_a + margin_b + margin_c
                                                                  + n2 + threshold)
    # The scalar code's regions in its order, the first that holds being the row's: the corners and edges, the face
    # of a triangle that is no sliver; then one the arrays cannot tell (left to the scalar code) or a sliver's.
    regions = np.stack([(d1 <= 0.0) & (d2 <= 0.0), (d3 >= 0.0) & (d4 <= d3),
                        (vc <= -margin_c) & (d1 >= 0.0) & (d3 <= 0.0), (d6 >= 0.0) & (d5 <= d6),
                        (vb <= -margin_b) & (d2 >= 0.0) & (d6 <= 0.0),
                        (va <= -margin_a) & (d4 - d3 >= 0.0) & (d5 - d6 >= 0.0),
                        face & (n2 > threshold) & sure, face & ~sure, np.ones(count, dtype=bool)], axis=1)
    region = np.where(finite, regions.argmax(axis=1), 7)
    for k, corner in enumerate((a, b, c)):
        rows = region == (0, 1, 3)[k]
        points[rows] = corner[rows]
        weights[rows] = np.eye(3)[k]
    for k, (first, second, slots) in enumerate(((a, b, (0, 1)), (a, c, (0, 2)), (b, c, (1, 2)))):
        rows = np.flatnonzero(region == (2, 4, 5)[k])
        if rows.size:
            points[rows], pair = closest_on_segments(first[rows], second[rows])
            weights[rows] = 0.0
            weights[rows[:, None], slots] = pair
    rows = np.flatnonzero(region == 6)
    if rows.size:
        va, vb, vc, normal = va[rows], vb[rows], vc[rows], normal[rows]
        total = va + vb + vc
        points[rows] = normal * (dot(a[rows], normal) / n2[rows])[:, None]
        weights[rows] = np.stack([va / total, vb / total, vc / total], axis=1)
    rows = np.flatnonzero(region == 8)
    if rows.size:
        points[rows], weights[rows] = _sliver_closest(a[rows], b[rows], c[rows])
    for row in np.flatnonzero(region == 7).tolist():
        points[row], weights[row] = closest_on_triangle(*(tuple(corner[row].tolist()) for corner in (a, b, c)))
    return points, weights


def _sliver_closest(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``closest_on_triangle``'s last way (a sliver's face region, or one too close to call): the foot of the origin
    on the plane from the longest edge's frame (``triangle_frame``) when ``_face_weights`` puts it inside, else the
    nearest edge (the first of the nearest)."""
    count = len(a)
    corners = np.stack([a, b, c], axis=1)
    lengths = np.stack([dot(c - b, c - b), dot(a - c, a - c), dot(b - a, b - a)], axis=1)
    r = np.where(lengths[:, 0] >= np.maximum(lengths[:, 1], lengths[:, 2]), 0,
                 np.where(lengths[:, 1] >= lengths[:, 2], 1, 2))
    here = np.arange(count)
    start, end, apex = corners[here, (r + 1) % 3], corners[here, (r + 2) % 3], corners[here, r]
    edge, rise = end - start, apex - start
    length2 = lengths[here, r]
    with np.errstate(all="ignore"):
        apex_along = np.where(length2 > 0.0, dot(rise, edge) / length2, 0.0)
        perpendicular = rise - edge * apex_along[:, None]
        height2 = dot(perpendicular, perpendicular)
        normal = cross(edge, perpendicular)
        normal2 = dot(normal, normal)
        foot = normal * (dot(start, normal) / normal2)[:, None]
        offset = foot - start
        along = dot(offset, edge) / length2
        u = dot(perpendicular, offset - edge * along[:, None]) / height2
        inside = ((height2 > 0.0) & (normal2 > 0.0) & (u >= 0.0) & (apex_along * u <= along)
                  & (along <= 1.0 - u * (1.0 - apex_along)))
        # ``_face_weights``' clamps, with Python's min and max (the first argument unless the second is beyond it).
        along = _at_most(_at_least(along, 0.0), 1.0)
        apex_along = _at_most(_at_least(apex_along, 0.0), 1.0)
        limit = np.where(apex_along > 0.0, _at_most(1.0, along / apex_along), 1.0)
        limit = np.where(apex_along < 1.0, _at_most(limit, (1.0 - along) / (1.0 - apex_along)), limit)
        u = _at_most(_at_least(u, 0.0), limit)
        t = _at_most(_at_least(along - u * apex_along, 0.0), 1.0 - u)
    points, weights = np.empty((count, 3)), np.empty((count, 3))
    points[inside] = foot[inside]
    weights[here[inside], r[inside]] = u[inside]
    weights[here[inside], (r[inside] + 1) % 3] = 1.0 - u[inside] - t[inside]
    weights[here[inside], (r[inside] + 2) % 3] = t[inside]
    rows = np.flatnonzero(~inside)
    if rows.size:
        best = np.full(len(rows), np.inf)
        for first, second, slots in ((a, b, (0, 1)), (a, c, (0, 2)), (b, c, (1, 2))):
            point, pair = closest_on_segments(first[rows], second[rows])
            distance2 = dot(point, point)
            nearer = distance2 < best
            best[nearer] = distance2[nearer]
            taken = rows[nearer]
            points[taken] = point[nearer]
            weights[taken] = 0.0
            weights[taken[:, None], slots] = pair[nearer]
    return points, weights


def _at_least(x, bound):
    """Python's ``max(x, bound)``: ``x`` unless ``bound`` is greater (a -0.0 stays -0.0)."""
    return np.where(bound > x, bound, x)


def _at_most(x, bound):
    """Python's ``min(x, bound)``: ``x`` unless ``bound`` is less."""
    return np.where(bound < x, bound, x)


def closest_on_tetrahedra(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``closest_on_tetrahedron`` of each (4, 3) row of ``points`` (m, 4, 3): the points (m, 3), weights (m, 4) and
    whether the origin is enclosed (m,)."""
    count = len(points)
    closest, weights, enclosed = np.empty((count, 3)), np.zeros((count, 4)), np.zeros(count, dtype=bool)
    corner = [points[:, k] for k in range(4)]
    sides = np.empty((count, 4))
    for f, (i, j, k, opposite) in enumerate(TETRAHEDRON_FACES):
        normal = cross(corner[j] - corner[i], corner[k] - corner[i])
        sides[:, f] = -dot(normal, corner[i]) * dot(normal, corner[opposite] - corner[i])
    with np.errstate(all="ignore"):
        finite = np.isfinite(points.sum(axis=(1, 2)) + sides.sum(axis=1))
    inside = np.flatnonzero(finite & (sides >= 0.0).all(axis=1))
    if inside.size:
        mixed = _inside_weights(points[inside])
        mix = 0.0 + mixed[:, 0, None] * points[inside, 0]
        for k in range(1, 4):
            mix = mix + mixed[:, k, None] * points[inside, k]
        reach2 = dot(points[inside], points[inside]).max(axis=1)
        held = dot(mix, mix) <= ENCLOSED_MISS * ENCLOSED_MISS * reach2
        rows = inside[held]
        closest[rows], weights[rows], enclosed[rows] = 0.0, mixed[held], True
    # Outside: the faces the origin sees (all four where a side is 0 or none is negative), the first nearest.
    rest = np.flatnonzero(finite & ~enclosed)
    seen = sides[rest] < 0.0
    tried = np.where((seen.any(axis=1) & (sides[rest] != 0.0).all(axis=1))[:, None], seen, True)
    owner, face = np.nonzero(tried)
    slots = np.array(TETRAHEDRON_FACES)[face, :3]
    on_face, face_weights = closest_on_triangles(*(points[rest[owner], slots[:, k]] for k in range(3)))
    distance2 = np.full((len(rest), 4), np.inf)
    distance2[owner, face] = dot(on_face, on_face)
    best = distance2.argmin(axis=1)
    chosen = np.flatnonzero(best[owner] == face)  # one (owner, face) per owner: the owners' first nearest
    rows = rest[owner[chosen]]
    closest[rows] = on_face[chosen]
    weights[rows[:, None], slots[chosen]] = face_weights[chosen]
    unsure = ~finite
    unsure[rest] |= ~np.isfinite(distance2[np.arange(len(rest)), best])
    for row in np.flatnonzero(unsure).tolist():
        point, row_weights, row_enclosed = closest_on_tetrahedron([tuple(p) for p in points[row].tolist()])
        closest[row], weights[row], enclosed[row] = point, row_weights, row_enclosed
    return closest, weights, enclosed


def _inside_weights(points: np.ndarray) -> np.ndarray:
    """``simplex._inside_weights`` of each (4, 3) row of ``points``."""
    a, b, c, d = (points[:, k] for k in range(4))
    origin = np.zeros_like(a)
    total = _signed_volumes(a, b, c, d)
    with np.errstate(all="ignore"):
        weights = np.stack([_signed_volumes(origin, b, c, d) / total, _signed_volumes(a, origin, c, d) / total,
                            _signed_volumes(a, b, origin, d) / total, _signed_volumes(a, b, c, origin) / total], axis=1)
        weights = np.where(weights > 0.0, weights, 0.0)
        total_weight = ((weights[:, 0] + weights[:, 1]) + weights[:, 2]) + weights[:, 3]
        weights = np.where((total_weight > 0.0)[:, None], weights / total_weight[:, None], 0.25)
    weights[total == 0.0] = 0.25
    return weights


def _signed_volumes(p: np.ndarray, q: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
    return dot(cross(q - p, r - p), s - p)
