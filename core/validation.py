"""Argument checks shared by the public entry points: every error names the offending argument."""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike

#: Largest coordinate accepted: squared distances of such coordinates stay far from float64 overflow.
MAX_COORDINATE = 1e100
#: Smallest extent of a pair (other than zero) the solver measures: below it squares leave float64.
MIN_PAIR_SIZE = 1e-150


def _require_measurable(values: np.ndarray, name: str, what: str) -> None:
    """Finite and small enough that the solver's squares cannot overflow."""
    if not np.isfinite(values).all():
        raise ValueError(f"{name} contains NaN or infinite {what}")
    if np.abs(values).max() > MAX_COORDINATE:
        raise ValueError(f"{name} has {what} beyond ±{MAX_COORDINATE:g}: too large to measure")


def as_points(value: ArrayLike, name: str, columns: int = 3) -> np.ndarray:
    """Return ``value`` as a C-contiguous (N, columns) float64 array, or raise ``ValueError`` naming ``name``."""
    try:
        points = np.array(value, dtype=np.float64, order="C", copy=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an (N, {columns}) array of numbers: {exc}") from None
    if points.ndim != 2 or points.shape[1] != columns:
        raise ValueError(f"{name} must have shape (N, {columns}), got {points.shape}")
    if points.shape[0] == 0:
        raise ValueError(f"{name} is empty: a shape needs at least one point")
    _require_measurable(points, name, "coordinates")
    return points


def as_affine(value: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Split a 4x4 (or 3x4) affine matrix into its 3x3 linear part and translation."""
    matrix, _rows = _checked_affine(value, name)
    return matrix[:3, :3].copy(), matrix[:3, 3].copy()


def affine_rows(value: ArrayLike, name: str) -> list[list[float]]:
    """The first three rows of a 4x4 (or 3x4) affine matrix, checked as ``as_affine`` checks it, as floats."""
    return _checked_affine(value, name)[1][:3]


def _checked_affine(value, name: str) -> tuple[np.ndarray, list[list[float]]]:
    """A 4x4 (or 3x4) affine matrix as float64 and as rows of floats, or ``ValueError`` naming ``name``."""
    try:
        matrix = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 4x4 affine matrix: {exc}") from None
    if matrix.shape not in ((4, 4), (3, 4)):
        raise ValueError(f"{name} must be a 4x4 (or 3x4) affine matrix, got shape {matrix.shape}")
    rows = matrix.tolist()  # plain floats: a matrix is checked at every move, and numpy's per-call cost dominates
    if not all(-MAX_COORDINATE <= x <= MAX_COORDINATE for row in rows for x in row):  # False for NaN too
        _require_measurable(matrix, name, "values")
    if matrix.shape == (4, 4) and rows[3] != [0.0, 0.0, 0.0, 1.0]:
        raise ValueError(f"{name} must be affine: its last row must be (0, 0, 0, 1)")
    return matrix, rows


def as_vector3(value: ArrayLike, name: str) -> np.ndarray:
    """Return ``value`` as a finite float64 3-vector."""
    try:
        vector = np.array(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be 3 numbers: {exc}") from None
    if vector.shape != (3,):
        raise ValueError(f"{name} must be 3 numbers, got {vector.shape[0]}")
    _require_measurable(vector, name, "values")
    return vector


def as_length(value: object, name: str, *, allow_none: bool = False) -> float | None:
    """Return a finite, non-negative float (or None when allowed)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    length = float(value)
    if not math.isfinite(length) or length < 0.0:
        raise ValueError(f"{name} must be a finite, non-negative number, got {value!r}")
    return length


def as_iteration_cap(value: object, name: str) -> int:
    """Return a positive int."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)
