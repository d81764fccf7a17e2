"""Small numpy helpers shared by the vectorised modules."""

from __future__ import annotations

import numpy as np

#: Index of each triangle corner's next (and previous) corner, to take edges as ``corners[..., NEXT_CORNER, :]``
#: (``np.roll``'s result, without its cost on small stacks).
NEXT_CORNER = np.array([1, 2, 0])
PREVIOUS_CORNER = np.array([2, 0, 1])


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
