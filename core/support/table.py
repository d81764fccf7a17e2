"""Exact support queries on mid-size point clouds: per cell of a cube map of directions, the few points that can be
the support along some direction of the cell.
See docs/architecture.md, section "Support queries: the table for mid-size clouds".
"""

from __future__ import annotations

import math

import numpy as np

#: Cells on a face of the cube map along each axis, at most (6 x 8 x 8 = 384 cells): building costs
#: cells x points, a query only grows with the candidates of a cell (slowly: numpy's call overhead
#: dominates up to a few hundred).
MAX_RESOLUTION = 8
#: Rows of the (points x cells) products formed at once while building (bounds the temporaries).
_BLOCK_ELEMENTS = 1 << 22
#: The two other axes of each cube face's axis, in the order the query reads them.
_FACE_AXES = ((1, 2), (0, 2), (0, 1))


def resolution_for(count: int) -> int:
    """Cells per face edge for a cloud of ``count`` points: a few hundred candidates per cell at
    most on a sphere's surface (candidates grow like count / cells), where a query costs about what
    a few dozen would (numpy's call overhead), and building stays cheap."""
    return int(min(MAX_RESOLUTION, max(3, round(math.sqrt(count / 200.0)))))


def _cell_directions(resolution: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit centre direction (cells, 3) and padded angular radius (cells,) of every cell, cells
    numbered ``(face * resolution + i) * resolution + j`` with face ``2 * axis + (0 if + else 1)``."""
    edges = np.linspace(-1.0, 1.0, resolution + 1)
    middle = 0.5 * (edges[:-1] + edges[1:])
    centres, radii = [], []
    for axis, (first, second) in enumerate(_FACE_AXES):
        for sign in (1.0, -1.0):
            def directions(u, v):
                d = np.zeros(np.broadcast(u, v).shape + (3,))
                d[..., axis], d[..., first], d[..., second] = sign, u, v
                return d / np.linalg.norm(d, axis=-1, keepdims=True)

            centre = directions(middle[:, None], middle[None, :])
            widest = np.zeros((resolution, resolution))
            for di in (0, 1):
                for dj in (0, 1):
                    corner = directions(edges[di:resolution + di, None], edges[None, dj:resolution + dj])
                    sine = np.linalg.norm(np.cross(centre, corner), axis=-1)
                    widest = np.maximum(widest, np.arctan2(sine, np.einsum("ijk,ijk->ij", centre, corner)))
            centres.append(centre.reshape(-1, 3))
            radii.append(widest.reshape(-1))
    return np.concatenate(centres), np.concatenate(radii) * (1.0 + 1e-6) + 1e-9


class SupportTable:
    """Candidate points per cube-map cell of directions (see the module's docstring)."""

    def __init__(self, points: np.ndarray, resolution: int | None = None):
        count = len(points)
        self.resolution = resolution_for(count) if resolution is None else resolution
        self._half = 0.5 * self.resolution
        centres, radii = _cell_directions(self.resolution)
        centred = points - 0.5 * (points.min(axis=0) + points.max(axis=0))
        lengths = np.linalg.norm(centred, axis=1)
        # Far above the rounding of a query's products (coordinates' size) and of this test's.
        eta = 1e-9 * (float(np.abs(points).max()) + float(lengths.max())) + 1e-300
        slopes = np.tan(radii)[:, None]
        squares = lengths * lengths
        cells, rows = [], []
        block = max(1, _BLOCK_ELEMENTS // max(count, 1))
        for start in range(0, len(centres), block):
            stop = min(start + block, len(centres))
            values = centres[start:stop] @ centred.T  # (cells, points): a cell's values are contiguous
            best = values.argmax(axis=1)
            values -= values[np.arange(stop - start), best][:, None]  # gaps u·c, all <= 0
            # |u|^2 = |p|^2 + |s|^2 - 2 p·s, overestimated by far more than its rounding.
            reach = centred[best] @ centred.T
            reach *= -2.0
            reach += squares
            reach += (1.0 + 1e-14) * squares[best][:, None] + 1e-14 * squares
            np.sqrt(np.maximum(reach, 0.0, out=reach), out=reach)
            reach *= slopes[start:stop]
            cell, row = np.nonzero(values >= -reach - eta)
            cells.append(cell + start)
            rows.append(row)
        cell, row = np.concatenate(cells), np.concatenate(rows)
        # np.nonzero lists each cell's points in the cloud's order: a tie goes to the first point, as in a full scan.
        splits = np.searchsorted(cell, np.arange(1, len(centres)))
        self._candidates = np.split(points[row], splits)
        self._rows = np.split(row, splits)

    def support(self, d) -> tuple | None:
        """The support point along ``d`` (a 3-tuple) as a 3-tuple, or None for a zero, tiny, huge or
        non-finite ``d`` (whose products round differently; the caller scans all points then)."""
        cell = self._cell(d)
        if cell is None:
            return None
        candidates = self._candidates[cell]
        return tuple(candidates[candidates.dot(d).argmax()].tolist())

    def support_row(self, d) -> int | None:
        """The row of ``points`` that ``support`` answers along ``d``, or None where it answers None."""
        cell = self._cell(d)
        return None if cell is None else int(self._rows[cell][self._candidates[cell].dot(d).argmax()])

    def _cell(self, d) -> int | None:
        """The cube-map cell of the direction ``d`` (None out of range)."""
        dx, dy, dz = d
        ax, ay, az = abs(dx), abs(dy), abs(dz)
        if not 1e-150 < ax + ay + az < 1e150:  # far out of range: the full scan decides
            return None
        if ax >= ay and ax >= az:
            face, u, v, m = (0 if dx > 0.0 else 1), dy, dz, ax
        elif ay >= az:
            face, u, v, m = (2 if dy > 0.0 else 3), dx, dz, ay
        else:
            face, u, v, m = (4 if dz > 0.0 else 5), dx, dy, az
        resolution, half = self.resolution, self._half
        i = min(int((u / m + 1.0) * half), resolution - 1)
        j = min(int((v / m + 1.0) * half), resolution - 1)
        return (face * resolution + i) * resolution + j
