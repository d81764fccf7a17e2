"""Triangle-triangle intersection, vectorised over pairs, in one consistent model (B moved by an infinitesimal
generic translation, exact orientation signs), so neighbouring pairs agree on every shared decision.
See docs/architecture.md, section "Mesh: triangle intersection by symbolic perturbation".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..vector.arrays import NEXT_CORNER, cross, dot, largest3, smallest3

_LOCAL_IDS = np.arange(3)


#: Relative error bound of the float orientation determinant (Shewchuk's 7.8e-16, with a margin):
#: beyond it the float sign is certain, within it the sign is recomputed exactly.
_FILTER = 4e-15
#: The same bound in the platform's extended precision (x86's 64-bit significand; ``np.longdouble`` is plain double
#: on some platforms, and then this stage is skipped): Shewchuk's (7 + 56 eps) eps with eps = half its machine
#: epsilon, with a margin of about 9. Rows the float filter leaves unsure are evaluated there first; few then need
#: integers (flush tiles' points lie in one plane to about 1e-17 of their scale, not exactly).
_LONG_FILTER = 32.0 * float(np.finfo(np.longdouble).eps)
_LONG_BITS = np.finfo(np.longdouble).nmant


def _first_nonzero_sign(vectors: np.ndarray) -> np.ndarray:
    """Sign of the first non-zero component: the sign of δ · v for δ = (ε, ε², ε³)."""
    s = np.sign(vectors)
    return np.where(s[..., 0] != 0, s[..., 0], np.where(s[..., 1] != 0, s[..., 1], s[..., 2]))


def _same(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Whether points are the same, coordinate for coordinate (over the last axis)."""
    return (u[..., 0] == v[..., 0]) & (u[..., 1] == v[..., 1]) & (u[..., 2] == v[..., 2])


def exact_integers(values: np.ndarray) -> np.ndarray:
    """The floats as Python integers, all scaled by one power of two (an object array; exact)."""
    mantissa, exponent = np.frexp(values)
    integers = (mantissa * 2.0 ** 53).astype(np.int64)
    exponent = exponent.astype(np.int64) - 53
    nonzero = integers != 0
    shift = exponent[nonzero].min(initial=0)
    # (a zero's own exponent may lie below the shift: a negative shift would raise, so zeros are shifted by 0)
    return np.left_shift(integers.astype(object), np.where(nonzero, exponent - shift, 0).astype(object))


def _tie_vectors(p0, p1, p2, p3, tie: str):
    """The derivative of the determinant along δ: edges (p2, p3 move), or a plane (p0, p1, p2) and a point."""
    if tie == "edges":
        return cross(p3 - p2, p1 - p0)
    normal = cross(p1 - p0, p2 - p0)
    return normal if tie == "point_moves" else -normal


def orientation_signs(p0: np.ndarray, p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, tie: str | None) -> np.ndarray:
    """Exact sign of det(p1 − p0, p2 − p0, p3 − p0) in the perturbed model (int8, broadcast shape).

    ``tie`` says which points move with δ: ``"edges"`` (p2 and p3: an edge of B against an edge p0 p1 of
    A), ``"point_moves"`` (p3 against the plane of triangle p0 p1 p2) or ``"plane_moves"``. A float
    evaluation decides every sign its error bound makes certain; the rest are recomputed exactly in
    integer arithmetic, and exact zeros take the sign of the derivative along δ (also exact). Zero only
    when that derivative vanishes too (a zero-area triangle, parallel edges). With ``tie`` None nothing
    moves: the exact sign of the determinant itself, zero included (a point on a plane, coincident points).
    """
    p0, p1, p2, p3 = (np.asarray(v, dtype=np.float64) for v in (p0, p1, p2, p3))  # broadcast as they meet
    value, permanent = _determinant(p1 - p0, p2 - p0, p3 - p0)
    signs = np.array(np.sign(value), dtype=np.int8)  # (an array even for one point: assigned to below)
    unsure = np.abs(value) <= _FILTER * permanent
    if tie is None:  # a zero permanent (a zero factor in every term) or two equal points: exactly 0
        zero = (permanent == 0.0) | _same(p3, p0) | _same(p3, p1) | _same(p3, p2) | _same(p2, p0) \
            | _same(p2, p1) | _same(p1, p0)
        signs[zero] = 0
        unsure &= ~zero
    if unsure.any():
        shape = signs.shape + (3,)
        points = [np.broadcast_to(p, shape)[unsure] for p in (p0, p1, p2, p3)]
        exact_signs = np.zeros(len(points[0]), dtype=np.int8)
        # two equal points (coinciding faces, shared corners) or a coordinate all four share (a zero column of
        # differences): exactly 0 without integer arithmetic
        zero = _any_same(points) if tie is not None else np.zeros(len(exact_signs), dtype=bool)
        for axis in range(3):
            zero |= (points[0][:, axis] == points[1][:, axis]) & (points[0][:, axis] == points[2][:, axis]) \
                & (points[0][:, axis] == points[3][:, axis])
        rows = np.flatnonzero(~zero)
        if len(rows) and _extended_precision():
            sure, long_signs = _extended_signs([p[rows] for p in points])
            exact_signs[rows[sure]] = long_signs[sure]
            rows = rows[~sure]
        if len(rows):
            e0, e1, e2, e3 = exact_integers(np.stack([p[rows] for p in points]))
            exact_signs[rows] = np.sign(dot(e1 - e0, cross(e2 - e0, e3 - e0))).astype(np.int8)
        if tie is not None:
            zero = exact_signs == 0
            exact_signs[zero] = _tie_signs([p[zero] for p in points], tie)
        signs[unsure] = exact_signs
    return signs


def _determinant(d1: np.ndarray, d2: np.ndarray, d3: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """det(d1, d2, d3) = d1 . (d2 x d3) in floats, and its permanent (the same sum with every product's absolute
    value: the scale of its rounding), each product computed once, coordinate by coordinate."""
    x1, y1, z1, x2, y2, z2, x3, y3, z3 = d1[..., 0], d1[..., 1], d1[..., 2], d2[..., 0], d2[..., 1], d2[..., 2], \
        d3[..., 0], d3[..., 1], d3[..., 2]
    products = (y2 * z3, z2 * y3), (z2 * x3, x2 * z3), (x2 * y3, y2 * x3)
    value = x1 * (products[0][0] - products[0][1]) + y1 * (products[1][0] - products[1][1]) \
        + z1 * (products[2][0] - products[2][1])
    permanent = np.abs(x1) * (np.abs(products[0][0]) + np.abs(products[0][1])) \
        + np.abs(y1) * (np.abs(products[1][0]) + np.abs(products[1][1])) \
        + np.abs(z1) * (np.abs(products[2][0]) + np.abs(products[2][1]))
    return value, permanent


def _extended_precision() -> bool:
    """Whether ``np.longdouble`` is an IEEE-style format longer than double (x87's 64-bit significand, or quad;
    not plain double, nor PowerPC's double-double, whose rounding the bound does not cover) and its arithmetic
    carries the significand ``_LONG_FILTER`` assumes now (x87 precision control could have been lowered)."""
    if _LONG_BITS not in (63, 112):
        return False
    one = np.ones(1, dtype=np.longdouble)
    tiny = np.longdouble(2.0) ** -_LONG_BITS
    return bool(((one + tiny) - one)[0] == tiny)


def _extended_signs(points: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose orientation sign the extended-precision determinant makes certain, and its signs: beyond
    ``_LONG_FILTER`` x its permanent, or a zero permanent (products of doubles' differences do not underflow
    there, so every term of the determinant is exactly 0)."""
    p0, p1, p2, p3 = (p.astype(np.longdouble) for p in points)
    value, permanent = _determinant(p1 - p0, p2 - p0, p3 - p0)
    return (np.abs(value) > _LONG_FILTER * permanent) | (permanent == 0.0), np.sign(value).astype(np.int8)


def _any_same(points: list[np.ndarray]) -> np.ndarray:
    """Whether any two of the four points are the same (the determinant is then exactly 0)."""
    p0, p1, p2, p3 = points
    return _same(p0, p1) | _same(p0, p2) | _same(p0, p3) | _same(p1, p2) | _same(p1, p3) | _same(p2, p3)


def _tie_signs(points: list[np.ndarray], tie: str) -> np.ndarray:
    """The sign of the derivative along δ (``_first_nonzero_sign`` of ``_tie_vectors``), exact: each component a
    2 x 2 determinant decided in floats where its error bound (``_FILTER`` of its permanent) makes the sign certain
    or a zero factor in both terms makes it exactly 0; rows left unsure are recomputed in integers."""
    p0, p1, p2, p3 = points
    u, v = (p3 - p2, p1 - p0) if tie == "edges" else (p1 - p0, p2 - p0)
    u1, u2, v1, v2 = u[:, [1, 2, 0]], u[:, [2, 0, 1]], v[:, [1, 2, 0]], v[:, [2, 0, 1]]
    values = u1 * v2 - u2 * v1
    known_zero = ((u1 == 0.0) | (v2 == 0.0)) & ((u2 == 0.0) | (v1 == 0.0))
    certain = np.abs(values) > _FILTER * (np.abs(u1 * v2) + np.abs(u2 * v1))
    signs = np.zeros(len(values), dtype=np.int8)
    undecided = np.ones(len(values), dtype=bool)
    unsure = np.zeros(len(values), dtype=bool)
    for axis in range(3):
        decide = undecided & certain[:, axis]
        signs[decide] = np.sign(values[decide, axis])
        unsure |= undecided & ~certain[:, axis] & ~known_zero[:, axis]
        undecided &= known_zero[:, axis] & ~unsure
    if unsure.any():
        e0, e1, e2, e3 = exact_integers(np.stack([p[unsure] for p in points]))
        vectors = _tie_vectors(e0, e1, e2, e3, "edges" if tie == "edges" else "point_moves")
        signs[unsure] = _first_nonzero_sign(np.sign(vectors).astype(np.int8))
    return -signs if tie == "plane_moves" else signs


def plane_values(points: np.ndarray, origins: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """n · (p − origin): positive in front of the plane (n = the triangle's area normal)."""
    return dot(normals, points - origins)


def plane_sides(points: np.ndarray, corners: np.ndarray, points_move: bool) -> np.ndarray:
    """Side (+1 / −1) of points against the planes of triangles ``corners`` (..., 3, 3), in the model.

    Zero only for a zero-area triangle (no plane).
    """
    tie = "point_moves" if points_move else "plane_moves"
    return orientation_signs(corners[..., 0, :], corners[..., 1, :], corners[..., 2, :], points, tie)


def edge_orientations(p: np.ndarray, q: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sign of det(q − p, x − p, y − p) for an edge pq that stays and an edge xy that moves with δ."""
    return orientation_signs(p, q, x, y, "edges")


def canonical_edges(corners: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each triangle's edges k -> k+1 as (low, high) endpoints by vertex id, and ±1 for the flip."""
    heads, head_ids = corners[..., NEXT_CORNER, :], ids[..., NEXT_CORNER]
    flipped = ids > head_ids
    low = np.where(flipped[..., None], heads, corners)
    high = np.where(flipped[..., None], corners, heads)
    return low, high, np.where(flipped, -1, 1).astype(np.int8)


def all_same(signs: np.ndarray) -> np.ndarray:
    """Whether the three signs along the last axis agree and are not zero (a line through a triangle)."""
    return (signs[..., 0] == signs[..., 1]) & (signs[..., 1] == signs[..., 2]) & (signs[..., 0] != 0)


@dataclass(frozen=True)
class PairCrossings:
    """Where the edges of each pair's triangles pierce the other triangle, in the perturbed model.

    For edge k (corner k to k+1) of t: ``a_crosses`` (K, 3) whether it pierces s, ``a_params`` the
    parameter along the edge from its lower-id to its higher-id vertex, ``a_points`` (K, 3, 3) the point (both 0
    for edges that do not pierce),
    ``a_starts`` whether that point starts the pair's segment (oriented along n_t × n_s) rather than
    ending it. ``b_*`` the same for the edges of s piercing t. ``a_heights`` (K, 3): signed distances of
    t's corners to s's plane; ``b_heights`` of s's corners to t's plane.
    """

    a_crosses: np.ndarray
    a_params: np.ndarray
    a_points: np.ndarray
    a_starts: np.ndarray
    b_crosses: np.ndarray
    b_params: np.ndarray
    b_points: np.ndarray
    b_starts: np.ndarray
    a_heights: np.ndarray
    b_heights: np.ndarray

    @property
    def segment_mask(self) -> np.ndarray:
        """(K,) pairs whose crossings form one segment: exactly one start and one end."""
        count = self.a_crosses.sum(axis=1) + self.b_crosses.sum(axis=1)
        starts = (self.a_crosses & self.a_starts).sum(axis=1) + (self.b_crosses & self.b_starts).sum(axis=1)
        return (count == 2) & (starts == 1)

    def segments(self) -> tuple[np.ndarray, np.ndarray]:
        """(K, 3) start and end of each pair's segment (meaningful where ``segment_mask``)."""
        crosses = np.concatenate([self.a_crosses, self.b_crosses], axis=1)
        starts = np.concatenate([self.a_starts, self.b_starts], axis=1)
        points = np.concatenate([self.a_points, self.b_points], axis=1)
        rows = np.arange(len(crosses))
        first = np.argmax(crosses & starts, axis=1)
        last = np.argmax(crosses & ~starts, axis=1)
        return points[rows, first], points[rows, last]


#: Below this |v_low| + |v_high| (relative to the permanents) an edge is nearly parallel to the plane it
#: pierces, and its crossing parameter is computed from exact plane values.
_SHALLOW = 1e-3


def _plane_permanent(points: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The permanent bounding the rounding of ``plane_values`` (Shewchuk's error bound scale)."""
    origin = corners[..., 0, :]
    d1, d2, d3 = corners[..., 1, :] - origin, corners[..., 2, :] - origin, points - origin
    return dot(np.abs(d3), np.abs(d1[..., [1, 2, 0]] * d2[..., [2, 0, 1]])
                + np.abs(d1[..., [2, 0, 1]] * d2[..., [1, 2, 0]]))


def _edge_crossings(low: np.ndarray, high: np.ndarray, corners: np.ndarray,
                    ends: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None):
    """Parameter (from low to high) and point where each edge meets the plane of the triangle ``corners``.

    Float plane values give the parameter to about 1e-15 / sin(angle between edge and plane); edges
    within 1e-3 rad of the plane (nearly coplanar faces) use exact plane values instead, so a sliver
    between nearly coincident faces gets its true, tiny size. ``ends``: the ends' plane values and the sum of their
    permanents where known (the same numbers), else computed here.
    """
    if ends is None:
        normals = cross(corners[..., 1, :] - corners[..., 0, :], corners[..., 2, :] - corners[..., 0, :])
        ends = (plane_values(low, corners[..., 0, :], normals), plane_values(high, corners[..., 0, :], normals),
                _plane_permanent(low, corners) + _plane_permanent(high, corners))
    v_low, v_high, permanents = ends
    span = v_low - v_high
    params = v_low / np.where(span == 0, 1.0, span)
    bound = _SHALLOW * permanents
    shallow = (np.abs(v_low) + np.abs(v_high) <= bound) & (span != 0)
    if shallow.any():
        corners_s = np.broadcast_to(corners, np.broadcast_shapes(corners.shape, low.shape[:-1] + (3, 3)))[shallow]
        exact = exact_integers(np.stack([corners_s[:, 0], corners_s[:, 1], corners_s[:, 2], low[shallow],
                                          high[shallow]]))
        e0, e1, e2, e_low, e_high = exact
        normal = cross(e1 - e0, e2 - e0)
        exact_low, exact_high = dot(normal, e_low - e0), dot(normal, e_high - e0)
        span_exact = exact_low - exact_high
        nonzero = span_exact != 0
        exact_params = np.zeros(len(exact_low))
        exact_params[nonzero] = (exact_low[nonzero] / span_exact[nonzero]).astype(np.float64)
        params[shallow] = exact_params
    params = np.clip(params, 0.0, 1.0)
    return params, low + params[..., None] * (high - low)


def pair_crossings(corners_a: np.ndarray, ids_a: np.ndarray, normals_a: np.ndarray,
                   corners_b: np.ndarray, ids_b: np.ndarray, normals_b: np.ndarray,
                   known: PlaneSides | None = None) -> PairCrossings:
    """Edge-piercings of K triangle pairs; ``ids_*`` (K, 3) are vertex ids fixing the canonical order. ``known``: the
    pairs' corners' plane values, heights and the sides already sure (``meeting_rows``), taken instead of found again."""
    if known is None:
        side_a = plane_sides(corners_a, corners_b[:, None], points_move=False)
        side_b = plane_sides(corners_b, corners_a[:, None], points_move=True)
        heights = pair_heights(corners_a, normals_a, corners_b, normals_b)
    else:
        side_a = _all_sides(known.a.sides, corners_a, corners_b, points_move=False)
        side_b = _all_sides(known.b.sides, corners_b, corners_a, points_move=True)
        heights = known.a.heights, known.b.heights
    low_a, high_a, flip_a = canonical_edges(corners_a, ids_a)
    low_b, high_b, flip_b = canonical_edges(corners_b, ids_b)
    a_crosses = side_a * side_a[:, NEXT_CORNER] < 0
    b_crosses = side_b * side_b[:, NEXT_CORNER] < 0
    a_crosses, b_crosses = _piercing_edges(a_crosses, low_a, high_a, flip_a, b_crosses, low_b, high_b, flip_b)
    a_params, a_points = _piercings(a_crosses, low_a, high_a, flip_a, corners_b, None if known is None else known.a)
    b_params, b_points = _piercings(b_crosses, low_b, high_b, flip_b, corners_a, None if known is None else known.b)
    return PairCrossings(a_crosses, a_params, a_points, side_a < 0, b_crosses, b_params, b_points, side_b > 0,
                         *heights)


def _piercing_edges(a_across: np.ndarray, low_a: np.ndarray, high_a: np.ndarray, flip_a: np.ndarray,
                    b_across: np.ndarray, low_b: np.ndarray, high_b: np.ndarray, flip_b: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(K, 3) each: which edges of A pierce B and which of B pierce A, of the edges across the other's plane
    (``*_across``; ``low``, ``high``, ``flip`` as ``canonical_edges`` gives them).

    An edge across B's plane meets it on the planes' common line L, which crosses B between the points where B's two
    edges across A's plane meet L; the edge pierces B exactly when it passes both of those edges on the same side
    (moving along L, the side of each of B's edge lines changes only where L crosses it, and the third edge line
    agrees with both inside B). So of each pair's nine edge orientations only the four between the two edges across
    on each side are needed (in the perturbed model no side and none of these four is zero unless a triangle has no
    area, and then no edge is across)."""
    both = np.flatnonzero(a_across.any(axis=1) & b_across.any(axis=1))  # each straddles the other's plane
    rows = both[:, None]
    # a triangle across a plane has two edges across it: its first and its last
    edges_a, edges_b = (np.stack([np.argmax(across[both], axis=1), 2 - np.argmax(across[both, ::-1], axis=1)], axis=1)
                        for across in (a_across, b_across))
    signs = (edge_orientations(low_a[rows, edges_a][:, :, None], high_a[rows, edges_a][:, :, None],
                               low_b[rows, edges_b][:, None, :], high_b[rows, edges_b][:, None, :])
             * flip_a[rows, edges_a][:, :, None] * flip_b[rows, edges_b][:, None, :])
    a_pierces, b_pierces = np.zeros_like(a_across), np.zeros_like(b_across)
    a_pierces[rows, edges_a] = (signs[:, :, 0] == signs[:, :, 1]) & (signs[:, :, 0] != 0)
    b_pierces[rows, edges_b] = (signs[:, 0, :] == signs[:, 1, :]) & (signs[:, 0, :] != 0)
    return a_pierces, b_pierces


def _all_sides(sides: np.ndarray, points: np.ndarray, corners: np.ndarray, points_move: bool) -> np.ndarray:
    """(K, 3) ``plane_sides`` of the ``points`` (K, 3, 3) against the planes of ``corners`` (K, 3, 3): ``sides`` where
    it is not 0 (sure already), found for the others (each sign is its own row's: the same in any batch)."""
    rows, corner = np.nonzero(sides == 0)
    if not len(rows):
        return sides
    sides = sides.copy()
    sides[rows, corner] = plane_sides(points[rows, corner], corners[rows], points_move)
    return sides


def _piercings(crosses: np.ndarray, low: np.ndarray, high: np.ndarray, flip: np.ndarray, corners: np.ndarray,
               known: CornerSides | None) -> tuple[np.ndarray, np.ndarray]:
    """(K, 3) parameters and (K, 3, 3) points where the edges ``low``-``high`` (K, 3, 3; ``flip`` -1 where low is the
    edge's second corner) that cross (``crosses``) meet the planes of their pairs' other triangles ``corners``
    (K, 3, 3): ``_edge_crossings`` of those edges alone (their ends' plane values and permanents taken from
    ``known`` where given), zeros elsewhere."""
    params, points = np.zeros(crosses.shape), np.zeros(crosses.shape + (3,))
    rows, edges = np.nonzero(crosses)
    ends = None
    if known is not None:
        flipped = flip[rows, edges] < 0
        following = NEXT_CORNER[edges]
        (value, permanent), (next_value, next_permanent) = ((known.values[rows, k], known.permanents[rows, k])
                                                            for k in (edges, following))
        ends = (np.where(flipped, next_value, value), np.where(flipped, value, next_value),
                np.where(flipped, next_permanent, permanent) + np.where(flipped, permanent, next_permanent))
    params[rows, edges], points[rows, edges] = _edge_crossings(low[rows, edges], high[rows, edges], corners[rows],
                                                               ends)
    return params, points


def pair_heights(corners_a: np.ndarray, normals_a: np.ndarray, corners_b: np.ndarray, normals_b: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(a_heights, b_heights)`` of K triangle pairs (see ``PairCrossings``): signed distances (K, 3) of each
    triangle's corners to the other's plane (``normals_*`` its area normals)."""
    return plane_heights(corners_a, corners_b, normals_b), plane_heights(corners_b, corners_a, normals_a)


def plane_heights(points: np.ndarray, corners: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """(K, 3) signed distances of ``points`` (K, 3, 3) to the planes of the triangles ``corners`` (area ``normals``)."""
    scale = np.maximum(np.linalg.norm(normals, axis=1), np.finfo(float).tiny)[:, None]
    return plane_values(points, corners[:, None, 0], normals[:, None]) / scale


#: ``meeting_rows`` takes a corner's side of a plane as certain beyond this share of its determinant's permanent: far
#: beyond the rounding of the plane value (a few 1e-16 of it; ``orientation_signs`` trusts 4e-15).
_SURE_SIDE = 1e-12


@dataclass(frozen=True)
class TrianglePlanes:
    """Triangles' corners and planes for ``meeting_rows``, also coordinates first (a coordinate of many rows is one
    contiguous run, numpy's fast case, and a row's data is one gather): ``corners`` (M, 3, 3) and area ``normals``
    (M, 3) as given; ``axes`` (3 corners, 3 coordinates, M); ``planes`` (10, M): the first corner, the area normal,
    |normal| (``plane_heights`` divides by it) and the permanent's three factors (per coordinate of a point's offset
    from the first corner, as ``_plane_permanent`` has them)."""

    corners: np.ndarray
    normals: np.ndarray
    axes: np.ndarray
    planes: np.ndarray

    @classmethod
    def of(cls, corners: np.ndarray, normals: np.ndarray) -> "TrianglePlanes":
        axes = np.ascontiguousarray(corners.transpose(1, 2, 0))
        (x1, y1, z1), (x2, y2, z2) = (axes[corner] - axes[0] for corner in (1, 2))
        planes = np.empty((10, len(corners)))
        planes[0:3], planes[3:6] = axes[0], normals.T
        planes[6] = np.maximum(np.linalg.norm(normals, axis=1), np.finfo(float).tiny)
        for row, (u1, v2, w1, t2) in enumerate(((y1, z2, z1, y2), (z1, x2, x1, z2), (x1, y2, y1, x2)), start=7):
            planes[row] = np.abs(u1 * v2) + np.abs(w1 * t2)
        return cls(corners, normals, axes, planes)


class CornerSides(NamedTuple):
    """One triangle's corners against the other's plane, for K pairs, (K, 3) each: ``values`` n . (p - o) (as
    ``plane_values`` gives them), ``permanents`` their rounding's scale (as ``_plane_permanent``), ``heights`` (as
    ``plane_heights``), and ``sides`` (int8) the side where the value makes it certain (the exact sign, as
    ``plane_sides`` finds it), else 0."""

    values: np.ndarray
    permanents: np.ndarray
    heights: np.ndarray
    sides: np.ndarray


class PlaneSides(NamedTuple):
    """What ``meeting_rows`` learnt of the pairs it keeps, for ``pair_crossings``: A's corners against B's planes
    (``a``) and B's against A's (``b``)."""

    a: CornerSides
    b: CornerSides


def meeting_rows(a: TrianglePlanes, t: np.ndarray, b: TrianglePlanes, s: np.ndarray, tolerance: float | np.ndarray,
                 size: float | np.ndarray) -> tuple[np.ndarray, PlaneSides]:
    """Of K triangle pairs (``a``'s triangles ``t``, ``b``'s ``s``), those that may cross in the perturbed model or
    lie in one plane within ``tolerance`` (scalars or per pair; ``size`` as for ``apart_on_common_line``): (their
    indices, their ``PlaneSides``). The others find nothing in ``pair_crossings`` (no piercing, no segment, no coplanar
    overlap): one triangle's corners lie certainly on one side of the other's plane (each value beyond ``_SURE_SIDE``
    x its permanent, far beyond its rounding, so it has the exact sign), or both straddle the other's plane and are
    clearly apart along the planes' common line. Each test runs only on the pairs the ones before leave: A's corners
    against B's plane first, B's only where A's straddle or lie in it."""
    count = len(t)
    tolerance, size = (np.broadcast_to(np.asarray(value, dtype=np.float64), (count,)) for value in (tolerance, size))
    a_sides = _corner_sides(a, t, b, s)
    flat_a = largest3(np.abs(a_sides.heights.T)) <= tolerance
    one_a = _one_sided(a_sides.sides)
    rows = np.flatnonzero(flat_a | ~one_a)  # the others: A certainly on one side of B's plane, not in it
    t, s, tolerance, size = t[rows], s[rows], tolerance[rows], size[rows]
    b_sides = _corner_sides(b, s, a, t)
    coplanar = flat_a[rows] & (largest3(np.abs(b_sides.heights.T)) <= tolerance)
    near = ~one_a[rows] & ~_one_sided(b_sides.sides)
    a_heights, b_heights = a_sides.heights[:, rows].T, b_sides.heights.T
    straddle = np.flatnonzero(near & straddling(a_heights, b_heights, tolerance))
    ts, ss = t[straddle], s[straddle]
    near[straddle[apart_on_common_line(a.corners[ts], a.normals[ts], a_heights[straddle], b.corners[ss],
                                       b.normals[ss], b_heights[straddle], tolerance[straddle],
                                       size[straddle])]] = False
    meet = np.flatnonzero(near | coplanar)
    return rows[meet], PlaneSides(CornerSides(*(np.ascontiguousarray(values[:, rows[meet]].T) for values in a_sides)),
                                  CornerSides(*(np.ascontiguousarray(values[:, meet].T) for values in b_sides)))


#: ``meeting_rows`` works through this many rows at a time: each of its dozens of element-wise passes then stays in
#: the processor's cache (on 269k rows at once, a fifth slower).
SCREEN_BLOCK = 8192


def _corner_sides(points: TrianglePlanes, t: np.ndarray, planes: TrianglePlanes, s: np.ndarray) -> CornerSides:
    """``CornerSides`` (each (3, K): corners first) of the corners of ``points``' triangles ``t`` against the planes
    of ``planes``' triangles ``s``, with ``plane_values``', ``_plane_permanent``'s and ``plane_heights``' arithmetic,
    ``SCREEN_BLOCK`` rows at a time."""
    values, permanents, heights = np.empty((3, 3, len(t)))
    sides = np.empty((3, len(t)), dtype=np.int8)
    for first in range(0, len(t), SCREEN_BLOCK):
        rows = slice(first, first + SCREEN_BLOCK)
        corners, plane = points.axes[:, :, t[rows]], planes.planes[:, s[rows]]
        origin, normal, scale, factors = plane[0:3], plane[3:6], plane[6], plane[7:10]
        for corner in range(3):
            d0, d1, d2 = (corners[corner, axis] - origin[axis] for axis in range(3))
            value = normal[0] * d0 + normal[1] * d1 + normal[2] * d2
            permanent = np.abs(d0) * factors[0] + np.abs(d1) * factors[1] + np.abs(d2) * factors[2]
            sure = _SURE_SIDE * permanent
            values[corner, rows], permanents[corner, rows], heights[corner, rows] = value, permanent, value / scale
            sides[corner, rows] = (value > sure).view(np.int8) - (value < -sure).view(np.int8)
    return CornerSides(values, permanents, heights, sides)


def _one_sided(sides: np.ndarray) -> np.ndarray:
    """(K,) whether the three corners' sure ``sides`` (3, K) are all above or all below the plane."""
    return ((sides[0] > 0) & (sides[1] > 0) & (sides[2] > 0)) | ((sides[0] < 0) & (sides[1] < 0) & (sides[2] < 0))


def straddling(a_heights: np.ndarray, b_heights: np.ndarray, tolerance: float | np.ndarray) -> np.ndarray:
    """Pairs each of whose triangles has corners more than ``tolerance`` (scalar or per pair) on both sides of the
    other's plane: the only pairs that can cross for real (``proper_mask``)."""
    return ((largest3(a_heights) > tolerance) & (smallest3(a_heights) < -tolerance)
            & (largest3(b_heights) > tolerance) & (smallest3(b_heights) < -tolerance))


#: ``apart_on_common_line`` drops a pair only when its two intervals are further apart than this share of the pair's
#: size (times the line's direction): the intervals' rounding is below 1e-5 of it (see the function).
LINE_GAP = 1e-4


def apart_on_common_line(corners_a: np.ndarray, normals_a: np.ndarray, a_heights: np.ndarray, corners_b: np.ndarray,
                         normals_b: np.ndarray, b_heights: np.ndarray, tolerance: float | np.ndarray,
                         size: float | np.ndarray) -> np.ndarray:
    """Straddling pairs (``straddling``) whose triangles surely do not meet: where each triangle crosses the other's
    plane, projected on the planes' common direction n_a x n_b, the two intervals lie more than ``LINE_GAP`` x
    ``size`` apart (the Möller interval test, kept conservative; ``tolerance`` and ``size`` scalar or per pair).

    Every edge whose ends lie on opposite sides of the plane has ends more than ``tolerance`` (1e-9 of the size)
    apart in height (a straddling triangle has a corner beyond it on each side), so its crossing's parameter is
    good to about 1e-6 and its projection to about 1e-6 of the size; corners within the tolerance of the plane
    are taken as they are, which only widens an interval. Such pairs cannot cross, in the perturbed model either."""
    direction = cross(normals_a, normals_b)
    low_a, high_a = _line_interval(corners_a, a_heights, direction, tolerance)
    low_b, high_b = _line_interval(corners_b, b_heights, direction, tolerance)
    reach = np.maximum(largest3(largest3(np.abs(corners_a))), largest3(largest3(np.abs(corners_b))))
    gap = np.sqrt(dot(direction, direction)) * (LINE_GAP * np.asarray(size) + 1e-12 * reach)
    return (low_a > high_b + gap) | (low_b > high_a + gap)


def _line_interval(corners: np.ndarray, heights: np.ndarray, direction: np.ndarray, tolerance
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of ``direction`` . p over the points p where each triangle meets the other's plane (see above)."""
    along = dot(corners, direction[:, None])
    following = heights[:, NEXT_CORNER]
    changes = heights * following < 0.0
    crossing = along + heights / np.where(changes, heights - following, 1.0) * (along[:, NEXT_CORNER] - along)
    near = np.abs(heights) <= np.asarray(tolerance)[..., None]
    values = np.where(changes, crossing, np.nan), np.where(near, along, np.nan)
    columns = [value[:, k] for value in values for k in range(3)]
    low, high = columns[0], columns[0]
    for column in columns[1:]:  # (fmin and fmax pass over NaN, as nanmin and nanmax do; NaN where all are)
        low, high = np.fmin(low, column), np.fmax(high, column)
    return low, high


def coplanar_heights(a_heights: np.ndarray, b_heights: np.ndarray, tolerance: float | np.ndarray) -> np.ndarray:
    """Pairs whose triangles lie in one plane: every corner within ``tolerance`` of the other's plane."""
    return (largest3(np.abs(a_heights)) <= tolerance) & (largest3(np.abs(b_heights)) <= tolerance)


def proper_mask(crossings: PairCrossings, starts: np.ndarray, ends: np.ndarray, tolerance: float) -> np.ndarray:
    """Pairs that cross for real, not only in the perturbed model: each triangle has corners more than
    ``tolerance`` on both sides of the other's plane, and the segment is longer than ``tolerance``."""
    straddles = straddling(crossings.a_heights, crossings.b_heights, tolerance)
    return straddles & (np.linalg.norm(ends - starts, axis=1) > tolerance) & crossings.segment_mask


def _cross_2d(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def _clip_by_line(polygon: np.ndarray, count: np.ndarray, a: np.ndarray, b: np.ndarray):
    """Sutherland–Hodgman step on K convex polygons (K, N, 2) with ``count`` vertices: keep left of a→b."""
    slots = np.arange(polygon.shape[1])
    valid = slots[None, :] < count[:, None]
    following = np.where(slots[None, :] + 1 < count[:, None], slots[None, :] + 1, 0)
    nxt = np.take_along_axis(polygon, following[..., None], axis=1)
    direction = (b - a)[:, None, :]
    here = _cross_2d(direction, polygon - a[:, None, :])
    there = _cross_2d(direction, nxt - a[:, None, :])
    inside_here, inside_there = here >= 0, there >= 0
    t = here / np.where(here == there, 1.0, here - there)
    crossing = polygon + t[..., None] * (nxt - polygon)
    candidates = np.stack([polygon, crossing], axis=2).reshape(len(polygon), -1, 2)
    keep = np.stack([valid & inside_here, valid & (inside_here != inside_there)], axis=2).reshape(len(polygon), -1)
    order = np.argsort(~keep, axis=1, kind="stable")
    new_count = keep.sum(axis=1)
    width = max(int(new_count.max(initial=0)), 1)
    return np.take_along_axis(candidates, order[:, :width, None], axis=1), new_count


def _counter_clockwise(triangles: np.ndarray) -> np.ndarray:
    area = _cross_2d(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    return np.where((area < 0)[:, None, None], triangles[:, ::-1], triangles)


def coplanar_overlap_areas(corners_a: np.ndarray, corners_b: np.ndarray,
                           normals_a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Area (K,) and centroid (K, 3) of t ∩ s for K pairs of triangles in one plane (t's, normal ``normals_a``).

    Both triangles are projected on the coordinate plane most orthogonal to the normal, t is clipped by
    s's three edges (Sutherland–Hodgman, all pairs at once), and the result is lifted back onto t's plane.
    """
    count_pairs = len(corners_a)
    if not count_pairs:
        return np.zeros(0), np.zeros((0, 3))
    rows = np.arange(count_pairs)
    axis = np.argmax(np.abs(normals_a), axis=1)
    keep = np.stack([(axis + 1) % 3, (axis + 2) % 3], axis=1)
    flat_a = _counter_clockwise(corners_a[rows[:, None, None], np.arange(3)[None, :, None], keep[:, None, :]])
    flat_b = _counter_clockwise(corners_b[rows[:, None, None], np.arange(3)[None, :, None], keep[:, None, :]])
    polygon, count = flat_a, np.full(count_pairs, 3)
    for k in range(3):
        polygon, count = _clip_by_line(polygon, count, flat_b[:, k], flat_b[:, (k + 1) % 3])
    slots = np.arange(polygon.shape[1])
    following = np.where(slots[None, :] + 1 < count[:, None], slots[None, :] + 1, 0)
    nxt = np.take_along_axis(polygon, following[..., None], axis=1)
    terms = np.where(slots[None, :] < count[:, None], _cross_2d(polygon, nxt), 0.0)
    projected = 0.5 * terms.sum(axis=1)
    safe = np.where(projected > 0, projected, 1.0)
    flat_centroid = ((polygon + nxt) * terms[..., None]).sum(axis=1) / (6.0 * safe[:, None])
    normal_axis = normals_a[rows, axis]
    safe_axis = np.where(normal_axis != 0, normal_axis, 1.0)
    centroid = np.empty((count_pairs, 3))
    centroid[rows[:, None], keep] = flat_centroid
    offset = np.einsum("ij,ij->i", normals_a, corners_a[:, 0])
    kept_normal = np.take_along_axis(normals_a, keep, axis=1)
    centroid[rows, axis] = (offset - np.einsum("ij,ij->i", kept_normal, flat_centroid)) / safe_axis
    stretch = np.linalg.norm(normals_a, axis=1) / np.abs(safe_axis)
    return np.maximum(projected, 0.0) * stretch, centroid


def coplanar_mask(crossings: PairCrossings, tolerance: float) -> np.ndarray:
    """Pairs whose triangles lie in one plane: every corner within ``tolerance`` of the other's plane."""
    return coplanar_heights(crossings.a_heights, crossings.b_heights, tolerance)


@dataclass(frozen=True)
class TrianglePairIntersections:
    """Result of ``intersect_triangle_pairs`` for K pairs.

    ``crossing`` (K,): t ∩ s is a segment in the perturbed model (B moved by an infinitesimal generic
    translation; touching pairs may or may not cross there). ``proper`` (K,): they cross for real, beyond
    the tolerance. ``start``, ``end`` (K, 3): the segment, oriented along n_t × n_s (NaN where not
    crossing). ``coplanar`` (K,): the triangles lie in one plane and their areas overlap by more than
    tolerance × size; ``coplanar_area`` (K,): the area of that overlap (0 elsewhere).
    """

    crossing: np.ndarray
    proper: np.ndarray
    start: np.ndarray
    end: np.ndarray
    coplanar: np.ndarray
    coplanar_area: np.ndarray


def _as_triangles(value, name: str) -> np.ndarray:
    triangles = np.asarray(value, dtype=np.float64)
    if triangles.ndim != 3 or triangles.shape[1:] != (3, 3):
        raise ValueError(f"{name} must have shape (K, 3, 3), got {triangles.shape}")
    if not np.isfinite(triangles).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return triangles


def intersect_triangle_pairs(triangles_a: ArrayLike, triangles_b: ArrayLike, *,
                             tolerance: float | None = None) -> TrianglePairIntersections:
    """Intersect triangle ``triangles_a[k]`` with ``triangles_b[k]`` for all k at once ((K, 3, 3) corners).

    ``tolerance`` (absolute) decides coplanarity and real crossings; None means 1e-9 × each pair's size.
    Degenerate (zero-area) triangles give no crossing and no NaN.
    """
    a, b = _as_triangles(triangles_a, "triangles_a"), _as_triangles(triangles_b, "triangles_b")
    if a.shape != b.shape:
        raise ValueError(f"triangles_a and triangles_b must have the same shape, got {a.shape} and {b.shape}")
    both = np.concatenate([a, b], axis=1)
    size = np.ptp(both, axis=1).max(axis=1)
    tol = 1e-9 * size if tolerance is None else np.full(len(a), float(tolerance))
    normals_a = np.cross(a[:, 1] - a[:, 0], a[:, 2] - a[:, 0])
    normals_b = np.cross(b[:, 1] - b[:, 0], b[:, 2] - b[:, 0])
    ids = np.broadcast_to(_LOCAL_IDS, (len(a), 3))
    crossings = pair_crossings(a, ids, normals_a, b, ids, normals_b)
    start, end = crossings.segments()
    crossing = crossings.segment_mask
    proper = proper_mask(crossings, start, end, tol)
    start[~crossing] = np.nan
    end[~crossing] = np.nan
    flat = coplanar_mask(crossings, tol)
    area = np.zeros(len(a))
    area[flat] = coplanar_overlap_areas(a[flat], b[flat], normals_a[flat])[0]
    overlapping = area > tol * size
    return TrianglePairIntersections(crossing, proper, start, end, overlapping, np.where(overlapping, area, 0.0))
