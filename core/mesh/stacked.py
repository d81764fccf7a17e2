"""Many small meshes as one (``StackedMeshes``): their triangles one after another, each mesh's from its first row, so
that a query over many small meshes or mesh pairs is a few vectorised passes instead of a few dozen numpy calls per
mesh; ``pairings`` lists the rows of every pairing of their items, ``segment_firsts`` reduces per segment, and
``stacked_candidates`` lists the candidate triangle pairs of many mesh pairs at once. Every order within a mesh is
kept, so each mesh (or pair) gets the numbers it gets alone. See docs/architecture.md, "Mesh: many small pairs at once".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

import numpy as np

from .topology import EdgeTable, edge_table, set_edge_table
from .triangle_distance import unit_normals
from .trimesh import TriangleMesh

#: Candidate (triangle, triangle) rows screened by their boxes in one go; more pairs are screened in chunks.
SCREEN_ROWS = 1 << 20
#: Pairs of at most this many triangles together are stacked with the others; larger ones (sculpts) are measured
#: alone, on their own arrays: stacking would copy them and compute their corners and boxes again.
STACKED_TRIANGLES = 20_000


class StackedMeshes:
    """``meshes`` (a mesh listed twice is stacked twice) as one: row ``first[m] + t`` of the triangle arrays is
    triangle ``t`` of mesh ``m``, and vertex ``vertex_starts[m] + v`` vertex ``v`` of mesh ``m``. Every array is built
    on first use: the rows' corners, boxes and normals from each mesh's own (cached) ones, ``mesh`` the one mesh of
    all vertices and renumbered triangles, ``table`` its edges (each mesh's edge table renumbered: the table
    ``edge_table`` gives ``mesh``). A stack of a part of the rows (``kept``) holds the same meshes and vertices."""

    def __init__(self, meshes: Sequence[TriangleMesh]):
        self.meshes = list(meshes)
        self.counts = np.array([len(mesh.triangles) for mesh in self.meshes], dtype=np.int64)

    @cached_property
    def triangle_starts(self) -> np.ndarray:
        """(n + 1,) where each mesh's rows begin, and the number of rows."""
        return np.concatenate([[0], np.cumsum(self.counts)]).astype(np.int64)

    @property
    def first(self) -> np.ndarray:
        """(n,) each mesh's first row."""
        return self.triangle_starts[:-1]

    @cached_property
    def vertex_starts(self) -> np.ndarray:
        """(n + 1,) where each mesh's vertices begin, and the number of vertices."""
        return np.concatenate([[0], np.cumsum([len(mesh.vertices) for mesh in self.meshes])]).astype(np.int64)

    @cached_property
    def owner(self) -> np.ndarray:
        """(M,) each row's mesh."""
        return np.repeat(np.arange(len(self.meshes)), self.counts)

    @cached_property
    def vertex_owner(self) -> np.ndarray:
        """(V,) each vertex's mesh."""
        return np.repeat(np.arange(len(self.meshes)), np.diff(self.vertex_starts))

    @cached_property
    def vertices(self) -> np.ndarray:
        return _joined([mesh.vertices for mesh in self.meshes], (0, 3))

    @cached_property
    def ids(self) -> np.ndarray:
        """(M, 3) vertex ids of the rows, each mesh's numbered on from the vertices of those before it (distinct)."""
        return _joined([mesh.triangles + start for mesh, start in zip(self.meshes, self.vertex_starts.tolist())],
                       (0, 3)).astype(np.int64)

    @cached_property
    def corners(self) -> np.ndarray:
        return _joined([mesh.corners for mesh in self.meshes], (0, 3, 3))

    @cached_property
    def lows(self) -> np.ndarray:
        return _joined([mesh.lows for mesh in self.meshes], (0, 3))

    @cached_property
    def highs(self) -> np.ndarray:
        return _joined([mesh.highs for mesh in self.meshes], (0, 3))

    @cached_property
    def unit_normals(self) -> np.ndarray:
        """Unit normals of the rows (``triangle_distance.unit_normals``, as a mesh's tree holds them)."""
        return unit_normals(self.corners)

    @cached_property
    def scales(self) -> np.ndarray:
        """Each mesh's largest absolute coordinate (the scale of its rounding; 0 without vertices)."""
        scales = np.zeros(len(self.meshes))
        filled = np.flatnonzero(np.diff(self.vertex_starts) > 0)
        if len(filled):
            scales[filled] = np.maximum.reduceat(np.abs(self.vertices).max(axis=1), self.vertex_starts[filled])
        return scales

    @cached_property
    def vertex_boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """Each mesh's vertex box (meshes with vertices): (lows (n, 3), highs (n, 3)); a closed mesh's solid lies
        within it."""
        if not self.meshes:
            return np.empty((0, 3)), np.empty((0, 3))
        starts = self.vertex_starts[:-1]
        return np.minimum.reduceat(self.vertices, starts, axis=0), np.maximum.reduceat(self.vertices, starts, axis=0)

    @cached_property
    def vertex_means(self) -> np.ndarray:
        """(n, 3): each mesh's ``vertices.mean(axis=0)``, bit for bit. The meshes of one vertex count are averaged as
        one (k, count, 3) stack, whose rows numpy sums in the order it sums one mesh's alone (the tests check it
        against each mesh's own mean): a scene of a few kinds of objects costs a few calls, not one per mesh."""
        counts = np.diff(self.vertex_starts)
        means = np.empty((len(counts), 3))
        sizes, kind = np.unique(counts, return_inverse=True)
        for k, size in enumerate(sizes.tolist()):
            members = np.flatnonzero(kind == k)
            if len(members) == 1:
                means[members[0]] = self.meshes[members[0]].vertices.mean(axis=0)
            else:
                means[members] = self.vertices[self.vertex_starts[members][:, None] + np.arange(size)].mean(axis=1)
        return means

    @cached_property
    def table(self) -> EdgeTable:
        """The edges of ``mesh``: each mesh's edge table renumbered (its edges sort mesh after mesh, as
        ``edge_table(mesh)`` sorts them). One mesh alone has its own."""
        if len(self.meshes) == 1:
            return edge_table(self.meshes[0])
        tables = [edge_table(mesh) for mesh in self.meshes]
        edge_counts = np.array([len(table.edges) for table in tables], dtype=np.int64)
        edge_starts = np.concatenate([[0], np.cumsum(edge_counts)])
        return EdgeTable(
            np.concatenate([table.edges for table in tables]).reshape(-1, 2)
            + np.repeat(self.vertex_starts[:-1], edge_counts)[:, None],
            np.concatenate([table.triangle_edges for table in tables]).reshape(-1, 3)
            + edge_starts[self.owner][:, None],
            np.concatenate([table.forward for table in tables]).reshape(-1, 3),
            np.concatenate([table.uses for table in tables]), np.concatenate([table.forward_uses for table in tables]))

    @cached_property
    def mesh(self) -> TriangleMesh:
        """All the vertices and the rows' triangles as one mesh, with ``table`` as its edge table and the rows'
        corners; one mesh alone is itself (its cached arrays kept)."""
        if len(self.meshes) == 1:
            return self.meshes[0]
        mesh = TriangleMesh(self.vertices, self.ids)
        set_edge_table(mesh, self.table)
        mesh.__dict__["corners"] = self.corners
        return mesh

    @cached_property
    def triangle_box(self) -> tuple[np.ndarray, np.ndarray]:
        """(n, 3) lows and highs of each mesh's rows' boxes (infinite the wrong way round for none)."""
        count = len(self.meshes)
        low, high = np.full((count, 3), np.inf), np.full((count, 3), -np.inf)
        filled = np.flatnonzero(self.counts > 0)
        if len(filled):
            starts = self.triangle_starts[filled]
            low[filled] = np.minimum.reduceat(self.lows, starts, axis=0)
            high[filled] = np.maximum.reduceat(self.highs, starts, axis=0)
        return low, high

    def kept(self, keep: np.ndarray) -> "StackedMeshes":
        """The same meshes with only the rows where ``keep`` (M,) is True: their vertices and edges as they are (the
        edge table lists the edges of all rows, used or not)."""
        part = StackedMeshes.__new__(StackedMeshes)
        part.meshes = self.meshes
        part.counts = np.bincount(self.owner[keep], minlength=len(self.meshes)).astype(np.int64)
        table = self.table
        table = EdgeTable(table.edges, table.triangle_edges[keep], table.forward[keep], table.uses, table.forward_uses)
        mesh = TriangleMesh(self.mesh.vertices, self.mesh.triangles[keep])
        set_edge_table(mesh, table)
        rows = {name: getattr(self, name)[keep] for name in ("owner", "corners", "lows", "highs")}
        mesh.__dict__.update(corners=rows["corners"], lows=rows["lows"], highs=rows["highs"])
        part.__dict__.update(rows, vertex_starts=self.vertex_starts, vertices=self.mesh.vertices, ids=mesh.triangles,
                             table=table, mesh=mesh)
        return part


def _joined(parts: list[np.ndarray], empty: tuple[int, ...]) -> np.ndarray:
    """The arrays one after another (one alone is itself)."""
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)) if parts else np.empty(empty)


def stacked_together(pairs: list[tuple[TriangleMesh, TriangleMesh]]) -> list[bool]:
    """Which pairs are small enough to be stacked with others (``STACKED_TRIANGLES``); larger ones are measured alone."""
    return [len(a.triangles) + len(b.triangles) <= STACKED_TRIANGLES for a, b in pairs]


def pairings(counts_a: np.ndarray, counts_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair ``(i, j)``, i < counts_a[s], j < counts_b[s], of every segment ``s``, segment by segment and i-major
    within one: ``(segment, i, j, starts)``, ``starts`` each segment's first row (its length the segments')."""
    sizes = counts_a * counts_b
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    segment = np.repeat(np.arange(len(sizes)), sizes)
    local = np.arange(int(sizes.sum())) - starts[segment]
    width = counts_b[segment]
    return segment, local // width, local % width, starts


def segment_firsts(values: np.ndarray, segment: np.ndarray, count: int) -> np.ndarray:
    """Per segment (rows of a segment together, segments in increasing order), the first row holding the segment's
    smallest value, or -1 for a segment without rows."""
    first = np.full(count, -1, dtype=np.int64)
    if not len(values):
        return first
    opens = _run_starts(segment)
    smallest = np.minimum.reduceat(values, np.flatnonzero(opens))
    hits = np.flatnonzero(values == smallest[np.cumsum(opens) - 1])
    leading = hits[_run_starts(segment[hits])]
    first[segment[leading]] = leading
    return first


def _run_starts(keys: np.ndarray) -> np.ndarray:
    """Whether each of ``keys`` (1-D) begins a run of equal keys (the first always does)."""
    starts = np.empty(len(keys), dtype=bool)
    starts[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    return starts


def stacked_candidates(a: StackedMeshes, b: StackedMeshes, tolerances: np.ndarray, flat_pairs: int,
                       alone: Callable[[int], np.ndarray]) -> np.ndarray:
    """(K, 2) candidate triangle pairs (rows of stacked A, rows of stacked B) of the pairs (mesh k of A, mesh k of
    B), pair after pair: those of at most ``flat_pairs`` pairs of triangles near the other mesh (``_near_rows``: no
    other triangle can be in a candidate pair) screened all at once by their boxes within the pair's
    ``tolerances[k]``, in the order ``np.argwhere`` lists them; the larger pairs' from ``alone(k)`` (pairs of the
    meshes' own triangle indices, sorted)."""
    every = np.arange(len(tolerances))
    near_a, near_b = _near_rows(a, b, tolerances, every), _near_rows(b, a, tolerances, every)
    products = (np.bincount(a.owner[near_a], minlength=len(every))
                * np.bincount(b.owner[near_b], minlength=len(every)))
    flat = products <= flat_pairs
    found: list[np.ndarray] = [np.zeros((0, 2), dtype=np.int64)] * len(products)
    rows = np.flatnonzero(flat)
    while len(rows):
        taken = max(int(np.searchsorted(np.cumsum(products[rows]), SCREEN_ROWS, side="right")), 1)
        chunk, rows = rows[:taken], rows[taken:]
        chosen = np.zeros(len(every), dtype=bool)
        chosen[chunk] = True
        pair, kept = _flat_screen(a, b, tolerances, chunk, near_a[chosen[a.owner[near_a]]],
                                  near_b[chosen[b.owner[near_b]]])
        bounds = np.searchsorted(pair, np.append(chunk, chunk[-1] + 1))
        for k, first, last in zip(chunk.tolist(), bounds[:-1].tolist(), bounds[1:].tolist()):
            found[k] = kept[first:last]
    for k in np.flatnonzero(~flat).tolist():
        found[k] = alone(k) + [a.triangle_starts[k], b.triangle_starts[k]]
    return np.concatenate(found)


def _flat_screen(a: StackedMeshes, b: StackedMeshes, tolerances: np.ndarray, pairs: np.ndarray, rows_a: np.ndarray,
                 rows_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every triangle pair of the ``pairs`` (sorted) whose boxes meet within the pair's tolerance: (pair, (K, 2)
    stacked rows), pair by pair. Only the triangles whose boxes meet the other mesh's box within the tolerance,
    ``rows_a`` and ``rows_b`` (``_near_rows`` of those pairs), are paired: rounding is monotone, so a triangle
    failing against the box fails against each of its triangles."""
    count_a = np.bincount(a.owner[rows_a], minlength=len(tolerances))[pairs]
    count_b = np.bincount(b.owner[rows_b], minlength=len(tolerances))[pairs]
    start_a, start_b = np.cumsum(count_a) - count_a, np.cumsum(count_b) - count_b
    pair, i, j, _ = pairings(count_a, count_b)
    t, s = rows_a[start_a[pair] + i], rows_b[start_b[pair] + j]
    tolerance = tolerances[pairs][pair]
    for axis in range(3):  # axis by axis, on the rows still in: far fewer gathers than all three axes at once
        low_a, high_a, low_b, high_b = (box[:, axis] for box in (a.lows, a.highs, b.lows, b.highs))
        keep = (low_a[t] - tolerance <= high_b[s] + tolerance) & (low_b[s] - tolerance <= high_a[t] + tolerance)
        pair, t, s, tolerance = pair[keep], t[keep], s[keep], tolerance[keep]
    return pairs[pair], np.stack([t, s], axis=1)


def _near_rows(side: StackedMeshes, other: StackedMeshes, tolerances: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The rows of ``side``'s meshes k in ``pairs`` (sorted) whose boxes meet the box of ``other``'s mesh k's
    triangles within ``tolerances[k]``, as the pair test has it; pair by pair, in order."""
    counts = side.counts[pairs]
    owner = np.repeat(pairs, counts)
    rows = side.triangle_starts[owner] + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    low, high = other.triangle_box
    tolerance = tolerances[owner][:, None]
    near = ((side.lows[rows] - tolerance <= high[owner] + tolerance)
            & (low[owner] - tolerance <= side.highs[rows] + tolerance)).all(axis=1)
    return rows[near]
