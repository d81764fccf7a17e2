"""Overlapping pairs of small convex objects measured by SAT, many at once, instead of EPA one by one.

For convex polytopes the separating-axis test is exact: the penetration depth is the smallest overlap
over the facet normals of A - B, which are among A's and B's facet normals and the cross products of
their edges (``core.sat``). Boxes, wedges and low-poly parts have a few dozen such axes, so all the
overlapping pairs of a clash check are projected on theirs in a few numpy operations, where EPA costs a
Python loop per pair. Objects qualify through ``Solid.hull_features`` (small, convex to rounding);
pairs SAT does not find clearly penetrating (touching, within twice the touch band) keep EPA's answer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..collide import pair_tolerances
from ..contact import PENETRATING, Contact, frozen_instance
from ..sat import largest_gaps, polytope_axes
from ..vec3 import orthonormal_basis
from .solid import Solid

#: Pairs with more candidate axes than this are left to EPA (the edge-edge axes grow as E_A x E_B).
SAT_MAX_AXES = 2048
#: Vertex-axis products per batch (bounds the memory of one projection).
BATCH_TERMS = 1 << 22


def sat_ready(a: Solid, b: Solid) -> bool:
    """Both objects give SAT their facets and edges (``Solid.hull_features``)."""
    return a.hull_features is not None and b.hull_features is not None


def sat_contacts(pairs: Sequence[tuple[Solid, Solid]], *, tolerance: float | None = None,
                 touch_tolerance: float | None = None) -> list[Contact | None]:
    """The ``Contact`` of every pair (``sat_ready`` ones) that SAT finds clearly penetrating, None for the
    others: more than twice the touch band deep, with the tolerances ``collide`` would use. The normal
    is the deepest axis (from A toward B), ``point_b`` B's deepest vertex along it and ``point_a`` where
    the push-out takes it; the contact region (``core.region``) then spans the whole patch."""
    answers: list[Contact | None] = [None] * len(pairs)
    axes = [polytope_axes(*a.hull_features, *b.hull_features) for a, b in pairs]
    for batch in _batches([k for k in range(len(pairs)) if len(axes[k]) <= SAT_MAX_AXES], pairs, axes):
        centres = [0.5 * (np.minimum(a.bounds[0], b.bounds[0]) + np.maximum(a.bounds[1], b.bounds[1]))
                   for a, b in (pairs[k] for k in batch)]
        gaps, normals = largest_gaps([pairs[k][0].mesh.vertices - c for k, c in zip(batch, centres)],
                                     [pairs[k][1].mesh.vertices - c for k, c in zip(batch, centres)],
                                     [axes[k] for k in batch])
        for k, gap, normal in zip(batch, gaps.tolist(), normals):
            answers[k] = _penetrating(*pairs[k], gap + 0.0, normal, tolerance, touch_tolerance)
    return answers


def _batches(rows: list[int], pairs: Sequence[tuple[Solid, Solid]], axes: list[np.ndarray]) -> list[list[int]]:
    """``rows`` in batches of at most ``BATCH_TERMS`` vertex-axis products (padded to each batch's widest)."""
    batches, batch, widest = [], [], 0
    for k in rows:
        width = max(len(pairs[k][0].mesh.vertices), len(pairs[k][1].mesh.vertices)) * len(axes[k])
        if batch and (len(batch) + 1) * max(widest, width) > BATCH_TERMS:
            batches.append(batch)
            batch, widest = [], 0
        batch.append(k)
        widest = max(widest, width)
    return batches + [batch] if batch else batches


def _penetrating(a: Solid, b: Solid, signed_distance: float, normal: np.ndarray, tolerance, touch_tolerance
                 ) -> Contact | None:
    _solver, touch = pair_tolerances(a.hull, b.hull, tolerance=tolerance, touch_tolerance=touch_tolerance)
    if signed_distance >= -2.0 * touch:
        return None
    vertices = b.mesh.vertices
    point_b = vertices[int(np.argmin(vertices @ normal))]
    return frozen_instance(
        Contact, status=PENETRATING, signed_distance=signed_distance, normal=normal + 0.0,
        point_a=point_b - signed_distance * normal, point_b=point_b.copy(), bounds=(signed_distance, signed_distance),
        tolerance=touch, gjk_iterations=0, epa_iterations=0, solver_status="converged",
        tangents=np.array(orthonormal_basis(tuple(normal.tolist()))))
