"""An exact reference for convex-pair queries, independent of ``core``.

The signed distance of two convex shapes A and B is the signed distance of the origin to their
Minkowski difference D = A - B (negative inside). Qhull (``scipy.spatial.ConvexHull``) gives the hull
of D; facet offsets are taken through each facet's own (exact) corners. Inside: depth = smallest
facet offset, normal = that facet's outward normal. Outside: distance = closest point of the hull's
triangles (exact point-triangle distance), normal = -closest/|closest|.
Qhull fails on flat input and its joggle option 'QJ' is not exact, so point sets that are flat,
segments or points are detected by SVD and handled in their own subspace.

Conventions match ``core``: normal points from A toward B, ``point_a - point_b == -sd * normal``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull

FLAT_TOLERANCE = 1e-11  # thickness (relative to size) below which a point set loses a dimension
UNIQUE_MARGIN = 1e-9  # offsets (relative to size) closer than this make a normal ambiguous
SAME_NORMAL_ANGLE = 1e-7  # facet normals closer than this (radians) count as one normal


def size_of(points: np.ndarray) -> float:
    """A shape's size: the diagonal of its axis-aligned bounding box."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    return float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))


def closest_points_on_segments(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Closest point to ``p`` on each segment ``a[i]``-``b[i]`` (degenerate segments allowed)."""
    ab = b - a
    length2 = np.einsum("ij,ij->i", ab, ab)
    t = np.einsum("ij,ij->i", p - a, ab) / np.where(length2 > 0.0, length2, 1.0)
    return a + np.clip(t, 0.0, 1.0)[:, None] * ab


def closest_points_on_triangles(p: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Closest point to ``p`` on each triangle (a[i], b[i], c[i]); slivers and zero-area triangles allowed.

    The closest point is either the projection onto the triangle's plane (when it falls inside) or the
    closest point of one of the three edges; we evaluate all four candidates and keep the nearest.
    """
    candidates = [closest_points_on_segments(p, a, b), closest_points_on_segments(p, b, c),
                  closest_points_on_segments(p, c, a)]
    normal = np.cross(b - a, c - a)
    norm2 = np.einsum("ij,ij->i", normal, normal)
    safe = np.where(norm2 > 0.0, norm2, 1.0)
    projected = p - (np.einsum("ij,ij->i", p - a, normal) / safe)[:, None] * normal
    weights = [np.einsum("ij,ij->i", np.cross(u - projected, v - projected), normal)
               for u, v in ((b, c), (c, a), (a, b))]
    inside = (norm2 > 0.0) & (weights[0] >= 0.0) & (weights[1] >= 0.0) & (weights[2] >= 0.0)
    stacked = np.stack(candidates + [np.where(inside[:, None], projected, candidates[0])])
    distances = np.linalg.norm(stacked - p, axis=2)
    best = np.argmin(distances, axis=0)
    return stacked[best, np.arange(len(a))]


class ExactHull:
    """Convex hull of a point cloud of any dimension: polyhedron, polygon, segment or point.

    ``dimension`` is the number of directions in which the cloud is thicker than
    ``FLAT_TOLERANCE * size``. Polyhedra keep Qhull's triangles and facet planes; polygons keep a fan
    of triangles; segments their two ends; points themselves.
    """

    def __init__(self, points: np.ndarray) -> None:
        points = np.unique(np.asarray(points, dtype=float).reshape(-1, 3), axis=0)
        self.size = size_of(points)
        centre = points.mean(axis=0)
        axes = np.linalg.svd(points - centre, full_matrices=False)[2] if len(points) > 1 else np.eye(3)
        coordinates = (points - centre) @ axes.T
        thick = np.ptp(coordinates, axis=0) > FLAT_TOLERANCE * self.size
        self.dimension = int(thick.sum())
        self.normals, self.offsets = np.zeros((0, 3)), np.zeros(0)
        if self.dimension == 3:
            hull = ConvexHull(points)
            self.vertices = points[hull.vertices]
            self.triangles = points[hull.simplices]
            normals = hull.equations[:, :3]
            self.normals = normals / np.linalg.norm(normals, axis=1)[:, None]
            # Offsets from each facet's own corners (not Qhull's fitted plane): the plane then
            # passes through exact input points, and Qhull's convexity makes it a supporting plane.
            self.offsets = np.einsum("fj,fkj->fk", self.normals, self.triangles).max(axis=1)
        elif self.dimension == 2:
            ring = ConvexHull(coordinates[:, thick]).vertices  # counter-clockwise in 2D
            self.vertices = points[ring]
            self.triangles = np.stack([np.repeat(self.vertices[:1], len(ring) - 2, axis=0),
                                       self.vertices[1:-1], self.vertices[2:]], axis=1)
            self.plane_normal = axes[~thick][0]
        elif self.dimension == 1:
            along = coordinates[:, np.flatnonzero(thick)[0]]
            self.vertices = points[[np.argmin(along), np.argmax(along)]]
            self.line = axes[thick][0]
        else:
            self.vertices = points[:1]

    def support(self, direction: np.ndarray) -> float:
        """max over the hull of x . direction."""
        return float(np.max(self.vertices @ direction))

    def closest_point(self, x: np.ndarray) -> np.ndarray:
        """Closest point of the hull's boundary surface (or of the flat hull itself) to ``x``."""
        if self.dimension >= 2:
            tri = self.triangles
            found = closest_points_on_triangles(x, tri[:, 0], tri[:, 1], tri[:, 2])
        elif self.dimension == 1:
            found = closest_points_on_segments(x, self.vertices[:1], self.vertices[1:])
        else:
            found = self.vertices
        return found[np.argmin(np.linalg.norm(found - x, axis=1))]

    def distance(self, x: np.ndarray) -> float:
        """Euclidean distance from ``x`` to the hull (0 inside)."""
        x = np.asarray(x, dtype=float)
        if self.dimension == 3 and np.all(self.normals @ x <= self.offsets):
            return 0.0
        return float(np.linalg.norm(self.closest_point(x) - x))

    def facet_violation(self, x: np.ndarray) -> float:
        """Largest amount by which ``x`` violates a facet inequality (<= 0 inside); polyhedra only."""
        return float(np.max(self.normals @ np.asarray(x, dtype=float) - self.offsets))


@dataclass
class Reference:
    """The exact answer for a pair: signed distance, a contact normal (A toward B) and whether it is unique.

    ``candidate_normals`` lists every facet normal that attains the answer within the margin (for
    ambiguous cases); ``normal`` is None only when the geometry defines no normal at all (two
    coincident points, or a segment through the origin). ``size`` is the pair's size: the diagonal of
    the bounding box of both shapes.
    """

    signed_distance: float
    normal: np.ndarray | None
    normal_unique: bool
    candidate_normals: np.ndarray
    size: float
    difference: ExactHull

    def separation_along(self, direction: np.ndarray) -> float:
        """Gap between A and B along a unit ``direction`` (A toward B) = -support of A-B; <= signed distance."""
        return -self.difference.support(np.asarray(direction, dtype=float))


def _distinct(normals: np.ndarray) -> np.ndarray:
    """The normals, with directions closer than SAME_NORMAL_ANGLE merged."""
    kept: list[np.ndarray] = []
    for n in normals:
        if all(np.arccos(np.clip(n @ k, -1.0, 1.0)) > SAME_NORMAL_ANGLE for k in kept):
            kept.append(n)
    return np.array(kept).reshape(-1, 3)


def reference_contact(points_a: np.ndarray, points_b: np.ndarray) -> Reference:
    """Exact signed distance and contact normal of hull(points_a) and hull(points_b)."""
    hull_a, hull_b = ExactHull(points_a), ExactHull(points_b)
    size = size_of(np.vstack([hull_a.vertices, hull_b.vertices]))
    margin = UNIQUE_MARGIN * size
    difference = ExactHull((hull_a.vertices[:, None, :] - hull_b.vertices[None, :, :]).reshape(-1, 3))
    origin = np.zeros(3)

    if difference.dimension == 3:
        offsets = difference.offsets
        if offsets.min() >= 0.0:  # origin inside: penetrating (or touching from inside)
            best = int(np.argmin(offsets))
            candidates = _distinct(difference.normals[offsets <= offsets[best] + margin])
            return Reference(-float(offsets[best]), difference.normals[best], len(candidates) == 1,
                             candidates, size, difference)
        closest = difference.closest_point(origin)
        distance = float(np.linalg.norm(closest))
        if distance > margin:
            normal = -closest / distance
            return Reference(distance, normal, True, normal[None], size, difference)
        candidates = _distinct(difference.normals[offsets <= margin])
        return Reference(distance, candidates[0], len(candidates) == 1, candidates, size, difference)

    closest = difference.closest_point(origin)
    distance = float(np.linalg.norm(closest))
    if distance > margin:
        normal = -closest / distance
        return Reference(distance, normal, True, normal[None], size, difference)
    if difference.dimension == 2:  # origin in a flat difference: both sides of the plane qualify
        m = difference.plane_normal
        return Reference(distance, m, False, np.array([m, -m]), size, difference)
    return Reference(distance, None, False, np.zeros((0, 3)), size, difference)
