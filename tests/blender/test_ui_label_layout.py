"""Label layout (``ui.label_layout``): shown labels never overlap, free labels stay, moved ones get leaders.

The reference is a brute-force pairwise box test; the module is pure numpy (no GPU needed).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest


@pytest.fixture
def layout(addon):
    return importlib.import_module(addon.__name__ + ".ui.label_layout")


def overlapping(anchors: np.ndarray, sizes: np.ndarray) -> list:
    """Pairs of boxes that overlap (brute force)."""
    found = []
    for i in range(len(anchors)):
        for j in range(i + 1, len(anchors)):
            if all(anchors[i] < anchors[j] + sizes[j]) and all(anchors[j] < anchors[i] + sizes[i]):
                found.append((i, j))
    return found


def test_labels_apart_keep_their_places(layout):
    anchors = np.array([[0.0, 0.0], [200.0, 0.0], [0.0, 100.0]])
    sizes = np.full((3, 2), [80.0, 20.0])
    result = layout.spread_labels(anchors, sizes)
    assert result.shown.all()
    np.testing.assert_array_equal(result.anchors, anchors)
    assert len(result.leaders) == 0


def test_stacked_labels_move_apart_with_leaders(layout):
    anchors = np.zeros((3, 2))
    sizes = np.full((3, 2), [80.0, 20.0])
    result = layout.spread_labels(anchors, sizes, gap=2.0)
    assert result.shown.all()
    assert overlapping(result.anchors, sizes) == []
    np.testing.assert_array_equal(result.anchors[0], [0.0, 0.0])  # the first keeps its place
    assert sorted(result.anchors[1:, 1].tolist()) == [-22.0, 22.0]  # the others one label height away
    assert len(result.leaders) == 2
    np.testing.assert_array_equal(result.leaders[:, 0], [[-3.0, 10.0], [-3.0, 10.0]])  # from their own place
    assert sorted(result.leaders[:, 1, 1].tolist()) == [-2.0, 22.0]  # to the moved labels' near edges


@pytest.mark.parametrize("seed", range(5))
def test_crowded_labels_never_overlap(layout, seed):
    rng = np.random.default_rng(seed)
    anchors = rng.uniform(0.0, 300.0, size=(120, 2))
    sizes = np.column_stack([rng.uniform(30.0, 120.0, 120), np.full(120, 18.0)])
    result = layout.spread_labels(anchors, sizes, gap=0.0)
    assert overlapping(result.anchors, sizes[result.shown]) == []
    assert result.shown[0] and result.shown.sum() > 30
    moved = (result.anchors != anchors[result.shown]).any(axis=1)
    assert len(result.leaders) == moved.sum()
    assert (np.abs(result.anchors - anchors[result.shown])[:, 0] == 0).all()  # moved vertically only


def greedy_reference(anchors: np.ndarray, sizes: np.ndarray, gap: float, steps: int) -> tuple[list, list]:
    """``(shown, placed anchors)`` by the rule itself, in plain loops: each label in turn takes the first of its
    own place, one label height (plus gap) up, down, two up, ... that keeps ``gap`` from every label placed."""
    placed, shown = [], []
    for (x, y), (width, height) in zip(anchors.tolist(), sizes.tolist()):
        for step in [0] + [k * sign for k in range(1, steps + 1) for sign in (1, -1)]:
            low_y = y + step * (height + gap)
            if all(not (x < px + pw + gap and px < x + width + gap
                        and low_y < py + ph + gap and py < low_y + height + gap) for px, py, pw, ph in placed):
                placed.append((x, low_y, width, height))
                shown.append(True)
                break
        else:
            shown.append(False)
    return shown, [(px, py) for px, py, _pw, _ph in placed]


@pytest.mark.parametrize("count, spread", [(300, 150.0), (300, 1500.0), (60, 400.0)])
def test_layout_follows_the_greedy_rule_in_crowded_and_sparse_views(layout, count, spread):
    rng = np.random.default_rng(count + int(spread))
    anchors = rng.uniform(0.0, spread, size=(count, 2))
    sizes = np.column_stack([rng.uniform(30.0, 120.0, count), rng.uniform(12.0, 24.0, count)])
    result = layout.spread_labels(anchors, sizes, gap=2.0, steps=6)
    shown, placed = greedy_reference(anchors, sizes, 2.0, 6)
    assert result.shown.tolist() == shown
    np.testing.assert_allclose(result.anchors, np.array(placed).reshape(-1, 2), rtol=0, atol=1e-9)


@pytest.fixture
def panel(addon):
    return importlib.import_module(addon.__name__ + ".ui.panel")


@pytest.mark.parametrize("chars", range(9, 40))
def test_pair_labels_fit_and_keep_both_names_recognisable(panel, chars):
    name_a, name_b = "Kitchen_Cabinet_Left_Door.012", "Wall"
    text = panel.pair_label(name_a, name_b, chars)
    assert len(text) <= chars
    left, right = text.split(" \u2194 ")
    assert left[0] == "K" and (right == "Wall" or right.startswith("W"))
    if "\u2026" in left and chars >= 15:
        assert left.endswith("2")  # the number of a copy survives
    assert panel.pair_label("A", "B", chars) == "A \u2194 B"
    long = panel.pair_label(name_a, name_a.replace("Left", "Right"), chars)
    assert len(long) <= chars and long.count("\u2026") == 2
