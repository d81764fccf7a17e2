"""The answer for one pair of shapes, with the sign conventions of the physics-engine literature."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from functools import cache

import numpy as np

#: Status values, from the touch band: |signed_distance| <= touch tolerance is 'touching'.
SEPARATED, TOUCHING, PENETRATING = "separated", "touching", "penetrating"


def classify(signed_distance: float, touch_tolerance: float) -> str:
    """'touching' within the band, else 'penetrating' (negative) or 'separated' (positive)."""
    if abs(signed_distance) <= touch_tolerance:
        return TOUCHING
    return PENETRATING if signed_distance < 0.0 else SEPARATED


class SignedDistanceMixin:
    """``colliding``, ``depth`` and ``distance`` read from a result's ``status`` and ``signed_distance``."""

    status: str
    signed_distance: float

    @property
    def colliding(self) -> bool:
        """The shapes touch or overlap (within the touch band)."""
        return self.status != SEPARATED

    @property
    def depth(self) -> float:
        """How far the shapes overlap (0 when separated)."""
        return max(0.0, -self.signed_distance)

    @property
    def distance(self) -> float:
        """How far apart the shapes are (0 when overlapping)."""
        return max(0.0, self.signed_distance)


def frozen_instance(cls, **values):
    """``cls(**values)`` for a frozen dataclass, its defaults filled in, without the generated ``__init__``:
    that sets each field through ``object.__setattr__`` (about 10 us per instance, as much as a whole
    batched query), so batches write the instance dictionary directly. Every field without a default
    must be given, and only fields."""
    names, required, defaults = _fields(cls)
    assert values.keys() <= names and required <= values.keys(), sorted(values)
    instance = object.__new__(cls)
    instance.__dict__.update(defaults)
    instance.__dict__.update(values)
    return instance


@cache
def _fields(cls) -> tuple[frozenset, frozenset, dict]:
    """A dataclass's field names, the names without a default, and the defaults."""
    defaults = {f.name: f.default for f in fields(cls) if f.default is not MISSING}
    names = frozenset(f.name for f in fields(cls))
    return names, names - defaults.keys(), defaults


def touch_band(size: float, tolerance: float | None, touch_tolerance: float | None, relative: float,
               floor: float) -> tuple[float, float]:
    """The solver tolerance (default ``relative`` x the pair's ``size``, never below ``floor``) and the
    touch band (default: that tolerance, never below it) of a pair."""
    solver = max(relative * size if tolerance is None else tolerance, floor)
    return solver, max(solver if touch_tolerance is None else touch_tolerance, solver)


@dataclass(frozen=True)
class Contact(SignedDistanceMixin):
    """Contact between shapes A and B, world space.

    Conventions (exact up to rounding):
    - ``normal`` is a unit vector from A toward B, and always
      ``point_a - point_b == -signed_distance * normal``.
    - Penetrating (``signed_distance < 0``): ``point_a - point_b == depth * normal``; moving B by
      ``depth * normal`` separates the shapes. ``point_a`` is A's deepest point inside B.
    - Separated: ``point_b - point_a == distance * normal``; the points are closest points.
    - ``bounds`` is a (lower, upper) interval certain to hold the true signed distance, and holds
      ``signed_distance``.
    - ``status`` is 'touching' when ``|signed_distance| <= tolerance`` (the touch band used).
    - ``solver_status``: 'converged' (the bounds are within the solver tolerance); 'iteration_limit'
      (an explicit cap was reached: the best answer so far, see ``bounds``); 'stalled' (rounding
      stopped GJK or EPA, see ``bounds``); 'degenerate' (A - B is flat, a segment or a point within
      the tolerance, so nothing is deeper than that, and its nearest point is measured to the tolerance).
    """

    status: str
    signed_distance: float
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    bounds: tuple[float, float]
    tolerance: float
    gjk_iterations: int
    epa_iterations: int
    solver_status: str
    tangents: np.ndarray = field(repr=False)

    @property
    def iterations(self) -> int:
        return self.gjk_iterations + self.epa_iterations
