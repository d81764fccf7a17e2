"""A result's float64 numbers: their layout in its ``exact`` ID property, and reading and writing them.

Blender's float properties are single precision; the numbers a result promises at float64 live in one ID
property list (saved with the .blend). This module is the one owner of its layout
(docs/architecture.md, "Results on the scene").
"""

from __future__ import annotations

import numpy as np

#: The float64 numbers of a result, in the order of its ``exact`` ID property: name -> (start, size).
EXACT_LAYOUT = {"signed_distance": (0, 1), "normal": (1, 3), "point_a": (4, 3), "point_b": (7, 3),
                "overlap_volume": (10, 1), "depth_lower_bound": (11, 1), "region_area": (12, 1),
                "distance_lower_bound": (13, 1), "volume_error": (14, 1)}
EXACT_SIZE = 15
#: The single-precision copies (RNA properties, for ``foreach_get`` when drawing and sorting) of exact numbers.
VIEW_COPIES = {"signed_distance": "signed_distance_view", "normal": "normal_view", "point_a": "point_a_view",
               "point_b": "point_b_view", "overlap_volume": "overlap_volume_view"}


def exact_rows(numbers: dict, count: int) -> np.ndarray:
    """``(count, EXACT_SIZE)`` float64 rows in the layout of the ``exact`` ID property: ``numbers`` maps names of
    ``EXACT_LAYOUT`` to a value per row (``(count,)`` or ``(count, 3)``, or one value for every row); the numbers
    not given are 0."""
    rows = np.zeros((count, EXACT_SIZE), dtype=np.float64)
    for name, value in numbers.items():
        start, size = EXACT_LAYOUT[name]
        rows[:, start:start + size] = np.asarray(value, dtype=np.float64).reshape(-1, size)
    return rows


def _stored(result) -> list[float]:
    """The result's ``exact`` numbers, padded with 0 to ``EXACT_SIZE`` (none yet, or saved when there were fewer)."""
    values = list(result.get("exact", ()))
    return values + [0.0] * (EXACT_SIZE - len(values))


class ExactNumber:
    """A result number kept at float64 in the result's ``exact`` ID property (saved with the .blend).

    Reading gives a float (or a tuple of three); writing also updates the float32 copy that the overlay and
    the list's sorting read in bulk.
    """

    def __init__(self, name: str, doc: str):
        self.name, self.__doc__ = name, doc
        self.start, self.size = EXACT_LAYOUT[name]

    def __get__(self, result, _owner=None):
        if result is None:
            return self
        picked = tuple(float(v) for v in _stored(result)[self.start:self.start + self.size])
        return picked[0] if self.size == 1 else picked

    def __set__(self, result, value) -> None:
        write_exact(result, {self.name: value})


def write_exact(result, numbers: dict) -> None:
    """Write exact numbers (``{name in EXACT_LAYOUT: value}``) with one read and one write of the result's
    ``exact`` ID property, and their single-precision copies (a live update rewrites them all per pair)."""
    values = _stored(result)
    for name, value in numbers.items():
        start, size = EXACT_LAYOUT[name]
        written = [float(value)] if size == 1 else [float(v) for v in value]
        values[start:start + size] = written
        view = VIEW_COPIES.get(name)
        if view is not None:
            setattr(result, view, written[0] if size == 1 else written)
    result["exact"] = values
