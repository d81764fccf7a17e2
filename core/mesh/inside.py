"""Inside or outside a mesh: winding numbers, the one place that answers it.

``crossing_windings``: the exact integer count of a ray's signed crossings, for meshes that bound a volume
(every solid the engine measures, nearly closed ones once capped); ``solid_angle_windings``: the generalized
winding number (Jacobson, Kavan, Sorkine-Hornung 2013) for any other mesh, every triangle at every point, or by
the triangle tree for big meshes (``winding_tree``, exact wherever its bound could change a decision);
``winding_numbers`` and ``contains`` pick the right one. See docs/architecture.md, "Mesh: inside or outside".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..validation import as_points
from ..vector.arrays import dot_rows, largest3, smallest3
from .bvh import TriangleBVH, leaf_triangles
from .row_groups import RowGroups
from .stacked import StackedMeshes
from .topology import bounds_volume
from .triangle_intersection import all_same, canonical_edges, edge_orientations, plane_sides
from .trimesh import TriangleMesh
from .winding_tree import OPENING_RATIO, tree_windings

#: A fixed ray direction with no special relation to the axes (the perturbation settles the rest).
RAY = np.array([0.8017837257372732, 0.4454354031873740, 0.3985498690165453])
#: Boxes are widened by this fraction of the coordinates' scale before the ray is tested against them, far
#: beyond the rounding of the test (a box wrongly kept costs one exact test; one wrongly dropped, a count).
BOX_SLACK = 1e-9
#: (point, triangle) box tests per block when there is no tree.
CHUNK_TERMS = 1 << 20


def crossing_windings(mesh: TriangleMesh, points: np.ndarray, points_move: bool = True,
                      bvh: TriangleBVH | None = None) -> np.ndarray:
    """(P,) integer winding number of the closed mesh ``mesh`` around each of the (P, 3) ``points``: 1 inside
    an outward mesh, 0 outside, 2 inside two overlapping closed parts. ``points_move`` says which side the
    perturbation moves (the points, or the mesh). ``bvh``, the mesh's triangle tree, finds the triangles
    near each ray in a few levels; without it every triangle's box is tested."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    windings = np.zeros(len(points), dtype=np.int64)
    if not len(points) or not len(mesh.triangles):
        return windings
    low, high = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    near = np.flatnonzero(((points >= low) & (points <= high)).all(axis=1))  # others are outside the box
    if not len(near):
        return windings
    slack = BOX_SLACK * float(max(np.abs(low).max(), np.abs(high).max(), (high - low).max()))
    owners, triangles = (_tree_candidates if bvh is not None else _box_candidates)(
        points[near], mesh if bvh is None else bvh, slack)
    start = points[near][owners]
    far = start + _ray_length(low, high) * RAY
    windings[near] = _signed_crossings(start, far, mesh.corners[triangles], mesh.triangles[triangles], owners,
                                       len(near), points_move)
    return windings


def stacked_crossing_windings(meshes: list[TriangleMesh] | StackedMeshes, points: np.ndarray,
                              owners: np.ndarray) -> np.ndarray:
    """(P,) ``crossing_windings(meshes[owners[p]], points[p])`` for many small closed meshes at once (no trees:
    every triangle of a point's mesh is tested against its ray, all points' in one pass), the same integers.
    ``meshes`` may be their ``StackedMeshes``, shared by several calls."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    owners = np.asarray(owners, dtype=np.int64)
    windings = np.zeros(len(points), dtype=np.int64)
    stack = meshes if isinstance(meshes, StackedMeshes) else StackedMeshes(meshes)
    lows, highs = stack.vertex_boxes
    in_box = ((points >= lows[owners]) & (points <= highs[owners])).all(axis=1)
    near = np.flatnonzero(in_box & (stack.counts[owners] > 0))
    if not len(near):
        return windings
    slacks = BOX_SLACK * np.maximum(np.maximum(np.abs(lows).max(axis=1), np.abs(highs).max(axis=1)),
                                    (highs - lows).max(axis=1))
    lengths = _ray_length(lows, highs)
    mesh_of, points = owners[near], np.take(points, near, axis=0)
    groups = RowGroups(stack)  # rays tested against boxes of a few dozen triangles first
    point, group = groups.pairs(mesh_of)
    meets = _ray_meets(np.take(points, point, axis=0), np.take(groups.lows, group, axis=0),
                       np.take(groups.highs, group, axis=0), slacks[mesh_of[point]][:, None])
    point, rows = groups.rows(point[meets], group[meets])
    meets = _ray_meets(np.take(points, point, axis=0), np.take(stack.lows, rows, axis=0),
                       np.take(stack.highs, rows, axis=0), slacks[mesh_of[point]][:, None])
    point, rows = point[meets], rows[meets]
    start = np.take(points, point, axis=0)
    far = start + lengths[mesh_of[point]][:, None] * RAY
    windings[near] = _signed_crossings(start, far, np.take(stack.corners, rows, axis=0),
                                       np.take(stack.ids, rows, axis=0), point, len(near), True)
    return windings


def _ray_length(low: np.ndarray, high: np.ndarray) -> float | np.ndarray:
    """How far a ray is followed from a point in the box [low, high] (or each of the boxes (n, 3)): beyond the box."""
    return 2.0 * (np.linalg.norm(high - low, axis=-1) + 1.0)


def _signed_crossings(start: np.ndarray, far: np.ndarray, corners: np.ndarray, ids: np.ndarray, owners: np.ndarray,
                      count: int, points_move: bool) -> np.ndarray:
    """(count,) sum of the signed crossings of the segments ``start``-``far`` (K, 3) with the triangles ``corners``
    (K, 3, 3; vertex ``ids`` (K, 3)) in the perturbed model, per owner (K,)."""
    side_start = plane_sides(start, corners, points_move)
    side_far = plane_sides(far, corners, points_move)
    cut = np.flatnonzero(side_start * side_far < 0)  # only a plane the segment crosses can be pierced
    start, far, corners, ids, side_far = (np.take(values, cut, axis=0) for values in (start, far, corners, ids,
                                                                                      side_far))
    edge_low, edge_high, flip = canonical_edges(corners, ids)
    ray_start, ray_far = start[:, None, :], far[:, None, :]
    if points_move:
        orient = edge_orientations(edge_low, edge_high, ray_start, ray_far)
    else:
        orient = edge_orientations(ray_start, ray_far, edge_low, edge_high)
    pierced = all_same(orient * flip)
    # leaving through the front (the far end in front of the plane) counts +1, entering -1
    return np.bincount(owners[cut[pierced]], weights=side_far[pierced], minlength=count).astype(np.int64)


def _ray_meets(origins: np.ndarray, lows: np.ndarray, highs: np.ndarray, slack) -> np.ndarray:
    """Whether the rays ``origin + t RAY`` (t >= 0) meet the boxes widened by ``slack`` (rows paired; a number, or a
    (K, 1) column)."""
    enter = largest3((lows - slack - origins) / RAY)  # RAY's components are positive
    leave = smallest3((highs + slack - origins) / RAY)
    return (leave >= enter) & (leave >= 0.0)


def _tree_candidates(points: np.ndarray, bvh: TriangleBVH, slack: float) -> tuple[np.ndarray, np.ndarray]:
    """(point, triangle) pairs whose tree leaves the point's ray meets, the tree walked a level at a time."""
    owners, nodes = np.arange(len(points)), np.zeros(len(points), dtype=np.int64)
    found_owners, found_leaves = [], []
    while len(nodes):
        keep = _ray_meets(points[owners], bvh.lows[nodes], bvh.highs[nodes], slack)
        owners, nodes = owners[keep], nodes[keep]
        leaf = bvh.is_leaf[nodes]
        found_owners.append(owners[leaf])
        found_leaves.append(nodes[leaf])
        owners, nodes = np.repeat(owners[~leaf], 2), bvh.children[nodes[~leaf]].ravel()
    owners, leaves = np.concatenate(found_owners), np.concatenate(found_leaves)
    which, triangles = leaf_triangles(bvh, leaves)
    return _meeting_triangles(points, bvh.mesh, owners[which], triangles, slack)


def _box_candidates(points: np.ndarray, mesh: TriangleMesh, slack: float) -> tuple[np.ndarray, np.ndarray]:
    """(point, triangle) pairs whose triangle box the point's ray meets, every triangle tested (in blocks of
    points of at most ``CHUNK_TERMS`` pairs)."""
    count = len(mesh.triangles)
    block = max(1, CHUNK_TERMS // count)
    found = [_meeting_triangles(points, mesh, np.repeat(np.arange(start, min(start + block, len(points))), count),
                                np.tile(np.arange(count), min(block, len(points) - start)), slack)
             for start in range(0, len(points), block)]
    return np.concatenate([owners for owners, _ in found]), np.concatenate([triangles for _, triangles in found])


def _meeting_triangles(points: np.ndarray, mesh: TriangleMesh, owners: np.ndarray, triangles: np.ndarray,
                       slack: float) -> tuple[np.ndarray, np.ndarray]:
    """The (point, triangle) pairs among those given whose triangle box the point's ray meets."""
    keep = _ray_meets(points[owners], mesh.lows[triangles], mesh.highs[triangles], slack)
    return owners[keep], triangles[keep]


#: Point–triangle solid angles evaluated at once: small enough to stay in cache-friendly blocks of a few MB.
SOLID_ANGLE_CHUNK_TERMS = 1 << 16


def _solid_angles_sum(corners: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Σ over triangles of the signed solid angle at each point ((P,) radians, all triangles at once).

    ``corners`` is (3, 3, M): corner, coordinate, triangle; each coordinate is a (P, M) array.
    """
    a, b, c = ([corners[k, axis][None, :] - points[:, axis, None] for axis in range(3)] for k in range(3))
    la, lb, lc = (np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) for v in (a, b, c))
    numerator = (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2])
                 + a[2] * (b[0] * c[1] - b[1] * c[0]))
    dot_ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    dot_bc = b[0] * c[0] + b[1] * c[1] + b[2] * c[2]
    dot_ca = c[0] * a[0] + c[1] * a[1] + c[2] * a[2]
    denominator = la * lb * lc + dot_ab * lc + dot_bc * la + dot_ca * lb
    return 2.0 * np.arctan2(numerator, denominator).sum(axis=1)


def solid_angle_windings(mesh: TriangleMesh, points: ArrayLike) -> np.ndarray:
    """(P,) generalized winding number of ``mesh`` around each of the (P, 3) ``points``: the sum of the triangles'
    signed solid angles over 4π.

    Exact to rounding for points off the surface (1 inside, 0 outside a closed outward mesh); points on
    the surface get values in between (0.5 on a flat face), and near a hole values between 0 and 1. Cost
    O(P × M), chunked so memory stays bounded.
    """
    points = as_points(points, "points")
    corners = mesh.corners
    if not len(corners):
        return np.zeros(len(points))
    center = 0.5 * (mesh.vertices.min(axis=0) + mesh.vertices.max(axis=0))
    corners, points = np.ascontiguousarray((corners - center).transpose(1, 2, 0)), points - center
    out = np.empty(len(points))
    triangle_chunk = min(corners.shape[2], SOLID_ANGLE_CHUNK_TERMS)
    point_chunk = max(1, SOLID_ANGLE_CHUNK_TERMS // triangle_chunk)
    for start in range(0, len(points), point_chunk):
        block = points[start:start + point_chunk]
        out[start:start + point_chunk] = sum(_solid_angles_sum(corners[:, :, t:t + triangle_chunk], block)
                                             for t in range(0, corners.shape[2], triangle_chunk))
    return out / (4.0 * np.pi)


#: Without a tree, one is built for the generalized winding number when points x triangles exceed this (every
#: triangle at every point would then take over a second; a 1M-triangle tree takes a few).
TREE_TERMS = 1 << 27
#: The opening ratio of the second, finer pass for the points the first pass cannot decide.
FINE_OPENING_RATIO = 4.0 * OPENING_RATIO


def decided_windings(bvh: TriangleBVH, points: ArrayLike) -> np.ndarray:
    """(P,) generalized winding number of ``bvh``'s mesh around each of the (P, 3) ``points`` by the tree
    (``winding_tree.tree_windings``: each value within its proven bound of the exact one), computed again with
    fewer nodes approximated (``FINE_OPENING_RATIO``) where that bound reaches 1/2, and exactly (every triangle)
    where it still does: each value is on the same side of 1/2 as the exact one."""
    points = as_points(points, "points")
    windings, bounds = tree_windings(bvh, points)
    close = np.flatnonzero(np.abs(windings - 0.5) <= bounds)
    if len(close):
        windings[close], bounds[close] = tree_windings(bvh, points[close], FINE_OPENING_RATIO)
        close = close[np.abs(windings[close] - 0.5) <= bounds[close]]
    if len(close):
        windings[close] = solid_angle_windings(bvh.mesh, points[close])
    return windings


def winding_numbers(mesh: TriangleMesh, points: ArrayLike, bvh: TriangleBVH | None = None) -> np.ndarray:
    """(P,) winding number of ``mesh`` around each of the (P, 3) ``points``: the exact integer crossing count
    (``crossing_windings``) when the mesh bounds a volume (``topology.bounds_volume``), else the generalized
    winding number (fractional near holes and open rims): every triangle at every point
    (``solid_angle_windings``), or with the triangle tree (``bvh``, built when there are more than ``TREE_TERMS``
    point-triangle terms) ``decided_windings``: approximate far from 1/2, never on the wrong side of it."""
    points = as_points(points, "points")
    if bounds_volume(mesh):
        return crossing_windings(mesh, points, bvh=bvh).astype(np.float64)
    if bvh is None and len(points) * len(mesh.triangles) > TREE_TERMS:
        bvh = TriangleBVH.build(mesh)
    if bvh is None:
        return solid_angle_windings(mesh, points)
    return decided_windings(bvh, points)


def contains(mesh: TriangleMesh, points: ArrayLike, bvh: TriangleBVH | None = None) -> np.ndarray:
    """(P,) bool: points inside ``mesh`` (winding number above 0.5; see ``winding_numbers``)."""
    return winding_numbers(mesh, points, bvh) > 0.5


def _spread_directions(count: int) -> np.ndarray:
    """(count, 3) unit directions spread evenly over the sphere (a Fibonacci lattice)."""
    rank = np.arange(count) + 0.5
    z = 1.0 - 2.0 * rank / count
    turn = np.pi * (1.0 + np.sqrt(5.0)) * rank
    ring = np.sqrt(1.0 - z * z)
    return np.stack([ring * np.cos(turn), ring * np.sin(turn), z], axis=1)


#: The slabs ``beyond_slabs`` tries first: the face and body diagonals (with the box's axes, a 26-sided box
#: around the vertices; entries of 1 and -1, so their products are exact), then, for the points these leave, 64
#: directions spread over the sphere (with them, every point more than 4.2 % of a ball's radius outside it is beyond
#: one of its slabs).
DIAGONALS = np.array([[1, 1, 0], [1, -1, 0], [1, 0, 1], [1, 0, -1], [0, 1, 1], [0, 1, -1],
                      [1, 1, 1], [1, 1, -1], [1, -1, 1], [-1, 1, 1]], dtype=np.float64)
SPREAD = _spread_directions(64)
#: A bound on the rounding of a dot product of three terms and of the comparison, relative to the sum of the terms'
#: magnitudes (three roundings of the products and sums, 2**-53 each, with room to spare).
DOT_ROUNDING = 8.0 * np.finfo(np.float64).eps


def beyond_slabs(stack: StackedMeshes, points: np.ndarray, owners: np.ndarray) -> np.ndarray:
    """(P,) which ``points`` are certainly outside the closed mesh ``stack.meshes[owners[p]]``: beyond the slab its
    vertices span along some direction (``DIAGONALS``, then ``SPREAD`` for the points those leave), by more than the
    rounding of both dot products can account for. A closed mesh lies within its vertices' hull, so such a point's
    winding number is 0 (``crossing_windings`` counts 0 there too): a screen that never changes an answer."""
    beyond = _beyond(stack, points, owners, DIAGONALS)
    rest = np.flatnonzero(~beyond)
    if len(rest):
        beyond[rest] = _beyond(stack, points[rest], owners[rest], SPREAD)
    return beyond


def _beyond(stack: StackedMeshes, points: np.ndarray, owners: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """``beyond_slabs`` along ``directions`` (D, 3) only: the slabs of the meshes that own points."""
    if not len(points):
        return np.zeros(0, dtype=bool)
    present = np.flatnonzero(np.bincount(owners, minlength=len(stack.meshes)))
    place = np.zeros(len(stack.meshes), dtype=np.int64)
    place[present] = np.arange(len(present))
    firsts, ends = stack.vertex_starts[present], stack.vertex_starts[present + 1]
    counts = ends - firsts
    starts = np.cumsum(counts) - counts
    rows = np.arange(int(counts.sum())) + np.repeat(firsts - starts, counts)
    vertices = stack.vertices[rows]
    heights = dot_rows(vertices, directions)
    highest, lowest = np.maximum.reduceat(heights, starts, axis=0), np.minimum.reduceat(heights, starts, axis=0)
    scale = np.maximum.reduceat(np.abs(vertices).max(axis=1), starts)
    mesh = place[owners]
    heights = dot_rows(points, directions)
    reach = (DOT_ROUNDING * (scale[mesh] + np.abs(points).max(axis=1)))[:, None] * np.abs(directions).sum(axis=1) \
        + np.finfo(np.float64).tiny
    return ((heights - reach > highest[mesh]) | (heights + reach < lowest[mesh])).any(axis=1)
