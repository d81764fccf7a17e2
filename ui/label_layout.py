"""Labels that never overlap: each label keeps its place beside its arrow when it is free, else moves up or
down in steps of its height to the nearest free place (a leader line joins it to where it belonged), else
it is left out. Lines given as obstacles (intersection curves on screen) also block places, and then places
one label width to either side are tried too. Pure numpy (no ``gpu``, no ``blf``), so it is tested without a GPU.
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
#: Obstacle lines are marked in a grid of cells this many pixels wide (a label keeps up to two cells off them)...
OBSTACLE_CELL_PX = 4.0
#: ... coarser when the labels spread over more than this many cells across (a bounded cost per view).
MAX_OBSTACLE_CELLS = 512


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


def _candidate_offsets(sizes: np.ndarray, gap: float, steps: int, sideways: bool) -> np.ndarray:
    """(N, C, 2) pixel offsets of each label's candidate places, nearest first: the label-height steps, and
    with ``sideways`` the same steps one label width (plus gap) to the right and to the left, merged by distance."""
    dy = _candidate_steps(steps)[None, :] * (sizes[:, 1:] + gap)  # (N, S)
    offsets = np.stack([np.zeros_like(dy), dy], axis=2)
    if not sideways:
        return offsets
    dx = (sizes[:, :1] + gap)[:, :, None] * np.array([1.0, -1.0])[None, None, :]  # (N, 1, 2)
    side = [np.stack([np.broadcast_to(dx[:, :, k], dy.shape), dy], axis=2) for k in (0, 1)]
    offsets = np.concatenate([offsets, *side], axis=1)
    order = np.argsort((offsets ** 2).sum(axis=2), axis=1, kind="stable")
    return np.take_along_axis(offsets, order[:, :, None], axis=1)


def _clipped_segments(segments: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """(K, 2, 2) the parts of ``segments`` (S, 2, 2) inside the box ``low``..``high`` (Liang-Barsky)."""
    start, delta = segments[:, 0], segments[:, 1] - segments[:, 0]
    enter, leave = np.zeros(len(segments)), np.ones(len(segments))
    with np.errstate(divide="ignore", invalid="ignore"):
        for axis in (0, 1):
            d = delta[:, axis]
            t_low, t_high = (low[axis] - start[:, axis]) / d, (high[axis] - start[:, axis]) / d
            inside = (start[:, axis] >= low[axis]) & (start[:, axis] <= high[axis])
            flat = d == 0
            enter = np.where(flat, np.where(inside, enter, 2.0), np.maximum(enter, np.minimum(t_low, t_high)))
            leave = np.where(flat, leave, np.minimum(leave, np.maximum(t_low, t_high)))
    kept = enter <= leave
    t = np.stack([enter[kept], leave[kept]], axis=1)[:, :, None]
    return start[kept][:, None, :] + t * delta[kept][:, None, :]


def obstacle_blocked(lows: np.ndarray, highs: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """(...) which boxes ``lows``..``highs`` (..., 2) a line of ``segments`` (S, 2, 2) crosses or comes near.

    The lines are sampled into a grid of cells (``OBSTACLE_CELL_PX``, coarser for wide views), widened by one
    cell, and each box sums the marked cells it covers from a summed-area table: no box is missed that a line
    crosses, a box within about two cells of a line counts as crossed, and the cost grows with the lines'
    length on screen and the number of boxes, never with their product."""
    flat_lows, flat_highs = lows.reshape(-1, 2), highs.reshape(-1, 2)
    if not len(flat_lows) or not len(segments):
        return np.zeros(lows.shape[:-1], dtype=bool)
    origin, far = flat_lows.min(axis=0), flat_highs.max(axis=0)
    cell = max(OBSTACLE_CELL_PX, float((far - origin).max()) / MAX_OBSTACLE_CELLS)
    cells = np.ceil((far - origin) / cell).astype(int) + 1  # (x, y) cells across
    segments = np.asarray(segments, dtype=np.float64).reshape(-1, 2, 2)
    inside = ((segments >= origin) & (segments <= far)).all(axis=(1, 2))
    segments = np.concatenate([segments[inside], _clipped_segments(segments[~inside], origin, far)])
    starts, deltas = segments[:, 0], segments[:, 1] - segments[:, 0]
    # Samples at most a cell apart from each segment's start on (its end is within a cell of the last one).
    counts = np.maximum(np.ceil(np.abs(deltas).max(axis=1) / cell), 1).astype(int)
    long = np.flatnonzero(counts > 1)  # usually few: a curve's segments are mostly shorter than a cell
    extra = counts[long] - 1
    owner = np.repeat(long, extra)
    t = (np.arange(1, len(owner) + 1) - np.repeat(np.cumsum(extra) - extra, extra)) / counts[owner]
    samples = np.concatenate([starts, starts[owner] + t[:, None] * deltas[owner]])
    ij = np.clip(((samples - origin) / cell).astype(int), 0, cells - 1)
    hit = np.zeros((cells[1] + 2, cells[0] + 2), dtype=bool)  # rows y, columns x, one cell of margin around
    hit[ij[:, 1] + 1, ij[:, 0] + 1] = True
    marked = hit.copy()  # widened by one cell each way: every cell a segment passes through is marked
    for dy, dx in ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)):
        marked[max(dy, 0):marked.shape[0] + min(dy, 0), max(dx, 0):marked.shape[1] + min(dx, 0)] |= \
            hit[max(-dy, 0):hit.shape[0] + min(-dy, 0), max(-dx, 0):hit.shape[1] + min(-dx, 0)]
    table = np.zeros((cells[1] + 3, cells[0] + 3), dtype=np.int64)
    table[1:, 1:] = marked.cumsum(axis=0).cumsum(axis=1)
    first = np.clip(((flat_lows - origin) / cell).astype(int), 0, cells - 1) + 1
    last = np.clip(((flat_highs - origin) / cell).astype(int), 0, cells - 1) + 2  # one past, in margin indices
    total = (table[last[:, 1], last[:, 0]] - table[first[:, 1], last[:, 0]]
             - table[last[:, 1], first[:, 0]] + table[first[:, 1], first[:, 0]])
    return (total > 0).reshape(lows.shape[:-1])


def within_right_edge(anchors: np.ndarray, sizes: np.ndarray, right: float, offset: float) -> tuple:
    """``(anchors, kept)``: labels (bottom-left ``anchors`` (N, 2), ``sizes`` (N, 2)) of a view whose right part
    beyond ``right`` pixels is covered (the sidebar, drawn over the view with Region Overlap). A label that would
    run under it goes to the left of its arrow instead (``offset``: the pixels between a label and its arrow, on
    either side); a label whose own place is already under it is left out (its arrow cannot be seen either)."""
    anchors = np.array(anchors, dtype=np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes, dtype=np.float64).reshape(-1, 2)
    kept = anchors[:, 0] <= right
    over = kept & (anchors[:, 0] + sizes[:, 0] > right)
    anchors[over, 0] = np.maximum(anchors[over, 0] - 2.0 * offset - sizes[over, 0], 0.0)
    return anchors, kept


def spread_labels(anchors: np.ndarray, sizes: np.ndarray, gap: float = LABEL_GAP_PX,
                  steps: int = MAX_STEPS, obstacles: np.ndarray | None = None) -> LabelLayout:
    """Place labels (bottom-left ``anchors`` (N, 2), ``sizes`` (N, 2) width and height in pixels) so no two
    shown ones overlap (boxes at least ``gap`` apart). Labels are placed in the given order (the first ones
    keep their place: pass the most important first); each takes the nearest free place among its own and
    ``steps`` label heights above or below, or is left out when none is free.

    ``obstacles`` (S, 2, 2) pixel segments (intersection curves on screen) block the places they cross
    (``obstacle_blocked``); a label a line reaches then also tries the places one label width to either side.
    A label whose every place is crossed is placed as if there were no obstacles (shown over a line rather
    than left out); labels no line reaches, and all labels without obstacles, are placed exactly as above.

    Every label's candidate places are marked blocked as the labels before it are placed (a few array
    operations per placed label, on the later labels whose candidates it reaches), so labels that find no
    place cost next to nothing: a crowded view lays out as fast as a sparse one."""
    anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes, dtype=np.float64).reshape(-1, 2)
    shown = np.zeros(len(anchors), dtype=bool)
    moved_to = anchors.copy()
    segments = np.zeros((0, 2, 2)) if obstacles is None else np.asarray(obstacles, dtype=np.float64).reshape(-1, 2, 2)
    offsets = _candidate_offsets(sizes, gap, steps, sideways=len(segments) > 0)  # (N, C, 2)
    all_lows = anchors[:, None, :] + offsets
    all_highs = all_lows + sizes[:, None, :]
    crossed = obstacle_blocked(all_lows - gap, all_highs + gap, segments)
    column = offsets[:, :, 0] == 0  # the places straight above and below
    # Labels no line reaches, or that find no place off the lines, keep to their column as without obstacles.
    as_before = crossed.all(axis=1) | ~(crossed & column).any(axis=1)
    blocked = np.where(as_before[:, None], ~column, crossed)
    if as_before.all():  # no label goes sideways: its column only (as cheap as without obstacles)
        all_lows, all_highs = (corners[column].reshape(len(anchors), -1, 2) for corners in (all_lows, all_highs))
        blocked = np.zeros(all_lows.shape[:2], dtype=bool)
    full = np.zeros(len(anchors), dtype=bool)  # every candidate of the label blocked
    reach_highs = all_highs + gap
    # Around all of a label's candidates still open (the ones a line crosses never open again).
    column_low = np.where(blocked[:, :, None], np.inf, all_lows).min(axis=1)
    column_reach = np.where(blocked[:, :, None], -np.inf, reach_highs).max(axis=1)
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
