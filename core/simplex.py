"""Closest point to the origin on a simplex of 1-4 points, with barycentric weights.

The Voronoi-region tests follow Ericson, *Real-Time Collision Detection* (5.1.5); the face region
projects the origin with the triangle's normal, which keeps the direction of a tiny distance exact.
Degenerate simplices (repeated, collinear or coplanar points) fall back to their sub-simplices, so
the result is never NaN. Each function returns ``(closest_point, weights)`` with one weight per
input point (zeros for the points that do not support the closest point).
"""

from __future__ import annotations

from .vec3 import Vec3, combine, cross, dot, scale, sub


def closest_on_segment(a: Vec3, b: Vec3) -> tuple[Vec3, tuple[float, float]]:
    ab = sub(b, a)
    length2 = dot(ab, ab)
    t = -dot(a, ab)
    if t <= 0.0 or length2 <= 0.0:
        return a, (1.0, 0.0)
    if t >= length2:
        return b, (0.0, 1.0)
    t /= length2
    return combine((1.0 - t, t), (a, b)), (1.0 - t, t)


def closest_on_triangle(a: Vec3, b: Vec3, c: Vec3) -> tuple[Vec3, tuple[float, float, float]]:
    ab, ac = sub(b, a), sub(c, a)
    d1, d2 = -dot(ab, a), -dot(ac, a)
    if d1 <= 0.0 and d2 <= 0.0:
        return a, (1.0, 0.0, 0.0)
    d3, d4 = -dot(ab, b), -dot(ac, b)
    if d3 >= 0.0 and d4 <= d3:
        return b, (0.0, 1.0, 0.0)
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        point, (u, v) = closest_on_segment(a, b)
        return point, (u, v, 0.0)
    d5, d6 = -dot(ab, c), -dot(ac, c)
    if d6 >= 0.0 and d5 <= d6:
        return c, (0.0, 0.0, 1.0)
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        point, (u, w) = closest_on_segment(a, c)
        return point, (u, 0.0, w)
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        point, (v, w) = closest_on_segment(b, c)
        return point, (0.0, v, w)
    total = va + vb + vc
    normal = cross(ab, ac)
    n2 = dot(normal, normal)
    if total <= 0.0 or n2 <= 0.0 or va < 0.0 or vb < 0.0 or vc < 0.0:  # rounding on a sliver: an edge
        return _closest_of((a, b, c), ((0, 1), (0, 2), (1, 2)), closest_on_segment)
    foot = scale(normal, dot(a, normal) / n2)
    return foot, _face_weights(a, b, c, foot)


def _face_weights(a: Vec3, b: Vec3, c: Vec3, p: Vec3) -> tuple[float, float, float]:
    """Barycentric weights (all >= 0) of ``p``, a point of the triangle's plane inside it.

    Ratios of sub-areas lose all digits on a sliver, and the witness points would leave the shapes.
    Here ``p`` is split along the longest edge (exact to rounding) and across it (the apex's height
    ratio, from the part of ``p`` orthogonal to the edge): the mix then stays within rounding of ``p``.
    """
    corners = (a, b, c)
    lengths = [dot(sub(corners[(i + 2) % 3], corners[(i + 1) % 3]), sub(corners[(i + 2) % 3], corners[(i + 1) % 3]))
               for i in range(3)]
    r = max(range(3), key=lambda i: lengths[i])  # the apex, opposite the longest edge
    start, end, apex = corners[(r + 1) % 3], corners[(r + 2) % 3], corners[r]
    edge, rise, offset = sub(end, start), sub(apex, start), sub(p, start)
    length2 = lengths[r]
    apex_along = dot(rise, edge) / length2  # where the apex projects on the edge, in [0, 1]
    along = dot(offset, edge) / length2
    perpendicular = sub(rise, scale(edge, apex_along))
    height2 = dot(perpendicular, perpendicular)
    u = dot(perpendicular, sub(offset, scale(edge, along))) / height2 if height2 > 0.0 else 0.0
    along = min(max(along, 0.0), 1.0)
    apex_along = min(max(apex_along, 0.0), 1.0)
    limit = 1.0  # the cross-section at height u must still reach ``along``
    if apex_along > 0.0:
        limit = min(limit, along / apex_along)
    if apex_along < 1.0:
        limit = min(limit, (1.0 - along) / (1.0 - apex_along))
    u = min(max(u, 0.0), limit)
    t = min(max(along - u * apex_along, 0.0), 1.0 - u)
    weights = [0.0, 0.0, 0.0]
    weights[r], weights[(r + 1) % 3], weights[(r + 2) % 3] = u, 1.0 - u - t, t
    return tuple(weights)


def closest_on_tetrahedron(points) -> tuple[Vec3, tuple[float, ...], bool]:
    """Closest point on a tetrahedron; the flag says the origin is inside (closest point = origin)."""
    faces = ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0))
    outside = []
    for i, j, k, opposite in faces:
        a = points[i]
        normal = cross(sub(points[j], a), sub(points[k], a))
        side_of_origin = -dot(normal, a)
        side_of_opposite = dot(normal, sub(points[opposite], a))
        if side_of_opposite == 0.0 or side_of_origin * side_of_opposite < 0.0:
            outside.append((i, j, k))
    if not outside:
        return (0.0, 0.0, 0.0), _inside_weights(points), True
    point, weights = _closest_of(points, outside, closest_on_triangle)
    return point, weights, False


def _signed_volume(p: Vec3, q: Vec3, r: Vec3, s: Vec3) -> float:
    return dot(cross(sub(q, p), sub(r, p)), sub(s, p))


def _inside_weights(points) -> tuple[float, ...]:
    """Barycentric weights of the origin in a tetrahedron (ratios of signed volumes), all >= 0."""
    a, b, c, d = points
    total = _signed_volume(a, b, c, d)
    if total == 0.0:
        return (0.25, 0.25, 0.25, 0.25)
    origin = (0.0, 0.0, 0.0)
    weights = [max(0.0, _signed_volume(origin, b, c, d) / total), max(0.0, _signed_volume(a, origin, c, d) / total),
               max(0.0, _signed_volume(a, b, origin, d) / total), max(0.0, _signed_volume(a, b, c, origin) / total)]
    total_weight = sum(weights)  # rounding can push a weight below zero: clamp, so the mix stays in the hull
    return tuple(w / total_weight for w in weights) if total_weight > 0.0 else (0.25, 0.25, 0.25, 0.25)


def _closest_of(points, subsets, solver):
    """Best result of ``solver`` over the given index subsets, with weights spread to all points."""
    best = None
    for subset in subsets:
        point, weights = solver(*(points[i] for i in subset))
        distance2 = dot(point, point)
        if best is None or distance2 < best[0]:
            full = [0.0] * len(points)
            for i, w in zip(subset, weights):
                full[i] = w
            best = (distance2, point, tuple(full))
    return best[1], best[2]
