"""Broad phase: which axis-aligned boxes overlap, by a vectorised sort-and-sweep (O(N log N + pairs overlapping in x),
no Python loop per box); a uniform grid between two sets that meet over a wide area.
See docs/architecture.md, section "Broad phase: sort and sweep".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..validation import as_length

#: Above this many one-axis sweep candidates per box, the two-set search uses a uniform grid instead.
SWEEP_CANDIDATES_PER_BOX = 32
#: A box spanning more grid cells than this is paired by a direct search instead of cell by cell.
GRID_CELLS_PER_BOX = 27


def _as_boxes(value, name: str) -> np.ndarray:
    boxes = np.asarray(value, dtype=np.float64)
    if boxes.ndim != 2 or boxes.shape[1] != 3:
        raise ValueError(f"{name} must have shape (N, 3), got {boxes.shape}")
    if not np.isfinite(boxes).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return boxes


def overlapping_pairs(lows: ArrayLike, highs: ArrayLike, *, margin: float = 0.0) -> np.ndarray:
    """Index pairs ``(i, j)``, ``i < j``, of boxes that overlap once each is inflated by ``margin``.

    Touching boxes count as overlapping. The result is an (M, 2) int array sorted by ``(i, j)``, so the
    same boxes always give the same pairs in the same order.
    """
    lows, highs = _as_boxes(lows, "lows"), _as_boxes(highs, "highs")
    if lows.shape != highs.shape:
        raise ValueError(f"lows and highs must have the same shape, got {lows.shape} and {highs.shape}")
    if (highs < lows).any():
        raise ValueError("highs must not be below lows")
    margin = as_length(margin, "margin")
    lows, highs = lows - margin, highs + margin
    order = np.argsort(lows[:, 0], kind="stable")
    sorted_lows = lows[order, 0]
    ends = np.searchsorted(sorted_lows, highs[order, 0], side="right")
    counts = np.maximum(ends - np.arange(len(order)) - 1, 0)
    first = np.repeat(np.arange(len(order)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    second = first + 1 + offsets
    i, j = order[first], order[second]
    keep = np.all((lows[i, 1:] <= highs[j, 1:]) & (lows[j, 1:] <= highs[i, 1:]), axis=1)
    pairs = np.sort(np.stack([i[keep], j[keep]], axis=1), axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _starts_within(lows_p: np.ndarray, highs_p: np.ndarray, lows_q: np.ndarray, axis: int,
                   strict: bool, count_only: bool = False):
    """Pairs ``(p, q)`` whose box q starts, along ``axis``, inside box p's interval (after its start, when
    ``strict``); or only how many there are."""
    order = np.argsort(lows_q[:, axis], kind="stable")
    sorted_lows = lows_q[order, axis]
    begins = np.searchsorted(sorted_lows, lows_p[:, axis], side="right" if strict else "left")
    ends = np.searchsorted(sorted_lows, highs_p[:, axis], side="right")
    counts = np.maximum(ends - begins, 0)
    if count_only:
        return int(counts.sum())
    first = np.repeat(np.arange(len(lows_p)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return first, order[np.repeat(begins, counts) + offsets]


def _within(lows: np.ndarray, highs: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Indices of the boxes that overlap the box [low, high]."""
    return np.flatnonzero(np.all((lows <= high) & (highs >= low), axis=1))


def overlapping_pairs_between(lows_a: ArrayLike, highs_a: ArrayLike, lows_b: ArrayLike, highs_b: ArrayLike, *,
                              margin: float = 0.0) -> np.ndarray:
    """Pairs ``(i, j)`` of a box i of set A and a box j of set B that overlap once each is inflated by ``margin``.

    Touching boxes count as overlapping. Only the boxes that overlap the other set's bounding box take
    part; the sweep runs along the axis with the fewest overlapping intervals (counted exactly first, by
    the same searches). Two intervals overlap exactly when B's starts inside A's or A's starts strictly
    after B's start and inside it, so each pair is found once. The (K, 2) result is sorted by ``(i, j)``.
    """
    boxes = [_as_boxes(value, name) for value, name in
             ((lows_a, "lows_a"), (highs_a, "highs_a"), (lows_b, "lows_b"), (highs_b, "highs_b"))]
    lows_a, highs_a, lows_b, highs_b = boxes
    for low, high, name in ((lows_a, highs_a, "a"), (lows_b, highs_b, "b")):
        if low.shape != high.shape:
            raise ValueError(f"lows_{name} and highs_{name} must have the same shape, "
                             f"got {low.shape} and {high.shape}")
        if (high < low).any():
            raise ValueError(f"highs_{name} must not be below lows_{name}")
    margin = as_length(margin, "margin")
    if not len(lows_a) or not len(lows_b):
        return np.zeros((0, 2), dtype=np.int64)
    lows_a, highs_a, lows_b, highs_b = lows_a - margin, highs_a + margin, lows_b - margin, highs_b + margin
    near_a = _within(lows_a, highs_a, lows_b.min(axis=0), highs_b.max(axis=0))
    near_b = _within(lows_b, highs_b, lows_a.min(axis=0), highs_a.max(axis=0))
    la, ha, lb, hb = lows_a[near_a], highs_a[near_a], lows_b[near_b], highs_b[near_b]
    counts = [_starts_within(la, ha, lb, k, False, True) + _starts_within(lb, hb, la, k, True, True) for k in range(3)]
    axis = int(np.argmin(counts))
    if counts[axis] > SWEEP_CANDIDATES_PER_BOX * (len(la) + len(lb)):
        i, j = _grid_candidates(la, ha, lb, hb)
    else:
        a_first, b_second = _starts_within(la, ha, lb, axis, strict=False)
        b_first, a_second = _starts_within(lb, hb, la, axis, strict=True)
        i, j = np.concatenate([a_first, a_second]), np.concatenate([b_second, b_first])
    keep = np.all((la[i] <= hb[j]) & (lb[j] <= ha[i]), axis=1)
    pairs = np.stack([near_a[i[keep]], near_b[j[keep]]], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _grid_candidates(lows_a, highs_a, lows_b, highs_b) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs ``(i, j)``, each once, of boxes sharing a cell of a uniform grid (cells about twice
    the median box), for box sets whose one-axis sweep would list far more pairs than overlap (two
    meshes meeting over a wide area). Boxes spanning more than ``GRID_CELLS_PER_BOX`` cells are paired
    with every box of the other set that overlaps them instead."""
    lows, highs = np.concatenate([lows_a, lows_b]), np.concatenate([highs_a, highs_b])
    origin = lows.min(axis=0)
    cell = 2.0 * float(np.median((highs - lows).max(axis=1)))
    extent = highs.max(axis=0) - origin
    if not cell > 0.0 or (extent / cell + 2.0).prod() > 2.0 ** 62:
        cell = float(extent.max()) / 2.0 ** 20 or 1.0  # degenerate boxes, or a grid too fine for int64 keys
    first = np.floor((lows - origin) / cell).astype(np.int64)
    spans = np.floor((highs - origin) / cell).astype(np.int64) - first + 1
    dims = first.max(axis=0) + spans.max(axis=0) + 1
    cells = spans.prod(axis=1)
    wide = cells > GRID_CELLS_PER_BOX
    count_a = len(lows_a)
    owner = np.repeat(np.flatnonzero(~wide), cells[~wide])
    rank = np.arange(len(owner)) - np.repeat(np.cumsum(cells[~wide]) - cells[~wide], cells[~wide])
    y_z = spans[owner, 1] * spans[owner, 2]
    coords = first[owner] + np.stack([rank // y_z, (rank // spans[owner, 2]) % spans[owner, 1],
                                      rank % spans[owner, 2]], axis=1)
    keys = (coords[:, 0] * dims[1] + coords[:, 1]) * dims[2] + coords[:, 2]
    in_a = owner < count_a
    i, j = _same_keys(owner[in_a], keys[in_a], owner[~in_a] - count_a, keys[~in_a])
    wide_pairs = [(np.full(len(others), k), others) for k in np.flatnonzero(wide[:count_a])
                  for others in [_within(lows_b, highs_b, lows_a[k], highs_a[k])]]
    wide_pairs += [(others, np.full(len(others), k)) for k in np.flatnonzero(wide[count_a:])
                   for others in [_within(lows_a, highs_a, lows_b[k], highs_b[k])]]
    i = np.concatenate([i, *(p[0] for p in wide_pairs)]).astype(np.int64)
    j = np.concatenate([j, *(p[1] for p in wide_pairs)]).astype(np.int64)
    unique = np.unique(i * len(lows_b) + j)
    return unique // len(lows_b), unique % len(lows_b)


def _same_keys(owners_p: np.ndarray, keys_p: np.ndarray, owners_q: np.ndarray, keys_q: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(owner_p, owner_q)`` of entries with equal keys (repeats included)."""
    order = np.argsort(keys_q, kind="stable")
    sorted_keys = keys_q[order]
    begins = np.searchsorted(sorted_keys, keys_p, side="left")
    counts = np.searchsorted(sorted_keys, keys_p, side="right") - begins
    rows = np.repeat(np.arange(len(keys_p)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return owners_p[rows], owners_q[order[np.repeat(begins, counts) + offsets]]
