"""Convex hulls in pure numpy: quickhull in 2D and 3D, with the facets and edges SAT needs.

Both hulls loop once per hull vertex and do the per-point work (distances to planes or lines) in
vectorised numpy. Points within ``tolerance`` of a facet count as inside, so coplanar and duplicate
points never become vertices of zero-area facets. Clouds that are flat, a segment or a single point
give a lower-dimensional ``Hull``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..validation import as_points
from ..vector.arrays import first_of_rows

#: Thickness (relative to the cloud's size) below which a cloud loses a dimension.
FLAT_RELATIVE_TOLERANCE = 1e-10
#: Distance (relative to size) beyond which a point counts as outside a facet or line.
OUTSIDE_RELATIVE_TOLERANCE = 1e-12
#: Facet normals closer than this (sine of the angle) belong to the same facet.
SAME_NORMAL = 1e-9


@dataclass(frozen=True)
class Hull:
    """Convex hull of a point cloud, world coordinates.

    - ``vertices`` (V, 3): the hull's corners (for a polygon, in counter-clockwise order about
      ``normals[0]``; for a segment its two ends).
    - ``dimension``: 3 (solid), 2 (flat polygon), 1 (segment) or 0 (point).
    - ``triangles`` (F, 3): vertex indices of outward-wound facets of a solid (empty otherwise).
    - ``normals`` (K, 3): distinct outward unit facet normals; for a polygon its two plane normals.
    - ``edges`` (E, 2): vertex indices of the edges between facets of different planes (a solid),
      the boundary (a polygon) or the segment itself.
    """

    vertices: np.ndarray
    dimension: int
    triangles: np.ndarray
    normals: np.ndarray
    edges: np.ndarray


def size_of(points: np.ndarray) -> float:
    """Diagonal of the axis-aligned bounding box."""
    return float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))


def convex_hull(points: ArrayLike) -> Hull:
    """The convex hull of an (N, 3) point cloud, of whatever dimension the cloud spans."""
    cloud = as_points(points, "points")
    size = size_of(cloud)
    centre = cloud.mean(axis=0)
    # Two zero rows give a full 3x3 set of principal axes even for one or two points.
    axes = np.linalg.svd(np.vstack([cloud - centre, np.zeros((2, 3))]), full_matrices=False)[2]
    local = (cloud - centre) @ axes.T
    thick = np.ptp(local, axis=0) > FLAT_RELATIVE_TOLERANCE * size
    empty = np.zeros((0, 3))
    no_edges = np.zeros((0, 2), dtype=int)
    dimension = int(thick.sum())
    if dimension == 3:
        return _solid_hull(cloud, OUTSIDE_RELATIVE_TOLERANCE * size)
    if dimension == 2:
        ring = cloud[convex_polygon(local[:, thick])]
        n = np.cross(*axes[thick])
        ccw = ring if _turns_about(ring, n) >= 0 else ring[::-1]
        edges = np.column_stack([np.arange(len(ring)), np.roll(np.arange(len(ring)), -1)])
        return Hull(ccw, 2, np.zeros((0, 3), dtype=int), np.array([n, -n]), edges)
    if dimension == 1:
        along = local[:, np.flatnonzero(thick)[0]]
        ends = cloud[[np.argmin(along), np.argmax(along)]]
        return Hull(ends, 1, np.zeros((0, 3), dtype=int), empty, np.array([[0, 1]]))
    return Hull(cloud[:1], 0, np.zeros((0, 3), dtype=int), empty, no_edges)


def _turns_about(ring: np.ndarray, normal: np.ndarray) -> float:
    """Twice the signed area of a planar ring about ``normal`` (positive when counter-clockwise)."""
    return float(np.cross(ring - ring[0], np.roll(ring, -1, axis=0) - ring[0]).sum(axis=0) @ normal)


def convex_polygon(points: np.ndarray, tolerance: float | None = None) -> np.ndarray:
    """Indices of the hull of an (N, 2) cloud in counter-clockwise order (quickhull).

    Points within ``tolerance`` (default ``1e-12`` x size) of a hull edge are left out. A cloud
    with no area gives its two extreme points (or one).
    """
    points = np.asarray(points, dtype=np.float64)
    if tolerance is None:
        tolerance = OUTSIDE_RELATIVE_TOLERANCE * float(np.linalg.norm(np.ptp(points, axis=0)))
    if len(points) <= 3:
        return _small_polygon(points.tolist(), tolerance)
    # Extremes along the longer side of the bounding box: for a thin cloud these are its two ends.
    major = int(np.argmax(np.ptp(points, axis=0)))
    order = np.lexsort((points[:, 1 - major], points[:, major]))
    first, last = int(order[0]), int(order[-1])
    if np.array_equal(points[first], points[last]):
        return np.array([first])
    everything = np.arange(len(points))
    lower = _chain_right(points, everything, first, last, tolerance)
    upper = _chain_right(points, everything, last, first, tolerance)
    return np.array([first] + lower + [last] + upper)


def _small_polygon(rows: list, tolerance: float) -> np.ndarray:
    """``convex_polygon`` of one to three points, with the same arithmetic on Python floats (a tenth of
    the time numpy's calls take on such tiny arrays)."""
    if len(rows) == 1:
        return np.array([0])
    xs, ys = zip(*rows)
    major = 1 if max(ys) - min(ys) > max(xs) - min(xs) else 0
    order = sorted(range(len(rows)), key=lambda i: (rows[i][major], rows[i][1 - major]))
    first, last = order[0], order[-1]
    if rows[first] == rows[last]:
        return np.array([first])
    if len(rows) == 2:
        return np.array([first, last])
    middle = 3 - first - last
    lower = [middle] if _right_of(rows, first, last, middle) > tolerance else []
    upper = [middle] if _right_of(rows, last, first, middle) > tolerance else []
    return np.array([first] + lower + [last] + upper)


def _right_of(rows: list, start: int, end: int, point: int) -> float:
    """Distance of ``rows[point]`` to the right of the line ``rows[start] -> rows[end]``, as ``_chain_right``
    computes it."""
    (ax, ay), (bx, by), (px, py) = rows[start], rows[end], rows[point]
    ex, ey = bx - ax, by - ay
    return ((px - ax) * ey - (py - ay) * ex) / float(np.hypot(ex, ey))


def _chain_right(points: np.ndarray, candidates: np.ndarray, start: int, end: int, tolerance: float) -> list:
    """Hull vertices more than ``tolerance`` right of ``start -> end``, in order from start to end.

    Iterative quickhull: the farthest point splits the chain in two, and each half keeps only the
    points outside its own edge.
    """
    result: list[int] = []
    stack: list = [(candidates, start, end)]
    while stack:
        task = stack.pop()
        if isinstance(task, int):
            result.append(task)
            continue
        subset, a, b = task
        edge = points[b] - points[a]
        length = float(np.hypot(*edge))
        offsets = points[subset] - points[a]
        distance = (offsets[:, 0] * edge[1] - offsets[:, 1] * edge[0]) / length
        outside = distance > tolerance
        if not outside.any():
            continue
        far = int(subset[outside][np.argmax(distance[outside])])
        stack.extend([(subset[outside], far, b), far, (subset[outside], a, far)])
    return result


def _solid_hull(cloud: np.ndarray, eps: float) -> Hull:
    """3D quickhull: grow a tetrahedron by the farthest outside point until no point is outside."""
    faces = _quickhull_faces(cloud, eps)
    keep = np.unique(faces)
    remap = np.full(len(cloud), -1)
    remap[keep] = np.arange(len(keep))
    vertices, triangles = cloud[keep], remap[faces]
    normals = _unit_rows(np.cross(vertices[triangles[:, 1]] - vertices[triangles[:, 0]],
                                  vertices[triangles[:, 2]] - vertices[triangles[:, 0]]))
    return Hull(vertices, 3, triangles, distinct_directions(normals, signed=True),
                _feature_edges(triangles, normals))


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1)[:, None]


def _initial_tetrahedron(cloud: np.ndarray) -> list[int]:
    """Four far-apart, non-coplanar points: extreme pair, farthest from their line, farthest from that plane."""
    extremes = np.concatenate([cloud.argmin(axis=0), cloud.argmax(axis=0)])
    spread = np.linalg.norm(cloud[extremes][:, None] - cloud[extremes][None], axis=2)
    i, j = np.unravel_index(np.argmax(spread), spread.shape)
    a, b = int(extremes[i]), int(extremes[j])
    line = (cloud[b] - cloud[a]) / np.linalg.norm(cloud[b] - cloud[a])
    offsets = cloud - cloud[a]
    c = int(np.argmax(np.linalg.norm(offsets - np.outer(offsets @ line, line), axis=1)))
    normal = np.cross(cloud[b] - cloud[a], cloud[c] - cloud[a])
    d = int(np.argmax(np.abs(offsets @ normal)))
    return [a, b, c, d]


def _quickhull_faces(cloud: np.ndarray, eps: float) -> np.ndarray:
    """Outward-wound triangles (indices into ``cloud``) of the hull."""
    a, b, c, d = _initial_tetrahedron(cloud)
    if np.dot(np.cross(cloud[b] - cloud[a], cloud[c] - cloud[a]), cloud[d] - cloud[a]) > 0:
        b, c = c, b
    faces = np.array([[a, b, c], [a, d, b], [b, d, c], [c, d, a]])
    normals, offsets = _planes(cloud, faces)
    alive = np.ones(4, dtype=bool)
    owner, height = _assign(cloud, np.arange(len(cloud)), normals, offsets, np.arange(4), eps)
    while (owner >= 0).any():
        apex = int(np.argmax(np.where(owner >= 0, height, -np.inf)))
        point = cloud[apex]
        visible = np.flatnonzero(alive & (normals @ point - offsets > eps))
        visible = visible if len(visible) else np.array([owner[apex]])
        horizon = _horizon(faces[visible])
        new_faces = np.column_stack([horizon, np.full(len(horizon), apex)])
        new_normals, new_offsets = _planes(cloud, new_faces)
        alive[visible] = False
        first_new = len(faces)
        faces = np.vstack([faces, new_faces])
        normals, offsets = np.vstack([normals, new_normals]), np.concatenate([offsets, new_offsets])
        alive = np.concatenate([alive, np.ones(len(new_faces), dtype=bool)])
        orphans = np.flatnonzero(np.isin(owner, visible))
        orphans = orphans[orphans != apex]
        owner[apex] = -1
        owner[orphans], height[orphans] = _assign(cloud, orphans, new_normals, new_offsets,
                                                  np.arange(first_new, len(faces)), eps)
    return faces[alive]


def _planes(cloud: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit outward normals and offsets of triangles."""
    corners = cloud[faces]
    normals = _unit_rows(np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]))
    return normals, np.einsum("ij,ij->i", normals, corners[:, 0])


def _assign(cloud, indices, normals, offsets, face_ids, eps) -> tuple[np.ndarray, np.ndarray]:
    """For each point, the facet it is farthest outside of (or -1) and how far."""
    if len(indices) == 0:
        return np.zeros(0, dtype=int), np.zeros(0)
    heights = cloud[indices] @ normals.T - offsets
    best = np.argmax(heights, axis=1)
    height = heights[np.arange(len(indices)), best]
    return np.where(height > eps, face_ids[best], -1), height


def _horizon(visible_faces: np.ndarray) -> np.ndarray:
    """Directed edges of the visible faces whose twin belongs to a hidden face."""
    edges = np.vstack([visible_faces[:, [0, 1]], visible_faces[:, [1, 2]], visible_faces[:, [2, 0]]])
    key = edges[:, 0].astype(np.int64) * (edges.max() + 1) + edges[:, 1]
    twin = edges[:, 1].astype(np.int64) * (edges.max() + 1) + edges[:, 0]
    return edges[~np.isin(twin, key)]


def _feature_edges(triangles: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """Undirected edges between triangles of different planes (coplanar diagonals left out)."""
    directed = np.vstack([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    face = np.tile(np.arange(len(triangles)), 3)
    base = directed.max() + 1
    key = directed[:, 0].astype(np.int64) * base + directed[:, 1]
    twin = directed[:, 1].astype(np.int64) * base + directed[:, 0]
    order = np.argsort(key)
    twin_face = face[order[np.searchsorted(key[order], twin)]]
    bend = np.linalg.norm(np.cross(normals[face], normals[twin_face]), axis=1)
    keep = (directed[:, 0] < directed[:, 1]) & (bend > SAME_NORMAL)
    return directed[keep]


def distinct_directions(directions: np.ndarray, *, signed: bool) -> np.ndarray:
    """Unit directions with near-duplicates merged; unsigned mode also merges opposite directions."""
    return distinct_directions_of_groups(directions, np.zeros(len(directions), dtype=np.int64), signed=signed)[0]


def distinct_directions_of_groups(directions: np.ndarray, groups: np.ndarray, *,
                                  signed: bool) -> tuple[np.ndarray, np.ndarray]:
    """``distinct_directions`` of many groups of rows at once (``groups``: each row's group, in non-decreasing
    order): the distinct unit rows, group after group, each group's as ``distinct_directions`` gives them alone,
    and each row's group."""
    if len(directions) == 0:
        return directions.reshape(0, 3), np.asarray(groups)[:0]
    units = _unit_rows(np.asarray(directions, dtype=np.float64))
    if not signed:
        leading = units[np.arange(len(units)), np.argmax(np.abs(units), axis=1)]
        units = units * np.sign(leading)[:, None]
    first = first_of_rows(np.column_stack([groups, np.round(units / SAME_NORMAL)]))
    return units[first], np.asarray(groups)[first]
