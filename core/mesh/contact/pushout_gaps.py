"""Candidate push-out lengths without bisecting: along a direction d, triangle a meets triangle b + t·d exactly when
t·d lies in the pair's Minkowski difference a ⊕ (−b), so the offsets t at which B's moved surface meets A's are a
union of intervals, one per triangle pair. Where that union has a gap the surfaces do not meet; the first gap ends
past the proven lower bound are the lengths the push-out's exact test is asked about (``pushout_search``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...vector.arrays import NEXT_CORNER, PREVIOUS_CORNER, cross, dot, dot_rows, largest3, smallest3
from ..intersection import RELATIVE_TOLERANCE
from ..stacked import STACKED_TRIANGLES, StackedMeshes
from ..solid import Solid
from .pushout import PUSHOUT_STEPS

#: Gap ends kept per direction: the first stops meeting, the next after a stretch where one object lies inside the
#: other (the exact test tells them apart).
GAPS = 2
#: Faces that only touch (a face sliding over another) meet where their difference reaches beyond this share of the
#: exact test's tolerance; gaps narrower than the tolerance (and the bisection's bracket) are rounding.
SHRINK = 0.25
#: Triangle-pair rows computed at once (small enough for the temporaries to stay in cache).
CHUNK = 4096
#: Pairs measured in one pass: up to about this many triangles times directions.
GROUP_TRIANGLES = 50_000
#: A pair with more triangle pairs to measure than this (sculpts) is left to the bisection.
GAP_ROWS = 1_000_000


class TriangleTerms(NamedTuple):
    """What ``meeting_intervals`` needs of each triangle, computed once per triangle: its corners and edges (edge k
    from corner k to k + 1), area normal, the normal's level (n · corner 0), and per edge k the products
    corner k × edge k (``on``, also corner k + 1's) and corner k + 2 × edge k (``off``): a · (e_a × e_b) is
    e_b · (a × e_a)."""

    corners: np.ndarray
    edges: np.ndarray
    normal: np.ndarray
    level: np.ndarray
    on: np.ndarray
    off: np.ndarray

    @classmethod
    def of(cls, corners: np.ndarray) -> TriangleTerms:
        edges = corners[:, NEXT_CORNER] - corners
        normal = cross(edges[:, 0], edges[:, 1])
        return cls(corners, edges, normal, dot(normal, corners[:, 0]), cross(corners, edges),
                   cross(corners[:, PREVIOUS_CORNER], edges))

    def rows(self, rows: np.ndarray) -> TriangleTerms:
        return TriangleTerms(*(column[rows] for column in self))

    def axes_rows(self, rows: np.ndarray) -> Axes:
        """The normals and edges of the ``rows``: what ``intervals_along`` reads."""
        return Axes(self.normal[rows], self.edges[rows])


class Axes(NamedTuple):
    """A triangle's area normal and edges (as in ``TriangleTerms``)."""

    normal: np.ndarray
    edges: np.ndarray


def meeting_intervals(a: TriangleTerms, b: TriangleTerms, directions: np.ndarray, shrink: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` (R,) of the t at which triangle a (R rows of ``TriangleTerms``) meets triangle b moved by
    t·d; ``low > high`` where it never does (in floating point: a bracket to check). A pair that only slides over a
    plane of the difference (a face over a face it touches) does not meet: along the axes d runs parallel to, the
    difference must reach more than ``shrink`` (R,) beyond the line on both sides. (``difference_extents`` then
    ``intervals_along``: a triangle pair measured along several directions needs the first once.)"""
    return intervals_along(a, b, *difference_extents(a, b), directions, shrink)


def difference_extents(a: TriangleTerms, b: TriangleTerms) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` (R, 11): the extent of a ⊕ (−b) along each of its facets' axes, whatever the direction.

    The difference's facets are normal to a's plane, to b's, or to an edge of each: along each such axis m,
    t·(m·d) must lie within [min m·a − max m·b, max m·a − min m·b]. Along e_a × e_b, a's corners give
    e_b · (a × e_a) and b's −e_a · (b × e_b)."""
    on_a, off_a = dot_rows(a.on, b.edges), dot_rows(a.off, b.edges)  # (R, 3 edges of a, 3 edges of b)
    on_b, off_b = dot_rows(a.edges, b.on), dot_rows(a.edges, b.off)  # minus b's values
    b_along_a = dot_rows(a.normal[:, None], b.corners)[:, 0]  # (R, 3)
    a_along_b = dot_rows(b.normal[:, None], a.corners)[:, 0]
    count = len(b_along_a)
    low = np.concatenate([(a.level - largest3(b_along_a))[:, None], (smallest3(a_along_b) - b.level)[:, None],
                          (np.minimum(on_a, off_a) + np.minimum(on_b, off_b)).reshape(count, 9)], axis=1)
    high = np.concatenate([(a.level - smallest3(b_along_a))[:, None], (largest3(a_along_b) - b.level)[:, None],
                           (np.maximum(on_a, off_a) + np.maximum(on_b, off_b)).reshape(count, 9)], axis=1)
    return low, high


def intervals_along(a: TriangleTerms | Axes, b: TriangleTerms | Axes, low: np.ndarray, high: np.ndarray,
                    directions: np.ndarray, shrink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``meeting_intervals`` from the pairs' ``difference_extents`` (R, 11): t's interval is the intersection over
    the 11 axes of [low, high] / (m·d). Of ``a`` and ``b`` only the normals and edges are read (``Axes``)."""
    count = len(directions)
    rate = np.concatenate([dot(a.normal, directions)[:, None], dot(b.normal, directions)[:, None],
                           dot_rows(cross(directions[:, None], a.edges), b.edges).reshape(count, 9)], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        first, last = low / rate, high / rate
    starts = np.where(rate > 0.0, first, last)
    ends = np.where(rate > 0.0, last, first)
    row, axis = np.nonzero(rate == 0.0)
    if len(row):
        axes = _axes(a, b, row, axis)
        length = np.sqrt(dot(axes, axes))
        margin = shrink[row] * length
        across = ((low[row, axis] < -margin) & (high[row, axis] > margin)) | (length == 0.0)  # parallel edges
        starts[row, axis] = np.where(across, -np.inf, np.inf)
        ends[row, axis] = np.where(across, np.inf, -np.inf)
    return starts.max(axis=1), ends.min(axis=1)


def _axes(a: TriangleTerms | Axes, b: TriangleTerms | Axes, row: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """The difference's axes of the given rows (``meeting_intervals``' order: a's normal, b's, then e_a k × e_b l
    at 2 + 3k + l)."""
    edge = np.maximum(axis - 2, 0)
    edges = cross(a.edges[row, edge // 3], b.edges[row, edge % 3])
    return np.where((axis == 0)[:, None], a.normal[row], np.where((axis == 1)[:, None], b.normal[row], edges))


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
    whose boxes meet so swept. A triangle pair's ``difference_extents`` are found once for all its directions."""
    stack_a = StackedMeshes([a.mesh for a, *_rest in requests])
    stack_b = StackedMeshes([b.mesh for _a, b, *_rest in requests])
    counts = np.array([len(directions) for _a, _b, directions, *_rest in requests], dtype=np.int64)
    pair = np.repeat(np.arange(len(requests)), counts)  # a segment is one direction of one pair
    first_segment = np.cumsum(counts) - counts
    directions = np.concatenate([directions for _a, _b, directions, *_rest in requests])
    lower = np.array([request[3] for request in requests])[pair]
    reach = np.array([request[4] for request in requests])[pair]
    sweep_low = np.minimum(lower[:, None] * directions, reach[:, None] * directions)
    sweep_high = np.maximum(lower[:, None] * directions, reach[:, None] * directions)
    tolerance = RELATIVE_TOLERANCE * np.array([max(a.mesh.size, b.mesh.size) for a, b, *_rest in requests])
    shrink = SHRINK * tolerance
    low_a, high_a = (box[pair] for box in stack_a.vertex_boxes)
    low_b, high_b = (box[pair] for box in stack_b.vertex_boxes)
    # A's triangles that B's swept box reaches, and B's triangles whose swept boxes reach A's box
    seg_a, tri_a = _touched(stack_a, pair, low_b + sweep_low, high_b + sweep_high)
    seg_b, tri_b = _touched(stack_b, pair, low_a - sweep_high, high_a - sweep_low)
    per_segment = np.bincount(seg_a, minlength=len(pair)) * np.bincount(seg_b, minlength=len(pair))
    rows = np.bincount(pair, weights=per_segment, minlength=len(requests))
    measured = rows <= GAP_ROWS
    # the triangle pairs touched along any direction of a measured pair (a stacked row belongs to one pair)
    pair_a, tri_a = _any_direction(stack_a, tri_a[measured[pair[seg_a]]])
    pair_b, tri_b = _any_direction(stack_b, tri_b[measured[pair[seg_b]]])
    rows_a, rows_b, owner = _segment_pairs(pair_a, tri_a, pair_b, tri_b, len(requests))
    terms_a, terms_b = TriangleTerms.of(stack_a.corners), TriangleTerms.of(stack_b.corners)
    met_segment, met_low, met_high = [], [], []
    for start in range(0, len(owner), CHUNK):
        i, j = rows_a[start:start + CHUNK], rows_b[start:start + CHUNK]
        # each triangle pair along each direction of its pair whose boxes meet so swept
        here = owner[start:start + CHUNK]
        row = np.repeat(np.arange(len(i)), counts[here])
        k = np.repeat(first_segment[here] - (np.cumsum(counts[here]) - counts[here]), counts[here])
        k += np.arange(len(row))
        near = ((stack_a.lows[i[row]] <= stack_b.highs[j[row]] + sweep_high[k])
                & (stack_b.lows[j[row]] + sweep_low[k] <= stack_a.highs[i[row]])).all(axis=1)
        row, k = row[near], k[near]
        used = np.bincount(row, minlength=len(i)) > 0  # the extents of the triangle pairs near along some direction
        place = np.cumsum(used)[row] - 1
        low, high = difference_extents(terms_a.rows(i[used]), terms_b.rows(j[used]))
        low, high = intervals_along(terms_a.axes_rows(i[row]), terms_b.axes_rows(j[row]), low[place], high[place],
                                    directions[k], shrink[pair[k]])
        met = (low <= high) & (high >= lower[k]) & (low < reach[k])
        met_segment.append(k[met])
        met_low.append(low[met])
        met_high.append(high[met])
    ends = first_gap_ends(np.concatenate(met_segment + [np.empty(0, dtype=np.int64)]),
                          np.concatenate(met_low + [np.empty(0)]), np.concatenate(met_high + [np.empty(0)]),
                          lower, tolerance[pair], len(pair))
    ends[ends > (reach + tolerance[pair] + reach * 0.5**PUSHOUT_STEPS)[:, None]] = np.inf
    return [each if measured[k] else None for k, each in enumerate(np.split(ends, np.cumsum(counts)[:-1]))]


def _any_direction(stack: StackedMeshes, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pair, stacked triangle row) of the distinct ``rows``, in order (mesh k of the stack is pair k's)."""
    used = np.zeros(len(stack.lows), dtype=bool)
    used[rows] = True
    rows = np.flatnonzero(used)
    return np.searchsorted(stack.first, rows, side="right") - 1, rows


def _touched(stack: StackedMeshes, pair: np.ndarray, low: np.ndarray, high: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """(segment, stacked triangle row) of the triangles of each segment's mesh (``pair[segment]``) whose boxes meet
    the segment's box ``[low, high]``."""
    sizes = stack.counts[pair]
    segment = np.repeat(np.arange(len(pair)), sizes)
    rows = stack.first[pair][segment] + np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    inside = ((stack.lows[rows] <= high[segment]) & (stack.highs[rows] >= low[segment])).all(axis=1)
    return segment[inside], rows[inside]


def _segment_pairs(seg_a: np.ndarray, rows_a: np.ndarray, seg_b: np.ndarray, rows_b: np.ndarray, count: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (row of A, row of B) of the same segment (both sorted by segment): ``(rows_a, rows_b, segment)``."""
    count_a = np.bincount(seg_a, minlength=count)
    count_b = np.bincount(seg_b, minlength=count)
    first_a = np.cumsum(count_a) - count_a
    first_b = np.cumsum(count_b) - count_b
    sizes = count_a * count_b
    segment = np.repeat(np.arange(count), sizes)
    local = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    width = count_b[segment]
    return rows_a[first_a[segment] + local // width], rows_b[first_b[segment] + local % width], segment
