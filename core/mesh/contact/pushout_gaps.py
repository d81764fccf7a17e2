"""Candidate push-out lengths without bisecting: along a direction d, triangle a meets triangle b + t·d exactly when
t·d lies in the pair's Minkowski difference a ⊕ (−b), so the offsets t at which B's moved surface meets A's are a
union of intervals, one per triangle pair. Where that union has a gap the surfaces do not meet; the first gap ends
past the proven lower bound are the lengths the push-out's exact test is asked about (``pushout_search``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...vector.arrays import NEXT_CORNER, PREVIOUS_CORNER, cross, dot, largest3, smallest3
from ..intersection import RELATIVE_TOLERANCE
from ..stacked import STACKED_TRIANGLES, StackedMeshes
from ..solid import Solid
from .pushout import AXES, PUSHOUT_STEPS

#: Gap ends kept per direction: the first stops meeting, the next after a stretch where one object lies inside the
#: other (the exact test tells them apart).
GAPS = 2
#: Faces that only touch (a face sliding over another) meet where their difference reaches beyond this share of the
#: exact test's tolerance; gaps narrower than the tolerance (and the bisection's bracket) are rounding.
SHRINK = 0.25
#: Triangle-pair rows computed at once: the items' arrays stay a few hundred kilobytes (measured on the kitbashed roof,
#: 8192 rows took a tenth less time than 4096 or 16384; the answers do not depend on it).
CHUNK = 8192
#: Pairs measured in one pass: up to about this many triangles times directions.
GROUP_TRIANGLES = 50_000
#: A pair with more triangle pairs to measure than this (sculpts) is left to the bisection.
GAP_ROWS = 1_000_000
#: The ``TriangleTerms`` the planes' bounds read (``plane_extents``, ``plane_intervals``), and the edge pairs'.
PLANE_TERMS = ("corners", "normal", "level")
EDGE_TERMS = ("edges", "on", "off")


class TriangleTerms(NamedTuple):
    """What ``meeting_intervals`` needs of each triangle, computed once per triangle: its corners and edges (edge k
    from corner k to k + 1), area normal, the normal's level (n · corner 0), and per edge k the products
    corner k × edge k (``on``, also corner k + 1's) and corner k + 2 × edge k (``off``): a · (e_a × e_b) is
    e_b · (a × e_a). Triangles last (``corners``, ``edges``, ``on``, ``off`` (3, 3, M): corner or edge, coordinate,
    triangle; ``normal`` (3, M); ``level`` (M,)): the pairs' arithmetic then runs over contiguous rows of triangles."""

    corners: np.ndarray
    edges: np.ndarray
    normal: np.ndarray
    level: np.ndarray
    on: np.ndarray
    off: np.ndarray

    @classmethod
    def of(cls, corners: np.ndarray) -> TriangleTerms:
        """The terms of triangles given as corners (M, 3, 3)."""
        edges = corners[:, NEXT_CORNER] - corners
        normal = cross(edges[:, 0], edges[:, 1])
        terms = (corners, edges, normal, dot(normal, corners[:, 0]), cross(corners, edges),
                 cross(corners[:, PREVIOUS_CORNER], edges))
        return cls(*(np.ascontiguousarray(np.moveaxis(term, 0, -1)) for term in terms))

    def rows(self, rows: np.ndarray, fields: tuple[str, ...] | None = None) -> TriangleTerms:
        """The terms of the triangles ``rows``: only the ``fields`` named (None for the others), or all."""
        return TriangleTerms(*(np.take(term, rows, axis=-1) if fields is None or name in fields else None
                               for name, term in zip(self._fields, self)))


def meeting_intervals(a: TriangleTerms, b: TriangleTerms, directions: np.ndarray, shrink: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` (R,) of the t at which triangle a (R triangles of ``TriangleTerms``) meets triangle b moved
    by t·d; ``low > high`` where it never does (in floating point: a bracket to check). A pair that only slides
    over a plane of the difference (a face over a face it touches) does not meet: along the axes d runs parallel
    to, the difference must reach more than ``shrink`` (R,) beyond the line on both sides.

    The interval is the intersection over the difference's 11 facet axes m of [low, high] / (m·d): the two planes'
    (``plane_intervals``) and the nine edge pairs' (``edge_intervals``), which a pair measured along several
    directions computes once per pair (``plane_extents``, ``edge_extents``)."""
    place, axis = np.arange(len(directions)), axis_numbers(directions)
    plane_low, plane_high = plane_intervals(a, b, *plane_extents(a, b), place, place, directions, axis, shrink)
    edge_low, edge_high = edge_intervals(a, b, *edge_extents(a, b), place, place, directions, axis, shrink)
    return np.maximum(plane_low, edge_low), np.minimum(plane_high, edge_high)


def axis_numbers(directions: np.ndarray) -> np.ndarray:
    """(D,): the row of ``AXES`` each direction is exactly (a zero's sign aside), -1 where it is none."""
    return np.where((directions[:, None] == AXES).all(axis=2), np.arange(6), -1).max(axis=1)


def _products(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(3, 3, R): u k · v l of the vectors u (3 k, 3, R) and v (3 l, 3, R), summed in the order x, y, z
    (``vector.arrays.dot_rows``' arithmetic)."""
    return (u[:, None, 0] * v[None, :, 0] + u[:, None, 1] * v[None, :, 1]) + u[:, None, 2] * v[None, :, 2]


def plane_extents(a: TriangleTerms, b: TriangleTerms) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` (2, R): the extent of a ⊕ (−b) along a's normal and along b's, whatever the direction: along
    an axis m, t·(m·d) must lie within [min m·a − max m·b, max m·a − min m·b]."""
    b_along_a = _products(a.normal[None], b.corners)[0].T  # (R, 3 corners)
    a_along_b = _products(b.normal[None], a.corners)[0].T
    return (np.stack([a.level - largest3(b_along_a), smallest3(a_along_b) - b.level]),
            np.stack([a.level - smallest3(b_along_a), largest3(a_along_b) - b.level]))


def edge_extents(a: TriangleTerms, b: TriangleTerms) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` (9, R): the extent of a ⊕ (−b) along e_a k × e_b l (row 3k + l), where a's corners give
    e_b · (a × e_a) and b's −e_a · (b × e_b)."""
    on_a, off_a = _products(a.on, b.edges), _products(a.off, b.edges)  # (3 edges of a, 3 edges of b, R)
    on_b, off_b = _products(a.edges, b.on), _products(a.edges, b.off)  # minus b's values
    count = on_a.shape[-1]
    return ((np.minimum(on_a, off_a) + np.minimum(on_b, off_b)).reshape(9, count),
            (np.maximum(on_a, off_a) + np.maximum(on_b, off_b)).reshape(9, count))


def plane_intervals(a: TriangleTerms, b: TriangleTerms, low: np.ndarray, high: np.ndarray, place: np.ndarray,
                    segment: np.ndarray, directions: np.ndarray, axis: np.ndarray, shrink: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The intersection of [low, high] / (m·d) over the two planes' axes m (``plane_extents`` (2, R)) of N
    (triangle pair, direction) items: item n is pair ``place[n]`` along segment ``segment[n]``'s direction
    (``directions``, ``axis`` (the row of ``AXES`` it is, -1 for another direction) and ``shrink`` are per segment,
    read only where needed); see ``meeting_intervals``."""
    axes = np.stack([a.normal, b.normal], axis=1)  # (3, 2, R)
    along = axis[segment]
    rate = _axis_rates(axes, place, along)
    general = np.flatnonzero(along < 0)
    if len(general):
        d, rows = directions[segment[general]].T, place[general]
        for m, normal in enumerate((np.take(a.normal, rows, axis=1), np.take(b.normal, rows, axis=1))):
            rate[m, general] = (normal[0] * d[0] + normal[1] * d[1]) + normal[2] * d[2]
    return _intersected(np.take(low, place, axis=1), np.take(high, place, axis=1), rate, axes, place, segment, shrink)


def edge_intervals(a: TriangleTerms, b: TriangleTerms, low: np.ndarray, high: np.ndarray, place: np.ndarray,
                   segment: np.ndarray, directions: np.ndarray, axis: np.ndarray, shrink: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``plane_intervals`` over the nine edge pairs' axes e_a k × e_b l (``edge_extents`` (9, R)), their rates
    computed as (d × e_a)·e_b."""
    u, v = a.edges[:, None], b.edges[None, :]  # e_a k × e_b l, coordinates first: (3, 9, R)
    axes = np.stack([u[:, :, 1] * v[:, :, 2] - u[:, :, 2] * v[:, :, 1],
                     u[:, :, 2] * v[:, :, 0] - u[:, :, 0] * v[:, :, 2],
                     u[:, :, 0] * v[:, :, 1] - u[:, :, 1] * v[:, :, 0]]).reshape(3, 9, -1)
    along = axis[segment]
    rate = _axis_rates(axes, place, along)
    general = np.flatnonzero(along < 0)
    if len(general):
        d, rows = directions[segment[general]].T, place[general]
        edges_a, edges_b = np.take(a.edges, rows, axis=-1), np.take(b.edges, rows, axis=-1)
        turned = np.stack([d[1] * edges_a[:, 2] - d[2] * edges_a[:, 1], d[2] * edges_a[:, 0] - d[0] * edges_a[:, 2],
                           d[0] * edges_a[:, 1] - d[1] * edges_a[:, 0]], axis=1)  # d × e_a k: (3 k, 3, n)
        rate[:, general] = _products(turned, edges_b).reshape(9, -1)
    return _intersected(np.take(low, place, axis=1), np.take(high, place, axis=1), rate, axes, place, segment, shrink)


def _axis_rates(axes: np.ndarray, place: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """(F, N) rates m·d of the items along an axis ±e_c: the facet axes' (``axes`` (3, F, R), contiguous) coordinate
    c, negated for −e_c, which is what the general arithmetic ((d × e_a)·e_b, n·d) gives there bit for bit; other
    items' rates are left for the caller (they hold some coordinate). Item n's facet f is at c·F·R + f·R + place[n]
    of the flat axes: a gather per facet (one gather of a 2-D index is several times slower), the signs by a
    product with ±1 (exact; ``np.negative(where=...)`` is slower still)."""
    count, rows = axes.shape[1], axes.shape[2]
    flat, at = axes.reshape(-1), axis % 3 * (count * rows) + place
    rate = np.empty((count, len(place)))
    for facet in range(count):
        np.take(flat, at, out=rate[facet])
        at += rows
    rate *= np.where(axis >= 3, -1.0, 1.0)
    return rate


def _intersected(low: np.ndarray, high: np.ndarray, rate: np.ndarray, axes: np.ndarray, place: np.ndarray,
                 segment: np.ndarray, shrink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The intersection over F facets of the items' [low, high] / rate (each (F, N)): where a rate is 0 (d runs
    parallel to the facet), no bound if the difference reaches more than ``shrink`` (per segment, item n's
    ``segment[n]``) times the axis's length (``axes`` (3, F, R), item n's of pair ``place[n]``) beyond the line on
    both sides, else an empty interval.
    Axis-major arrays: numpy reduces over a short last axis slowly."""
    with np.errstate(divide="ignore", invalid="ignore"):
        first, last = low / rate, high / rate
    rising = rate > 0.0
    starts = np.where(rising, first, last)
    ends = np.where(rising, last, first)
    facet, item = np.nonzero(rate == 0.0)
    if len(item):
        vectors = axes[:, facet, place[item]].T
        length = np.sqrt(dot(vectors, vectors))
        margin = shrink[segment[item]] * length
        across = ((low[facet, item] < -margin) & (high[facet, item] > margin)) | (length == 0.0)  # parallel edges
        starts[facet, item] = np.where(across, -np.inf, np.inf)
        ends[facet, item] = np.where(across, np.inf, -np.inf)
    return starts.max(axis=0), ends.min(axis=0)


def first_gap_ends(segment: np.ndarray, low: np.ndarray, high: np.ndarray, starts: np.ndarray, join: np.ndarray,
                   count: int, gaps: int = GAPS) -> np.ndarray:
    """(count, gaps): per segment, the first ``gaps`` ends of stretches covered by its intervals ``[low, high]``
    (rows with their ``segment``) at or after ``starts[segment]``, in increasing order: the first is
    ``starts[segment]`` itself when no interval covers it; inf where there are fewer. Intervals less than
    ``join[segment]`` + 2^-PUSHOUT_STEPS of the length apart join: a gap narrower than the bisection's bracket
    is rounding, where two triangles hand over at a vertex passing a face (there the exact test's tolerance
    cannot see a cap of the surface poking through)."""
    segment = np.concatenate([segment, np.arange(count)])
    low = np.concatenate([low, np.full(count, -np.inf)])
    high = np.concatenate([high, starts])
    order = np.lexsort((low, segment))
    segment, low, high = segment[order], low[order], high[order]
    # running maximum of high within each segment: ranks of high offset by segment, so segments never mix
    rank_order = np.argsort(high, kind="stable")
    rank = np.empty(len(high), dtype=np.int64)
    rank[rank_order] = np.arange(len(high))
    key = segment * len(high) + rank
    reach = high[rank_order[np.maximum.accumulate(key) - segment * len(high)]]
    last = np.r_[segment[1:] != segment[:-1], True]
    width = join[segment] + np.abs(reach) * 0.5**PUSHOUT_STEPS
    gap = last | np.r_[reach[:-1] + width[:-1] < low[1:], False]
    rows = np.flatnonzero(gap)
    ends = np.full((count, gaps), np.inf)
    seg = segment[rows]
    first_row = np.searchsorted(seg, seg)  # rows of a segment are together and in order
    slot = np.arange(len(rows)) - first_row
    keep = slot < gaps
    ends[seg[keep], slot[keep]] = reach[rows[keep]]
    return ends


def pushout_gap_ends(requests: list[tuple[Solid, Solid, np.ndarray, float, float]]) -> list[np.ndarray | None]:
    """For every ``(a, b, directions (D, 3), lower, reach)``: (D, GAPS) lengths t from ``lower`` in increasing
    order, per direction, where B moved by t·d stops meeting A (``first_gap_ends``; inf where none is short of
    ``reach``, a length already known to separate, by more than rounding); None for a pair of more than
    ``stacked.STACKED_TRIANGLES`` triangles together or more than ``GAP_ROWS`` triangle pairs to measure (its search
    bisects). Pairs are measured together, ``GROUP_TRIANGLES`` triangles a pass."""
    answers: list[np.ndarray | None] = []
    group: list = []
    size = 0
    for a, b, directions, lower, reach in requests:
        if len(a.mesh.triangles) + len(b.mesh.triangles) > STACKED_TRIANGLES:
            answers += _grouped_gap_ends(group) if group else []
            answers.append(None)  # a sculpt: stacking would copy it
            group, size = [], 0
            continue
        group.append((a, b, np.asarray(directions, dtype=np.float64).reshape(-1, 3), float(lower), float(reach)))
        size += len(group[-1][2]) * (len(a.mesh.triangles) + len(b.mesh.triangles))
        if size >= GROUP_TRIANGLES:
            answers += _grouped_gap_ends(group)
            group, size = [], 0
    return answers + (_grouped_gap_ends(group) if group else [])


def _grouped_gap_ends(requests: list[tuple[Solid, Solid, np.ndarray, float, float]]) -> list[np.ndarray | None]:
    """``pushout_gap_ends`` of a group of pairs, their triangle pairs found and measured together: per direction,
    the triangles of each object whose boxes meet the other's box swept over [lower, reach], then the pairs of those
    whose boxes meet so swept. A triangle pair's extents (``plane_extents``, ``edge_extents``) are found once for
    all its directions."""
    stack_a = StackedMeshes([a.mesh for a, *_rest in requests])
    stack_b = StackedMeshes([b.mesh for _a, b, *_rest in requests])
    counts = np.array([len(directions) for _a, _b, directions, *_rest in requests], dtype=np.int64)
    pair = np.repeat(np.arange(len(requests)), counts)  # a segment is one direction of one pair
    first_segment = np.cumsum(counts) - counts
    directions = np.concatenate([directions for _a, _b, directions, *_rest in requests])
    axis = axis_numbers(directions)
    lower = np.array([request[3] for request in requests])[pair]
    reach = np.array([request[4] for request in requests])[pair]
    sweep_low = np.minimum(lower[:, None] * directions, reach[:, None] * directions)
    sweep_high = np.maximum(lower[:, None] * directions, reach[:, None] * directions)
    tolerance = RELATIVE_TOLERANCE * np.array([max(a.mesh.size, b.mesh.size) for a, b, *_rest in requests])
    segment_shrink = (SHRINK * tolerance)[pair]
    low_a, high_a = (box[pair] for box in stack_a.vertex_boxes)
    low_b, high_b = (box[pair] for box in stack_b.vertex_boxes)
    # A's triangles that B's swept box reaches, and B's triangles whose swept boxes reach A's box
    boxes = tuple(np.ascontiguousarray(box.T) for box in (stack_a.lows, stack_a.highs, stack_b.lows, stack_b.highs))
    seg_a, tri_a = _touched(stack_a, boxes[:2], pair, low_b + sweep_low, high_b + sweep_high)
    seg_b, tri_b = _touched(stack_b, boxes[2:], pair, low_a - sweep_high, high_a - sweep_low)
    per_segment = np.bincount(seg_a, minlength=len(pair)) * np.bincount(seg_b, minlength=len(pair))
    rows = np.bincount(pair, weights=per_segment, minlength=len(requests))
    measured = rows <= GAP_ROWS
    # the triangle pairs touched along any direction of a measured pair (a stacked row belongs to one pair)
    pair_a, tri_a = _any_direction(stack_a, tri_a[measured[pair[seg_a]]])
    pair_b, tri_b = _any_direction(stack_b, tri_b[measured[pair[seg_b]]])
    at_a, at_b, owner = _segment_pairs(pair_a, pair_b, len(requests))
    rows_a, rows_b = tri_a[at_a], tri_b[at_b]
    # the terms of those triangles only (terms_a's triangle n is tri_a[n])
    terms_a, terms_b = TriangleTerms.of(stack_a.corners[tri_a]), TriangleTerms.of(stack_b.corners[tri_b])
    met_segment, met_low, met_high = [], [], []
    for start in range(0, len(owner), CHUNK):
        i, j = rows_a[start:start + CHUNK], rows_b[start:start + CHUNK]
        term_i, term_j = at_a[start:start + CHUNK], at_b[start:start + CHUNK]
        # each triangle pair along each direction of its pair whose boxes meet so swept
        here = owner[start:start + CHUNK]
        row = np.repeat(np.arange(len(i)), counts[here])
        k = np.repeat(first_segment[here] - (np.cumsum(counts[here]) - counts[here]), counts[here])
        k += np.arange(len(row))
        near = swept_boxes_meet(boxes, i, j, row, k, sweep_low, sweep_high, axis)
        row, k = row[near], k[near]
        # the planes' bounds first; the edge pairs' (which only narrow them) where those leave t within the window
        place, used_a, used_b = _used(row, term_i, term_j, terms_a, terms_b, PLANE_TERMS)
        low, high = plane_intervals(used_a, used_b, *plane_extents(used_a, used_b), place, k, directions, axis,
                                    segment_shrink)
        inside = (low <= high) & (high >= lower[k]) & (low < reach[k])
        row, k, low, high = row[inside], k[inside], low[inside], high[inside]
        place, used_a, used_b = _used(row, term_i, term_j, terms_a, terms_b, EDGE_TERMS)
        edge_low, edge_high = edge_intervals(used_a, used_b, *edge_extents(used_a, used_b), place, k, directions,
                                             axis, segment_shrink)
        low, high = np.maximum(low, edge_low), np.minimum(high, edge_high)
        met = (low <= high) & (high >= lower[k]) & (low < reach[k])
        met_segment.append(k[met])
        met_low.append(low[met])
        met_high.append(high[met])
    ends = first_gap_ends(np.concatenate(met_segment + [np.empty(0, dtype=np.int64)]),
                          np.concatenate(met_low + [np.empty(0)]), np.concatenate(met_high + [np.empty(0)]),
                          lower, tolerance[pair], len(pair))
    ends[ends > (reach + tolerance[pair] + reach * 0.5**PUSHOUT_STEPS)[:, None]] = np.inf
    return [each if measured[k] else None for k, each in enumerate(np.split(ends, np.cumsum(counts)[:-1]))]


def _used(row: np.ndarray, i: np.ndarray, j: np.ndarray, terms_a: TriangleTerms, terms_b: TriangleTerms,
          fields: tuple[str, ...]) -> tuple[np.ndarray, TriangleTerms, TriangleTerms]:
    """The triangle pairs (A's ``i`` with B's ``j``) some item is on (item n on ``row[n]``): ``(place, terms of A,
    terms of B)`` (the ``fields`` of them), item n's pair ``place[n]`` among them."""
    used = np.bincount(row, minlength=len(i)) > 0
    return np.cumsum(used)[row] - 1, terms_a.rows(i[used], fields), terms_b.rows(j[used], fields)


def swept_boxes_meet(boxes: tuple[np.ndarray, ...], i: np.ndarray, j: np.ndarray, row: np.ndarray, k: np.ndarray,
                      sweep_low: np.ndarray, sweep_high: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """Whether, for each item n, the box of A's triangle ``i[row[n]]`` meets that of B's ``j[row[n]]`` swept over
    segment ``k[n]``'s ``[sweep_low, sweep_high]`` (S, 3, finite), a coordinate at a time; ``boxes`` the stacks'
    triangle boxes coordinates first (lows and highs of A, of B). Along an axis ±e_c (``axis``, per segment) the sweep
    is a zero in the other two coordinates, and adding a zero changes no comparison: there the test is the unswept
    boxes', made once per triangle pair, and only coordinate c is compared per item."""
    lows_a, highs_a, lows_b, highs_b = (np.take(box, rows, axis=1) for box, rows in zip(boxes, (i, i, j, j)))
    overlap = (lows_a <= highs_b) & (lows_b <= highs_a)  # (3, R): unswept, per coordinate
    others = np.stack([overlap[1] & overlap[2], overlap[0] & overlap[2], overlap[0] & overlap[1]])
    along = axis[k]
    coordinate = along % 3  # (a general direction's items are tested in full below)
    at, swept = coordinate * len(i) + row, 3 * k + coordinate
    near = np.take(others.reshape(-1), at)
    near &= np.take(lows_a.reshape(-1), at) <= np.take(highs_b.reshape(-1), at) + np.take(sweep_high.reshape(-1), swept)
    near &= np.take(lows_b.reshape(-1), at) + np.take(sweep_low.reshape(-1), swept) <= np.take(highs_a.reshape(-1), at)
    general = np.flatnonzero(along < 0)
    if len(general):
        rows, segments = row[general], k[general]
        whole = np.ones(len(general), dtype=bool)
        for c in range(3):
            whole &= np.take(lows_a[c], rows) <= np.take(highs_b[c], rows) + np.take(sweep_high[:, c], segments)
            whole &= np.take(lows_b[c], rows) + np.take(sweep_low[:, c], segments) <= np.take(highs_a[c], rows)
        near[general] = whole
    return near


def _any_direction(stack: StackedMeshes, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pair, stacked triangle row) of the distinct ``rows``, in order (mesh k of the stack is pair k's)."""
    used = np.zeros(len(stack.lows), dtype=bool)
    used[rows] = True
    rows = np.flatnonzero(used)
    return np.searchsorted(stack.first, rows, side="right") - 1, rows


def _touched(stack: StackedMeshes, boxes: tuple[np.ndarray, np.ndarray], pair: np.ndarray, low: np.ndarray,
             high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(segment, stacked triangle row) of the triangles of each segment's mesh (``pair[segment]``) whose boxes meet
    the segment's box ``[low, high]`` (S, 3); ``boxes`` the stack's triangle boxes coordinates first (lows, highs
    (3, M)), compared a coordinate at a time (numpy reduces a short last axis slowly)."""
    sizes = stack.counts[pair]
    segment = np.repeat(np.arange(len(pair)), sizes)
    rows = stack.first[pair][segment] + np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    lows, highs = boxes
    inside = np.ones(len(rows), dtype=bool)
    for c in range(3):
        inside &= np.take(lows[c], rows) <= np.take(high[:, c], segment)
        inside &= np.take(highs[c], rows) >= np.take(low[:, c], segment)
    return segment[inside], rows[inside]


def _segment_pairs(seg_a: np.ndarray, seg_b: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (row of A, row of B) of the same segment, rows given by their segments (both sorted): ``(index among A's
    rows, index among B's, segment)``."""
    count_a = np.bincount(seg_a, minlength=count)
    count_b = np.bincount(seg_b, minlength=count)
    first_a = np.cumsum(count_a) - count_a
    first_b = np.cumsum(count_b) - count_b
    sizes = count_a * count_b
    segment = np.repeat(np.arange(count), sizes)
    local = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    width = count_b[segment]
    return first_a[segment] + local // width, first_b[segment] + local % width, segment
