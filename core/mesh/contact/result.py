"""A pair of solids' answer (``SolidContact``) and what every way of measuring a pair shares: its method, its
size and its tolerances."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...contact import SignedDistanceMixin
from ...contact_patch.region import ContactRegion
from ..solid import CONVEX, HULL, MESH, PARTS, Solid

#: Default touch band and solver accuracy, relative to the pair's size.
DEFAULT_RELATIVE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class SolidContact(SignedDistanceMixin):
    """The answer for one pair of objects, with ``core.Contact``'s conventions.

    - ``normal`` is a unit vector from A toward B.
    - Penetrating: ``point_a - point_b == depth * normal``, and moving B by ``depth * normal`` was
      checked to leave the pair touching or apart. For convex pairs the depth is exact; otherwise it is
      at least ``depth_lower_bound`` and ``depth_is_estimate`` says when it may be larger than needed.
      For part and mesh pairs both lie on the surfaces, where the objects meet once B is pushed out
      (``pushout.pushout_witnesses``); while an object is dragged (``volume_pending``) a mesh pair's ``point_b`` is
      a point of its deepest region carried along and ``point_a`` is where the push-out takes it.
    - Separated or touching: ``point_b - point_a == distance * normal`` with both points on the surfaces. When
      ``distance_is_estimate`` (a separated mesh pair answered from its last exact answer while dragged, no time
      being left to measure it: ``volume_pending`` too), the distance is at most ``distance`` (those two points)
      and at least ``distance_lower_bound``.
    - ``overlap_volume``: the volume both objects enclose (0 when they do not overlap); None when an
      object is open (no inside, so no volume), when hulls were measured, or when ``volume_pending``:
      the pair was measured without its volume (``measure_solid_pairs(volumes=False)``), to be measured later.
      ``volume_error``: how much ``overlap_volume`` may differ from the true one (0: exact); positive only when
      the surfaces' cut gives up (rarely: degenerate triple crossings) for objects whose non-convex parts overlap
      each other or cross themselves; their shared space is then bounded, not measured.
    - ``curves``: the polylines where the surfaces cross, one (K, 3) array each (mesh pairs only); a
      closed loop repeats its first point at the end.
    - ``method``: 'convex', 'parts', 'mesh' or 'hull': how the answer was computed.
    - ``region`` (convex and part pairs that touch or overlap): the patch of witness pairs
      (``core.contact_patch.region.ContactRegion``: a point, a segment or a polygon); ``point_a`` and ``point_b`` then
      sit at its centroid.
    """

    status: str
    signed_distance: float
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    method: str
    tolerance: float
    depth_lower_bound: float = 0.0
    depth_is_estimate: bool = False
    distance_lower_bound: float = 0.0
    distance_is_estimate: bool = False
    overlap_volume: float | None = None
    overlap_centroid: np.ndarray | None = None
    volume_error: float = 0.0
    curves: tuple = field(default=(), repr=False)
    solver_status: str = "converged"
    region: ContactRegion | None = field(default=None, repr=False)
    volume_pending: bool = False


def pair_method(a: Solid, b: Solid) -> str:
    """How a pair is measured: hulls if either asks, GJK/EPA when every part is convex, else triangles."""
    methods = {a.method, b.method}
    if HULL in methods:
        return HULL
    if MESH in methods:
        return MESH
    return CONVEX if methods == {CONVEX} else PARTS


def pair_size(a: Solid, b: Solid) -> float:
    (low_a, high_a), (low_b, high_b) = a.bounds, b.bounds
    return float((np.maximum(high_a, high_b) - np.minimum(low_a, low_b)).max())


def pair_options(a: Solid, b: Solid, tolerance: float | None, touch_tolerance: float | None,
                  max_iterations: int | None) -> dict:
    """The solvers' keywords for the pair: tolerances in world units (default relative to its size)."""
    size = pair_size(a, b)
    tolerance = DEFAULT_RELATIVE_TOLERANCE * size if tolerance is None else float(tolerance)
    touch = max(tolerance if touch_tolerance is None else float(touch_tolerance), tolerance)
    options = {"tolerance": tolerance, "touch_tolerance": touch}
    if max_iterations is not None:
        options["max_iterations"] = max_iterations
    return options


def has_overlap_volume(a: Solid, b: Solid, method: str) -> bool:
    """Whether the pair's overlap volume is a number (both objects closed, not measured as hulls)."""
    return method != HULL and a.closed and b.closed


def answered_from_last(contact: SolidContact) -> bool:
    """Whether a pair's answer is only bounded, carried from its last exact one because no time was left to measure
    it, so that the pair still waits for its measurement: a convex pair's depth looser than its lower bound
    (``keep_convex_starts``), or a separated mesh pair's distance (``bounded_warm``)."""
    return (contact.method in (CONVEX, HULL) and contact.depth_is_estimate) or contact.distance_is_estimate
