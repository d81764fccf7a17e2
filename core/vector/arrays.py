"""Small numpy helpers shared by the vectorised modules."""

from __future__ import annotations

import numpy as np


def cross(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Cross products over the last axis: ``np.cross``'s arithmetic in a few element-wise products (several
    times faster on stacks of small vectors; works on exact Python-integer object arrays too)."""
    return np.stack([u[..., 1] * v[..., 2] - u[..., 2] * v[..., 1], u[..., 2] * v[..., 0] - u[..., 0] * v[..., 2],
                     u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]], axis=-1)
