"""Closest point to the origin on a simplex of 1-4 points, with barycentric weights; degenerate simplices fall back
to their sub-simplices, so the result is never NaN.
See docs/architecture.md, section "Narrow phase: closest point on a simplex".
"""

from __future__ import annotations

from ..vector.vec3 import Vec3, combine, cross, dot, scale, sub

#: Unit roundoff of float64.
EPSILON = 2.0 ** -53
#: How far (relative to the tetrahedron's reach) the weights of an enclosed origin may put it back:
#: farther, the tetrahedron is flat to rounding and its sign tests are noise.
ENCLOSED_MISS = 1e-9
#: Eight units of rounding: a relative error bound shared by the simplex's and EPA's sign tests.
EIGHT_EPSILON = 8.0 * EPSILON


def closest_on_segment(a: Vec3, b: Vec3) -> tuple[Vec3, tuple[float, float]]:
    """Inside the segment, the foot of the origin on its line, projected once more off the line's
    direction: the mix of the ends is off by eps |a| in any direction, which tilts a foot much
    nearer than the ends by eps |a| / |foot| off the perpendicular (GJK's next search direction),
    and on a long thin A - B that tilt picks a support point the length of the segment away.
    (``vec3``'s arithmetic written out, here and below: the same floats, for GJK's and EPA's every step.)"""
    (ax, ay, az), (bx, by, bz) = a, b
    ux, uy, uz = bx - ax, by - ay, bz - az
    length2 = ux * ux + uy * uy + uz * uz
    t = -(ax * ux + ay * uy + az * uz)
    if t <= 0.0 or length2 <= 0.0:
        return a, (1.0, 0.0)
    if t >= length2:
        return b, (0.0, 1.0)
    t /= length2
    s = 1.0 - t
    fx, fy, fz = 0.0 + s * ax + t * bx, 0.0 + s * ay + t * by, 0.0 + s * az + t * bz  # ``combine``'s sums
    along = (fx * ux + fy * uy + fz * uz) / length2
    return (fx - ux * along, fy - uy * along, fz - uz * along), (s, t)


def closest_on_triangle(a: Vec3, b: Vec3, c: Vec3) -> tuple[Vec3, tuple[float, float, float]]:
    """Ericson's region tests (5.1.5) where their signs are certain; otherwise (the face region, or a
    sliver, where sub-area signs lose all digits and would pick an edge up to the sliver's width
    away) the foot of the origin on the plane, inside the triangle by its coordinates in
    ``triangle_frame``, else the nearest edge."""
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = a, b, c
    ux, uy, uz = bx - ax, by - ay, bz - az  # ab
    vx, vy, vz = cx - ax, cy - ay, cz - az  # ac
    d1, d2 = -(ux * ax + uy * ay + uz * az), -(vx * ax + vy * ay + vz * az)
    if d1 <= 0.0 and d2 <= 0.0:
        return a, (1.0, 0.0, 0.0)
    d3, d4 = -(ux * bx + uy * by + uz * bz), -(vx * bx + vy * by + vz * bz)
    if d3 >= 0.0 and d4 <= d3:
        return b, (0.0, 1.0, 0.0)
    vc = d1 * d4 - d3 * d2
    vc_margin = EIGHT_EPSILON * (abs(d1 * d4) + abs(d3 * d2))
    if vc <= -vc_margin and d1 >= 0.0 and d3 <= 0.0:
        point, (u, v) = closest_on_segment(a, b)
        return point, (u, v, 0.0)
    d5, d6 = -(ux * cx + uy * cy + uz * cz), -(vx * cx + vy * cy + vz * cz)
    if d6 >= 0.0 and d5 <= d6:
        return c, (0.0, 0.0, 1.0)
    vb = d5 * d2 - d1 * d6
    vb_margin = EIGHT_EPSILON * (abs(d5 * d2) + abs(d1 * d6))
    if vb <= -vb_margin and d2 >= 0.0 and d6 <= 0.0:
        point, (u, w) = closest_on_segment(a, c)
        return point, (u, 0.0, w)
    va_margin = EIGHT_EPSILON * (abs(d3 * d6) + abs(d5 * d4))
    va = d3 * d6 - d5 * d4
    if va <= -va_margin and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        point, (v, w) = closest_on_segment(b, c)
        return point, (0.0, v, w)
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx  # ab x ac
    n2 = nx * nx + ny * ny + nz * nz
    if va > va_margin and vb > vb_margin and vc > vc_margin:
        wx, wy, wz = vx - ux, vy - uy, vz - uz  # bc
        longest2 = max(ux * ux + uy * uy + uz * uz, vx * vx + vy * vy + vz * vz, wx * wx + wy * wy + wz * wz)
        if n2 > 1e-2 * longest2 ** 2:
            total = va + vb + vc  # certainly the face region of a triangle that is no sliver (height > 0.1 x longest edge)
            along = (ax * nx + ay * ny + az * nz) / n2
            return (nx * along, ny * along, nz * along), (va / total, vb / total, vc / total)
    # The face region of a sliver, or a region too close to call: decide in the longest-edge frame.
    frame = triangle_frame(a, b, c)
    _, start, edge, _, _, perpendicular, height2 = frame
    normal = cross(edge, perpendicular)
    normal2 = dot(normal, normal)
    if height2 > 0.0 and normal2 > 0.0:  # a triangle flat to within underflow has no face region
        foot = scale(normal, dot(start, normal) / normal2)
        weights, inside = _face_weights(frame, foot)
        if inside:
            return foot, weights
    return _closest_of((a, b, c), ((0, 1), (0, 2), (1, 2)), closest_on_segment)


def triangle_frame(a: Vec3, b: Vec3, c: Vec3):
    """The triangle seen from its longest edge: ``(r, start, edge, length2, apex_along, perpendicular,
    height2)``, with ``r`` the corner opposite that edge (the apex), the edge running from corner r+1
    to corner r+2, ``apex_along`` where the apex projects on it (0..1) and ``perpendicular`` the apex's
    offset from the edge's line.

    On a sliver this is the exact way to hold the triangle: ``edge x perpendicular`` is its normal up
    to a tilt about the long edge only (by eps |edge| / height), which moves the plane by just eps |edge|
    over the triangle, whereas crossing two edges at a corner tilts it anywhere by eps |edge|^2 / area.
    """
    corners = (a, b, c)
    bc, ca, ab = sub(c, b), sub(a, c), sub(b, a)
    lengths = (dot(bc, bc), dot(ca, ca), dot(ab, ab))
    r = 0 if lengths[0] >= max(lengths[1], lengths[2]) else (1 if lengths[1] >= lengths[2] else 2)
    start, end, apex = corners[(r + 1) % 3], corners[(r + 2) % 3], corners[r]
    edge, rise = sub(end, start), sub(apex, start)
    length2 = lengths[r]
    apex_along = dot(rise, edge) / length2 if length2 > 0.0 else 0.0
    perpendicular = sub(rise, scale(edge, apex_along))
    return r, start, edge, length2, apex_along, perpendicular, dot(perpendicular, perpendicular)


def _face_weights(frame, p: Vec3) -> tuple[tuple[float, float, float], bool]:
    """Barycentric weights (all >= 0) of ``p``, a point of the triangle's plane, and whether ``p`` is
    inside the triangle (else the weights are those of a nearby point of it).

    Ratios of sub-areas lose all digits on a sliver, and the witness points would leave the shapes.
    Here ``p`` is split along the longest edge (exact to rounding) and across it (the apex's height
    ratio, from the part of ``p`` orthogonal to the edge): the mix then stays within rounding of ``p``.
    """
    r, start, edge, length2, apex_along, perpendicular, height2 = frame
    offset = sub(p, start)
    along = dot(offset, edge) / length2
    u = dot(perpendicular, sub(offset, scale(edge, along))) / height2
    inside = u >= 0.0 and apex_along * u <= along <= 1.0 - u * (1.0 - apex_along)
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
    return tuple(weights), inside


def closest_on_tetrahedron(points) -> tuple[Vec3, tuple[float, ...], bool]:
    """Closest point on a tetrahedron; the flag says the origin is inside (closest point = origin)."""
    sides = [_side(points, i, j, k, opposite) for i, j, k, opposite in TETRAHEDRON_FACES]
    if all(side >= 0.0 for side in sides):
        weights = _inside_weights(points)
        # On a tetrahedron flat to rounding the sign tests and the volume ratios are noise: the origin
        # counts as enclosed only if its weights put it back at the origin.
        mix = combine(weights, points)
        reach2 = max(dot(p, p) for p in points)
        if dot(mix, mix) <= ENCLOSED_MISS * ENCLOSED_MISS * reach2:
            return (0.0, 0.0, 0.0), weights, True
    # The solid's nearest point to an outside origin is on a face the origin sees; where rounding
    # blurs the sign tests (a side of 0, or none negative yet not enclosed) all four are tried.
    seen = [face[:3] for face, side in zip(TETRAHEDRON_FACES, sides) if side < 0.0]
    faces = seen if seen and all(side != 0.0 for side in sides) else [face[:3] for face in TETRAHEDRON_FACES]
    point, weights = _closest_of(points, faces, closest_on_triangle)
    return point, weights, False


#: A tetrahedron's faces, each with its opposite corner last.
TETRAHEDRON_FACES = ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0))


def _side(points, i: int, j: int, k: int, opposite: int) -> float:
    """> 0 when the origin is on the opposite corner's side of the face (i, j, k), < 0 when it is
    beyond the face, 0 on its plane or when the opposite corner is on it (a flat tetrahedron)."""
    (ax, ay, az), (bx, by, bz), (cx, cy, cz), (ox, oy, oz) = points[i], points[j], points[k], points[opposite]
    ux, uy, uz, vx, vy, vz = bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az
    nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    return -(nx * ax + ny * ay + nz * az) * (nx * (ox - ax) + ny * (oy - ay) + nz * (oz - az))


def _signed_volume(p: Vec3, q: Vec3, r: Vec3, s: Vec3) -> float:
    (px, py, pz), (qx, qy, qz), (rx, ry, rz), (sx, sy, sz) = p, q, r, s
    ux, uy, uz, vx, vy, vz = qx - px, qy - py, qz - pz, rx - px, ry - py, rz - pz
    return (uy * vz - uz * vy) * (sx - px) + (uz * vx - ux * vz) * (sy - py) + (ux * vy - uy * vx) * (sz - pz)


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
