"""Many small mesh pairs measured as one: every pair's meshes stacked into two big meshes (vertices, triangles and
edges renumbered with offsets) and their candidate triangle pairs listed together, so one pass of the exact crossing
tests serves them all and gives each pair the numbers it gets alone (the tests are row by row, the renumbering keeps
every order within a pair). See docs/architecture.md, "Mesh: many small pairs at once"."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .many_meshes import pairings
from .topology import EdgeTable, edge_table, set_edge_table
from .trimesh import TriangleMesh

#: Candidate (triangle, triangle) rows screened by their boxes in one go; more pairs are screened in chunks.
SCREEN_ROWS = 1 << 20
#: Pairs of at most this many triangles together are stacked with the others; larger ones (sculpts) are measured
#: alone, on their own arrays: stacking would copy them and compute their corners and boxes again.
STACKED_TRIANGLES = 20_000


@dataclass(frozen=True, eq=False)
class StackedMeshes:
    """Meshes (or parts of them) as one: ``mesh`` holds every mesh's vertices and its kept triangles renumbered,
    ``table`` their edges (each mesh's own edge table, renumbered; its edges only, used or not); ``vertex_starts``,
    ``triangle_starts`` (n + 1,) where each mesh's vertices and triangles begin; ``owner`` (M,) each triangle's
    mesh."""

    mesh: TriangleMesh
    table: EdgeTable
    vertex_starts: np.ndarray
    triangle_starts: np.ndarray
    owner: np.ndarray

    def counts(self) -> np.ndarray:
        """(n,) triangles kept per mesh."""
        return np.diff(self.triangle_starts)

    @cached_property
    def triangle_box(self) -> tuple[np.ndarray, np.ndarray]:
        """(n, 3) lows and highs of each mesh's kept triangles' boxes (infinite the wrong way round for none)."""
        count = len(self.triangle_starts) - 1
        low, high = np.full((count, 3), np.inf), np.full((count, 3), -np.inf)
        filled = np.flatnonzero(self.counts() > 0)
        if len(filled):
            starts = self.triangle_starts[filled]
            low[filled] = np.minimum.reduceat(self.mesh.lows, starts, axis=0)
            high[filled] = np.maximum.reduceat(self.mesh.highs, starts, axis=0)
        return low, high

    def kept(self, keep: np.ndarray) -> "StackedMeshes":
        """The same meshes with only the triangles where ``keep`` (M,) is True (vertices and edges as they are)."""
        mesh = TriangleMesh(self.mesh.vertices, self.mesh.triangles[keep])
        table = EdgeTable(self.table.edges, self.table.triangle_edges[keep], self.table.forward[keep],
                          self.table.uses, self.table.forward_uses)
        set_edge_table(mesh, table)
        counts = np.bincount(self.owner[keep], minlength=len(self.triangle_starts) - 1)
        return StackedMeshes(mesh, table, self.vertex_starts, np.concatenate([[0], np.cumsum(counts)]),
                             self.owner[keep])


def stacked_together(pairs: list[tuple[TriangleMesh, TriangleMesh]]) -> list[bool]:
    """Which pairs are small enough to be stacked with others (``STACKED_TRIANGLES``); larger ones are measured alone."""
    return [len(a.triangles) + len(b.triangles) <= STACKED_TRIANGLES for a, b in pairs]


def stack_meshes(meshes: list[TriangleMesh]) -> StackedMeshes:
    """The meshes as one (``StackedMeshes``); a mesh listed twice is stacked twice, one mesh alone is itself (its
    cached arrays kept)."""
    if len(meshes) == 1:
        mesh = meshes[0]
        count = len(mesh.triangles)
        return StackedMeshes(mesh, edge_table(mesh), np.array([0, len(mesh.vertices)]), np.array([0, count]),
                             np.zeros(count, dtype=np.int64))
    vertex_counts = np.array([len(mesh.vertices) for mesh in meshes], dtype=np.int64)
    triangle_counts = np.array([len(mesh.triangles) for mesh in meshes], dtype=np.int64)
    tables = [edge_table(mesh) for mesh in meshes]
    edge_counts = np.array([len(table.edges) for table in tables], dtype=np.int64)
    vertex_starts = np.concatenate([[0], np.cumsum(vertex_counts)])
    triangle_starts = np.concatenate([[0], np.cumsum(triangle_counts)])
    edge_starts = np.concatenate([[0], np.cumsum(edge_counts)])
    owner = np.repeat(np.arange(len(meshes)), triangle_counts)
    mesh = TriangleMesh(np.concatenate([mesh.vertices for mesh in meshes]).reshape(-1, 3),
                        np.concatenate([mesh.triangles for mesh in meshes]).reshape(-1, 3)
                        + vertex_starts[owner][:, None])
    table = EdgeTable(
        np.concatenate([table.edges for table in tables]).reshape(-1, 2)
        + np.repeat(vertex_starts[:-1], edge_counts)[:, None],
        np.concatenate([table.triangle_edges for table in tables]).reshape(-1, 3) + edge_starts[owner][:, None],
        np.concatenate([table.forward for table in tables]).reshape(-1, 3),
        np.concatenate([table.uses for table in tables]), np.concatenate([table.forward_uses for table in tables]))
    set_edge_table(mesh, table)
    return StackedMeshes(mesh, table, vertex_starts, triangle_starts, owner)


def stacked_candidates(a: StackedMeshes, b: StackedMeshes, tolerances: np.ndarray, flat_pairs: int,
                       alone: Callable[[int], np.ndarray]) -> np.ndarray:
    """(K, 2) candidate triangle pairs (rows of stacked A, rows of stacked B) of the pairs (mesh k of A, mesh k of
    B), pair after pair: those of at most ``flat_pairs`` triangle pairs whose boxes meet within the pair's
    ``tolerances[k]``, screened all at once, in the order ``np.argwhere`` lists them; the larger pairs' from
    ``alone(k)`` (pairs of the meshes' own triangle indices, sorted)."""
    count_a, count_b = a.counts(), b.counts()
    products = count_a * count_b
    flat = products <= flat_pairs
    found: list[np.ndarray] = [np.zeros((0, 2), dtype=np.int64)] * len(products)
    rows = np.flatnonzero(flat)
    while len(rows):
        taken = max(int(np.searchsorted(np.cumsum(products[rows]), SCREEN_ROWS, side="right")), 1)
        chunk, rows = rows[:taken], rows[taken:]
        pair, kept = _flat_screen(a, b, tolerances, chunk)
        bounds = np.searchsorted(pair, np.append(chunk, chunk[-1] + 1))
        for k, first, last in zip(chunk.tolist(), bounds[:-1].tolist(), bounds[1:].tolist()):
            found[k] = kept[first:last]
    for k in np.flatnonzero(~flat).tolist():
        found[k] = alone(k) + [a.triangle_starts[k], b.triangle_starts[k]]
    return np.concatenate(found)


def _flat_screen(a: StackedMeshes, b: StackedMeshes, tolerances: np.ndarray, pairs: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Every triangle pair of the ``pairs`` (sorted) whose boxes meet within the pair's tolerance: (pair, (K, 2)
    stacked rows), pair by pair. Only the triangles whose boxes meet the other mesh's box within the tolerance are
    paired: rounding is monotone, so a triangle failing against the box fails against each of its triangles."""
    rows_a, rows_b = _near_rows(a, b, tolerances, pairs), _near_rows(b, a, tolerances, pairs)
    count_a = np.bincount(a.owner[rows_a], minlength=len(tolerances))[pairs]
    count_b = np.bincount(b.owner[rows_b], minlength=len(tolerances))[pairs]
    start_a, start_b = np.cumsum(count_a) - count_a, np.cumsum(count_b) - count_b
    pair, i, j, _ = pairings(count_a, count_b)
    t, s = rows_a[start_a[pair] + i], rows_b[start_b[pair] + j]
    tolerance = tolerances[pairs][pair][:, None]
    keep = ((a.mesh.lows[t] - tolerance <= b.mesh.highs[s] + tolerance)
            & (b.mesh.lows[s] - tolerance <= a.mesh.highs[t] + tolerance)).all(axis=1)
    return pairs[pair[keep]], np.stack([t[keep], s[keep]], axis=1)


def _near_rows(side: StackedMeshes, other: StackedMeshes, tolerances: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The rows of ``side``'s meshes k in ``pairs`` (sorted) whose boxes meet the box of ``other``'s mesh k's
    triangles within ``tolerances[k]``, as the pair test has it; pair by pair, in order."""
    counts = side.counts()[pairs]
    owner = np.repeat(pairs, counts)
    rows = side.triangle_starts[owner] + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    low, high = other.triangle_box
    tolerance = tolerances[owner][:, None]
    near = ((side.mesh.lows[rows] - tolerance <= high[owner] + tolerance)
            & (low[owner] - tolerance <= side.mesh.highs[rows] + tolerance)).all(axis=1)
    return rows[near]
