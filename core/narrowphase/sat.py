"""Separating-axis test for convex polytopes: an independent check of GJK/EPA on point clouds (exact signed distance
when the shapes overlap, a lower bound when they are apart).
See docs/architecture.md, section "Narrow phase: the separating-axis test".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
from numpy.typing import ArrayLike

from ..contact import Contact, classify
from ..shapes.hull import FLAT_RELATIVE_TOLERANCE, SAME_NORMAL, Hull, convex_hull, distinct_directions, size_of

#: Default touch band of ``sat_polytopes``, relative to the pair's size (as in ``core.collide``).
DEFAULT_RELATIVE_TOLERANCE = 1e-12
#: Default agreement band of ``cross_check``, relative to the pair's size.
CHECK_RELATIVE_TOLERANCE = 1e-9
#: Vertex-axis products per block of edge-edge axes (bounds the memory of one projection).
BLOCK_ENTRIES = 4_000_000


@dataclass(frozen=True)
class SatResult:
    """Largest gap over the candidate axes (conventions of ``core.Contact``: ``axis`` from A toward B).

    ``signed_distance`` is exact when the shapes overlap and a lower bound when they are apart;
    ``separated`` is exact either way (up to the touch band ``tolerance``).
    """

    status: str
    signed_distance: float
    axis: np.ndarray
    axes_tested: int
    tolerance: float

    @property
    def separated(self) -> bool:
        return self.status == "separated"


@dataclass(frozen=True)
class Disagreement:
    """Where a ``Contact`` and SAT disagree by more than the band: which quantity, both values, why."""

    quantity: str
    contact_value: float
    sat_value: float
    message: str


def sat_polytopes(points_a: ArrayLike | Hull, points_b: ArrayLike | Hull, *,
                  tolerance: float | None = None) -> SatResult:
    """SAT on the convex hulls of two (N, 3) point clouds (or prepared ``Hull`` values)."""
    hull_a, hull_b = _as_hull(points_a), _as_hull(points_b)
    size = size_of(np.vstack([hull_a.vertices, hull_b.vertices]))
    band = DEFAULT_RELATIVE_TOLERANCE * size if tolerance is None else float(tolerance)
    best_gap, best_axis, tested = -np.inf, None, 0
    for axes in candidate_axes(hull_a, hull_b):
        gaps = gaps_along(hull_a.vertices, hull_b.vertices, axes)
        best = int(np.argmax(gaps))
        tested += len(axes)
        if gaps[best] > best_gap:
            best_gap, best_axis = float(gaps[best]), axes[best]
    signed_distance = best_gap + 0.0
    return SatResult(classify(signed_distance, band), signed_distance, best_axis, tested, band)


def gaps_along(vertices_a: np.ndarray, vertices_b: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Gap ``min(B·n) - max(A·n)`` along each axis n (positive: a separating axis)."""
    return (vertices_b @ axes.T).min(axis=0) - (vertices_a @ axes.T).max(axis=0)


def candidate_axes(hull_a: Hull, hull_b: Hull) -> Iterator[np.ndarray]:
    """Blocks of unit axes, both orientations, that together include every facet normal of A - B.

    Edge-edge axes come in blocks of about ``BLOCK_ENTRIES / (V_A + V_B)`` axes, so projecting the
    vertices on a block stays small in memory however many edges the hulls have.
    """
    both = np.vstack([hull_a.vertices, hull_b.vertices])
    size = max(size_of(both), np.finfo(float).tiny)
    offsets = np.vstack([hull_a.vertices - hull_a.vertices[0], hull_b.vertices - hull_b.vertices[0]])
    spans = np.linalg.svd(np.vstack([offsets, np.zeros((2, 3))]), full_matrices=False)
    dimension = int((spans[1] > FLAT_RELATIVE_TOLERANCE * size).sum())
    edges_a, edges_b = _edge_directions(hull_a), _edge_directions(hull_b)
    if dimension == 3:
        yield _both_ways(np.vstack([hull_a.normals, hull_b.normals]))
        rows = max(1, BLOCK_ENTRIES // max(1, len(both) * len(edges_b)))
        for start in range(0, len(edges_a), rows):
            crosses = np.cross(edges_a[start:start + rows, None, :], edges_b[None, :, :]).reshape(-1, 3)
            crosses = crosses[np.linalg.norm(crosses, axis=1) > SAME_NORMAL]
            if len(crosses):
                yield _both_ways(crosses)
    elif dimension == 2:
        plane = spans[2][2]
        yield _both_ways(np.vstack([plane[None], np.cross(plane, np.vstack([edges_a, edges_b]))]))
    else:
        offset = hull_a.vertices[0] - hull_b.vertices[0]
        line = spans[2][0]
        across = offset - (offset @ line) * line if dimension == 1 else offset
        if np.linalg.norm(across) <= FLAT_RELATIVE_TOLERANCE * size:
            across = spans[2][1 if dimension == 1 else 0]
        yield _both_ways(np.vstack([line, across]) if dimension == 1 else across[None])


def _both_ways(axes: np.ndarray) -> np.ndarray:
    axes = distinct_directions(axes, signed=False)
    return np.vstack([axes, -axes])


def _edge_directions(hull: Hull) -> np.ndarray:
    if len(hull.edges) == 0:
        return np.zeros((0, 3))
    return distinct_directions(hull.vertices[hull.edges[:, 1]] - hull.vertices[hull.edges[:, 0]], signed=False)


def _as_hull(value) -> Hull:
    return value if isinstance(value, Hull) else convex_hull(value)


def cross_check(points_a: ArrayLike | Hull, points_b: ArrayLike | Hull, contact: Contact, *,
                tolerance: float | None = None) -> Disagreement | None:
    """Compare ``contact`` (from ``core.collide`` on these point clouds) with SAT; None when they agree.

    Checked, each within ``tolerance`` (default ``1e-9`` x the pair's size, never below the contact's
    touch band): the status, the depth when penetrating, that a separation is not below SAT's lower
    bound, and that the contact's normal achieves its own signed distance.
    """
    hull_a, hull_b = _as_hull(points_a), _as_hull(points_b)
    size = size_of(np.vstack([hull_a.vertices, hull_b.vertices]))
    band = max(CHECK_RELATIVE_TOLERANCE * size if tolerance is None else float(tolerance), contact.tolerance)
    sat = sat_polytopes(hull_a, hull_b, tolerance=contact.tolerance)
    claimed = contact.signed_distance
    if sat.signed_distance > band and contact.colliding:
        return Disagreement("status", claimed, sat.signed_distance,
                            f"SAT separates the shapes by {sat.signed_distance:.6g} along {sat.axis.round(6)} "
                            f"but the contact says {contact.status}")
    if claimed > band and sat.signed_distance < -band:
        return Disagreement("status", claimed, sat.signed_distance,
                            f"no axis separates the shapes (overlap {-sat.signed_distance:.6g}) "
                            f"but the contact says separated by {claimed:.6g}")
    if claimed < -band and abs(claimed - sat.signed_distance) > band:
        return Disagreement("depth", contact.depth, -sat.signed_distance,
                            f"penetration depth {contact.depth:.6g}, SAT finds {-sat.signed_distance:.6g}")
    if claimed < sat.signed_distance - band:
        return Disagreement("distance", claimed, sat.signed_distance,
                            f"distance {claimed:.6g} is below SAT's lower bound {sat.signed_distance:.6g}")
    along = float(gaps_along(hull_a.vertices, hull_b.vertices, np.asarray(contact.normal)[None])[0])
    if abs(along - claimed) > band:
        return Disagreement("normal", claimed, along,
                            f"the gap along the contact normal is {along:.6g}, not the reported {claimed:.6g}")
    return None
