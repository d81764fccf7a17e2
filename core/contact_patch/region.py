"""Contact regions: the whole patch where two convex shapes touch (or face each other), not one point.

Each shape's feature (its part within a slab of its support plane) is projected onto the contact plane, the two
convex rings are intersected and lifted back onto both support planes: a point, a segment or a polygon. See
docs/architecture.md, section "Contact regions", for features of curved shapes and margins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..contact import Contact
from ..shapes.convex import Polytope, Shape, as_shape
from ..shapes.hull import convex_polygon
from ..shapes.primitives import Rounded
from ..validation import as_iteration_cap
from ..vector.arrays import combine_rows, dot_rows
from ..vector.vec3 import orthonormal_basis

#: Default width of a feature's slab, relative to the pair's size (above the solvers' accuracy).
DEFAULT_RELATIVE_TOLERANCE = 1e-9
#: Angle (radians) between the normal and the sampled support directions of curved shapes.
SAMPLE_TILT = 1e-3
DEFAULT_SAMPLES = 32
#: Largest core (number of vertices) whose pairs ``contact_regions`` measures in lockstep.
MAX_BATCH_VERTICES = 64
KINDS = ("point", "segment", "polygon")


@dataclass(frozen=True)
class ContactRegion:
    """Matching witness points over the contact patch, world space.

    ``points_a[i] - points_b[i] == -signed_distance * normal`` for every i, as for a ``Contact``:
    ``points_a`` lie on A's support plane and ``points_b`` on B's. A polygon's points run
    counter-clockwise about the normal; a segment has its two ends; a point one row. ``area`` is
    the polygon's area (0 for points and segments) and the centroids are area centroids (a
    segment's midpoint), so ``centroid_a - centroid_b`` keeps the contact's convention.
    """

    kind: str
    points_a: np.ndarray
    points_b: np.ndarray
    area: float
    centroid_a: np.ndarray
    centroid_b: np.ndarray


def contact_region(shape_a, shape_b, contact: Contact, *, tolerance: float | None = None,
                   samples: int = DEFAULT_SAMPLES) -> ContactRegion:
    """The region of witness pairs of ``contact`` (from ``core.collide(shape_a, shape_b)``).

    ``tolerance`` is the feature slab width in world units (default ``1e-9`` x the pair's size and
    never below the contact's touch band): raise it to treat nearly parallel faces as in contact.
    """
    a, b = as_shape(shape_a, "shape_a"), as_shape(shape_b, "shape_b")
    samples = as_iteration_cap(samples, "samples")
    (low_a, high_a), (low_b, high_b) = a.bounds(), b.bounds()
    size = float(np.max(np.maximum(high_a, high_b) - np.minimum(low_a, low_b)))
    slab = max(DEFAULT_RELATIVE_TOLERANCE * size if tolerance is None else float(tolerance), contact.tolerance)
    normal = np.asarray(contact.normal, dtype=np.float64)
    plane = np.asarray(contact.tangents, dtype=np.float64)
    feature_a, top_a = support_feature(a, normal, slab, samples)
    feature_b, top_b = support_feature(b, -normal, slab, samples)
    ring_a = _ring(dot_rows(feature_a, plane), slab)
    ring_b = _ring(dot_rows(feature_b, plane), slab)
    overlap = intersect_convex(ring_a, ring_b, slab)
    if len(overlap) == 0:  # the features miss each other by more than the slab: use the witness pair
        overlap = dot_rows(np.asarray(contact.point_a, dtype=np.float64)[None], plane)
    flat = _ring(overlap, slab)
    middle, half = 0.5 * ((top_a + a.margin) - (top_b + b.margin)), 0.5 * contact.signed_distance
    on_plane = combine_rows(flat, plane)
    points_a, points_b = on_plane + (middle - half) * normal, on_plane + (middle + half) * normal
    kind = KINDS[min(len(flat), 3) - 1]
    area, centre = _area_centroid(flat)
    centre = combine_rows(centre[None], plane)[0]
    centroid_a, centroid_b = centre + (middle - half) * normal, centre + (middle + half) * normal
    return ContactRegion(kind, points_a, points_b, area, centroid_a, centroid_b)


def core_feature(shape: Shape, direction: np.ndarray, slab: float, samples: int = DEFAULT_SAMPLES) -> np.ndarray:
    """Points of ``shape``'s core within ``slab`` of its support plane along ``direction`` (K, 3)."""
    return support_feature(shape, direction, slab, samples)[0]


def support_feature(shape: Shape, direction: np.ndarray, slab: float, samples: int) -> tuple[np.ndarray, float]:
    """``core_feature`` and the height of the core's support plane along ``direction``."""
    shape = unrounded(shape)
    local = shape.vertices()
    if isinstance(shape, Polytope) and len(local) > MAX_BATCH_VERTICES:
        points, count, top = polytope_features([shape], direction[None], np.array([slab]))
        return points[0, :count[0]], float(top[0])
    vertices = shape.world_vertices() if local is not None else _sampled_support(shape, direction, samples)
    heights = dot_rows(vertices, direction[None])[:, 0]
    top = heights.max()
    return vertices[heights >= top - slab], float(top)


def polytope_features(shapes: list[Polytope], direction: np.ndarray, slab: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``core_feature`` of large polytopes along the rows of ``direction`` (M, 3), all at once, found among
    their support candidates (``Polytope.support_candidates``: no pass over all vertices while the direction
    stays near one asked before): world points (M, K, 3) packed first, their counts, and the support heights.
    Heights come from local points (``p . L^T d``, then ``+ t . d``), so only the features are mapped."""
    linear = np.array([shape.affine[0] for shape in shapes], dtype=np.float64)
    offset = np.array([shape.affine[1] for shape in shapes], dtype=np.float64)
    local_direction = dot_rows(np.swapaxes(linear, 1, 2), direction[:, None])[..., 0]
    rows = [shape.support_candidates(w, width) for shape, w, width in zip(shapes, local_direction, slab.tolist())]
    count = np.array([len(found) for found in rows], dtype=np.intp)
    valid = np.arange(count.max()) < count[:, None]
    local = np.zeros(valid.shape + (3,))
    local[valid] = np.concatenate([shape.vertices()[found] for shape, found in zip(shapes, rows)])
    heights = np.where(valid, dot_rows(local, local_direction[:, None])[..., 0], -np.inf)
    top = heights.max(axis=1)
    points, count = packed(local, heights >= (top - slab)[:, None])
    world = dot_rows(points, linear) + offset[:, None]
    return world, count, top + dot_rows(offset[:, None], direction[:, None])[:, 0, 0]


def packed(values: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kept entries of every row moved to its front in order (N, max count, ...), and their counts."""
    count = keep.sum(axis=1)
    order = np.argsort(~keep, axis=1, kind="stable")[:, :max(int(count.max(initial=0)), 1)]
    return values[np.arange(len(values))[:, None], order], count


def unrounded(shape: Shape) -> Shape:
    """The shape without its ``Rounded`` layers."""
    while isinstance(shape, Rounded):
        shape = shape.inner
    return shape


def _sampled_support(shape: Shape, direction: np.ndarray, samples: int) -> np.ndarray:
    """Support points along ``direction`` and along directions tilted from it around a cone."""
    t0, t1 = (np.array(t) for t in orthonormal_basis(tuple(direction.tolist())))
    angles = 2.0 * math.pi * np.arange(samples) / samples
    tilted = (math.cos(SAMPLE_TILT) * direction
              + math.sin(SAMPLE_TILT) * (np.outer(np.cos(angles), t0) + np.outer(np.sin(angles), t1)))
    return np.array([shape.support(tuple(d)) for d in np.vstack([direction, tilted]).tolist()])


def _ring(points: np.ndarray, slab: float) -> np.ndarray:
    """Convex hull of 2D points, counter-clockwise: two ends when thinner than ``slab``, their mean
    when shorter than ``slab``."""
    ring = points[convex_polygon(points, slab)]
    if len(ring) == 2 and np.hypot(*(ring[1] - ring[0])) <= slab:
        return 0.5 * (ring[:1] + ring[1:])
    return ring


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """z of (a - o) x (b - o), broadcast over rows of ``b``."""
    return (a[0] - o[0]) * (b[..., 1] - o[1]) - (a[1] - o[1]) * (b[..., 0] - o[0])


def intersect_convex(ring_a: np.ndarray, ring_b: np.ndarray, slab: float) -> np.ndarray:
    """Points spanning the intersection of two convex 2D rings (points, segments or polygons)."""
    if len(ring_b) >= 3:
        return clip_by_polygon(ring_a, ring_b, slab)
    if len(ring_a) >= 3:
        return clip_by_polygon(ring_b, ring_a, slab)
    if len(ring_a) == 1 or len(ring_b) == 1:
        point, other = (ring_a, ring_b) if len(ring_a) == 1 else (ring_b, ring_a)
        return point if _distance_to_segment(point[0], other[0], other[-1]) <= slab else np.zeros((0, 2))
    return _intersect_segments(ring_a, ring_b, slab)


def clip_by_polygon(subject: np.ndarray, polygon: np.ndarray, slab: float) -> np.ndarray:
    """Sutherland-Hodgman: ``subject`` (a point, segment or convex ring) clipped by a counter-clockwise
    convex ``polygon``; points within ``slab`` outside an edge count as inside."""
    output = subject
    for start, end in zip(polygon, np.roll(polygon, -1, axis=0)):
        if len(output) == 0:
            break
        length = float(np.hypot(*(end - start)))
        inside = _cross(start, end, output) / length  # distance to the left of the edge
        kept = []
        closed = len(output) > 2  # a segment is not a closed polygon: no edge from its end back
        for i in range(len(output)):
            j = (i + 1) % len(output)
            if inside[i] >= -slab:
                kept.append(output[i])
            if (closed or j > i) and (inside[i] >= -slab) != (inside[j] >= -slab):
                t = inside[i] / (inside[i] - inside[j])
                kept.append(output[i] + t * (output[j] - output[i]))
        output = np.array(kept).reshape(-1, 2)
    return output


def _distance_to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab, ap = b - a, p - a
    length2 = float(ab[0] * ab[0] + ab[1] * ab[1])
    t = 0.0 if length2 == 0.0 else min(1.0, max(0.0, float(ap[0] * ab[0] + ap[1] * ab[1]) / length2))
    return float(np.hypot(*(ap - t * ab)))


def _intersect_segments(p: np.ndarray, q: np.ndarray, slab: float) -> np.ndarray:
    """Overlap of two segments: an interval when they are collinear within ``slab``, else a crossing point."""
    d, e = p[1] - p[0], q[1] - q[0]
    length_d = float(np.hypot(*d))
    offsets = np.abs(_cross(p[0], p[1], q)) / length_d
    if offsets.max() <= slab:  # collinear: clip q's span along d to [0, 1]
        along = ((q[:, 0] - p[0, 0]) * d[0] + (q[:, 1] - p[0, 1]) * d[1]) / (length_d * length_d)
        low, high = max(0.0, along.min()), min(1.0, along.max())
        if low > high + slab / length_d:
            return np.zeros((0, 2))
        return p[0] + np.outer([low, max(low, high)], d)
    denominator = d[0] * e[1] - d[1] * e[0]
    if denominator == 0.0:
        return np.zeros((0, 2))
    w = q[0] - p[0]
    s = (w[0] * e[1] - w[1] * e[0]) / denominator
    u = (w[0] * d[1] - w[1] * d[0]) / denominator
    margin_s, margin_u = slab / length_d, slab / float(np.hypot(*e))
    if -margin_s <= s <= 1.0 + margin_s and -margin_u <= u <= 1.0 + margin_u:
        return (p[0] + min(1.0, max(0.0, s)) * d)[None]
    return np.zeros((0, 2))


def _area_centroid(ring: np.ndarray) -> tuple[float, np.ndarray]:
    """Area and area centroid of a counter-clockwise ring; a segment's midpoint; a point itself."""
    if len(ring) < 3:
        return 0.0, ring.sum(axis=0) / len(ring)
    origin = ring[0]
    u, v = ring[1:-1] - origin, ring[2:] - origin
    twice = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    total = np.cumsum(twice)[-1]  # sums in order (cumsum), as contact_regions adds them
    centre = origin + np.cumsum((u + v) / 3.0 * twice[:, None], axis=0)[-1] / total
    return 0.5 * float(total), centre
