"""Labels that never overlap: each label keeps its place beside its arrow when it is free, else moves up or
down in steps of its height to the nearest free place (a leader line joins it to where it belonged), else
it is left out. Pure numpy (no ``gpu``, no ``blf``), so it is tested without a GPU.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: Pixels kept free between two labels.
LABEL_GAP_PX = 2.0
#: Leader lines run this far left of the labels' left edges, clear of the text.
LEADER_INSET_PX = 3.0
#: Places tried above and below a label's own before it is left out (each one label height away).
MAX_STEPS = 6


class LabelLayout(NamedTuple):
    """Where the labels go: ``anchors`` (K, 2) new bottom-left corners of the shown labels, ``shown`` (N,)
    which labels fit, ``leaders`` (L, 2, 2) pixel segments from beside a moved label back to beside its own place."""

    anchors: np.ndarray
    shown: np.ndarray
    leaders: np.ndarray


def _candidate_steps(steps: int) -> np.ndarray:
    """Label-height steps tried, nearest first: 0, +1, -1, +2, -2, ... (the last two are the extremes)."""
    k = np.arange(1, steps + 1)
    return np.concatenate([[0], np.stack([k, -k], axis=1).ravel()]).astype(np.float64)


def _near(placed_low: np.ndarray, placed_high: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Indices of the placed boxes that reach into the box ``(low, high)`` (where a label's candidates lie)."""
    return np.flatnonzero(((placed_low < high) & (low < placed_high)).all(axis=1))


def spread_labels(anchors: np.ndarray, sizes: np.ndarray, gap: float = LABEL_GAP_PX,
                  steps: int = MAX_STEPS) -> LabelLayout:
    """Place labels (bottom-left ``anchors`` (N, 2), ``sizes`` (N, 2) width and height in pixels) so no two
    shown ones overlap (boxes at least ``gap`` apart). Labels are placed in the given order (the first ones
    keep their place: pass the most important first); each takes the nearest free place among its own and
    ``steps`` label heights above or below, or is left out when none is free."""
    anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes, dtype=np.float64).reshape(-1, 2)
    placed_low = np.empty_like(anchors)  # the first ``count`` rows hold the boxes placed so far
    placed_high = np.empty_like(anchors)
    count = 0
    shown = np.zeros(len(anchors), dtype=bool)
    moved_to = anchors.copy()
    all_lows = np.repeat(anchors[:, None, :], 2 * steps + 1, axis=1)  # (N, C, 2): every label's candidates
    all_lows[:, :, 1] += _candidate_steps(steps)[None, :] * (sizes[:, 1:] + gap)
    all_highs = all_lows + sizes[:, None, :]
    for i, (lows, highs) in enumerate(zip(all_lows, all_highs)):
        near = _near(placed_low[:count], placed_high[:count], lows[-1] - gap, highs[-2] + gap)
        clash = ((lows[:, None, :] < placed_high[near] + gap) & (placed_low[near] < highs[:, None, :] + gap)).all(2)
        free = np.flatnonzero(~clash.any(axis=1))
        if not len(free):
            continue
        shown[i] = True
        moved_to[i] = placed_low[count] = lows[free[0]]
        placed_high[count] = highs[free[0]]
        count += 1
    moved = shown & (moved_to != anchors).any(axis=1)
    home = anchors[moved] + [-LEADER_INSET_PX, 0.0] + [0.0, 0.5] * sizes[moved]  # beside the own place's middle
    box_low, box_high = moved_to[moved], moved_to[moved] + sizes[moved]
    reached = np.column_stack([box_low[:, 0] - LEADER_INSET_PX, np.clip(home[:, 1], box_low[:, 1], box_high[:, 1])])
    leaders = np.stack([home, reached], axis=1)
    return LabelLayout(moved_to[shown], shown, leaders.reshape(-1, 2, 2))
