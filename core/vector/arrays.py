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
