"""Enclosed volume of a closed mesh, and the exact volume and centroid where two closed meshes overlap (divergence
theorem over the parts of each surface inside the other).
See docs/architecture.md, section "Mesh: overlap volume".
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .intersection import MeshPairs, default_tolerance
from .inside import crossing_windings
from .topology import EdgeTable, edge_table, label_components
from .trimesh import TriangleMesh


def mesh_volume(mesh: TriangleMesh) -> float:
    """Signed volume enclosed by a closed mesh (divergence theorem): negative when it is inside out."""
    if not len(mesh.triangles):
        return 0.0
    c = mesh.corners - 0.5 * (mesh.vertices.min(axis=0) + mesh.vertices.max(axis=0))
    return float(np.einsum("ij,ij->i", c[:, 0], np.cross(c[:, 1], c[:, 2])).sum() / 6.0)


def _vertex_inside(mesh: TriangleMesh, table: EdgeTable, crossings_per_edge: np.ndarray, other: TriangleMesh,
                   points_move: bool) -> np.ndarray:
    """Inside/outside of every vertex: parities along the edges of ``mesh``'s triangles, anchored once per
    connected piece by a vertex strictly outside ``other``'s box (so outside ``other``), or else by a ray."""
    used_edges = np.unique(table.triangle_edges)
    first, second = table.edges[used_edges].T
    root, relation = label_components(len(mesh.vertices), first, second, crossings_per_edge[used_edges] & 1)
    used = np.unique(mesh.triangles)
    points, (low, high) = mesh.vertices[used], _box(other)
    outside = used[((points < low) | (points > high)).any(axis=1)]
    anchored = np.full(len(mesh.vertices), -1, np.int64)
    anchored[root[outside]] = relation[outside]  # state(root) = state(v) ^ relation(v), and v is outside
    roots = np.unique(root[used])
    unknown = roots[anchored[roots] < 0]
    anchored[unknown] = crossing_windings(other, mesh.vertices[unknown], points_move) & 1  # parity
    return (np.maximum(anchored, 0)[root] ^ relation).astype(bool)


def _inside_intervals(mesh: TriangleMesh, table: EdgeTable, edge: np.ndarray, param: np.ndarray,
                      point: np.ndarray, crossed: np.ndarray, inside: np.ndarray):
    """Pieces of edges inside the other mesh: (edge ids, from, to), along each edge from low to high vertex.

    ``edge``, ``param``, ``point``: the piercings (edge id, parameter along it, position); ``crossed``:
    piercings per edge; ``inside``: per vertex.
    """
    relevant = np.flatnonzero((crossed > 0) | inside[table.edges[:, 0]])
    ends = table.edges[relevant]
    break_edge = np.concatenate([relevant, edge, relevant])
    break_param = np.concatenate([np.full(len(relevant), -1.0), param, np.full(len(relevant), 2.0)])
    break_point = np.concatenate([mesh.vertices[ends[:, 0]], point, mesh.vertices[ends[:, 1]]])
    order = np.lexsort((break_param, break_edge))
    break_edge, break_point = break_edge[order], break_point[order]
    same = break_edge[:-1] == break_edge[1:]
    first_of_edge = np.searchsorted(break_edge, break_edge)
    index_in_edge = np.arange(len(break_edge)) - first_of_edge
    state = inside[table.edges[break_edge, 0]] ^ (index_in_edge & 1).astype(bool)
    keep = np.flatnonzero(same & state[:-1])
    return break_edge[keep], break_point[keep], break_point[keep + 1]


def _edge_pieces(table: EdgeTable, interval_edge: np.ndarray, start: np.ndarray, end: np.ndarray):
    """Every triangle's share of the inside edge pieces, run in the triangle's own direction."""
    first = np.searchsorted(interval_edge, np.arange(len(table.edges)))
    count = np.bincount(interval_edge, minlength=len(table.edges))
    uses = table.triangle_edges.ravel()
    n = count[uses]
    triangle = np.repeat(np.arange(len(uses)) // 3, n)
    forward = np.repeat(table.forward.ravel(), n)
    offsets = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    pick = np.repeat(first[uses], n) + offsets
    p, q = start[pick], end[pick]
    return triangle, np.where(forward[:, None], p, q), np.where(forward[:, None], q, p)


def _piercings(pairs: MeshPairs, side: str, table: EdgeTable):
    """Unique piercings of one mesh's edges (numbered by ``table``) through the other's triangles:
    (edge, param, point)."""
    c = pairs.crossings
    column = 0 if side == "a" else 1
    crosses = c.a_crosses if side == "a" else c.b_crosses
    params = c.a_params if side == "a" else c.b_params
    points = c.a_points if side == "a" else c.b_points
    pair_index, corner = np.nonzero(crosses)
    own, other = pairs.pairs[pair_index, column], pairs.pairs[pair_index, 1 - column]
    edge = table.triangle_edges[own, corner]
    other_count = len(pairs.mesh_b.triangles) if side == "a" else len(pairs.mesh_a.triangles)
    _, unique = np.unique(edge * other_count + other, return_index=True)
    return edge[unique], params[pair_index, corner][unique], points[pair_index, corner][unique]


def _side_pieces(pairs: MeshPairs, side: str, table: EdgeTable, other: TriangleMesh):
    """Boundary pieces (triangle, P, Q) of (one mesh's triangles) ∩ (the ``other`` mesh's solid, whole:
    ``pairs`` may hold only the triangles near it); ``table``: the edges of the side's triangles."""
    mesh = pairs.mesh_a if side == "a" else pairs.mesh_b
    edge, param, point = _piercings(pairs, side, table)
    crossed = np.bincount(edge, minlength=len(table.edges))
    inside = _vertex_inside(mesh, table, crossed, other, points_move=side == "b")
    triangle, p, q = _edge_pieces(table, *_inside_intervals(mesh, table, edge, param, point, crossed, inside))
    start, end = pairs.segment_ends
    own = pairs.segment_pairs[:, 0 if side == "a" else 1]
    seg_p, seg_q = (start, end) if side == "a" else (end, start)
    corners = mesh.corners[:, 0]
    return (np.concatenate([corners[triangle], corners[own]]), np.concatenate([p, seg_p]),
            np.concatenate([q, seg_q]))


def _near_part(mesh: TriangleMesh, box: tuple[np.ndarray, np.ndarray], margin: float
               ) -> tuple[TriangleMesh, EdgeTable]:
    """The triangles of ``mesh`` whose boxes meet ``box`` inflated by ``margin``, on the mesh's own vertices,
    and their edges (numbered as in the whole mesh's table). The others lie strictly outside the box, so
    outside any solid it bounds, even after an infinitesimal move: they add nothing to an overlap."""
    low, high = box
    keep = np.flatnonzero(np.all((mesh.lows <= high + margin) & (mesh.highs >= low - margin), axis=1))
    table = edge_table(mesh)
    if len(keep) == len(mesh.triangles):
        return mesh, table
    part = TriangleMesh(mesh.vertices, mesh.triangles[keep])
    return part, replace(table, triangle_edges=table.triangle_edges[keep], forward=table.forward[keep])


def _box(mesh: TriangleMesh) -> tuple[np.ndarray, np.ndarray]:
    """The box of the mesh's vertices: a closed mesh's solid lies within it."""
    return mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)


def overlap_volume(mesh_a: TriangleMesh, mesh_b: TriangleMesh) -> tuple[float, np.ndarray | None]:
    """``(volume, centroid)`` of the region inside both closed meshes A and B.

    Exact up to rounding for closed, consistently outward meshes (see the module notes): 0 (and centroid
    None) when the volumes do not overlap, the smaller volume when one contains the other; surfaces that
    only touch or share faces are handled as the limit of an infinitesimal generic translation of B.
    Open meshes give a result without meaning. Only the triangles near the other mesh's box are looked at.
    """
    tolerance = default_tolerance(mesh_a, mesh_b, None)
    part_a, table_a = _near_part(mesh_a, _box(mesh_b), tolerance)
    part_b, table_b = _near_part(mesh_b, _box(mesh_a), tolerance)
    pairs = MeshPairs.build(part_a, part_b, tolerance)
    both = np.concatenate([mesh_a.vertices, mesh_b.vertices])
    origin = 0.5 * (both.min(axis=0) + both.max(axis=0))
    pieces = [_side_pieces(pairs, "a", table_a, mesh_b), _side_pieces(pairs, "b", table_b, mesh_a)]
    c, p, q = (np.concatenate([piece[k] for piece in pieces]) - origin for k in range(3))
    volumes = np.einsum("ij,ij->i", c, np.cross(p, q)) / 6.0
    volume = float(volumes.sum())
    if volume <= 0.0:
        return 0.0, None
    centroid = origin + (volumes[:, None] * (c + p + q)).sum(axis=0) / (4.0 * volume)
    return volume, centroid
