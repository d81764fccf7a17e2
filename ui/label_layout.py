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


def spread_labels(anchors: np.ndarray, sizes: np.ndarray, gap: float = LABEL_GAP_PX,
                  steps: int = MAX_STEPS) -> LabelLayout:
    """Place labels (bottom-left ``anchors`` (N, 2), ``sizes`` (N, 2) width and height in pixels) so no two
    shown ones overlap (boxes at least ``gap`` apart). Labels are placed in the given order (the first ones
    keep their place: pass the most important first); each takes the nearest free place among its own and
    ``steps`` label heights above or below, or is left out when none is free.

    Every label's candidate places are marked blocked as the labels before it are placed (a few array
    operations per placed label, on the later labels whose candidates it reaches), so labels that find no
    place cost next to nothing: a crowded view lays out as fast as a sparse one."""
    anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes, dtype=np.float64).reshape(-1, 2)
    shown = np.zeros(len(anchors), dtype=bool)
    moved_to = anchors.copy()
    all_lows = np.repeat(anchors[:, None, :], 2 * steps + 1, axis=1)  # (N, C, 2): every label's candidates
    all_lows[:, :, 1] += _candidate_steps(steps)[None, :] * (sizes[:, 1:] + gap)
    all_highs = all_lows + sizes[:, None, :]
    blocked = np.zeros(all_lows.shape[:2], dtype=bool)
    full = np.zeros(len(anchors), dtype=bool)  # every candidate of the label blocked
    reach_highs = all_highs + gap
    column_low, column_reach = all_lows[:, -1], reach_highs[:, -2]  # around all of a label's candidates
    i = 0
    while i < len(anchors):
        i += int(full[i:].argmin())  # the labels left out meanwhile are skipped at once
        if full[i]:
            break
        place = int(blocked[i].argmin())  # the nearest free candidate
        low, high = all_lows[i, place], all_highs[i, place]
        shown[i], moved_to[i] = True, low
        i += 1
        reach = high + gap
        near = i + np.flatnonzero(((column_low[i:] < reach) & (low < column_reach[i:])).all(axis=1))
        blocked[near] |= ((all_lows[near] < reach) & (low < reach_highs[near])).all(axis=2)
        full[near] = blocked[near].all(axis=1)
    moved = shown & (moved_to != anchors).any(axis=1)
    home = anchors[moved] + [-LEADER_INSET_PX, 0.0] + [0.0, 0.5] * sizes[moved]  # beside the own place's middle
    box_low, box_high = moved_to[moved], moved_to[moved] + sizes[moved]
    reached = np.column_stack([box_low[:, 0] - LEADER_INSET_PX, np.clip(home[:, 1], box_low[:, 1], box_high[:, 1])])
    leaders = np.stack([home, reached], axis=1)
    return LabelLayout(moved_to[shown], shown, leaders.reshape(-1, 2, 2))
