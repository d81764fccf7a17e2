"""Exact support queries warm-started per cell of directions (a cube map): the points near the supports along a cell's
corners certify the maximum for every direction of the cell, and are cached.
See docs/architecture.md, section "Support queries: certified cells of directions".
"""

from __future__ import annotations

import numpy as np

#: Squares per cube face along each side.
RESOLUTION = 32
#: Caps are computed for blocks of BLOCK x BLOCK squares of a face at once (nearby directions share
#: most of the clusters read, and GJK and EPA ask again near where they asked).
BLOCK = 2
#: Rows kept in caps and points kept in cells, each relative to the cloud's size (about 40 bytes per
#: point of the cloud at most); the oldest are dropped beyond.
MAX_KEPT_SHARE = 1.0
#: First slab, relative to the cloud's radius (see the module's description).
FIRST_SLAB = 0.25 * (2.0 / RESOLUTION) ** 2
#: A cell whose certificate fails is rebuilt with a slab this many times thicker.
SLAB_GROWTH = 4.0
#: Caps whose clusters hold more than this share of the points (and more than MIN_LOCAL_LIMIT points)
#: are not computed: queries in their cells go to the branch and bound (flat clouds near their normal,
#: big flat faces).
MAX_LOCAL_SHARE = 1.0 / 64.0
MIN_LOCAL_LIMIT = 4096
#: Padding of the certificate's bound, relative to the largest coordinate: a thousand times the
#: rounding of the dot products and of the weights λ, and far below the slab of clouds up to 1e5
#: times their radius from their origin.
_PADDING = 1e-12
_HALF = 0.5 * RESOLUTION


class _Cell:
    """A cell's local subproblem: ``rows`` of the index's points (None: not kept), their coordinates,
    the certificate's bound ``h(ui) - slab`` along each corner (padded), and the thickest slab of its
    caps."""

    __slots__ = ("rows", "points", "outside", "slab")

    def __init__(self, rows, points, outside, slab):
        self.rows, self.points, self.outside, self.slab = rows, points, outside, slab


class _Cap:
    """The rows of the points within ``slab`` of the largest value ``top`` along a corner (None:
    too many to keep)."""

    __slots__ = ("rows", "top", "slab")

    def __init__(self, rows, top, slab):
        self.rows, self.top, self.slab = rows, top, slab


class _Kept(dict):
    """Caps or cells by key, oldest first, with the total length of their ``rows``."""

    def __init__(self, budget: int):
        super().__init__()
        self.budget, self.total = budget, 0

    def put(self, key: tuple, item) -> None:
        self.drop(key)
        self[key] = item
        self.total += 0 if item.rows is None else len(item.rows)

    def drop(self, key: tuple) -> None:
        item = self.pop(key, None)
        if item is not None and item.rows is not None:
            self.total -= len(item.rows)

    def trim(self) -> None:
        """Drop the oldest items while the total is over the budget."""
        while self.total > self.budget:
            self.drop(next(iter(self)))


def cell_of(direction) -> tuple[tuple, tuple[float, float, float], float]:
    """The cube-map cell of a non-zero ``direction`` (three floats): its key, the barycentric weights
    of the direction's crossing point in the cell's triangle, and the direction's largest absolute
    component (so ``λ = scale × weights``)."""
    dx, dy, dz = direction
    ax, ay, az = abs(dx), abs(dy), abs(dz)
    if ax >= ay and ax >= az:
        axis, scale, a, b = 0, ax, dy, dz
    elif ay >= az:
        axis, scale, a, b = 1, ay, dz, dx
    else:
        axis, scale, a, b = 2, az, dx, dy
    fa, fb = (a / scale + 1.0) * _HALF, (b / scale + 1.0) * _HALF
    i, j = min(int(fa), RESOLUTION - 1), min(int(fb), RESOLUTION - 1)
    fa, fb = fa - i, fb - j
    upper = fa + fb > 1.0
    weights = (fa + fb - 1.0, 1.0 - fa, 1.0 - fb) if upper else (1.0 - (fa + fb), fa, fb)
    return (axis, direction[axis] > 0.0, i, j, upper), weights, scale


def cell_corners(key: tuple) -> list[tuple]:
    """Keys ``(axis, positive, i, j)`` of the three corners of a cell's triangle, in the order of
    the weights of ``cell_of``."""
    axis, positive, i, j, upper = key
    squares = [(i + 1, j + 1), (i, j + 1), (i + 1, j)] if upper else [(i, j), (i + 1, j), (i, j + 1)]
    return [(axis, positive, s, t) for s, t in squares]


def block_corners(key: tuple) -> list[tuple]:
    """Keys of the corners of the ``BLOCK`` x ``BLOCK`` squares of the cube's face around a cell."""
    axis, positive, i, j, _ = key
    s0, t0 = i - i % BLOCK, j - j % BLOCK
    return [(axis, positive, s, t) for s in range(s0, min(s0 + BLOCK, RESOLUTION) + 1)
            for t in range(t0, min(t0 + BLOCK, RESOLUTION) + 1)]


def corner_direction(corner: tuple) -> np.ndarray:
    """The point of the cube's surface a corner key names (3,)."""
    axis, positive, s, t = corner
    direction = np.empty(3)
    direction[axis] = 1.0 if positive else -1.0
    direction[(axis + 1) % 3] = 2.0 * s / RESOLUTION - 1.0
    direction[(axis + 2) % 3] = 2.0 * t / RESOLUTION - 1.0
    return direction


class CellCache:
    """Certified local subproblems of a ``SupportIndex``, per cube-map cell, built on demand."""

    def __init__(self, index):
        self._index = index
        points = index.points
        center = 0.5 * (points.min(axis=0) + points.max(axis=0))
        self._first_slab = FIRST_SLAB * float(np.sqrt(((points - center) ** 2).sum(axis=1).max()))
        # Corners have components of at most 1, so values along them have magnitude <= 2 x reach.
        self._padding = 2.0 * _PADDING * float(np.abs(points).max())
        self._max_cap = max(MIN_LOCAL_LIMIT, int(MAX_LOCAL_SHARE * len(points)))
        self._caps = _Kept(int(MAX_KEPT_SHARE * len(points)))
        self._cells = _Kept(int(MAX_KEPT_SHARE * len(points)))

    def argmax(self, direction) -> int:
        """Index into the index's points of a point maximising ``points @ direction``."""
        index = self._index
        if not 0.0 < abs(direction[0]) + abs(direction[1]) + abs(direction[2]) < np.inf:  # zero, NaN or inf
            return index.branch_and_bound(np.array(direction, dtype=np.float64))
        key, (w0, w1, w2), scale = cell_of(direction)
        cell = self._cells.get(key)
        if cell is None:
            cell = self._build(key, self._first_slab)
        if cell.rows is not None:
            values = cell.points.dot(direction)
            winner = int(values.argmax())
            g0, g1, g2 = cell.outside
            if values[winner] > scale * (w0 * g0 + w1 * g1 + w2 * g2):
                return int(cell.rows[winner])
            self._build(key, SLAB_GROWTH * cell.slab)
        return index.branch_and_bound(np.array(direction, dtype=np.float64))

    def _build(self, key: tuple, slab: float) -> _Cell:
        """The cell's local subproblem from its corners' caps, computing those missing or thinner
        than ``slab``."""
        corners = cell_corners(key)
        missing = [c for c in corners if c not in self._caps or self._caps[c].slab < slab]
        if missing and slab == self._first_slab:  # a new region: the caps of its whole block at once
            missing = [c for c in block_corners(key) if c not in self._caps]
        if missing:
            self._add_caps(missing, slab)
        caps = [self._caps[c] for c in corners]
        thickest = max(cap.slab for cap in caps)
        if any(cap.rows is None for cap in caps):
            cell = _Cell(None, None, None, thickest)
        else:
            rows = np.concatenate([cap.rows for cap in caps])  # repeated rows only repeat a value
            outside = tuple(cap.top - cap.slab + self._padding for cap in caps)
            cell = _Cell(rows, self._index.points.take(rows, axis=0), outside, thickest)
        self._cells.put(key, cell)
        self._cells.trim()
        self._caps.trim()  # only now: the cell needed its caps
        return cell

    def _add_caps(self, corners: list[tuple], slab: float) -> None:
        rows, tops = self._index.caps(np.array([corner_direction(c) for c in corners]), slab, self._max_cap)
        for corner, cap_rows, top in zip(corners, rows, tops.tolist()):
            self._caps.put(corner, _Cap(cap_rows, top, slab))
