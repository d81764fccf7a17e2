"""Big arrays' helpers are numpy's plain calls bit for bit: matrix products taken in pieces small enough for OpenBLAS
to keep on one thread (``core.vector.arrays.product_in_pieces``), and so what is built on them (the interior points a
hull drops, the vertices of moved copies); columns' extremes taken a column at a time (``column_extremes``), zeros'
signs included."""

from __future__ import annotations

import numpy as np
import pytest

import core.vector.arrays as arrays_module
from core.mesh.solid import moved_vertices
from core.support.prune import interior_points
from core.vector.arrays import column_extremes, product_in_pieces
from mesh_fixtures import mesh, uv_sphere


def scaled_normals(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return rng.normal(size=shape) * 10.0 ** rng.integers(-6, 6, size=(shape[0], 1))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("budget", [1, 40, 97, 1 << 17])
def test_pieces_give_the_whole_product_bit_for_bit(monkeypatch, seed, budget):
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(arrays_module, "PRODUCT_MULTIPLY_ADDS", budget)
    for rows, inner, columns in [(1001, 3, 96), (2, 3, 50), (7, 3, 3), (1, 3, 5), (50, 3, 4097), (3, 3, 1), (9, 4, 2)]:
        a, b = scaled_normals(rng, (rows, inner)), scaled_normals(rng, (inner, columns))
        assert np.array_equal(product_in_pieces(a, b), a @ b), (rows, inner, columns)
        assert np.array_equal(product_in_pieces(b.T, a.T), b.T @ a.T), (columns, inner, rows)


def test_a_lone_last_row_joins_the_piece_before(monkeypatch):
    """With three multiply-adds a row, a budget of 6 makes pieces of two rows: 5, 7 and 9 rows leave one over. numpy
    takes a single row by another routine, whose sums round differently for some rows."""
    monkeypatch.setattr(arrays_module, "PRODUCT_MULTIPLY_ADDS", 6)
    rng = np.random.default_rng(7)
    b = scaled_normals(rng, (3, 1))[:, [0, 0]]  # two equal columns: pieces of two rows
    differs = 0
    for _ in range(200):
        a = scaled_normals(rng, (5, 3))
        differs += not np.array_equal(a[4:] @ b, (a @ b)[4:])  # what a lone last piece would give
        assert np.array_equal(product_in_pieces(a, b), a @ b)
    assert differs  # (the lone row really rounds differently, so the test above can fail)


def test_pruning_and_moved_copies_do_not_depend_on_the_pieces(monkeypatch):
    rng = np.random.default_rng(3)
    blob = rng.normal(size=(30_000, 3)) * [1.0, 0.7, 0.4]
    sphere = uv_sphere(1.0, 64, 32)
    sphere = mesh(sphere.vertices + rng.normal(scale=1e-3, size=sphere.vertices.shape), sphere.triangles)
    matrix = np.eye(4)
    matrix[:3, :3] = np.linalg.qr(rng.normal(size=(3, 3)))[0] * 1.7
    matrix[:3, 3] = [0.3, -2.0, 5.5]
    whole = interior_points(blob), moved_vertices(sphere, matrix)
    monkeypatch.setattr(arrays_module, "PRODUCT_MULTIPLY_ADDS", 100)
    pieces = interior_points(blob), moved_vertices(sphere, matrix)
    assert whole[0].mean() > 0.5 and np.array_equal(whole[0], pieces[0])
    assert np.array_equal(whole[1], pieces[1])
    assert np.array_equal(whole[1], sphere.vertices @ matrix[:3, :3].T + matrix[:3, 3])


def test_column_extremes_are_min_and_max_over_rows_signs_of_zeros_included():
    rng = np.random.default_rng(5)
    differ = 0
    for rows in (1, 5, 4095, 4096, 20_000, 70_001) * 4:
        values = rng.normal(size=(rows, 3)) * 10.0 ** rng.integers(-8, 8, size=(1, 3))
        values[:, 0], values[:, 2] = np.abs(values[:, 0]), -np.abs(values[:, 2])
        for column in (0, 2):  # zeros of both signs: column 0's least, column 2's largest
            zeros = rng.integers(0, rows, size=min(rows, 40))
            values[zeros, column] = np.where(rng.random(len(zeros)) < 0.5, 0.0, -0.0)
        low, high = column_extremes(values)
        assert np.array_equal(low, values.min(axis=0)) and np.array_equal(high, values.max(axis=0))
        assert np.array_equal(np.signbit(low), np.signbit(values.min(axis=0)))
        assert np.array_equal(np.signbit(high), np.signbit(values.max(axis=0)))
        differ += bool(np.signbit(values[:, 0].min()) != np.signbit(values.min(axis=0)[0]))
    assert differ  # (a column's own minimum does pick the other zero: the test above can fail)
