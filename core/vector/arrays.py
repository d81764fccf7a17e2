"""Small numpy helpers shared by the vectorised modules."""

from __future__ import annotations

import numpy as np

#: Index of each triangle corner's next (and previous) corner, to take edges as ``corners[..., NEXT_CORNER, :]``
#: (``np.roll``'s result, without its cost on small stacks).
NEXT_CORNER = np.array([1, 2, 0])
PREVIOUS_CORNER = np.array([2, 0, 1])
#: Rows per call of ``reduce_in_chunks``: numpy keeps the interpreter for the whole of a ``reduceat``, so a worker
#: thread's reduction of a million rows would hold a waiting interface for a fifth of a second; a chunk of this
#: many rows holds it for a few milliseconds.
REDUCE_ROWS = 1 << 15


#: Multiply-adds per call of ``product_in_pieces``: OpenBLAS hands larger matrix products (beyond 65,536 x 4 in its
#: builds here) to its threads, whose start and waiting cost more CPU time than the product (several times as much on
#: a busy machine).
PRODUCT_MULTIPLY_ADDS = 1 << 17


def product_in_pieces(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` of 2-D arrays, (M, K) by (K, N), bit for bit, as products of at most about ``PRODUCT_MULTIPLY_ADDS``
    multiply-adds each: pieces of ``a``'s rows, or of ``b``'s columns when it has more of them, which OpenBLAS keeps
    on one thread. Each element's sum is the same in any piece but a lone row or column (numpy sends those to another
    routine), so a lone last one joins the piece before."""
    rows, inner = a.shape
    columns = b.shape[1]
    length, width = (rows, columns) if rows >= columns else (columns, rows)
    step = max(2, PRODUCT_MULTIPLY_ADDS // max(1, inner * width))
    if width < 2 or length <= step + 1:
        return a @ b
    cuts = list(range(0, length, step))
    if length - cuts[-1] == 1:
        cuts.pop()
    out = np.empty((rows, columns), dtype=np.result_type(a, b))
    for begin, end in zip(cuts, cuts[1:] + [length]):
        if rows >= columns:
            np.matmul(a[begin:end], b, out=out[begin:end])
        else:
            np.matmul(a, b[:, begin:end], out=out[:, begin:end])
    return out


#: ``column_extremes`` takes arrays of at least this many rows a column at a time.
COLUMN_ROWS = 4096


def column_extremes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values.min(axis=0), values.max(axis=0))`` of a 2-D array, the same numbers, a column at a time (numpy
    reduces a short last axis row by row, several times slower). A zero, whose sign depends on the order of the
    comparisons, is taken as ``min(axis=0)`` takes it. Arrays under ``COLUMN_ROWS`` rows go whole (fewer calls)."""
    if len(values) < COLUMN_ROWS:
        return values.min(axis=0), values.max(axis=0)
    low = np.array([values[:, k].min() for k in range(values.shape[1])])
    high = np.array([values[:, k].max() for k in range(values.shape[1])])
    if (low == 0.0).any():
        low = values.min(axis=0)
    if (high == 0.0).any():
        high = values.max(axis=0)
    return low, high


def dot(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Dot products over the last axis of 3-vectors, written out in one fixed order: faster than einsum on broadcast
    views, the same inputs round the same way in any shape, and exact on Python-integer object arrays."""
    return u[..., 0] * v[..., 0] + u[..., 1] * v[..., 1] + u[..., 2] * v[..., 2]


def smallest3(values: np.ndarray) -> np.ndarray:
    """Minimum over a last axis of length 3 (element-wise: much faster than ``min(axis=-1)``)."""
    return np.minimum(np.minimum(values[..., 0], values[..., 1]), values[..., 2])


def largest3(values: np.ndarray) -> np.ndarray:
    """Maximum over a last axis of length 3."""
    return np.maximum(np.maximum(values[..., 0], values[..., 1]), values[..., 2])


def cross(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Cross products over the last axis: ``np.cross``'s arithmetic in a few element-wise products (several
    times faster on stacks of small vectors; works on exact Python-integer object arrays too)."""
    return np.stack([u[..., 1] * v[..., 2] - u[..., 2] * v[..., 1], u[..., 2] * v[..., 0] - u[..., 0] * v[..., 2],
                     u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]], axis=-1)


def dot_rows(points: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``points @ rows.T`` for 3-vectors, (..., K, 3) and (..., R, 3) to (..., K, R), summed in the fixed
    order x, y, z (a matrix product's order depends on its shape), so one pair and a batch round alike."""
    return ((points[..., :, None, 0] * rows[..., None, :, 0] + points[..., :, None, 1] * rows[..., None, :, 1])
            + points[..., :, None, 2] * rows[..., None, :, 2])


def combine_rows(coefficients: np.ndarray, plane: np.ndarray) -> np.ndarray:
    """``coefficients @ plane``: (..., K, 2) combinations of the rows of ``plane`` (..., 2, 3), in a fixed order."""
    return (coefficients[..., :, 0, None] * plane[..., None, 0, :]
            + coefficients[..., :, 1, None] * plane[..., None, 1, :])


def row_chunks(indices: np.ndarray, rows: int | None = None) -> list[int]:
    """Where chunks of about ``rows`` (default ``REDUCE_ROWS``) rows begin among ``indices`` (non-decreasing row
    indices, each the start of a range of rows), with 0 and ``len(indices)`` at the ends: the indices rise strictly
    at each cut."""
    rows = REDUCE_ROWS if rows is None else rows
    if len(indices) == 0:
        return [0]
    if int(indices[-1]) - int(indices[0]) <= rows:
        return [0, len(indices)]
    first = (np.asarray(indices) - indices[0]) // rows
    return [0, *(np.flatnonzero(first[1:] != first[:-1]) + 1).tolist(), len(indices)]


def reduce_in_chunks(ufunc: np.ufunc, values: np.ndarray, indices: np.ndarray, rows: int | None = None) -> np.ndarray:
    """``ufunc.reduceat(values, indices, axis=0)`` for non-decreasing ``indices``, bit for bit, as calls over about
    ``rows`` rows each (``row_chunks``), between which other threads may take the interpreter (``REDUCE_ROWS``)."""
    cuts = row_chunks(indices, rows)
    if len(cuts) <= 2:
        return ufunc.reduceat(values, indices, axis=0)
    pieces = []
    for begin, end in zip(cuts[:-1], cuts[1:]):
        low = int(indices[begin])
        high = int(indices[end]) if end < len(indices) else len(values)
        pieces.append(ufunc.reduceat(values[low:high], indices[begin:end] - low, axis=0))
    return np.concatenate(pieces)


#: Odd 64-bit multipliers that mix a row's columns into one sort key (``first_of_rows``).
_ROW_MIXERS = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                        0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53], dtype=np.uint64).view(np.int64)


def first_of_rows(keys: np.ndarray) -> np.ndarray:
    """Where each distinct row of the (N, K) float array ``keys`` first occurs, ascending: the indices
    ``np.unique(keys, axis=0, return_index=True)`` gives, sorted (rows equal element by element, 0.0 and -0.0 alike).
    Rows are grouped by a key mixed from their bits (one integer sort instead of ``np.unique``'s sort of whole rows,
    several times slower), every group checked element by element; when a group holds rows that differ (a key
    collision, or NaN), ``np.unique`` decides."""
    keys = np.ascontiguousarray(keys, dtype=np.float64)
    if len(keys) == 0 or keys.shape[1] > len(_ROW_MIXERS):
        return np.sort(np.unique(keys, axis=0, return_index=True)[1])
    bits = (keys + 0.0).view(np.int64)  # (+ 0.0: -0.0 as 0.0, so that rows equal as numbers mix alike)
    mixed = bits[:, 0] * _ROW_MIXERS[0]
    for column in range(1, keys.shape[1]):
        mixed = (mixed ^ (mixed >> 29)) + bits[:, column] * _ROW_MIXERS[column]
    order = np.argsort(mixed, kind="stable")  # (stable: a group's first row is where it first occurs)
    grouped, rows = mixed[order], keys[order]
    starts = np.empty(len(order), dtype=bool)
    starts[0] = True
    np.not_equal(grouped[1:], grouped[:-1], out=starts[1:])
    same = rows[1:, 0] == rows[:-1, 0]
    for column in range(1, keys.shape[1]):
        same &= rows[1:, column] == rows[:-1, column]
    if not (same | starts[1:]).all():
        return np.sort(np.unique(keys, axis=0, return_index=True)[1])
    return np.sort(order[starts])
