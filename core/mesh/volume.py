"""Enclosed volume of a closed mesh, and the exact volume and centroid where two closed meshes overlap (divergence
theorem over the parts of each surface inside the other).
See docs/architecture.md, section "Mesh: overlap volume".
"""

from __future__ import annotations

import numpy as np

from ..steps import checkpoint
from ..vector.arrays import column_extremes, cross
from .inside import crossing_windings
from .intersection import FLAT_PAIRS, CrossingRows, MeshPairs, candidate_pairs, default_tolerance
from .stacked import StackedMeshes, stacked_candidates, stacked_together
from .topology import EdgeTable, label_components, used_vertices
from .triangle_intersection import PairCrossings
from .trimesh import TriangleMesh


def mesh_volume(mesh: TriangleMesh, caps: np.ndarray | None = None, cap_vertices: np.ndarray | None = None) -> float:
    """Signed volume enclosed by a closed mesh (divergence theorem): negative when it is inside out. With ``caps``
    ((K, 3, 3) corners of triangles closing it, whose new vertices are ``cap_vertices``), the volume of the mesh and
    its caps joined, the same number, without joining a sculpt's corners only to learn that its caps are too large."""
    corners = [mesh.corners] if caps is None else [mesh.corners, caps]
    vertices = [mesh.vertices] if cap_vertices is None else [mesh.vertices, cap_vertices]
    if not sum(len(part) for part in corners):
        return 0.0
    checkpoint()  # (a cancelled caller's worker stops here)
    boxes = [column_extremes(part) for part in vertices if len(part)]
    centre = 0.5 * (np.min([low for low, _high in boxes], axis=0) + np.max([high for _low, high in boxes], axis=0))
    terms = []
    for part in corners:
        c = part - centre
        terms.append(np.einsum("ij,ij->i", c[:, 0], cross(c[:, 1], c[:, 2])))
    return float((terms[0] if len(terms) == 1 else np.concatenate(terms)).sum() / 6.0)


def _vertex_inside(side: StackedMeshes, crossings_per_edge: np.ndarray, boxes: tuple[np.ndarray, np.ndarray],
                   others: list[TriangleMesh], points_move: bool) -> np.ndarray:
    """Inside/outside of every vertex of the stacked meshes, mesh k against ``others[k]`` (whose vertices' box is
    ``boxes[.][k]``): parities along the edges of the kept triangles, anchored once per connected piece by a vertex
    strictly outside the other's box (so outside it), or else by a ray."""
    mesh, table = side.mesh, side.table
    used_edges = used_vertices(table.triangle_edges, len(table.edges))  # (np.unique's values, without its hash table)
    first, second = table.edges[used_edges].T
    root, relation = label_components(len(mesh.vertices), first, second, crossings_per_edge[used_edges] & 1)
    used = used_vertices(mesh.triangles, len(mesh.vertices))
    owner = np.searchsorted(side.vertex_starts, used, side="right") - 1
    points, (low, high) = mesh.vertices[used], boxes
    outside = used[((points < low[owner]) | (points > high[owner])).any(axis=1)]
    anchored = np.full(len(mesh.vertices), -1, np.int64)
    anchored[root[outside]] = relation[outside]  # state(root) = state(v) ^ relation(v), and v is outside
    roots = used_vertices(root[used], len(mesh.vertices))
    unknown = roots[anchored[roots] < 0]
    unknown_owner = np.searchsorted(side.vertex_starts, unknown, side="right") - 1
    for k in np.unique(unknown_owner).tolist():
        ask = unknown[unknown_owner == k]
        anchored[ask] = crossing_windings(others[k], mesh.vertices[ask], points_move) & 1  # parity
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


def _side_pieces(pairs: MeshPairs, side: str, part: StackedMeshes, boxes: tuple[np.ndarray, np.ndarray],
                 others: list[TriangleMesh]):
    """Boundary pieces (owning pair, triangle corner, P, Q) of (one side's triangles) ∩ (the other mesh's solid,
    whole: ``part`` and ``pairs`` may hold only the triangles near it), the edge pieces then the crossing segments;
    ``boxes``, ``others``: each pair's other mesh and its vertices' box."""
    edge, param, point = _piercings(pairs, side, part.table)
    crossed = np.bincount(edge, minlength=len(part.table.edges))
    inside = _vertex_inside(part, crossed, boxes, others, points_move=side == "b")
    triangle, p, q = _edge_pieces(part.table, *_inside_intervals(part.mesh, part.table, edge, param, point, crossed,
                                                                 inside))
    start, end = pairs.segment_ends
    own = pairs.segment_pairs[:, 0 if side == "a" else 1]
    seg_p, seg_q = (start, end) if side == "a" else (end, start)
    corners = part.mesh.corners[:, 0]
    return (part.owner[np.concatenate([triangle, own])], np.concatenate([corners[triangle], corners[own]]),
            np.concatenate([p, seg_p]), np.concatenate([q, seg_q]))


def _near(stacked: StackedMeshes, boxes: tuple[np.ndarray, np.ndarray], margins: np.ndarray) -> np.ndarray:
    """(M,) the stacked rows of each mesh k whose boxes meet ``boxes[.][k]`` inflated by ``margins[k]`` (kept by
    ``StackedMeshes.kept``, on the meshes' own vertices and edges). The others lie strictly outside the box, so outside
    any solid it bounds, even after an infinitesimal move: they add nothing to an overlap."""
    owner = stacked.owner
    (low, high), margin = boxes, margins[:, None]
    return np.all((stacked.lows <= (high + margin)[owner]) & (stacked.highs >= (low - margin)[owner]), axis=1)


def _kept_of(stacked: StackedMeshes, k: int) -> TriangleMesh:
    """Stacked mesh k's kept triangles, on the stack's vertices (their boxes and count as in the mesh alone)."""
    first, last = stacked.triangle_starts[k], stacked.triangle_starts[k + 1]
    return TriangleMesh(stacked.mesh.vertices, stacked.mesh.triangles[first:last])


def overlap_volume(mesh_a: TriangleMesh, mesh_b: TriangleMesh) -> tuple[float, np.ndarray | None]:
    """``(volume, centroid)`` of the region inside both closed meshes A and B.

    Exact up to rounding for closed, consistently outward meshes (see the module notes): 0 (and centroid
    None) when the volumes do not overlap, the smaller volume when one contains the other; surfaces that
    only touch or share faces are handled as the limit of an infinitesimal generic translation of B.
    Open meshes give a result without meaning. Only the triangles near the other mesh's box are looked at.
    """
    return overlap_volumes([(mesh_a, mesh_b)])[0]


def overlap_volumes(pairs: list[tuple[TriangleMesh, TriangleMesh]], crossed: list[CrossingRows | None] | None = None
                    ) -> list[tuple[float, np.ndarray | None]]:
    """``[overlap_volume(a, b) for a, b in pairs]``, the same numbers, small pairs measured together: their meshes
    are stacked (``stacked``), their triangle pairs crossed and their boundary pieces found in one pass, and only
    the sums are taken pair by pair (in each pair's own order). Pairs too large to stack (``stacked_together``)
    are measured alone. ``crossed``: each pair's surface crossings where they are kept (``CrossingRows``, from
    ``surface_crossings``), taken instead of crossing the triangle pairs again when every pair of a stack has them."""
    answers: list[tuple[float, np.ndarray | None]] = [(0.0, None)] * len(pairs)
    together = stacked_together(pairs)
    small = [k for k, small in enumerate(together) if small]
    groups = [small] + [[k] for k, small in enumerate(together) if not small]
    for group in groups:
        rows = None if crossed is None else [crossed[k] for k in group]
        for k, answer in zip(group, _stacked_volumes([pairs[k] for k in group], rows)):
            answers[k] = answer
    return answers


def _stacked_volumes(pairs: list[tuple[TriangleMesh, TriangleMesh]], crossed: list[CrossingRows | None] | None
                     ) -> list[tuple[float, np.ndarray | None]]:
    if not pairs:
        return []
    meshes_a, meshes_b = [a for a, _ in pairs], [b for _, b in pairs]
    stack_a, stack_b = StackedMeshes(meshes_a), StackedMeshes(meshes_b)
    box_a, box_b = stack_a.vertex_boxes, stack_b.vertex_boxes
    tolerances = np.array([default_tolerance(a, b, None) for a, b in pairs])
    sizes = np.array([max(a.size, b.size) for a, b in pairs])
    checkpoint()  # (a cancelled caller's worker stops here, and below)
    near_a, near_b = _near(stack_a, box_b, tolerances), _near(stack_b, box_a, tolerances)
    part_a, part_b = stack_a.kept(near_a), stack_b.kept(near_b)
    checkpoint()
    if crossed is not None and all(rows is not None and rows.found is crossed[0].found and rows.mesh_a is a
                                   and rows.mesh_b is b for rows, (a, b) in zip(crossed, pairs)):
        found = _crossed_again(stack_a, stack_b, near_a, near_b, crossed, part_a.mesh, part_b.mesh, tolerances, sizes)
    else:
        rows = stacked_candidates(part_a, part_b, tolerances, FLAT_PAIRS, lambda k: candidate_pairs(
            _kept_of(part_a, k), _kept_of(part_b, k), float(tolerances[k])))
        owner = part_a.owner[rows[:, 0]]
        checkpoint()
        found = MeshPairs.of_pairs(part_a.mesh, part_b.mesh, rows, tolerances[owner], sizes[owner],
                                   meeting_only=True)
    checkpoint()
    pieces = [_side_pieces(found, "a", part_a, box_b, meshes_b)]
    checkpoint()
    pieces.append(_side_pieces(found, "b", part_b, box_a, meshes_a))
    pair, c, p, q = (np.concatenate([piece[k] for piece in pieces]) for k in range(4))
    order = np.argsort(pair, kind="stable")  # each pair's pieces in the order it lists them alone
    origin = 0.5 * (np.minimum(box_a[0], box_b[0]) + np.maximum(box_a[1], box_b[1]))
    pair = pair[order]
    shift = origin[pair]
    c, p, q = (values[order] - shift for values in (c, p, q))
    volumes = np.einsum("ij,ij->i", c, np.cross(p, q)) / 6.0
    moments = volumes[:, None] * (c + p + q)
    volume, moment = _pair_sums(volumes, moments, np.searchsorted(pair, np.arange(len(pairs) + 1)))
    positive = ~(volume <= 0.0)
    centroids = origin + moment / (4.0 * np.where(positive, volume, 1.0))[:, None]
    return [(volume, centroid) if inside else (0.0, None)
            for volume, centroid, inside in zip(volume.tolist(), centroids, positive.tolist())]


def _pair_sums(volumes: np.ndarray, moments: np.ndarray, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's sum of ``volumes`` (N,) and ``moments`` (N, 3) over its rows ``bounds[k]:bounds[k + 1]``, bit for
    bit as its slice's ``sum`` (numpy's pairwise order, not ``reduceat``'s): the pairs of one row count summed as one
    (count, rows) stack, whose rows numpy sums in the order it sums one slice alone."""
    firsts, counts = bounds[:-1], np.diff(bounds)
    volume, moment = np.zeros(len(counts)), np.zeros((len(counts), 3))
    for count in np.unique(counts).tolist():
        members = np.flatnonzero(counts == count)
        rows = firsts[members, None] + np.arange(count)
        volume[members], moment[members] = volumes[rows].sum(axis=1), moments[rows].sum(axis=1)
    return volume, moment


def _crossed_again(stack_a: StackedMeshes, stack_b: StackedMeshes, near_a: np.ndarray, near_b: np.ndarray,
                   crossed: list[CrossingRows], mesh_a: TriangleMesh, mesh_b: TriangleMesh, tolerances: np.ndarray,
                   sizes: np.ndarray) -> MeshPairs:
    """The ``MeshPairs`` that crossing the candidate pairs of the kept rows (``near_a``, ``near_b``, on the kept
    meshes ``mesh_a`` and ``mesh_b``) would give, taken from the pairs' surface crossings (all in one ``found``): their
    rows whose triangles are both kept, renumbered, with their crossings. The same rows in the same order, but for
    rows without a crossing: the surface crossings' candidates are the triangle pairs whose boxes meet within the same
    tolerance (pair after pair, sorted, kept by the same ``meeting_rows``), a superset of those of the kept rows, less
    (down trees) only pairs too far apart to cross, and a triangle away from the other mesh's box crosses nothing.
    Rows without a crossing add nothing to a volume."""
    found = crossed[0].found
    starts, stops, firsts_a, firsts_b = (np.array([getattr(rows, name) for rows in crossed], dtype=np.int64)
                                         for name in ("start", "stop", "first_a", "first_b"))
    counts = stops - starts
    pair = np.repeat(np.arange(len(crossed)), counts)
    row = np.arange(int(counts.sum())) + np.repeat(starts - (np.cumsum(counts) - counts), counts)
    t = found.pairs[row, 0] + (stack_a.first - firsts_a)[pair]
    s = found.pairs[row, 1] + (stack_b.first - firsts_b)[pair]
    keep = np.flatnonzero(near_a[t] & near_b[s])
    row, pair, t, s = row[keep], pair[keep], t[keep], s[keep]
    place_a, place_b = np.cumsum(near_a) - 1, np.cumsum(near_b) - 1  # a stacked row's place among the kept ones
    crossings = PairCrossings(**{name: getattr(found.crossings, name)[row]
                                 for name in PairCrossings.__dataclass_fields__})
    return MeshPairs(mesh_a, mesh_b, np.stack([place_a[t], place_b[s]], axis=1), crossings, tolerances[pair],
                     sizes[pair])
