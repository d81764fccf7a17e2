"""Whether a closed mesh covers each point of a box at most once (winding numbers 0 or 1 there), proved from the
triangles near the box alone: where it holds, inside is a parity and the overlap volume's surface methods are
exact; where it fails (a part crossing itself, sheets nested), the region must be cut with its own crossings.
See docs/architecture.md, section "Mesh: surfaces that cross themselves".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .inside import crossing_windings, stacked_crossing_windings
from .intersection import RELATIVE_TOLERANCE
from .self_intersection import self_intersecting, self_intersection
from .stacked import StackedMeshes, pairings
from .topology import edge_table, label_components
from .triangle_intersection import orientation_signs
from .triangle_distance import point_triangle_closest
from .trimesh import TriangleMesh

#: At most this many separate pieces of surface in the box are checked (one exact ray each); beyond, not proved.
MAX_SHEETS = 64
#: The test point stands this fraction of its triangle's inradius in front of the incentre.
LIFT = 0.5


def single_cover(mesh: TriangleMesh, low: np.ndarray, high: np.ndarray) -> bool:
    """Whether every point of the box ``[low, high]`` off the closed, outward ``mesh`` has winding number 0 or 1;
    False also when that could not be proved (a reason to cut instead, never a wrong answer).

    Proof: no two triangles whose boxes meet the box's neighbourhood cross or overlap (``self_intersection``),
    so inside the box the surface is disjoint sheets, the winding number in front of each constant along it; one
    exact ray per piece of connected triangles from a point in front of one of them finds that winding number 0,
    so 1 behind. With no triangle near, one ray from the box's centre.
    """
    margin = RELATIVE_TOLERANCE * max(mesh.size, float(np.max(high - low)))
    low, high = np.asarray(low, dtype=np.float64) - margin, np.asarray(high, dtype=np.float64) + margin
    near = np.flatnonzero(np.all((mesh.lows <= high) & (mesh.highs >= low), axis=1))
    if not len(near):
        return int(crossing_windings(mesh, 0.5 * (low + high))[0]) in (0, 1)
    reach_low, reach_high = mesh.lows[near].min(axis=0), mesh.highs[near].max(axis=0)
    around = np.flatnonzero(np.all((mesh.lows <= reach_high) & (mesh.highs >= reach_low), axis=1))
    if len(self_intersection(TriangleMesh(mesh.vertices, mesh.triangles[around])).pairs):
        return False
    edges = edge_table(mesh).triangle_edges[near]
    local, index = np.unique(edges, return_inverse=True)
    index = index.reshape(-1, 3)
    root, _ = label_components(len(local), np.concatenate([index[:, 0], index[:, 1]]),
                               np.concatenate([index[:, 1], index[:, 2]]))
    piece = root[index[:, 0]]
    if len(np.unique(piece)) > MAX_SHEETS:
        return False
    points = _points_in_front(mesh, near, piece, around)
    return points is not None and bool((crossing_windings(mesh, points) == 0).all())


def single_covers(meshes: Sequence[TriangleMesh]) -> np.ndarray:
    """(n,) bool: ``single_cover`` of each closed, outward mesh over its own vertex box (then every triangle is
    near the box), for many small meshes at once, the same answers: their faces' crossings decided together
    (``self_intersection.self_intersecting``), their pieces labelled in one pass over the stacked edges, one point
    in front of each piece placed and checked together, and every point's ray counted at once
    (``inside.stacked_crossing_windings``)."""
    stack = StackedMeshes(meshes)
    count = len(stack.meshes)
    proved = ~self_intersecting(stack.meshes)
    if not proved.any():
        return proved
    edges = stack.table.triangle_edges
    root, _ = label_components(len(stack.table.edges), np.concatenate([edges[:, 0], edges[:, 1]]),
                               np.concatenate([edges[:, 1], edges[:, 2]]))
    piece = root[edges[:, 0]]  # (labels of the stacked edges: each mesh's edges are its own)
    pieces = np.bincount(stack.owner[np.unique(piece, return_index=True)[1]], minlength=count)
    proved &= pieces <= MAX_SHEETS
    rows = np.flatnonzero(proved[stack.owner])
    points, owners = _stacked_points_in_front(stack, rows, piece[rows], proved)
    windings = stacked_crossing_windings(stack.meshes, points, owners)
    proved &= np.bincount(owners, weights=windings != 0, minlength=count) == 0
    return proved


def star_shaped(mesh: TriangleMesh) -> bool:
    """Whether the closed, outward ``mesh`` is seen from its vertices' mean as a single cover of the sphere of
    directions: every triangle strictly facing away from that point (exact signs) and the winding number there 1.
    Then projecting the surface onto the directions is a map of degree 1 that keeps every triangle's orientation,
    so no two triangles meet a direction twice: the surface does not cross itself and covers every point at most
    once (a blob, a jittered sphere, any convex shape). O(triangles), without looking for crossings."""
    centre = mesh.vertices.mean(axis=0)
    corners = mesh.corners
    if not len(corners) or not (orientation_signs(corners[:, 0], corners[:, 1], corners[:, 2], centre, None) < 0).all():
        return False
    return int(crossing_windings(mesh, centre)[0]) == 1


def stars_shaped(meshes: Sequence[TriangleMesh]) -> np.ndarray:
    """(n,) bool: ``star_shaped`` of each mesh, for many small meshes at once (every triangle's exact sign against
    its own mesh's centre in one call, every centre's ray counted at once), the same answers."""
    stack = StackedMeshes(meshes)
    count = len(stack.meshes)
    if not count:
        return np.zeros(0, bool)
    centres = stack.vertex_means  # (each mesh's vertices.mean(axis=0), bit for bit)
    corners = stack.corners
    facing = orientation_signs(corners[:, 0], corners[:, 1], corners[:, 2], centres[stack.owner], None) < 0
    shaped = (stack.counts > 0) & (np.bincount(stack.owner, weights=~facing, minlength=count) == 0)
    windings = stacked_crossing_windings(stack.meshes, centres, np.arange(count))
    return shaped & (windings == 1)


def _points_in_front(mesh: TriangleMesh, near: np.ndarray, piece: np.ndarray, around: np.ndarray
                     ) -> np.ndarray | None:
    """One point per piece, in front of the piece's fattest triangle (largest inradius) and closer to it than to
    any other triangle, so that the winding number there is the one in front of the piece; None when a point
    cannot be placed so (a triangle too small, another one in the way)."""
    corners = mesh.corners[near]
    sides = np.linalg.norm(corners[:, [1, 2, 0]] - corners[:, [2, 0, 1]], axis=2)  # side k opposite corner k
    doubled = np.linalg.norm(mesh.area_normals[near], axis=1)  # twice the area
    perimeters = sides.sum(axis=1)
    radii = doubled / np.maximum(perimeters, np.finfo(float).tiny)  # area / half the perimeter
    order = np.lexsort((-radii, piece))
    first = order[np.r_[True, piece[order][1:] != piece[order][:-1]]]
    if not (radii[first] > 1e-9 * mesh.size).all():
        return None
    centres = np.einsum("ij,ijk->ik", sides[first], corners[first]) / perimeters[first, None]
    lift = LIFT * radii[first]
    points = centres + lift[:, None] * mesh.area_normals[near[first]] / doubled[first, None]
    for point, reach, own in zip(points, lift, near[first]):
        others = around[np.all((mesh.lows[around] <= point + reach) & (mesh.highs[around] >= point - reach), axis=1)]
        others = others[others != own]
        if len(others) and point_triangle_closest(point, mesh.corners[others])[0].min() <= (1.0 + 1e-6) * reach:
            return None
    return points


def _stacked_points_in_front(stack: StackedMeshes, rows: np.ndarray, piece: np.ndarray, proved: np.ndarray
                             ) -> tuple[np.ndarray, np.ndarray]:
    """``_points_in_front`` of whole meshes at once: of the stacked ``rows`` (every triangle of the meshes still
    ``proved``, labelled by ``piece``), one point per piece and its mesh ``(points, owners)``; the meshes where a
    point cannot be placed are no longer ``proved`` (set False in place) and have no points."""
    corners = stack.corners[rows]
    sides = np.linalg.norm(corners[:, [1, 2, 0]] - corners[:, [2, 0, 1]], axis=2)  # side k opposite corner k
    normals = stack.mesh.area_normals_of(rows)
    doubled = np.linalg.norm(normals, axis=1)  # twice the area
    perimeters = sides.sum(axis=1)
    radii = doubled / np.maximum(perimeters, np.finfo(float).tiny)  # area / half the perimeter
    order = np.lexsort((-radii, piece))
    first = order[np.r_[True, piece[order][1:] != piece[order][:-1]]] if len(order) else order
    owner = stack.owner[rows[first]]
    sizes = np.array([mesh.size for mesh in stack.meshes])
    proved[owner[~(radii[first] > 1e-9 * sizes[owner])]] = False
    centres = np.einsum("ij,ijk->ik", sides[first], corners[first]) / perimeters[first, None]
    lift = LIFT * radii[first]
    points = centres + lift[:, None] * normals[first] / doubled[first, None]
    # every triangle of each point's mesh whose box meets the point's reach, but its own
    point, _one, triangle, _starts = pairings(np.ones(len(first), dtype=np.int64), stack.counts[owner])
    other = stack.first[owner[point]] + triangle
    reach = lift[point, None]
    near = np.all((stack.lows[other] <= points[point] + reach) & (stack.highs[other] >= points[point] - reach), axis=1)
    near &= other != rows[first][point]
    point, other = point[near], other[near]
    distance = point_triangle_closest(points[point], stack.corners[other])[0]
    proved[owner[point[distance <= (1.0 + 1e-6) * lift[point]]]] = False
    keep = proved[owner]
    return points[keep], owner[keep]
