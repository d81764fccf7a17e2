"""Mesh topology: edges, connected parts, closedness, convexity, sub-meshes.

Everything is vectorised: edges come from one sort of the triangles' half-edges, and
connected components from ``label_components`` (hooking of roots onto smaller roots plus pointer
jumping, O(log n) rounds of array operations), never a Python loop per vertex or triangle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..steps import checkpoint
from ..vector.arrays import NEXT_CORNER, PREVIOUS_CORNER, cross, reduce_in_chunks
from .trimesh import TriangleMesh

#: ``part_meshes`` groups elements by one pass per part up to this many parts, by a sort beyond.
FEW_GROUPS = 16
#: Half-edges per call of ``edge_table``'s calls that keep the interpreter (a fraction of a millisecond each).
EDGE_CHUNK = 1 << 16
#: ``sorted_keys`` packs a key and its position into one int64 when they fit in this many bits.
PACKED_BITS = 63


def label_components(count: int, first: np.ndarray, second: np.ndarray,
                     parity: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Connected components of ``count`` nodes linked by ``(first[k], second[k])``.

    Returns ``(root, relation)``: ``root[v]`` is the smallest node of v's component, and
    ``relation[v]`` (0 or 1) the parity of the links' ``parity`` values along any path from the root to
    v (all zeros when ``parity`` is None). Consistent parities (every cycle even) make it path-free;
    that is how inside/outside states travel along mesh edges that cross a surface an odd number of times.
    """
    parent = np.arange(count, dtype=np.int64)
    relation = np.zeros(count, dtype=np.int64)  # (stays zero without parities: their steps are skipped)
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    weight = None if parity is None else np.asarray(parity, dtype=np.int64) & 1
    while True:
        checkpoint()  # (a cancelled caller's worker stops here)
        while True:  # pointer jumping: every node points at its root
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            if weight is not None:
                relation = relation ^ relation[parent]
            parent = grand
        root_1, root_2 = parent[first], parent[second]
        apart = root_1 != root_2
        if not apart.any():
            return parent, relation
        first, second = first[apart], second[apart]
        root_1, root_2 = root_1[apart], root_2[apart]
        between = 0
        if weight is not None:
            weight = weight[apart]
            between = weight ^ relation[first] ^ relation[second]
        high, low = np.maximum(root_1, root_2), np.minimum(root_1, root_2)
        best = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(best, high, low * 2 + between)
        hooked = best != np.iinfo(np.int64).max
        parent[hooked] = best[hooked] >> 1
        relation[hooked] = best[hooked] & 1


def component_offsets(count: int, first: np.ndarray, second: np.ndarray, steps: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Connected components of ``count`` nodes linked by ``(first[k], second[k])``, and integer potentials on them.

    ``steps`` (K, S): what link k adds going from ``first[k]`` to ``second[k]``. Returns ``(root, offset)``:
    ``root`` as ``label_components``'s, ``offset`` (count, S) the sum of the steps along a path from the root to
    each node (path-free when every cycle sums to zero: checking ``offset[second] - offset[first] == steps`` tells).
    Same hooking and pointer jumping as ``label_components``, with sums in place of parities.
    """
    parent = np.arange(count, dtype=np.int64)
    steps = np.asarray(steps, dtype=np.int64).reshape(len(first), -1)
    offset = np.zeros((count, steps.shape[1]), dtype=np.int64)  # relative to the parent until the jumping ends
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    while True:
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            offset = offset + offset[parent]
            parent = grand
        root_1, root_2 = parent[first], parent[second]
        apart = root_1 != root_2
        if not apart.any():
            return parent, offset
        first, second, steps = first[apart], second[apart], steps[apart]
        root_1, root_2 = root_1[apart], root_2[apart]
        between = steps + offset[first] - offset[second]  # potential of root_2 minus root_1
        high, low = np.maximum(root_1, root_2), np.minimum(root_1, root_2)
        lift = np.where((root_2 > root_1)[:, None], between, -between)  # potential of high minus low
        best = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(best, high, low * len(first) + np.arange(len(first)))
        hooked = np.flatnonzero(best != np.iinfo(np.int64).max)
        link = best[hooked] % len(first)
        parent[hooked] = low[link]
        offset[hooked] = lift[link]


@dataclass(frozen=True)
class EdgeTable:
    """The undirected edges of a mesh.

    ``edges`` (E, 2): vertex pairs, smaller index first, sorted. ``triangle_edges`` (M, 3): the edge
    from corner k to corner k+1 of each triangle. ``forward`` (M, 3): whether the triangle runs along
    that edge from its smaller to its larger vertex. ``uses`` (E,): how many triangles use each edge;
    ``forward_uses`` (E,): how many of them run along it forward.
    """

    edges: np.ndarray
    triangle_edges: np.ndarray
    forward: np.ndarray
    uses: np.ndarray
    forward_uses: np.ndarray


def once_per_mesh(compute):
    """``compute(mesh)`` evaluated once per mesh: kept with the mesh's other derived arrays (its instance
    dictionary, as its cached properties are), since classifying an object asks for them several times."""
    key = f"_{compute.__name__}"

    def cached(mesh: TriangleMesh):
        if key not in mesh.__dict__:
            mesh.__dict__[key] = compute(mesh)
        return mesh.__dict__[key]

    cached.__name__, cached.__doc__ = compute.__name__, compute.__doc__
    return cached


def share_topology(source: TriangleMesh, target: TriangleMesh) -> None:
    """Give ``target``, which has ``source``'s triangles (its vertices elsewhere), the edge table and loose
    parts already computed for ``source``: they depend on the triangles only."""
    for compute in (edge_table, loose_parts):
        key = f"_{compute.__name__}"
        if key in source.__dict__:
            target.__dict__[key] = source.__dict__[key]


def set_topology(mesh: TriangleMesh, table: EdgeTable, parts: tuple[np.ndarray, int]) -> None:
    """Give ``mesh`` its edge table and loose parts (``edge_table``, ``loose_parts``) computed elsewhere: for many
    meshes at once (``classify``)."""
    set_edge_table(mesh, table)
    mesh.__dict__[f"_{loose_parts.__name__}"] = parts


def set_edge_table(mesh: TriangleMesh, table: EdgeTable) -> None:
    """Give ``mesh`` its edge table (``edge_table``) computed elsewhere: for meshes stacked from others."""
    mesh.__dict__[f"_{edge_table.__name__}"] = table


def renumber_topology(source: TriangleMesh, target: TriangleMesh, index: np.ndarray) -> None:
    """Give ``target``, whose triangles are ``source``'s with vertex ``v`` renumbered ``index[v]`` (an increasing
    map, as when unused vertices are dropped), the edge table and loose parts already computed for ``source``."""
    key = f"_{edge_table.__name__}"
    if key in source.__dict__:
        table = source.__dict__[key]
        target.__dict__[key] = EdgeTable(index[table.edges], table.triangle_edges, table.forward, table.uses,
                                         table.forward_uses)
    key = f"_{loose_parts.__name__}"
    if key in source.__dict__:
        target.__dict__[key] = source.__dict__[key]


@once_per_mesh
def edge_table(mesh: TriangleMesh) -> EdgeTable:
    """The undirected edges of ``mesh`` and which triangles use them in which direction: the half-edges sorted by
    their edges' keys (``sorted_keys``; the smaller vertex, the larger, then backward after forward), each run of
    equal edges an edge. The calls that keep the interpreter for their whole length (the running sum, the scatter
    back to the triangles, the per-edge sums) go ``EDGE_CHUNK`` half-edges at a time, so that a worker thread leaves
    the interpreter to others between them."""
    tails = mesh.triangles.astype(np.int64, copy=False)
    heads = tails[:, NEXT_CORNER]
    forward = tails < heads
    bits = max(len(mesh.vertices) - 1, 0).bit_length()
    keys = np.minimum(tails, heads)  # then built in place: no temporary arrays of every half-edge
    keys <<= bits
    keys |= np.maximum(tails, heads)
    keys <<= 1
    keys |= ~forward
    ordered, order = sorted_keys(keys.ravel(), 1 << (2 * bits + 1))
    checkpoint()  # (a cancelled caller's worker stops here)
    edge = ordered >> 1
    new = np.empty(len(edge), dtype=bool)
    new[:1] = True
    np.not_equal(edge[1:], edge[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    inverse = np.empty(len(edge), dtype=np.int64)
    before = -1  # the edges of the chunks before, less one
    for first in range(0, len(edge), EDGE_CHUNK):
        checkpoint()
        running = np.cumsum(new[first:first + EDGE_CHUNK])
        running += before
        inverse[order[first:first + EDGE_CHUNK]] = running
        before = int(running[-1])
    uses = np.diff(starts, append=len(edge))
    forward_uses = uses - reduce_in_chunks(np.add, ordered & 1, starts, EDGE_CHUNK)
    edge = edge[starts]
    edges = np.stack([edge >> bits, edge & ((1 << bits) - 1)], axis=1)
    return EdgeTable(edges, inverse.reshape(-1, 3), forward, uses, forward_uses)


def sorted_keys(keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``(keys[order], order)``, ``order`` the stable sorting order of the (N,) integer ``keys`` in ``[0, bound)``.
    One ``np.sort`` of each key packed with its position when both fit in ``PACKED_BITS`` (several times faster than
    ``argsort`` or ``np.unique``, and it leaves the interpreter to other threads), a stable ``argsort`` beyond."""
    shift = max(len(keys) - 1, 0).bit_length()
    if max(bound - 1, 0).bit_length() + shift <= PACKED_BITS:
        packed = keys << shift
        packed |= np.arange(len(keys))
        packed.sort()
        order = packed & ((1 << shift) - 1)
        packed >>= shift
        return packed, order
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def uses_by_edge(table: EdgeTable) -> np.ndarray:
    """The triangles' edge uses (triangle * 3 + corner) grouped by edge, edge after edge, each edge's in the order of
    its triangles (``table.uses[e]`` of them for edge e: a closed mesh's are rows of two, ``reshape(-1, 2)``)."""
    return np.argsort(table.triangle_edges.ravel(), kind="stable")


@once_per_mesh
def loose_parts(mesh: TriangleMesh) -> tuple[np.ndarray, int]:
    """``(labels, count)``: for every triangle, the index 0..count-1 of its part (triangles joined by vertices)."""
    if not len(mesh.triangles):
        return np.zeros(0, dtype=np.int64), 0
    tri = mesh.triangles
    if f"_{edge_table.__name__}" in mesh.__dict__:  # its edges made already: fewer links, the same parts
        first, second = edge_table(mesh).edges.T
    else:
        first, second = tri[:, :2].ravel(), tri[:, 1:].ravel()
    root, _ = label_components(len(mesh.vertices), first, second)
    roots = root[tri[:, 0]]
    present = np.zeros(len(mesh.vertices), dtype=bool)
    present[roots] = True
    rank = np.cumsum(present) - 1  # each root's place among the roots in increasing order (np.unique's labels)
    return rank[roots], int(rank[-1]) + 1


def is_closed(mesh: TriangleMesh) -> bool:
    """True when every edge is used by exactly two triangles running along it in opposite directions.

    That makes the mesh a closed, consistently oriented surface (watertight), so it bounds a volume.
    """
    if not len(mesh.triangles):
        return False
    table = edge_table(mesh)
    return bool(np.all(table.uses == 2) and np.all(table.forward_uses == 1))


def bounds_volume(mesh: TriangleMesh) -> bool:
    """Every edge used as often in one direction as in the other (and some triangle): the mesh is the boundary
    of a solid (a cycle), so every point off it has an integer winding number. Closed manifold meshes are; so
    are closed parts joined along an edge."""
    if not len(mesh.triangles):
        return False
    table = edge_table(mesh)
    return bool(np.all(2 * table.forward_uses == table.uses))


def _vertex_angle_defects(mesh: TriangleMesh) -> np.ndarray:
    """2π minus the sum of the triangle angles at each used vertex (the discrete Gauss curvature)."""
    c = mesh.corners
    into = c[:, NEXT_CORNER] - c
    out = c[:, PREVIOUS_CORNER] - c
    checkpoint()  # (a cancelled caller's worker stops here, and below)
    sines = np.linalg.norm(cross(into, out), axis=2)
    checkpoint()
    angles = np.arctan2(sines, np.einsum("ijk,ijk->ij", into, out))
    checkpoint()
    sums = np.bincount(mesh.triangles.ravel(), weights=angles.ravel(), minlength=len(mesh.vertices))
    return 2.0 * np.pi - sums[used_vertices(mesh.triangles, len(mesh.vertices))]


def used_vertices(triangles: np.ndarray, vertex_count: int) -> np.ndarray:
    """The vertices the triangles use, in increasing order: ``np.unique(triangles)``, without its hash table, which
    keeps the interpreter for its whole length (a worker thread would hold the interface a tenth of a second for a
    million triangles)."""
    used = np.zeros(vertex_count, dtype=bool)
    used[triangles.ravel()] = True
    return np.flatnonzero(used)


def is_convex(mesh: TriangleMesh, tolerance: float = 1e-9) -> bool:
    """True when the mesh is the boundary of a convex solid, within ``tolerance`` × ``mesh.size``
    (``convexity_defect(mesh) <= tolerance``)."""
    return convexity_defect(mesh) <= tolerance


def convexity_defect(mesh: TriangleMesh) -> float:
    """How far the mesh is from bounding a convex solid, relative to its size; inf when it cannot bound one.

    Checked as: closed and consistently oriented, one part, sphere topology (V − E + F = 2) (else inf), then
    the defect is the larger of how far any triangle's far vertex across an edge lies in front of the
    triangle's plane (÷ ``mesh.size``; an inside-out mesh fails at its hull edges) and how negative a
    vertex's angle defect is. A locally convex closed sphere whose Gauss map has degree one bounds a convex
    body (Hadamard), so a defect of 0 is exact convexity, found in O(M). Open meshes bound no solid.
    """
    if not is_closed(mesh) or loose_parts(mesh)[1] != 1:
        return np.inf
    checkpoint()  # (a cancelled caller's worker stops here, and below)
    table = edge_table(mesh)
    used = len(used_vertices(mesh.triangles, len(mesh.vertices)))
    if used - len(table.edges) + len(mesh.triangles) != 2:
        return np.inf
    checkpoint()
    sides = uses_by_edge(table).reshape(-1, 2)  # each edge's two (triangle, corner) uses, side by side
    checkpoint()
    triangle, corner = np.divmod(sides, 3)
    far_corner = mesh.triangles[triangle[:, ::-1], (corner[:, ::-1] + 2) % 3]
    checkpoint()
    normals = mesh.area_normals[triangle]
    checkpoint()
    unit = normals / np.maximum(np.linalg.norm(normals, axis=2, keepdims=True), np.finfo(float).tiny)
    checkpoint()
    across = mesh.vertices[far_corner] - mesh.corners[triangle, 0]
    checkpoint()
    height = float(np.einsum("ijk,ijk->ij", unit, across).max())
    relative_height = height / mesh.size if mesh.size > 0.0 else (np.inf if height > 0.0 else 0.0)
    checkpoint()
    return max(relative_height, -float(_vertex_angle_defects(mesh).min()), 0.0)


def part_meshes(mesh: TriangleMesh) -> list[TriangleMesh]:
    """The loose parts (``loose_parts``) as meshes of their own (``submesh`` of each part's label), each given its
    edge table and loose parts from the whole mesh's: no edge joins two parts, and dropping unused vertices keeps
    the edges' order. One stable sort per kind of element groups them by part."""
    labels, count = loose_parts(mesh)
    if count == 1:
        return [mesh]
    table = edge_table(mesh)
    vertex_part = np.full(len(mesh.vertices), count, dtype=np.int64)  # unused vertices: a group of their own
    vertex_part[mesh.triangles] = labels[:, None]
    edge_part = np.empty(len(table.edges), dtype=np.int64)
    edge_part[table.triangle_edges] = labels[:, None]
    triangles, triangle_starts, _ = _grouped(labels, count)
    vertices, vertex_starts, vertex_index = _grouped(vertex_part, count + 1)
    edges, edge_starts, edge_index = _grouped(edge_part, count)
    pieces = []
    for k in range(count):
        checkpoint()  # (a cancelled caller's worker stops here)
        chosen = triangles[triangle_starts[k]:triangle_starts[k + 1]]
        kept = edges[edge_starts[k]:edge_starts[k + 1]]
        piece = _made(mesh.vertices[vertices[vertex_starts[k]:vertex_starts[k + 1]]],
                      vertex_index[mesh.triangles[chosen]])
        set_topology(piece, EdgeTable(vertex_index[table.edges[kept]], edge_index[table.triangle_edges[chosen]],
                                      table.forward[chosen], table.uses[kept], table.forward_uses[kept]),
                     (np.zeros(len(chosen), dtype=np.int64), 1))
        pieces.append(piece)
    return pieces


def _made(vertices: np.ndarray, triangles: np.ndarray) -> TriangleMesh:
    """A mesh of arrays made from a valid mesh's (no checks, no copies), read-only like ``from_arrays``'."""
    vertices.flags.writeable = False
    triangles.flags.writeable = False
    return TriangleMesh(vertices, triangles)


def _grouped(groups: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(order, starts, rank)``: the elements of each group 0..count-1 in increasing order (group k's are
    ``order[starts[k]:starts[k + 1]]``), and each element's place within its group."""
    if count <= FEW_GROUPS:  # a pass per group costs less than a sort
        order = np.concatenate([np.flatnonzero(groups == k) for k in range(count)])
    else:
        order = np.argsort(groups, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(groups, minlength=count))])
    rank = np.empty(len(groups), dtype=np.int64)
    rank[order] = np.arange(len(groups)) - starts[groups[order]]
    return order, starts, rank


def submesh(mesh: TriangleMesh, triangle_mask) -> TriangleMesh:
    """The triangles selected by a boolean mask (or index array), with only the vertices they use."""
    triangles = mesh.triangles[np.asarray(triangle_mask)]
    used, inverse = np.unique(triangles, return_inverse=True)
    if not len(used):
        raise ValueError("submesh selects no triangles")
    return TriangleMesh.from_arrays(mesh.vertices[used], inverse.reshape(-1, 3))
