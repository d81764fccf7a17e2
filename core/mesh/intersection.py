"""Where the surfaces of two triangle meshes meet: intersection curves (chained by the names of their ends, never by
comparing floats), regions and coplanar patches.
See docs/architecture.md, section "Mesh: intersection curves".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ..broadphase.sort_and_sweep import overlapping_pairs_between
from ..validation import as_length
from .bvh import TriangleBVH, leaf_pair_triangles, near_leaf_pairs
from .stacked import StackedMeshes, stacked_candidates, stacked_together
from .topology import EdgeTable, edge_table, label_components
from .triangle_intersection import (PairCrossings, TrianglePlanes, coplanar_mask, coplanar_overlap_areas, meeting_rows,
                                    pair_crossings, proper_mask)
from .trimesh import TriangleMesh

#: Default tolerance, relative to the larger mesh's size.
RELATIVE_TOLERANCE = 1e-9
#: Meshes with at most this many triangle pairs have all of them screened by their boxes at once, in one call: for a
#: few dozen triangles each that costs less than descending their trees (a few dozen calls, ~0.1 ms each).
FLAT_PAIRS = 16_384


def default_tolerance(mesh_a: TriangleMesh, mesh_b: TriangleMesh, tolerance: float | None) -> float:
    """``tolerance`` checked, or ``RELATIVE_TOLERANCE`` × the larger mesh's size when None."""
    if tolerance is None:
        return RELATIVE_TOLERANCE * max(mesh_a.size, mesh_b.size)
    return as_length(tolerance, "tolerance")


@dataclass
class MeshPairs:
    """Every candidate triangle pair of two meshes and how its triangles' edges pierce each other.

    ``pairs`` (K, 2): (triangle of A, triangle of B). ``crossings``: the ``PairCrossings`` of all pairs.
    ``tolerance`` and ``size`` (the larger mesh's): scalars, or one per pair when the meshes are stacks of many
    (``stacked``).
    """

    mesh_a: TriangleMesh
    mesh_b: TriangleMesh
    pairs: np.ndarray
    crossings: PairCrossings
    tolerance: float | np.ndarray
    size: float | np.ndarray

    @classmethod
    def build(cls, mesh_a: TriangleMesh, mesh_b: TriangleMesh, tolerance: float,
              trees: tuple[TriangleBVH, TriangleBVH] | None = None) -> "MeshPairs":
        """The candidate pairs (``candidate_pairs``) and their crossings."""
        return cls.of_pairs(mesh_a, mesh_b, candidate_pairs(mesh_a, mesh_b, tolerance, trees), tolerance,
                            max(mesh_a.size, mesh_b.size))

    @classmethod
    def of_pairs(cls, mesh_a: TriangleMesh, mesh_b: TriangleMesh, pairs: np.ndarray, tolerance: float | np.ndarray,
                 size: float | np.ndarray, meeting_only: bool = False) -> "MeshPairs":
        """The crossings of the given candidate ``pairs``; with ``meeting_only``, of those that may cross or lie in one
        plane (``meeting_rows``, every triangle's plane taken once) only: the others add no piercing, segment or
        patch."""
        known = None
        if meeting_only:
            keep, known = meeting_rows(TrianglePlanes.of(mesh_a.corners, mesh_a.area_normals), pairs[:, 0],
                                       TrianglePlanes.of(mesh_b.corners, mesh_b.area_normals), pairs[:, 1], tolerance,
                                       size)
            pairs = pairs[keep]
            tolerance, size = (value[keep] if isinstance(value, np.ndarray) else value for value in (tolerance, size))
        t, s = pairs[:, 0], pairs[:, 1]
        crossings = pair_crossings(mesh_a.corners[t], mesh_a.triangles[t], mesh_a.area_normals_of(t),
                                   mesh_b.corners[s], mesh_b.triangles[s], mesh_b.area_normals_of(s), known)
        return cls(mesh_a, mesh_b, pairs, crossings, tolerance, size)

    @cached_property
    def edges_a(self) -> EdgeTable:
        return edge_table(self.mesh_a)

    @cached_property
    def edges_b(self) -> EdgeTable:
        return edge_table(self.mesh_b)

    @cached_property
    def segment_mask(self) -> np.ndarray:
        return self.crossings.segment_mask

    @cached_property
    def _row_segments(self) -> tuple[np.ndarray, np.ndarray]:
        """Every row's segment start and end (K, 3) (``PairCrossings.segments``, meaningful where ``segment_mask``)."""
        return self.crossings.segments()

    @cached_property
    def segment_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """Start and end (S, 3) of the segments, oriented along n_t × n_s."""
        start, end = self._row_segments
        return start[self.segment_mask], end[self.segment_mask]

    @cached_property
    def segment_pairs(self) -> np.ndarray:
        return self.pairs[self.segment_mask]

    @cached_property
    def proper(self) -> np.ndarray:
        """(S,) segments where the surfaces cross for real, beyond the tolerance."""
        start, end = self._row_segments
        return proper_mask(self.crossings, start, end, self.tolerance)[self.segment_mask]

    def _piercing_keys(self) -> np.ndarray:
        """(K, 6) a name for every edge-piercing: (edge of A, triangle of B) or (edge of B, triangle of A)."""
        t, s = self.pairs[:, 0], self.pairs[:, 1]
        count_a, count_b = len(self.mesh_a.triangles), len(self.mesh_b.triangles)
        a_keys = self.edges_a.triangle_edges[t] * count_b + s[:, None]
        b_keys = len(self.edges_a.edges) * count_b + self.edges_b.triangle_edges[s] * count_a + t[:, None]
        return np.concatenate([a_keys, b_keys], axis=1)

    @cached_property
    def segment_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """Names (S,) of each segment's start and end piercing: equal names are the same point."""
        c = self.crossings
        crosses = np.concatenate([c.a_crosses, c.b_crosses], axis=1)
        starts = np.concatenate([c.a_starts, c.b_starts], axis=1)
        keys = self._piercing_keys()
        rows = np.arange(len(keys))
        first, last = np.argmax(crosses & starts, axis=1), np.argmax(crosses & ~starts, axis=1)
        return keys[rows, first][self.segment_mask], keys[rows, last][self.segment_mask]

    @cached_property
    def coplanar(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Coplanar pairs whose areas overlap: (pair indices, overlap areas, overlap centroids)."""
        flat = np.flatnonzero(coplanar_mask(self.crossings, self.tolerance))
        t, s = self.pairs[flat, 0], self.pairs[flat, 1]
        area, centroid = coplanar_overlap_areas(self.mesh_a.corners[t], self.mesh_b.corners[s],
                                                self.mesh_a.area_normals_of(t))
        floor = self.tolerance * self.size
        keep = area > (floor[flat] if isinstance(floor, np.ndarray) else floor)
        return flat[keep], area[keep], centroid[keep]


def candidate_pairs(mesh_a: TriangleMesh, mesh_b: TriangleMesh, tolerance: float,
                    trees: tuple[TriangleBVH, TriangleBVH] | None = None) -> np.ndarray:
    """(K, 2) pairs (triangle of A, triangle of B), sorted, whose boxes overlap once widened by ``tolerance`` (all
    pairs screened at once for small meshes, ``FLAT_PAIRS``).

    With the meshes' ``trees``, only the triangle pairs of leaf pairs whose node boxes (aligned and oriented)
    come within 2 sqrt(3) x ``tolerance`` are looked at: that leaves out pairs of the sweep whose triangles
    are further apart than that, which can neither cross nor be coplanar within the tolerance (on round
    meshes meeting over a cap, about a tenth of the candidates and half the time of the sweep)."""
    if len(mesh_a.triangles) * len(mesh_b.triangles) <= FLAT_PAIRS:
        return np.argwhere(((mesh_a.lows[:, None] - tolerance <= mesh_b.highs + tolerance)
                            & (mesh_b.lows - tolerance <= mesh_a.highs[:, None] + tolerance)).all(axis=2))
    if trees is None:
        return overlapping_pairs_between(mesh_a.lows, mesh_a.highs, mesh_b.lows, mesh_b.highs, margin=tolerance)
    tree_a, tree_b = trees
    leaves_a, leaves_b = near_leaf_pairs(tree_a, tree_b, 2.0 * np.sqrt(3.0) * tolerance)
    t, s = leaf_pair_triangles(tree_a, leaves_a, tree_b, leaves_b)
    keep = ((mesh_a.lows[t] - tolerance <= mesh_b.highs[s] + tolerance)
            & (mesh_b.lows[s] - tolerance <= mesh_a.highs[t] + tolerance)).all(axis=1)
    pairs = np.stack([t[keep], s[keep]], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _rank_to_end(following: np.ndarray) -> np.ndarray:
    """Steps from each node to the end of its chain (``following`` = -1 at ends), by pointer jumping."""
    distance = (following >= 0).astype(np.int64)
    jump = following.copy()
    while (jump >= 0).any():
        live = jump >= 0
        distance[live] += distance[jump[live]]
        nxt = np.full_like(jump, -1)
        nxt[live] = jump[jump[live]]
        jump = nxt
    return distance


def chain_segments(start_keys: np.ndarray, end_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order segments into chains by their end names: ``(order, chain_of_segment, closed_per_chain)``.

    ``order`` lists segment indices chain by chain, each chain from its first to its last segment;
    ``chain_of_segment`` (S,) numbers the chains 0..C-1 in that order; ``closed_per_chain`` (C,) says
    which chains are loops (their last segment ends where the first starts).
    """
    count = len(start_keys)
    if not count:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
    by_start = np.argsort(start_keys, kind="stable")
    at = np.minimum(np.searchsorted(start_keys[by_start], end_keys), count - 1)
    following = np.where(start_keys[by_start[at]] == end_keys, by_start[at], -1)
    following[following == np.arange(count)] = -1
    targets = np.flatnonzero(following >= 0)
    _, first_claim = np.unique(following[targets], return_index=True)
    shared = np.ones(len(targets), bool)
    shared[first_claim] = False
    following[targets[shared]] = -1  # one predecessor per segment: chains are simple paths or loops
    linked = following >= 0
    root, _ = label_components(count, np.flatnonzero(linked), following[linked])
    has_predecessor = np.zeros(count, bool)
    has_predecessor[following[linked]] = True
    open_chain = np.zeros(count, bool)
    open_chain[root[~has_predecessor]] = True
    closed = ~open_chain[root]
    cut = closed & (following == root)  # a loop is opened just before its smallest segment
    following = np.where(cut, -1, following)
    rank = _rank_to_end(following)
    order = np.lexsort((-rank, root))
    _, chain_sorted = np.unique(root[order], return_inverse=True)
    chain = np.empty(count, np.int64)
    chain[order] = chain_sorted.reshape(-1)
    closed_per_chain = np.zeros(chain_sorted.max() + 1, bool)
    closed_per_chain[chain] = closed
    return order, chain, closed_per_chain


@dataclass(frozen=True)
class CoplanarPatch:
    """Faces of A and B lying in one plane and overlapping: ``triangles_a``, ``triangles_b`` (indices),
    ``area`` (the overlap area), ``normal`` (unit normal of A's face with the largest overlap; a patch
    may bend over an edge where both surfaces coincide), ``same_orientation`` (B's faces
    face the same way: the solids lie on the same side; False when they face each other, touching), and
    ``point`` (a point of the overlap)."""

    triangles_a: np.ndarray
    triangles_b: np.ndarray
    area: float
    normal: np.ndarray
    same_orientation: bool
    point: np.ndarray


@dataclass(frozen=True)
class Region:
    """One connected place where the surfaces meet: ``curves`` and ``patches`` (indices into the
    result's lists), ``segments`` (indices), ``point`` (a representative point on it), and ``crossing``
    (True when the surfaces cross there for real, beyond the tolerance, not only touch)."""

    curves: np.ndarray
    segments: np.ndarray
    patches: np.ndarray
    point: np.ndarray
    crossing: bool


@dataclass(frozen=True)
class SurfaceIntersection:
    """The intersection of two triangle-mesh surfaces (``surface_intersection``'s result).

    - ``segments`` (S, 2, 3): each triangle pair's intersection segment, oriented along n_a × n_b (for
      closed outward meshes, B's inside lies to the left seen from A's outside), ``segment_triangles``
      (S, 2): the (A, B) triangle indices, ``proper`` (S,): the surfaces cross there for real (beyond
      the tolerance; touching contacts resolve to segments with ``proper`` False, or to none).
    - ``curves``: list of (n, 3) polylines, in order; ``closed`` (C,): loops (the first point is not
      repeated at the end); ``curve_of_segment`` (S,).
    - ``patches``: list of ``CoplanarPatch`` (coplanar faces whose areas overlap).
    - ``regions``: list of ``Region``: curves and patches joined through the intersected triangles.
    - ``crossing``: any proper segment: the surfaces cross (the objects interpenetrate).
    - ``shares_interior``: they cross, or coplanar faces overlap with both solids on the same side
      (``surfaces_overlap``'s answer; a patch may bend from faces facing the same way to faces facing each
      other, so its ``same_orientation``, the majority's, does not say it).
    """

    segments: np.ndarray
    segment_triangles: np.ndarray
    proper: np.ndarray
    curves: list
    closed: np.ndarray
    curve_of_segment: np.ndarray
    patches: list
    regions: list
    tolerance: float
    shares_interior: bool

    @property
    def crossing(self) -> bool:
        return bool(self.proper.any())


def _curves(pairs: MeshPairs) -> tuple[list, np.ndarray, np.ndarray]:
    """The chained segments' polylines: each chain's segment starts in order, and an open chain's last end after
    them; gathered at once, each curve a slice."""
    start, end = pairs.segment_ends
    order, chain, closed = chain_segments(*pairs.segment_keys)
    if not len(order):
        return [], closed, chain
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(chain[order])) + 1, [len(order)]])
    opened = (~closed).astype(np.int64)
    before = np.cumsum(opened) - opened  # open chains before each chain: each adds its last end
    places = np.concatenate([[0], np.cumsum(np.diff(bounds) + opened)])
    rows = np.empty(places[-1], dtype=np.int64)
    rows[np.arange(len(order)) + np.repeat(before, np.diff(bounds))] = order
    rows[places[1:][~closed] - 1] = len(start) + order[bounds[1:][~closed] - 1]
    points = np.concatenate([start, end])[rows]
    places = places.tolist()
    return [points[first:last] for first, last in zip(places[:-1], places[1:])], closed, chain


def _patch_groups(pairs: MeshPairs):
    """Coplanar overlapping pairs grouped into patches (connected through shared vertices)."""
    flat, area, centroid = pairs.coplanar
    t, s = pairs.pairs[flat, 0], pairs.pairs[flat, 1]
    labels = _group_by_vertices(pairs, t, s)
    patches = []
    for label in np.unique(labels):
        members = labels == label
        normals = pairs.mesh_a.area_normals_of(t[members])
        weights = area[members]
        facing = np.einsum("ij,ij->i", normals, pairs.mesh_b.area_normals_of(s[members]))
        best = np.argmax(weights)
        same = weights[facing > 0].sum() > weights[facing <= 0].sum()
        patches.append(CoplanarPatch(np.unique(t[members]), np.unique(s[members]), float(weights.sum()),
                                     normals[best] / np.linalg.norm(normals[best]), bool(same),
                                     centroid[members][best]))
    return patches, t, s, labels


def _group_by_vertices(pairs: MeshPairs, t: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Component label per (t, s) pair: pairs join when their triangles share a vertex in either mesh."""
    offset = len(pairs.mesh_a.vertices)
    tri_a, tri_b = pairs.mesh_a.triangles[t], pairs.mesh_b.triangles[s] + offset
    first = np.concatenate([tri_a[:, 0], tri_a[:, 0], tri_a[:, 1], tri_b[:, 0], tri_b[:, 1]])
    second = np.concatenate([tri_b[:, 0], tri_a[:, 1], tri_a[:, 2], tri_b[:, 1], tri_b[:, 2]])
    root, _ = label_components(offset + len(pairs.mesh_b.vertices), first, second)
    return root[tri_a[:, 0]]


def _regions(pairs: MeshPairs, chain: np.ndarray, patch_labels_info) -> list:
    patches, patch_t, patch_s, patch_labels = patch_labels_info
    seg_t, seg_s = pairs.segment_pairs[:, 0], pairs.segment_pairs[:, 1]
    labels = _group_by_vertices(pairs, np.concatenate([seg_t, patch_t]), np.concatenate([seg_s, patch_s]))
    segment_labels, pair_patch_labels = labels[:len(seg_t)], labels[len(seg_t):]
    _, patch_first = np.unique(patch_labels, return_index=True)  # patches are numbered in label order
    patch_region_labels = pair_patch_labels[patch_first]
    start, end = pairs.segment_ends
    middles, lengths = 0.5 * (start + end), np.linalg.norm(end - start, axis=1)
    regions = []
    for label in np.unique(labels):
        segments = np.flatnonzero(segment_labels == label)
        patch_ids = np.flatnonzero(patch_region_labels == label)
        if len(segments):
            weights = lengths[segments] + 1e-300
            center = (middles[segments] * weights[:, None]).sum(axis=0) / weights.sum()
            point = middles[segments][np.argmin(np.linalg.norm(middles[segments] - center, axis=1))]
        else:
            point = patches[patch_ids[0]].point
        regions.append(Region(np.unique(chain[segments]), segments, patch_ids, point,
                              bool(pairs.proper[segments].any())))
    return regions


def surface_intersection(mesh_a: TriangleMesh, mesh_b: TriangleMesh, tolerance: float | None = None,
                         trees: tuple[TriangleBVH, TriangleBVH] | None = None) -> SurfaceIntersection:
    """Intersection curves, coplanar patches and regions of the surfaces of A and B.

    See ``SurfaceIntersection`` for the result.

    ``tolerance`` (absolute; None = 1e-9 × the larger mesh's size) decides coplanarity and whether a
    crossing is real or only touching. Works on any meshes; on closed meshes the curves are closed loops.
    ``trees``, the meshes' triangle trees, find the candidate pairs faster (``candidate_pairs``).
    """
    pairs = MeshPairs.build(mesh_a, mesh_b, default_tolerance(mesh_a, mesh_b, tolerance), trees)
    curves, closed, chain = _curves(pairs)
    patch_info = _patch_groups(pairs)
    start, end = pairs.segment_ends
    return SurfaceIntersection(np.stack([start, end], axis=1), pairs.segment_pairs, pairs.proper, curves,
                               closed, chain, patch_info[0], _regions(pairs, chain, patch_info), pairs.tolerance,
                               _shares_interior(pairs))


class CrossingRows(NamedTuple):
    """Where a pair's candidate triangle pairs and their crossings sit in the ``MeshPairs`` of the stacked pairs it
    was measured with (``surface_crossings``): rows ``start:stop`` of ``found``, the pair's triangles numbered from
    ``first_a`` and ``first_b`` there; ``mesh_a`` and ``mesh_b`` the pair's meshes. The overlap volume takes its
    crossings from them (``volume.overlap_volumes``) instead of finding them again."""

    found: MeshPairs
    mesh_a: TriangleMesh
    mesh_b: TriangleMesh
    first_a: int
    first_b: int
    start: int
    stop: int


class CrossingCurves(NamedTuple):
    """What a pair's check needs of its surfaces' intersection (``surface_crossings``): ``curves``, ``closed`` and
    ``shares_interior`` as ``surface_intersection`` gives them; ``rows`` where its crossings are kept (pairs measured
    stacked), else None."""

    curves: list
    closed: np.ndarray
    shares_interior: bool
    rows: CrossingRows | None = None


def surface_crossings(pairs: list[tuple[TriangleMesh, TriangleMesh]],
                      trees: Callable[[int], tuple[TriangleBVH, TriangleBVH]] | None = None) -> list[CrossingCurves]:
    """The curves and whether the surfaces share interior, as ``surface_intersection(a, b, trees=...)`` gives them
    (the same numbers), for every pair (A, B): small pairs' meshes are stacked (``stacked``) and their candidate
    triangle pairs crossed and chained together, so many small pairs cost about one pair of their total size;
    pairs with too many triangles near each other to screen every such triangle pair at once find their candidates
    alone (down ``trees(k)``, pair k's trees, asked for only then: building a tree costs more than a flat screen),
    and pairs too large to stack (``stacked_together``) are measured by ``surface_intersection``."""
    answers: list[CrossingCurves | None] = [None] * len(pairs)
    together = stacked_together(pairs)
    for k in [k for k, small in enumerate(together) if not small]:
        found = surface_intersection(*pairs[k], trees=None if trees is None else trees(k))
        answers[k] = CrossingCurves(found.curves, found.closed, found.shares_interior)
    small = [k for k, small in enumerate(together) if small]
    for k, answer in zip(small, _stacked_crossings([pairs[k] for k in small],
                                                   None if trees is None else lambda m: trees(small[m]))):
        answers[k] = answer
    return answers


def _stacked_crossings(pairs: list[tuple[TriangleMesh, TriangleMesh]],
                       trees: Callable[[int], tuple[TriangleBVH, TriangleBVH]] | None) -> list[CrossingCurves]:
    if not pairs:
        return []
    stack_a, stack_b = StackedMeshes([a for a, _ in pairs]), StackedMeshes([b for _, b in pairs])
    tolerances = np.array([default_tolerance(a, b, None) for a, b in pairs])
    sizes = np.array([max(a.size, b.size) for a, b in pairs])
    rows = stacked_candidates(stack_a, stack_b, tolerances, FLAT_PAIRS, lambda k: candidate_pairs(
        *pairs[k], float(tolerances[k]), None if trees is None else trees(k)))
    owner = stack_a.owner[rows[:, 0]]
    found = MeshPairs.of_pairs(stack_a.mesh, stack_b.mesh, rows, tolerances[owner], sizes[owner], meeting_only=True)
    curves, closed, chain = _curves(found)
    segment_owner = stack_a.owner[found.segment_pairs[:, 0]]
    chain_owner = np.zeros(len(closed), dtype=np.int64)
    chain_owner[chain] = segment_owner
    shares = np.zeros(len(pairs), dtype=bool)
    shares[segment_owner[found.proper]] = True
    flat = found.coplanar[0]
    t, s = found.pairs[flat, 0], found.pairs[flat, 1]
    facing = np.einsum("ij,ij->i", stack_a.mesh.area_normals[t], stack_b.mesh.area_normals[s]) > 0.0
    shares[stack_a.owner[t[facing]]] = True
    bounds = np.searchsorted(chain_owner, np.arange(len(pairs) + 1))
    row_bounds = np.searchsorted(stack_a.owner[found.pairs[:, 0]], np.arange(len(pairs) + 1)).tolist()
    rows = [CrossingRows(found, a, b, first_a, first_b, start, stop) for (a, b), first_a, first_b, start, stop in zip(
        pairs, stack_a.first.tolist(), stack_b.first.tolist(), row_bounds[:-1], row_bounds[1:])]
    return [CrossingCurves(curves[first:last], closed[first:last], bool(shared), pair_rows)
            for first, last, shared, pair_rows in zip(bounds[:-1].tolist(), bounds[1:].tolist(), shares.tolist(),
                                                       rows)]


def surfaces_overlap(mesh_a: TriangleMesh, mesh_b: TriangleMesh, tolerance: float | None = None,
                     trees: tuple[TriangleBVH, TriangleBVH] | None = None) -> bool:
    """True when the surfaces cross for real or share coplanar faces with both solids on the same side.

    Either means the solids share interior (for closed meshes); surfaces that only touch, face to face
    or along edges, give False. Cheaper than ``surface_intersection``: no curves or regions are built.
    ``trees`` as for ``surface_intersection``.
    """
    return _shares_interior(MeshPairs.build(mesh_a, mesh_b, default_tolerance(mesh_a, mesh_b, tolerance), trees))


def _shares_interior(pairs: MeshPairs) -> bool:
    """Some pair crosses for real, or some coplanar pair overlaps with B's face facing the way A's does."""
    if pairs.proper.any():
        return True
    flat = pairs.coplanar[0]
    t, s = pairs.pairs[flat, 0], pairs.pairs[flat, 1]
    facing = np.einsum("ij,ij->i", pairs.mesh_a.area_normals_of(t), pairs.mesh_b.area_normals_of(s))
    return bool((facing > 0.0).any())


def surfaces_cross(mesh_a: TriangleMesh, mesh_b: TriangleMesh, tolerance: float | None = None) -> bool:
    """True when the surfaces of A and B cross for real somewhere (beyond ``tolerance``), not only touch.

    A pair counts when each triangle has corners more than the tolerance on both sides of the other's
    plane and their intersection is longer than the tolerance. Surfaces that only touch (coincident
    faces, edge or vertex contacts, a push-out that reached contact) give False; so does one surface
    wholly inside the other (see ``winding.contains``). A crossing that runs only through mesh vertices
    lying exactly on the other surface is also reported as touching.
    """
    pairs = MeshPairs.build(mesh_a, mesh_b, default_tolerance(mesh_a, mesh_b, tolerance))
    return bool(pairs.proper.any())
