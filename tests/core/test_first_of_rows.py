"""``core.vector.arrays.first_of_rows`` (the distinct rows of a float array, grouped by a key mixed from their bits)
gives the rows ``np.unique(keys, axis=0, return_index=True)`` gives, also with -0.0, NaN and mixed keys that collide;
and the users' order by rows (convex clipping's planes) is ``np.unique``'s."""

from __future__ import annotations

import numpy as np
import pytest

import core.vector.arrays as arrays_module
from core.vector.arrays import first_of_rows


def unique_firsts(keys: np.ndarray) -> np.ndarray:
    return np.sort(np.unique(keys, axis=0, return_index=True)[1])


@pytest.mark.parametrize("seed", range(40))
def test_the_same_rows_as_unique(seed):
    rng = np.random.default_rng(seed)
    rows, columns = int(rng.integers(1, 3000)), int(rng.integers(1, 7))
    keys = rng.integers(-3, 4, size=(rows, columns)).astype(float)  # many repeats
    keys[rng.random(keys.shape) < 0.2] = -0.0  # equal to 0.0, other bits
    if seed % 2:
        keys = np.round(rng.normal(size=(rows, columns)) * 1e9)
        keys[: rows // 2] = keys[rows - rows // 2:][: rows // 2]  # every other row repeated
    if seed % 5 == 0:
        keys[rng.random(keys.shape) < 0.01] = np.nan  # never equal: each such row its own
    assert np.array_equal(first_of_rows(keys), unique_firsts(keys))


def test_colliding_mixed_keys_are_told_apart(monkeypatch):
    monkeypatch.setattr(arrays_module, "_ROW_MIXERS", np.zeros(6, dtype=np.int64))  # every row the same key
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 3, size=(500, 4)).astype(float)
    assert np.array_equal(first_of_rows(keys), unique_firsts(keys))


@pytest.mark.parametrize("shape", [(0, 3), (1, 3), (5, 1), (4, 9)])
def test_edge_shapes(shape):
    keys = np.arange(np.prod(shape), dtype=float).reshape(shape) % 3
    assert np.array_equal(first_of_rows(keys), unique_firsts(keys))
