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
