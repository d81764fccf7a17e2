"""Sublinear exact support queries on large point clouds.

Points are sorted along a Morton (Z-order) curve and cut into chunks of consecutive points; each chunk
keeps a bounding sphere. A support query scores every chunk by the upper bound ``c·d + r|d|``, scans
the best chunk exactly, then scans only the chunks whose bound beats that value. The answer is the
exact argmax over all points, usually after touching a few percent of them.
"""

from __future__ import annotations

import numpy as np

_MORTON_BITS = 21


def _spread_bits(values: np.ndarray) -> np.ndarray:
    """Insert two zero bits between the low 21 bits of each value (the classic Morton spread)."""
    x = values.astype(np.uint64) & np.uint64(0x1FFFFF)
    x = (x | (x << np.uint64(32))) & np.uint64(0x1F00000000FFFF)
    x = (x | (x << np.uint64(16))) & np.uint64(0x1F0000FF0000FF)
    x = (x | (x << np.uint64(8))) & np.uint64(0x100F00F00F00F00F)
    x = (x | (x << np.uint64(4))) & np.uint64(0x10C30C30C30C30C3)
    x = (x | (x << np.uint64(2))) & np.uint64(0x1249249249249249)
    return x


def morton_order(points: np.ndarray) -> np.ndarray:
    """Permutation that sorts points along a Z-order curve over their bounding box."""
    low = points.min(axis=0)
    extent = np.maximum(points.max(axis=0) - low, np.finfo(np.float64).tiny)
    cells = ((points - low) / extent * ((1 << _MORTON_BITS) - 1)).astype(np.uint64)
    codes = _spread_bits(cells[:, 0]) | (_spread_bits(cells[:, 1]) << np.uint64(1))
    codes |= _spread_bits(cells[:, 2]) << np.uint64(2)
    return np.argsort(codes, kind="stable")


class SupportIndex:
    """Chunked bounding spheres over Morton-sorted points; ``points`` is the sorted copy."""

    def __init__(self, points: np.ndarray, chunk_size: int | None = None):
        count = len(points)
        size = chunk_size or max(64, int(np.sqrt(count)))
        chunks = -(-count // size)
        ordered = points[morton_order(points)]
        padded = np.empty((chunks * size, 3))
        padded[:count] = ordered
        padded[count:] = ordered[-1]  # duplicates of a real point leave the hull unchanged
        self.points = ordered
        self._chunks = padded.reshape(chunks, size, 3)
        low, high = self._chunks.min(axis=1), self._chunks.max(axis=1)
        self._centers = 0.5 * (low + high)
        offsets = self._chunks - self._centers[:, None, :]
        # Inflate by a few ulps so rounding in the bound never prunes the true maximum.
        radii = np.sqrt(np.einsum("kij,kij->ki", offsets, offsets).max(axis=1))
        self._radii = radii * (1.0 + 1e-12) + 1e-300
        self._size = size

    def argmax(self, direction: np.ndarray) -> int:
        """Index into ``self.points`` of a point maximising ``points @ direction``."""
        bounds = self._centers @ direction + self._radii * float(np.sqrt(direction @ direction))
        first = int(np.argmax(bounds))
        values = self._chunks[first] @ direction
        best_in_chunk = int(np.argmax(values))
        best = values[best_in_chunk]
        others = np.flatnonzero(bounds > best)
        others = others[others != first]
        if others.size == 0:
            return self._clamp(first * self._size + best_in_chunk)
        values = self._chunks[others] @ direction
        flat = int(np.argmax(values))
        if values.flat[flat] <= best:
            return self._clamp(first * self._size + best_in_chunk)
        chunk, offset = divmod(flat, self._size)
        return self._clamp(int(others[chunk]) * self._size + offset)

    def _clamp(self, padded_index: int) -> int:
        """Map a padded slot back to a real point (padding repeats the last point)."""
        return min(padded_index, len(self.points) - 1)
