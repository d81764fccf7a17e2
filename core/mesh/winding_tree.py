"""The generalized winding number of a big mesh by its triangle tree (Barnes-Hut): a node far from a point counts
by the first two terms of its solid angle's Taylor series, with a proven bound on what they leave out; near nodes
are opened down to their leaves, whose triangles count exactly. See docs/architecture.md, "Mesh: inside or outside".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..vector.arrays import cross
from .bvh import TriangleBVH

#: A node counts by its series only for points farther than this many times its radius from its centre (its
#: error bound falls with the fourth power of that ratio; nearer nodes are opened).
OPENING_RATIO = 5.0
#: (point, node) pairs handled at once: bounds the traversal's memory to a few hundred MB.
CHUNK_PAIRS = 1 << 20
#: Allowance for rounding, in steradians: per triangle summed exactly, and relative to each series term's size.
ROUNDING = 1e-12


@dataclass(frozen=True, eq=False)
class WindingMoments:
    """Per node of a ``TriangleBVH``: ``centres`` (N, 3) and ``radii`` (N,) of a ball holding its triangles (its
    box's centre and half diagonal); ``areas`` (N,): its triangles' total area; ``dipoles`` (N, 3): the sum of
    their vector areas; ``spreads`` (N, 3, 3): the sum over its triangles of vector area ⊗ (centroid - centre)."""

    centres: np.ndarray
    radii: np.ndarray
    areas: np.ndarray
    dipoles: np.ndarray
    spreads: np.ndarray


def winding_moments(bvh: TriangleBVH) -> WindingMoments:
    """The tree's ``WindingMoments``, computed once per tree (kept with it, as its other derived arrays are)."""
    if "_winding_moments" not in bvh.__dict__:
        bvh.__dict__["_winding_moments"] = _moments(bvh)
    return bvh.__dict__["_winding_moments"]


def _levels(bvh: TriangleBVH) -> list[np.ndarray]:
    """The tree's nodes level by level from the root."""
    levels, nodes = [], np.zeros(1, dtype=np.int64)
    while len(nodes):
        levels.append(nodes)
        nodes = bvh.children[nodes[~bvh.is_leaf[nodes]]].ravel()
    return levels


def _moments(bvh: TriangleBVH) -> WindingMoments:
    mesh = bvh.mesh
    corners = mesh.corners[bvh.order]
    vector_areas = 0.5 * cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    middle = 0.5 * (bvh.lows[0] + bvh.highs[0])  # moments about the mesh's middle: no cancellation far away
    centroids = corners.mean(axis=1) - middle
    centres = 0.5 * (bvh.lows + bvh.highs)
    values = np.concatenate([vector_areas, np.linalg.norm(vector_areas, axis=1)[:, None],
                             (vector_areas[:, :, None] * centroids[:, None, :]).reshape(-1, 9)], axis=1)
    sums = np.empty((len(centres), values.shape[1]))
    leaves = np.flatnonzero(bvh.is_leaf)
    leaves = leaves[np.argsort(bvh.starts[leaves])]  # disjoint ranges covering every triangle, in order
    sums[leaves] = np.add.reduceat(values, bvh.starts[leaves], axis=0)
    for nodes in reversed(_levels(bvh)):
        internal = nodes[~bvh.is_leaf[nodes]]
        sums[internal] = sums[bvh.children[internal, 0]] + sums[bvh.children[internal, 1]]
    dipoles = sums[:, :3]
    spreads = sums[:, 4:].reshape(-1, 3, 3) - dipoles[:, :, None] * (centres - middle)[:, None, :]
    return WindingMoments(centres, 0.5 * np.linalg.norm(bvh.highs - bvh.lows, axis=1), sums[:, 3], dipoles, spreads)


def tree_windings(bvh: TriangleBVH, points: np.ndarray, opening_ratio: float = OPENING_RATIO
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(windings, bounds)``, each (P,): the generalized winding number of ``bvh``'s mesh around each of the
    (P, 3) ``points``, and a bound on its error (the exact value lies within ``windings ± bounds``).

    A node whose centre is farther than ``opening_ratio`` (> 1) times its radius R from a point counts by the
    zeroth and first terms of the Taylor series of its triangles' solid angle about its centre; the rest is at most
    3 A R² / (r - R)⁴ steradians (A its area, r the distance; derivation in docs/architecture.md). Other nodes
    are opened; their leaves' triangles count exactly.
    """
    if not opening_ratio > 1.0:
        raise ValueError(f"opening_ratio must exceed 1, got {opening_ratio}")
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    moments = winding_moments(bvh)
    angles, bounds = np.zeros(len(points)), np.zeros(len(points))
    owners, nodes = np.arange(len(points)), np.zeros(len(points), dtype=np.int64)
    while len(nodes):
        spill = len(nodes) > CHUNK_PAIRS  # finish the first pairs' subtrees before the rest's, to bound memory
        if spill:
            pending_owners, pending_nodes = owners[CHUNK_PAIRS:], nodes[CHUNK_PAIRS:]
            owners, nodes = owners[:CHUNK_PAIRS], nodes[:CHUNK_PAIRS]
        offsets = moments.centres[nodes] - points[owners]
        distances = np.sqrt(np.einsum("ij,ij->i", offsets, offsets))
        radii = moments.radii[nodes]
        far = distances > opening_ratio * radii
        _far_field(moments, nodes[far], offsets[far], distances[far], radii[far], owners[far], angles, bounds)
        near = ~far
        leaf = near & bvh.is_leaf[nodes]
        _exact(bvh, points, owners[leaf], nodes[leaf], angles, bounds)
        opened = near & ~leaf
        owners, nodes = np.repeat(owners[opened], 2), bvh.children[nodes[opened]].ravel()
        if spill:
            owners, nodes = np.concatenate([owners, pending_owners]), np.concatenate([nodes, pending_nodes])
    return angles / (4.0 * np.pi), bounds / (4.0 * np.pi)


def _far_field(moments: WindingMoments, nodes, offsets, distances, radii, owners, angles, bounds) -> None:
    """Add the nodes' series terms to their points' ``angles`` and their error bounds to ``bounds``.

    With y the offset from the point to the node's centre (r = |y|), N the dipole and S the spread: the solid
    angle is N·y / r³ - (3 yᵀ S y - r² trace S) / r⁵ + a rest of at most 3 A R² / (r - R)⁴.
    """
    dipoles, spreads = moments.dipoles[nodes], moments.spreads[nodes]
    squared = distances * distances
    zeroth = np.einsum("ij,ij->i", dipoles, offsets) / (squared * distances)
    quadratic = np.einsum("ij,ijk,ik->i", offsets, spreads, offsets)
    first = (3.0 * quadratic - squared * np.trace(spreads, axis1=1, axis2=2)) / (squared * squared * distances)
    area = moments.areas[nodes]
    rest = 3.0 * area * radii * radii / (distances - radii) ** 4
    rounding = ROUNDING * area / squared
    angles += np.bincount(owners, weights=zeroth - first, minlength=len(angles))
    bounds += np.bincount(owners, weights=rest + rounding, minlength=len(bounds))


def _exact(bvh: TriangleBVH, points, owners, leaves, angles, bounds) -> None:
    """Add the exact solid angles of the leaves' triangles at their points (Van Oosterom and Strackee)."""
    if not len(leaves):
        return
    counts = bvh.ends[leaves] - bvh.starts[leaves]
    which = np.repeat(np.arange(len(leaves)), counts)
    positions = bvh.starts[leaves][which] + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    corners = bvh.mesh.corners[bvh.order[positions]] - points[owners[which]][:, None, :]
    a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
    la, lb, lc = (np.sqrt(np.einsum("ij,ij->i", v, v)) for v in (a, b, c))
    numerator = np.einsum("ij,ij->i", a, cross(b, c))
    denominator = (la * lb * lc + np.einsum("ij,ij->i", a, b) * lc + np.einsum("ij,ij->i", b, c) * la
                   + np.einsum("ij,ij->i", c, a) * lb)
    angles += np.bincount(owners[which], weights=2.0 * np.arctan2(numerator, denominator), minlength=len(angles))
    bounds += ROUNDING * np.bincount(owners[which], minlength=len(bounds))
