"""Sort-and-sweep against brute force on seeded random scenes, plus edge cases."""

import numpy as np
import pytest

from core.broadphase.sort_and_sweep import overlapping_pairs


def brute_force_pairs(lows, highs, margin=0.0):
    lows, highs = lows - margin, highs + margin
    pairs = [(i, j) for i in range(len(lows)) for j in range(i + 1, len(lows))
             if np.all(lows[i] <= highs[j]) and np.all(lows[j] <= highs[i])]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("margin", [0.0, 0.05])
def test_matches_brute_force(seed, margin):
    rng = np.random.default_rng(seed)
    count = int(rng.integers(2, 300))
    centers = rng.uniform(-5, 5, size=(count, 3))
    halves = rng.uniform(0.01, 0.6, size=(count, 3))
    lows, highs = centers - halves, centers + halves
    np.testing.assert_array_equal(overlapping_pairs(lows, highs, margin=margin),
                                  brute_force_pairs(lows, highs, margin))


def test_touching_boxes_count_and_margin_adds_near_ones():
    lows = np.array([[0, 0, 0], [1, 0, 0], [2.2, 0, 0]], dtype=float)
    highs = lows + 1.0  # box 0 touches box 1 at x = 1; box 2 starts 0.2 after box 1 ends
    assert overlapping_pairs(lows, highs).tolist() == [[0, 1]]
    assert overlapping_pairs(lows, highs, margin=0.1).tolist() == [[0, 1], [1, 2]]  # 0.1 + 0.1 closes 0.2
    assert overlapping_pairs(lows, highs, margin=0.09).tolist() == [[0, 1]]
    assert overlapping_pairs(lows, highs, margin=0.6).tolist() == [[0, 1], [0, 2], [1, 2]]


def test_identical_boxes_and_empty_input():
    box = np.zeros((4, 3)), np.ones((4, 3))
    assert overlapping_pairs(*box).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    assert overlapping_pairs(np.zeros((0, 3)), np.zeros((0, 3))).shape == (0, 2)


@pytest.mark.parametrize("lows, highs, margin, word", [
    (np.zeros((2, 2)), np.ones((2, 2)), 0.0, "lows"),
    (np.zeros((2, 3)), np.ones((3, 3)), 0.0, "same shape"),
    (np.ones((2, 3)), np.zeros((2, 3)), 0.0, "below"),
    (np.zeros((2, 3)), np.full((2, 3), np.nan), 0.0, "highs"),
    (np.zeros((2, 3)), np.ones((2, 3)), -1.0, "margin"),
])
def test_bad_input_names_the_argument(lows, highs, margin, word):
    with pytest.raises(ValueError, match=word):
        overlapping_pairs(lows, highs, margin=margin)
