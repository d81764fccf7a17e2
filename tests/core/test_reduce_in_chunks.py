"""Reductions over many ranges done a chunk of rows at a time (``core.vector.arrays.reduce_in_chunks``, so that a
worker thread lets the interface run between chunks) give ``reduceat``'s answers bit for bit, and so do the triangle
trees built with them, down to chunks of a few rows."""

from __future__ import annotations

import numpy as np
import pytest

import core.vector.arrays as arrays_module
from core.mesh.bvh import TriangleBVH
from core.vector.arrays import reduce_in_chunks, row_chunks
from mesh_fixtures import mesh, torus, uv_sphere

TREE_FIELDS = ("order", "lows", "highs", "axes", "centres", "halves", "children", "starts", "ends", "anchors")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ufunc", [np.add, np.minimum, np.maximum])
def test_chunks_give_reduceat_bit_for_bit(seed, ufunc):
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(1, 3000))
    values = rng.normal(size=(rows, 3, 3)) * 10.0 ** rng.integers(-8, 8, size=(rows, 1, 1))
    starts = np.sort(rng.integers(0, rows, size=int(rng.integers(1, 400))))  # repeated starts included
    for chunk in (1, 2, 7, 64, 1 << 20):
        assert np.array_equal(reduce_in_chunks(ufunc, values, starts, chunk), ufunc.reduceat(values, starts, axis=0))


def test_cuts_fall_where_the_indices_rise_and_cover_them_all():
    starts = np.array([3, 3, 3, 5, 9, 9, 40, 41, 41, 100])
    cuts = row_chunks(starts, 4)
    assert cuts[0] == 0 and cuts[-1] == len(starts) and cuts == sorted(set(cuts))
    assert all(starts[cut] > starts[cut - 1] for cut in cuts[1:-1])
    assert row_chunks(starts, 1000) == [0, len(starts)] and row_chunks(np.array([], int)) == [0]


@pytest.mark.parametrize("chunk", [1, 5, 333])
def test_trees_built_in_chunks_are_the_trees_built_at_once(monkeypatch, chunk):
    rng = np.random.default_rng(chunk)
    shapes = [uv_sphere(1.0, 30, 40), torus(2.0, 0.5, 36, 18)]
    shapes.append(mesh(shapes[0].vertices + rng.normal(scale=0.01, size=shapes[0].vertices.shape), shapes[0].triangles))
    at_once = [TriangleBVH.build(shape, leaf_size) for shape in shapes for leaf_size in (1, 4)]
    monkeypatch.setattr(arrays_module, "REDUCE_ROWS", chunk)
    in_chunks = [TriangleBVH.build(shape, leaf_size) for shape in shapes for leaf_size in (1, 4)]
    for whole, chunked in zip(at_once, in_chunks):
        for name in TREE_FIELDS:
            assert np.array_equal(getattr(whole, name), getattr(chunked, name)), name
