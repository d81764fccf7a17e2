"""Overlapping pairs of small convex objects measured by SAT, many at once, instead of EPA one by one (exact for
convex polytopes; pairs SAT does not find clearly penetrating keep EPA's answer).
See docs/architecture.md, section "Mesh contact: SAT for small convex pairs".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...narrowphase.batch import orthonormal_bases, padded_array
from ...narrowphase.collide import pair_tolerances
from ...contact import PENETRATING, Contact, frozen_instance
from ...shapes.hull import SAME_NORMAL
from ..solid import Solid

#: Pairs with more candidate axes than this are left to EPA (the edge-edge axes grow as E_A x E_B).
SAT_MAX_AXES = 1024
#: Vertex-axis products per batch (bounds the memory of one projection).
BATCH_TERMS = 1 << 22


def sat_ready(a: Solid, b: Solid) -> bool:
    """Both objects give SAT their facets and edges (``Solid.hull_features``), and not too many axes."""
    if a.hull_features is None or b.hull_features is None:
        return False
    (normals_a, edges_a), (normals_b, edges_b) = a.hull_features, b.hull_features
    return len(normals_a) + len(normals_b) + len(edges_a) * len(edges_b) <= SAT_MAX_AXES


def sat_contacts(pairs: Sequence[tuple[Solid, Solid]], *, tolerance: float | None = None,
                 touch_tolerance: float | None = None) -> list[Contact | None]:
    """The ``Contact`` of every pair (``sat_ready`` ones) that SAT finds clearly penetrating, None for the
    others: more than twice the touch band deep, with the tolerances ``collide`` would use. The normal
    is the deepest axis (from A toward B), ``point_b`` B's deepest vertex along it and ``point_a`` where
    the push-out takes it; the contact region (``core.contact_patch.region``) then spans the whole patch."""
    answers: list[Contact | None] = []
    for batch in _batches(pairs):
        answers.extend(_batch_contacts(batch, tolerance, touch_tolerance))
    return answers


def _batches(pairs: Sequence[tuple[Solid, Solid]]) -> list[list[tuple[Solid, Solid]]]:
    """Consecutive pairs, at most ``BATCH_TERMS`` vertex-axis products (padded to the widest pair) each."""
    batches, batch, widest = [], [], 0
    for a, b in pairs:
        (normals_a, edges_a), (normals_b, edges_b) = a.hull_features, b.hull_features
        width = (max(len(a.mesh.vertices), len(b.mesh.vertices))
                 * 2 * (len(normals_a) + len(normals_b) + len(edges_a) * len(edges_b)))
        if batch and (len(batch) + 1) * max(widest, width) > BATCH_TERMS:
            batches.append(batch)
            batch, widest = [], 0
        batch.append((a, b))
        widest = max(widest, width)
    return batches + [batch] if batch else batches


def _batch_contacts(pairs: list[tuple[Solid, Solid]], tolerance, touch_tolerance) -> list[Contact | None]:
    low = np.array([np.minimum(a.bounds[0], b.bounds[0]) for a, b in pairs])
    high = np.array([np.maximum(a.bounds[1], b.bounds[1]) for a, b in pairs])
    centre = 0.5 * (low + high)
    points_a = padded_array([a.mesh.vertices for a, _b in pairs]) - centre[:, None, :]
    points_b = padded_array([b.mesh.vertices for _a, b in pairs]) - centre[:, None, :]
    axes = _axes(pairs)
    # Batched matrix products: a tenth of einsum's time on these shapes (its three-term sums round alike, to
    # an ulp of the coordinates either way).
    turned = axes.transpose(0, 2, 1)
    gaps = (points_b @ turned).min(axis=1) - (points_a @ turned).max(axis=1)
    rows = np.arange(len(pairs))
    best = gaps.argmax(axis=1)
    signed, normals = gaps[rows, best] + 0.0, axes[rows, best] + 0.0
    deepest = (points_b @ normals[:, :, None])[:, :, 0].argmin(axis=1)
    point_b = points_b[rows, deepest] + centre
    point_a = point_b - signed[:, None] * normals
    tangents = orthonormal_bases(normals)
    # The gaps come from coordinates about the pair's size (moved to its centre): they round as much.
    sizes = (high - low).max(axis=1)
    reaches = np.maximum(np.abs(low - centre), np.abs(high - centre)).max(axis=1)
    answers = []
    for k, (value, size, reach) in enumerate(zip(signed.tolist(), sizes.tolist(), reaches.tolist())):
        touch = pair_tolerances(size, reach, tolerance, touch_tolerance)[1]
        answers.append(None if value >= -2.0 * touch else frozen_instance(
            Contact, status=PENETRATING, signed_distance=value, normal=normals[k], point_a=point_a[k],
            point_b=point_b[k], bounds=(value, value), tolerance=touch, gjk_iterations=0, epa_iterations=0,
            solver_status="converged", tangents=tangents[k]))
    return answers


def _axes(pairs: list[tuple[Solid, Solid]]) -> np.ndarray:
    """(K, X, 3): every pair's SAT axes, both ways (``core.narrowphase.sat.polytope_axes``, padded): the facet normals
    and the cross products of non-parallel edges; a parallel pair's slot repeats a facet normal instead."""
    normals = padded_array([np.vstack([a.hull_features[0], b.hull_features[0]]) for a, b in pairs])
    edges_a = _padded_or_zero([a.hull_features[1] for a, _b in pairs])
    edges_b = _padded_or_zero([b.hull_features[1] for _a, b in pairs])
    crosses = np.cross(edges_a[:, :, None, :], edges_b[:, None, :, :]).reshape(len(pairs), -1, 3)
    length = np.sqrt(np.einsum("kxj,kxj->kx", crosses, crosses))
    parallel = length <= SAME_NORMAL
    crosses = np.where(parallel[..., None], normals[:, :1, :], crosses / np.where(parallel, 1.0, length)[..., None])
    axes = np.concatenate([normals, crosses], axis=1)
    return np.concatenate([axes, -axes], axis=1)


def _padded_or_zero(rows: list[np.ndarray]) -> np.ndarray:
    """Rows padded with zero vectors (whose cross products are parallel, so they add no axis)."""
    width = max(len(r) for r in rows)
    padded = np.zeros((len(rows), width, 3))
    for k, r in enumerate(rows):
        padded[k, :len(r)] = r
    return padded
