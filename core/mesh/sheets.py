"""Whether a closed mesh covers each point of a box at most once (winding numbers 0 or 1 there), proved from the
triangles near the box alone: where it holds, inside is a parity and the overlap volume's surface methods are
exact; where it fails (a part crossing itself, sheets nested), the region must be cut with its own crossings.
See docs/architecture.md, section "Mesh: surfaces that cross themselves".
"""

from __future__ import annotations

import numpy as np

from .inside import crossing_windings
from .intersection import RELATIVE_TOLERANCE
from .self_intersection import self_intersection
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
