"""Placing benchmark objects on a grid, every few pulled into their neighbour (shared by the scene builders)."""

from __future__ import annotations

import numpy as np


def place_on_grid(obj, index: int, count: int, spacing: float, pull: tuple[float, float],
                  rng: np.random.Generator, neighbour_every: int = 5) -> None:
    """Put ``obj`` in grid cell ``index`` of a cube of ``count`` cells ``spacing`` apart, turned at random; every
    ``neighbour_every``-th object (from the second) is pulled down toward the previous one, to leave a gap of
    ``spacing`` less a draw from ``pull``: touching or overlapping it."""
    side = int(np.ceil(count ** (1 / 3)))
    cell = np.array(np.unravel_index(index, (side, side, side)), dtype=float) * spacing
    if index % neighbour_every == 1:
        cell[2] -= spacing - rng.uniform(*pull)
    obj.location = cell
    obj.rotation_euler = rng.uniform(0.0, np.pi, 3)
