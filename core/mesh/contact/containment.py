"""Whether two solids share interior: surfaces crossing or sharing faces, or one inside the other (exact
winding numbers on sampled vertices)."""

from __future__ import annotations

import numpy as np

from ..distance import nearest_on_surface
from ..intersection import default_tolerance, surfaces_overlap
from ..inside import crossing_windings
from ..solid import Solid

#: Vertices sampled per object for the containment test (winding numbers).
CONTAINMENT_SAMPLES = 16


def boxes_apart(a: Solid, b: Solid) -> bool:
    """The objects' boxes are further apart than ``surface_intersection``'s tolerance: no two triangles can
    cross or touch there, and no vertex of one can lie inside the other."""
    (low_a, high_a), (low_b, high_b) = a.bounds, b.bounds
    gap = float(np.maximum(low_b - high_a, low_a - high_b).max())
    return gap > default_tolerance(a.mesh, b.mesh, None)


def share_interior(a: Solid, b: Solid, crossing=None) -> bool:
    """The objects share interior: surfaces cross, coplanar faces overlap with both solids on the same side,
    or one object lies inside the other. Surfaces that only touch are not overlapping."""
    if crossing is None:
        shared = surfaces_overlap(a.mesh, b.mesh, trees=(a.bvh, b.bvh))
    else:
        shared = crossing.shares_interior
    return shared or _contained(a, b)


def indices_in_box(vertices: np.ndarray, box: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Indices of the vertices inside ``box`` (only those can be inside the object it bounds)."""
    low, high = box
    return np.flatnonzero(((vertices >= low) & (vertices <= high)).all(axis=1))


def strided_sample(indices: np.ndarray, count: int) -> np.ndarray:
    """Up to ``count`` evenly strided entries of ``indices``."""
    return indices[:: max(1, len(indices) // count)][:count]


def points_inside(outer: Solid, points: np.ndarray) -> np.ndarray:
    """Which points ``outer`` (a closed object) winds around (``rays.crossing_windings``, exact; a point on its
    surface as the perturbation moves it)."""
    return crossing_windings(outer.mesh, points, bvh=outer.bvh) > 0


def _strictly_inside(outer: Solid, points: np.ndarray) -> np.ndarray:
    """Which points lie inside ``outer`` (a closed object) and off its surface."""
    inside = points_inside(outer, points)
    if inside.any():
        inside[inside] = nearest_on_surface(outer.mesh, points[inside], bvh=outer.bvh)[0] > 0.0
    return inside


def _contained(a: Solid, b: Solid) -> bool:
    """Some vertex of one object lies strictly inside the other (closed objects only), asked when the surfaces
    do not cross: then one object is wholly inside the other or neither is, so only an object whose box lies
    within the other's (to the crossing search's tolerance) is looked at."""
    margin = default_tolerance(a.mesh, b.mesh, None)
    for inner, outer in ((a, b), (b, a)):
        (low_in, high_in), (low_out, high_out) = inner.bounds, outer.bounds
        if outer.closed and (low_in >= low_out - margin).all() and (high_in <= high_out + margin).all():
            picked = strided_sample(indices_in_box(inner.mesh.vertices, outer.bounds), CONTAINMENT_SAMPLES)
            if _strictly_inside(outer, inner.mesh.vertices[picked]).any():
                return True
    return False
