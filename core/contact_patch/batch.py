"""``contact_regions``: the contact regions of many pairs at once, every step of ``contact_region`` in lockstep
over padded arrays with the same arithmetic, so the answers match one pair's to rounding."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..contact import Contact, frozen_instance
from ..shapes.convex import Polytope, Shape, as_shape
from ..validation import as_iteration_cap
from ..vector.arrays import combine_rows, dot_rows
from .region import (DEFAULT_RELATIVE_TOLERANCE, DEFAULT_SAMPLES, KINDS, MAX_BATCH_VERTICES, ContactRegion,
                     contact_region, packed, polytope_features, support_feature, unrounded)

#: Fewer pairs go one by one: the lockstep's fixed cost is about that of a few pairs measured alone.
MIN_BATCH_PAIRS = 4
#: Pairs whose features have at most 2 ** (SMALLEST_GROUP - 1) points (boxes: 1, 2 or 4) are batched
#: together; pairs of bigger features are grouped by their size class (up to 16, up to 32...).
SMALLEST_GROUP = 4


def contact_regions(shapes_a: Sequence, shapes_b: Sequence, contacts: Sequence[Contact], *,
                    tolerance: float | None = None, samples: int = DEFAULT_SAMPLES) -> list[ContactRegion]:
    """``[contact_region(a, b, contact, ...) for a, b, contact in zip(shapes_a, shapes_b, contacts)]``.

    From ``MIN_BATCH_PAIRS`` pairs on, every step after finding the features runs for all pairs at once.
    The features of small polytopes (cores of at most ``MAX_BATCH_VERTICES`` vertices: boxes, small hulls,
    spheres, rounded versions of those) are found together too; those of other shapes (big hulls, curved
    primitives) one by one, as ``contact_region`` finds them.
    """
    if not len(shapes_a) == len(shapes_b) == len(contacts):
        raise ValueError(f"shapes_a, shapes_b and contacts differ in length: "
                         f"{len(shapes_a)}, {len(shapes_b)}, {len(contacts)}")
    samples = as_iteration_cap(samples, "samples")
    a = [as_shape(shape, "shapes_a") for shape in shapes_a]
    b = [as_shape(shape, "shapes_b") for shape in shapes_b]
    if len(a) < MIN_BATCH_PAIRS:
        return [contact_region(*pair, tolerance=tolerance, samples=samples) for pair in zip(a, b, contacts)]
    return _lockstep_regions(a, b, list(contacts), tolerance, samples)


class _CoreTable:
    """The distinct shapes of a batch whose cores are small polytopes: their core vertices padded to one width
    (world space) and validity masks; ``rows`` maps each shape to its row, -1 when its core is not one."""

    def __init__(self, shapes: list[Shape]):
        rows: dict[int, int] = {}
        cores = []
        for shape in shapes:
            if id(shape) not in rows:
                local = unrounded(shape).vertices()
                small = local is not None and len(local) <= MAX_BATCH_VERTICES
                rows[id(shape)] = len(cores) if small else -1
                if small:
                    cores.append(unrounded(shape).world_vertices())
        self.rows = np.array([rows[id(shape)] for shape in shapes], dtype=np.intp)
        counts = np.array([len(vertices) for vertices in cores], dtype=np.intp)
        self.valid = np.arange(counts.max(initial=1)) < counts[:, None]
        self.vertices = np.zeros(self.valid.shape + (3,))
        if cores:
            self.vertices[self.valid] = np.concatenate(cores)


def _lockstep_regions(shapes_a: list[Shape], shapes_b: list[Shape], contacts: list[Contact],
                      tolerance: float | None, samples: int) -> list[ContactRegion]:
    """``contact_region`` of every pair, every step after the features over all pairs at once."""
    table = _CoreTable(shapes_a + shapes_b)
    rows_a, rows_b = table.rows[:len(shapes_a)], table.rows[len(shapes_a):]
    normal = np.array([contact.normal for contact in contacts], dtype=np.float64)
    plane = np.array([contact.tangents for contact in contacts], dtype=np.float64)
    (low_a, high_a), (low_b, high_b) = _bounds(shapes_a), _bounds(shapes_b)
    size = np.maximum(high_a, high_b) - np.minimum(low_a, low_b)
    relative = DEFAULT_RELATIVE_TOLERANCE * size.max(axis=1) if tolerance is None else float(tolerance)
    slab = np.maximum(relative, np.array([contact.tolerance for contact in contacts], dtype=np.float64))
    feature_a, count_a, top_a = _features(table, rows_a, shapes_a, normal, plane, slab, samples)
    feature_b, count_b, top_b = _features(table, rows_b, shapes_b, -normal, plane, slab, samples)
    signed = np.array([contact.signed_distance for contact in contacts], dtype=np.float64)
    margin_a, margin_b = (np.array([shape.margin for shape in shapes], dtype=np.float64)
                          for shapes in (shapes_a, shapes_b))
    middle = 0.5 * ((top_a + margin_a) - (top_b + margin_b))
    levels = np.stack([middle - 0.5 * signed, middle + 0.5 * signed], axis=1)  # A's and B's support planes
    witness = dot_rows(np.array([contact.point_a for contact in contacts], dtype=np.float64)[:, None], plane)[:, 0]
    regions: list[ContactRegion | None] = [None] * len(contacts)
    # Pairs grouped by their larger feature's size class, so a big face does not widen every pair's arrays.
    size_class = np.maximum(np.frexp(np.maximum(count_a, count_b))[1], SMALLEST_GROUP)
    for group in np.unique(size_class):
        rows = np.flatnonzero(size_class == group)
        with np.errstate(divide="ignore", invalid="ignore"):  # padding entries divide by zero; they are masked
            found = _lockstep_overlap(feature_a[rows], count_a[rows], feature_b[rows], count_b[rows], slab[rows],
                                      witness[rows])
            lifted = _lifted(*found, plane[rows], normal[rows], levels[rows])
        for k, region in zip(rows.tolist(), lifted):
            regions[k] = region
    return regions


def _bounds(shapes: list[Shape]) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper corners of the shapes' boxes (N, 3) each."""
    corners = np.array([shape.bounds() for shape in shapes], dtype=np.float64).reshape(-1, 2, 3)
    return corners[:, 0], corners[:, 1]


def _features(table: _CoreTable, rows: np.ndarray, shapes: list[Shape], direction: np.ndarray, plane: np.ndarray,
              slab: np.ndarray, samples: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``core_feature`` of every pair's shape along its ``direction`` row, projected on its contact plane:
    (N, K, 2) points packed first, their counts and the support heights. The table's shapes are done
    together, large polytopes together (``polytope_features``), other shapes one by one."""
    small = np.flatnonzero(rows >= 0)
    parts = [] if not len(small) else [(small, _lockstep_features(
        table.vertices[rows[small]], table.valid[rows[small]], direction[small], plane[small], slab[small]))]
    large = np.array([k for k in np.flatnonzero(rows < 0).tolist() if isinstance(unrounded(shapes[k]), Polytope)],
                     dtype=np.intp)
    if len(large):
        points, count, top = polytope_features([unrounded(shapes[k]) for k in large.tolist()], direction[large],
                                                slab[large])
        parts.append((large, (dot_rows(points, plane[large]), count, top)))
    for k in np.setdiff1d(np.flatnonzero(rows < 0), large).tolist():
        feature, top = support_feature(shapes[k], direction[k], float(slab[k]), samples)
        parts.append((np.array([k]), (dot_rows(feature, plane[k])[None], np.array([len(feature)]), np.array([top]))))
    if len(parts) == 1:
        return parts[0][1]
    points = np.zeros((len(rows), max(found[0].shape[1] for _rows, found in parts), 2))
    count, top = np.zeros(len(rows), dtype=np.intp), np.zeros(len(rows))
    for at, (found_points, found_count, found_top) in parts:
        points[at, :found_points.shape[1]], count[at], top[at] = found_points, found_count, found_top
    return points, count, top


def _lockstep_features(vertices: np.ndarray, valid: np.ndarray, direction: np.ndarray, plane: np.ndarray,
                       slab: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``core_feature`` of every row, projected on its contact plane: (N, K, 2) points packed first, their
    counts and the support heights along ``direction``."""
    heights = np.where(valid, dot_rows(vertices, direction[:, None])[..., 0], -np.inf)
    top = heights.max(axis=1)
    points, count = packed(dot_rows(vertices, plane), heights >= (top - slab)[:, None])
    return points, count, top


def _lockstep_overlap(feature_a: np.ndarray, count_a: np.ndarray, feature_b: np.ndarray, count_b: np.ndarray,
                      slab: np.ndarray, witness: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 2D region of every row: its features' rings intersected (the witness point if they miss), as a ring."""
    ring_a, count_a = _lockstep_rings(feature_a, count_a, slab)
    ring_b, count_b = _lockstep_rings(feature_b, count_b, slab)
    overlap, count = _lockstep_intersections(ring_a, count_a, ring_b, count_b, slab)
    missed = count == 0
    overlap[missed, 0], count[missed] = witness[missed], 1
    return _lockstep_rings(overlap, count, slab)


def _lockstep_rings(points: np.ndarray, count: np.ndarray, slab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_ring`` of every row of ``points`` (N, K, 2) with ``count`` (>= 1) points: ``convex_polygon``'s
    quickhull run breadth first (every chain edge split by its farthest outside point, every round), which
    finds the same vertices in the same order."""
    points = points[:, :max(int(count.max(initial=0)), 1)]
    rows = np.arange(len(count))[:, None]
    valid = np.arange(points.shape[1]) < count[:, None]
    first, last = _extremes(points, valid)
    single = (points[rows[:, 0], first] == points[rows[:, 0], last]).all(axis=1)
    chain, length = np.stack([first, last], axis=1), np.where(single, 1, 2)
    # The points each chain edge may split on; two points lie exactly on their own chord: no search.
    subsets = np.repeat((valid & ~single[:, None] & (count > 2)[:, None])[:, None], 2, axis=1)
    while subsets.any():
        position = np.arange(chain.shape[1])
        following = chain[rows, np.where(position + 1 < length[:, None], position + 1, 0)]
        start, edge = points[rows, chain], points[rows, following] - points[rows, chain]
        offsets = points[:, None] - start[:, :, None]
        distance = ((offsets[..., 0] * edge[..., 1, None] - offsets[..., 1] * edge[..., 0, None])
                    / np.hypot(edge[..., 0], edge[..., 1])[..., None])
        outside = subsets & (distance > slab[:, None, None])
        far = np.argmax(np.where(outside, distance, -np.inf), axis=2)
        keep = _interleaved(position < length[:, None], outside.any(axis=2))
        chain, length = packed(_interleaved(chain, far), keep)
        subsets = packed(np.repeat(outside, 2, axis=1), keep)[0]
    ring = points[rows, chain]
    short = length == 2
    short[short] = np.hypot(*(ring[short, 1] - ring[short, 0]).T) <= slab[short]
    ring[short, 0], length[short] = 0.5 * (ring[short, 0] + ring[short, 1]), 1
    return ring, length


def _interleaved(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Rows of ``first[:, 0], second[:, 0], first[:, 1], second[:, 1], ...`` (N, 2M, ...)."""
    both = np.empty((len(first), 2 * first.shape[1]) + first.shape[2:], dtype=first.dtype)
    both[:, 0::2], both[:, 1::2] = first, second
    return both


def _extremes(points: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``convex_polygon``'s start and end of every row: the first and last point in lexicographic order
    along the longer side of the bounding box, then the other axis, then the index."""
    spread = (np.where(valid[..., None], points, -np.inf).max(axis=1)
              - np.where(valid[..., None], points, np.inf).min(axis=1))
    major = (spread[:, 1] > spread[:, 0])[:, None]  # np.argmax: the first axis on a tie
    along, across = np.where(major, points[..., 1], points[..., 0]), np.where(major, points[..., 0], points[..., 1])
    lowest = valid & (along == np.where(valid, along, np.inf).min(axis=1, keepdims=True))
    lowest &= across == np.where(lowest, across, np.inf).min(axis=1, keepdims=True)
    highest = valid & (along == np.where(valid, along, -np.inf).max(axis=1, keepdims=True))
    highest &= across == np.where(highest, across, -np.inf).max(axis=1, keepdims=True)
    return np.argmax(lowest, axis=1), points.shape[1] - 1 - np.argmax(highest[:, ::-1], axis=1)


def _lockstep_intersections(ring_a: np.ndarray, count_a: np.ndarray, ring_b: np.ndarray, count_b: np.ndarray,
                            slab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``intersect_convex`` of every row: (N, M, 2) points and their counts (0 when the rings miss)."""
    width = max(ring_a.shape[1], ring_b.shape[1], 2)
    ring_a, ring_b = _widened(ring_a, width), _widened(ring_b, width)
    swap = (count_b < 3) & (count_a >= 3)  # the polygon clips the other ring
    clipped = (count_b >= 3) | swap
    subject, polygon = np.where(swap[:, None, None], ring_b, ring_a), np.where(swap[:, None, None], ring_a, ring_b)
    subject_count, sides = np.where(swap, count_b, count_a), np.where(swap, count_a, count_b)
    parts = [_lockstep_clip(subject[clipped], subject_count[clipped], polygon[clipped], sides[clipped], slab[clipped])]
    pointed = ~clipped & ((count_a == 1) | (count_b == 1))
    point, other = subject[pointed], polygon[pointed]
    b_is_point = count_a[pointed] != 1
    point, other = (np.where(b_is_point[:, None, None], other, point),
                    np.where(b_is_point[:, None, None], point, other))
    ends = np.where(b_is_point, count_a[pointed], count_b[pointed]) - 1
    near = _distances_to_segments(point[:, 0], other[:, 0], other[np.arange(len(ends)), ends]) <= slab[pointed]
    parts.append((point[:, :1], near.astype(np.intp)))
    crossed = ~clipped & ~pointed
    parts.append(_lockstep_segments(ring_a[crossed, :2], ring_b[crossed, :2], slab[crossed]))
    width = max(found.shape[1] for found, _count in parts)
    overlap, count = np.zeros((len(count_a), width, 2)), np.zeros(len(count_a), dtype=np.intp)
    for rows, (found, found_count) in zip((clipped, pointed, crossed), parts):
        overlap[rows, :found.shape[1]], count[rows] = found, found_count
    return overlap, count


def _widened(points: np.ndarray, width: int) -> np.ndarray:
    return np.concatenate([points, np.zeros((len(points), width - points.shape[1], 2))], axis=1)


def _lockstep_clip(subject: np.ndarray, count: np.ndarray, polygon: np.ndarray, sides: np.ndarray,
                   slab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``clip_by_polygon`` of every row: ``subject`` (N, S, 2) with ``count`` points clipped by the
    counter-clockwise ``polygon`` (N, C, 2) of ``sides`` corners, one clipping edge per round."""
    rows = np.arange(len(count))
    for corner in range(polygon.shape[1]):
        active = (corner < sides)[:, None]
        start = polygon[:, corner]
        end = polygon[rows, np.where(corner + 1 < sides, corner + 1, 0)] - start
        index = np.arange(subject.shape[1])
        valid = index < count[:, None]
        inside = ((end[:, None, 0] * (subject[..., 1] - start[:, None, 1])
                   - end[:, None, 1] * (subject[..., 0] - start[:, None, 0])) / np.hypot(*end.T)[:, None])
        kept = valid & (~active | (inside >= -slab[:, None]))
        following = np.where(index + 1 < count[:, None], index + 1, 0)
        crossing = (valid & active & ((count > 2)[:, None] | (index + 1 < count[:, None]))
                    & (kept != kept[rows[:, None], following]))
        t = inside / (inside - inside[rows[:, None], following])
        cut = subject + t[..., None] * (subject[rows[:, None], following] - subject)
        subject, count = packed(_interleaved(subject, cut), _interleaved(kept, crossing))
    return subject, count


def _distances_to_segments(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``_distance_to_segment`` of every row."""
    ab = b - a
    length2 = ab[:, 0] * ab[:, 0] + ab[:, 1] * ab[:, 1]
    along = ((p - a)[:, 0] * ab[:, 0] + (p - a)[:, 1] * ab[:, 1]) / length2
    t = np.where(length2 == 0.0, 0.0, np.clip(along, 0.0, 1.0))
    return np.hypot(*(p - a - t[:, None] * ab).T)


def _lockstep_segments(p: np.ndarray, q: np.ndarray, slab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``_intersect_segments`` of every row of (N, 2, 2) segments: (N, 2, 2) points and counts."""
    d, e = p[:, 1] - p[:, 0], q[:, 1] - q[:, 0]
    length_d = np.hypot(*d.T)
    relative = q - p[:, None, 0]
    offsets = np.abs(d[:, None, 0] * relative[..., 1] - d[:, None, 1] * relative[..., 0]) / length_d[:, None]
    along = (relative[..., 0] * d[:, None, 0] + relative[..., 1] * d[:, None, 1]) / (length_d * length_d)[:, None]
    low, high = np.maximum(0.0, along.min(axis=1)), np.minimum(1.0, along.max(axis=1))
    denominator = d[:, 0] * e[:, 1] - d[:, 1] * e[:, 0]
    w = relative[:, 0]
    s = (w[:, 0] * e[:, 1] - w[:, 1] * e[:, 0]) / denominator
    u = (w[:, 0] * d[:, 1] - w[:, 1] * d[:, 0]) / denominator
    margin_s, margin_u = slab / length_d, slab / np.hypot(*e.T)
    hit = ((denominator != 0.0) & (-margin_s <= s) & (s <= 1.0 + margin_s) & (-margin_u <= u) & (u <= 1.0 + margin_u))
    collinear = offsets.max(axis=1) <= slab
    spans = np.where(collinear[:, None], np.stack([low, np.maximum(low, high)], axis=1), np.clip(s, 0.0, 1.0)[:, None])
    count = np.where(collinear, np.where(low > high + margin_s, 0, 2), np.where(hit, 1, 0))
    return p[:, None, 0] + spans[..., None] * d[:, None], count


def _lifted(flat: np.ndarray, count: np.ndarray, plane: np.ndarray, normal: np.ndarray,
            levels: np.ndarray) -> list[ContactRegion]:
    """The regions of 2D rings (N, R, 2) with ``count`` points, lifted onto the support planes at
    ``levels`` (N, 2) (A's and B's) along ``normal``."""
    flat = _widened(flat, max(flat.shape[1], 3))
    origin = flat[:, :1]
    u, v = flat[:, 1:-1] - origin, flat[:, 2:] - origin
    twice = np.where(np.arange(u.shape[1]) < (count - 2)[:, None], u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0], 0.0)
    total = np.cumsum(twice, axis=1)[:, -1]  # in order, as ``_area_centroid`` adds (padding adds zeros)
    polygon_centre = origin[:, 0] + np.cumsum((u + v) / 3.0 * twice[..., None], axis=1)[:, -1] / total[:, None]
    pair = np.where((count == 1)[:, None], flat[:, 0], 0.5 * (flat[:, 0] + flat[:, 1]))
    centre = np.where((count >= 3)[:, None], polygon_centre, pair)
    area = np.where(count >= 3, 0.5 * total, 0.0)
    lifts = levels[..., None] * normal[:, None]  # (N, 2, 3): A's and B's plane offsets
    points = combine_rows(flat, plane)
    points_a, points_b = points + lifts[:, None, 0], points + lifts[:, None, 1]
    centres = combine_rows(centre[:, None], plane) + lifts
    return [frozen_instance(ContactRegion, kind=KINDS[min(k, 3) - 1], points_a=points_a[row, :k],
                            points_b=points_b[row, :k], area=size, centroid_a=centres[row, 0],
                            centroid_b=centres[row, 1])
            for row, (k, size) in enumerate(zip(count.tolist(), area.tolist()))]
