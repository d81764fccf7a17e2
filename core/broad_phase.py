"""Broad phase: which axis-aligned boxes overlap, by a vectorised sort-and-sweep.

Boxes are sorted by their low x; for each box, the boxes whose low x falls inside its x-interval are
found with one ``searchsorted``, the candidate pairs are generated in bulk, and the y and z intervals
filter them. The cost is O(N log N + pairs overlapping in x), not N², and no Python loop runs per box.
"""

from __future__ import annotations

import numpy as np

from .validation import as_length


def _as_boxes(value, name: str) -> np.ndarray:
    boxes = np.asarray(value, dtype=np.float64)
    if boxes.ndim != 2 or boxes.shape[1] != 3:
        raise ValueError(f"{name} must have shape (N, 3), got {boxes.shape}")
    if not np.isfinite(boxes).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return boxes


def overlapping_pairs(lows, highs, *, margin: float = 0.0) -> np.ndarray:
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


def overlapping_pairs_between(lows_a, highs_a, lows_b, highs_b, *, margin: float = 0.0) -> np.ndarray:
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
    axis = min(range(3), key=lambda k: _starts_within(la, ha, lb, k, False, True)
               + _starts_within(lb, hb, la, k, True, True))
    a_first, b_second = _starts_within(la, ha, lb, axis, strict=False)
    b_first, a_second = _starts_within(lb, hb, la, axis, strict=True)
    i, j = np.concatenate([a_first, a_second]), np.concatenate([b_second, b_first])
    keep = np.all((la[i] <= hb[j]) & (lb[j] <= ha[i]), axis=1)
    pairs = np.stack([near_a[i[keep]], near_b[j[keep]]], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
