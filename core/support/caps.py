"""Support features of large point clouds along nearby directions without a full scan: each full pass keeps a cap
of the rows near the top, which provably holds the feature along directions close enough.
See docs/architecture.md, section "Support queries: caps for nearby directions".
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import NamedTuple

import numpy as np

#: A cap keeps the points within this fraction of the cloud's radius of its top: about 1% of a round
#: cloud's points, and it serves directions up to half that (radians) away.
CAP_REACH = 0.02
#: A cap made when the direction has drifted ``delta`` from the nearest kept one also reaches ``4 delta`` further
#: (it serves two more steps of a fast drag, turning the direction by ``delta`` per step), up to this fraction
#: of the radius (about 4% of a round cloud's points).
MAX_CAP_REACH = 0.08
#: Caps kept per cloud (a shape in several pairs is asked along several directions).
MAX_CAPS = 8
#: Rounding of a 3-term product relative to the coordinates' size (computed heights err by less).
_GUARD = 16.0 * 2.0 ** -52


class _Cap(NamedTuple):
    direction: tuple[float, float, float]  # unit
    reach: float  # along ``direction``: every point within it of the top is in ``rows``
    rows: np.ndarray  # ascending


class SupportCaps:
    """The caps of one cloud of local points (shared by a shape's moved copies, which share the points)."""

    def __init__(self, points: np.ndarray):
        self._points = points
        self._caps: list[_Cap] = []

    @cached_property
    def _extent(self) -> tuple[float, float]:
        """``(R, guard)``: the largest distance of a point from the box centre, and the rounding guard of
        heights along a unit direction (relative to the coordinates' size, not just ``R``)."""
        low, high = self._points.min(axis=0), self._points.max(axis=0)
        centre = 0.5 * (low + high)
        radius = float(np.sqrt(((self._points - centre) ** 2).sum(axis=1).max()))
        return radius, _GUARD * (radius + float(np.abs(centre).sum()))

    @property
    def empty(self) -> bool:
        """No cap is kept yet (``kept`` answers None whatever the direction)."""
        return not self._caps

    def candidates(self, direction: np.ndarray, slab: float) -> np.ndarray:
        """Rows (ascending) that hold every point whose height ``p . direction`` is within ``slab`` of the
        highest (``direction`` need not be unit): a kept cap that serves the direction, else a new one (a pass
        over all points)."""
        rows = self.kept(direction, slab)
        if rows is not None:
            return rows
        w = tuple(direction.tolist())
        length = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
        if not length > 0.0:
            return np.arange(len(self._points))
        radius, guard = self._extent
        u = (w[0] / length, w[1] / length, w[2] / length)
        drift = min((math.dist(u, cap.direction) for cap in self._caps), default=0.0)
        reach = min(CAP_REACH + 4.0 * drift, MAX_CAP_REACH) * radius + slab / length + guard
        heights = self._points @ direction
        rows = np.flatnonzero(heights >= heights.max() - length * (reach + guard))
        self._caps = [_Cap(u, reach, rows)] + self._caps[:MAX_CAPS - 1]
        return rows

    def kept(self, direction, slab: float) -> np.ndarray | None:
        """``candidates`` from a kept cap (``direction``: 3 numbers), or None when no cap serves the direction."""
        if not self._caps:
            return None
        x, y, z = direction if isinstance(direction, tuple) else direction.tolist()
        length = math.sqrt(x * x + y * y + z * z)
        if not length > 0.0:
            return None
        u = (x / length, y / length, z / length)
        radius, guard = self._extent
        needed = slab / length + guard
        for cap in self._caps:
            if cap.reach - 2.0 * radius * math.dist(u, cap.direction) >= needed:
                return cap.rows
        return None
