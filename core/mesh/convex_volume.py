"""Overlap volume of convex closed meshes, many pairs at once, by clipping each surface with the other's face planes
in rounds (a few numpy operations per round for a whole batch).
See docs/architecture.md, section "Mesh: overlap volume of convex pairs".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..vector.arrays import cross, first_of_rows
from .trimesh import TriangleMesh, corner_highs, corner_lows
from .volume import overlap_volume

#: Plane distances (and plane differences, when merging a mesh's coplanar faces) below this fraction of
#: the pair's size are rounding: the point is on the plane.
SNAP = 1e-12
#: Corner-plane terms clipped in one batch; a pair needing more goes to ``overlap_volume``.
MAX_TERMS = 1 << 21
#: Meshes with more triangles than this go to ``overlap_volume``: finely tessellated round shapes have
#: triangles outside dozens of the other's planes, and clipping round by round no longer pays.
MAX_TRIANGLES = 256

_EDGE_START, _EDGE_END = np.array([0, 1, 2]), np.array([1, 2, 0])
_NO_PLANE = np.array([0.0, 0.0, 0.0, 1.0])  # every point 1 inside it: pads a pair's plane list


def convex_overlap_volume(mesh_a: TriangleMesh, mesh_b: TriangleMesh) -> tuple[float, np.ndarray | None]:
    """``(volume, centroid)`` of the region inside both convex, closed, outward meshes (``overlap_volume``'s
    contract, for convex meshes only: their face planes must bound them)."""
    return convex_overlap_volumes([(mesh_a, mesh_b)])[0]


def convex_overlap_volumes(pairs: Sequence[tuple[TriangleMesh, TriangleMesh]]) -> list[tuple[float, np.ndarray | None]]:
    """``[convex_overlap_volume(a, b) for a, b in pairs]``, clipped together in batches."""
    answers: list[tuple[float, np.ndarray | None] | None] = [None] * len(pairs)
    small = [k for k, (a, b) in enumerate(pairs) if max(len(a.triangles), len(b.triangles)) <= MAX_TRIANGLES]
    stack = _Triangles([mesh for k in small for mesh in pairs[k]])  # larger pairs are left to ``overlap_volume``
    nears: list = [None] * len(pairs)
    for k, near in zip(small, stack.nears([pairs[k] for k in small])):
        nears[k] = near
    for group in _batches(pairs, nears):
        batch = _ClippedBatch([pairs[k] for k in group], [nears[k] for k in group], stack)
        for k, answer in zip(group, batch.volumes()):
            answers[k] = answer
    return [answer if answer is not None else overlap_volume(*pairs[k]) for k, answer in enumerate(answers)]


class _Triangles:
    """The corners and boxes of the triangles of distinct meshes, stacked (mesh ``m``'s from row ``starts[id(m)]``,
    the same numbers as its own ``corners``, ``lows`` and ``highs``): what finding the pairs' near triangles and
    clipping them read, gathered in a few calls for all of them instead of a few per pair."""

    def __init__(self, meshes: list[TriangleMesh]):
        distinct = list({id(mesh): mesh for mesh in meshes}.values())
        counts = [len(mesh.triangles) for mesh in distinct]
        self.starts = dict(zip(map(id, distinct), np.cumsum([0] + counts[:-1]).tolist()))
        if not distinct:
            self.corners, self.lows, self.highs = np.empty((0, 3, 3)), np.empty((0, 3)), np.empty((0, 3))
            return
        vertex_starts = np.cumsum([0] + [len(mesh.vertices) for mesh in distinct[:-1]])
        triangles = np.concatenate([mesh.triangles for mesh in distinct]) + np.repeat(vertex_starts, counts)[:, None]
        self.corners = np.concatenate([mesh.vertices for mesh in distinct])[triangles]
        self.lows, self.highs = corner_lows(self.corners), corner_highs(self.corners)

    def rows(self, meshes: list[TriangleMesh], local: list[np.ndarray] | None = None) -> np.ndarray:
        """The stacked rows of the triangles of ``meshes``, mesh after mesh: all of each, or each one's at ``local``."""
        if local is None:
            local = [np.arange(len(mesh.triangles)) for mesh in meshes]
        counts = [len(rows) for rows in local]
        if not sum(counts):
            return np.empty(0, dtype=np.int64)
        starts = np.repeat(np.array([self.starts[id(mesh)] for mesh in meshes], dtype=np.int64), counts)
        return np.concatenate(local).astype(np.int64) + starts

    def nears(self, pairs: list[tuple[TriangleMesh, TriangleMesh]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(near A, near B)`` of every pair: each mesh's triangles whose boxes meet the other's box widened by the
        clipping's snap (``SNAP`` of the pair's size), every pair's triangles in one pass; the rest lie outside the
        other mesh. A face a rounding outside the other's face plane is clipped as lying on it, so it must be kept:
        a box and its copy moved by one ulp would lose that face from both sides."""
        if not pairs:
            return []
        low_a, high_a = (np.array(corner) for corner in zip(*(a.box for a, _b in pairs)))
        low_b, high_b = (np.array(corner) for corner in zip(*(b.box for _a, b in pairs)))
        snaps = SNAP * (np.maximum(high_b, high_a) - np.minimum(low_b, low_a)).max(axis=1)  # either way round
        meshes = [a for a, _b in pairs] + [b for _a, b in pairs]
        counts = [len(mesh.triangles) for mesh in meshes]
        owner = np.repeat(np.arange(len(meshes)), counts)
        rows = self.rows(meshes)
        snaps = np.concatenate([snaps, snaps])[:, None]
        highest, lowest = np.concatenate([high_b, high_a]) + snaps, np.concatenate([low_b, low_a]) - snaps
        near = np.all((self.lows[rows] <= highest[owner]) & (self.highs[rows] >= lowest[owner]), axis=1)
        kept = np.flatnonzero(near)
        found = np.bincount(owner[kept], minlength=len(meshes))
        sides = np.split(kept - np.repeat(np.cumsum([0] + counts[:-1]), found), np.cumsum(found)[:-1])
        return list(zip(sides[:len(pairs)], sides[len(pairs):]))


def _batches(pairs: Sequence[tuple[TriangleMesh, TriangleMesh]], nears: list) -> list[list[int]]:
    """Pair indices in batches of at most ``MAX_TERMS`` corner-plane terms (larger pairs, and those without
    ``nears``, are left out)."""
    batches, batch, corners, widest = [], [], 0, 0
    for k, ((a, b), near) in enumerate(zip(pairs, nears)):
        if near is None:
            continue
        count, width = 3 * (len(near[0]) + len(near[1])), max(len(a.triangles), len(b.triangles))
        if count * width > MAX_TERMS:
            continue
        if (corners + count) * max(widest, width) > MAX_TERMS:
            batches.append(batch)
            batch, corners, widest = [], 0, 0
        batch.append(k)
        corners, widest = corners + count, max(widest, width)
    if batch:
        batches.append(batch)
    return batches


def face_planes(corners: np.ndarray, pair: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """(K, F, 4): the unit normals and offsets ``(n, d)`` (``n . x <= d`` inside) of the triangles' planes, per
    pair (``pair`` says whose each triangle is), coplanar faces merged and the rest padded with a plane that
    everything is inside; triangles without area (no plane of their own) are left out."""
    normals = cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    length = np.sqrt(np.einsum("ij,ij->i", normals, normals))
    size = sizes[pair]
    flat = length > SNAP * size * size
    normals = normals[flat] / length[flat, None]
    offsets = np.einsum("ij,ij->i", normals, corners[flat].sum(axis=1) / 3.0)
    owner, size = pair[flat], size[flat]
    keys = np.column_stack([owner, np.round(normals / SNAP), np.round(offsets / (SNAP * size))])
    first = first_of_rows(keys)
    first = first[np.lexsort(keys[first].T[::-1])]  # sorted by pair first, as ``np.unique(keys, axis=0)`` sorts
    owner, planes = owner[first], np.column_stack([normals, offsets])[first]
    counts = np.bincount(owner, minlength=len(sizes))
    slot = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    padded = np.tile(_NO_PLANE, (len(sizes), max(1, int(counts.max(initial=0))), 1))
    padded[owner, slot] = planes
    return padded


class _ClippedBatch:
    """A batch of convex pairs in their pair-local frames (centred on the pair's box), with their planes."""

    def __init__(self, pairs: list[tuple[TriangleMesh, TriangleMesh]], nears: list[tuple[np.ndarray, np.ndarray]],
                 stack: _Triangles):
        low = np.minimum([a.box[0] for a, _b in pairs], [b.box[0] for _a, b in pairs])
        high = np.maximum([a.box[1] for a, _b in pairs], [b.box[1] for _a, b in pairs])
        self.origins, sizes = 0.5 * (low + high), (high - low).max(axis=1)
        self.snaps = SNAP * sizes
        self.sides = []
        for side in (0, 1):
            meshes, near = [pair[side] for pair in pairs], [pair_near[side] for pair_near in nears]
            owner = np.repeat(np.arange(len(pairs)), [len(mesh.triangles) for mesh in meshes])
            planes = face_planes(stack.corners[stack.rows(meshes)] - self.origins[owner, None, :], owner, sizes)
            owner = np.repeat(np.arange(len(pairs)), [len(rows) for rows in near])
            corners = stack.corners[stack.rows(meshes, near)]
            self.sides.append((owner, corners - self.origins[owner, None, :], planes))

    def volumes(self) -> list[tuple[float, np.ndarray | None] | None]:
        """Each pair's ``(volume, centroid)``; None for a pair whose clipping rounding made ambiguous."""
        (owner_a, corners_a, planes_a), (owner_b, corners_b, planes_b) = self.sides
        count = len(self.origins)
        (a_in_b, b_in_a), ambiguous = _clip(
            [(owner_a, corners_a, planes_b, True), (owner_b, corners_b, planes_a, False)], self.snaps)
        pair, c, p, q = (np.concatenate([a_in_b[k], b_in_a[k]]) for k in range(4))
        tetrahedra = np.einsum("ij,ij->i", c, cross(p, q)) / 6.0
        volume = np.bincount(pair, weights=tetrahedra, minlength=count)
        moments = np.stack([np.bincount(pair, weights=tetrahedra * axis, minlength=count)
                            for axis in (c + p + q).T], axis=1)
        return [None if ambiguous[k] else (0.0, None) if volume[k] <= 0.0 else
                (float(volume[k]), self.origins[k] + moments[k] / (4.0 * volume[k])) for k in range(count)]


def _clip(sides: list[tuple[np.ndarray, np.ndarray, np.ndarray, bool]], snaps: np.ndarray):
    """The pieces of every pair's triangles inside the other mesh's planes, per side ``(pair, triangles, planes,
    on_plane_inside)`` (A's triangles in B's planes, a point on one inside; B's in A's, outside): per side, boundary
    edges ``P -> Q`` with each piece's fan corner ``c``, ``(pair, c, P, Q)``; and the pairs the rounding made
    ambiguous.

    Triangles outside one plane are dropped and triangles inside all kept whole, without clipping; the
    others are clipped in rounds, each polygon by the next of the planes one of its corners is outside (both
    sides' polygons in the same rounds: each is clipped as it would be alone).
    """
    ambiguous = np.zeros(len(snaps), dtype=bool)
    wholes, cuts = [], []
    for pair, triangles, planes, on_plane_inside in sides:
        normals, offsets = planes[pair, :, :3], planes[pair, :, 3]
        distances = _snapped(np.einsum("tvj,tfj->tvf", triangles, normals) - offsets[:, None, :],
                             snaps[pair, None, None])
        inside = distances <= 0.0 if on_plane_inside else distances < 0.0
        outside_one = (~inside).all(axis=1).any(axis=1)
        whole = inside.all(axis=(1, 2))
        cut = ~outside_one & ~whole
        kept = triangles[whole]
        wholes.append((np.repeat(pair[whole], 3), np.repeat(kept[:, 0], 3, axis=0),
                       kept[:, _EDGE_START].reshape(-1, 3), kept[:, _EDGE_END].reshape(-1, 3)))
        needs = (~inside[cut]).any(axis=1)  # (C, F): the planes each cut triangle has a corner outside of
        wanted = np.argsort(~needs, axis=1, kind="stable")  # each polygon's planes to clip by come first
        rounds = needs.sum(axis=1)
        owners_pair = pair[cut]
        by_round = planes[owners_pair[:, None], wanted[:, :int(rounds.max(initial=0))]]  # each round's plane
        cuts.append((triangles[cut], owners_pair, rounds, by_round, np.full(len(rounds), on_plane_inside)))
    last = max(int(rounds.max(initial=0)) for _polygons, _pair, rounds, _planes, _inside in cuts)
    polygons, owners_pair, rounds, by_round, on_plane = (
        np.concatenate([part[k] if k != 3 else _columns(part[3], last) for part in cuts]) for k in range(5))
    start, end = polygons[:, _EDGE_START].reshape(-1, 3), polygons[:, _EDGE_END].reshape(-1, 3)
    owner = np.repeat(np.arange(len(polygons)), 3)
    # An edge's key orders the edges as if finished polygons had stayed in the rounds (their edges kept in place,
    # each round's closing edges after all others): the pieces, and so the volume's sums, come in the same order.
    key, stride = np.arange(len(start)), len(start) + 1
    polygon_snaps = snaps[owners_pair]
    done = []
    for step in range(last):  # round k: every polygon clipped by its k-th plane
        finished = rounds[owner] <= step  # leave the rounds: no later one changes them
        if finished.any():
            done.append((start[finished], end[finished], owner[finished], key[finished]))
            start, end, owner, key = start[~finished], end[~finished], owner[~finished], key[~finished]
        start, end, owner, key, mixed = _clip_round(start, end, owner, key, (step + 1) * stride, by_round[:, step],
                                                    polygon_snaps, on_plane)
        ambiguous[owners_pair[mixed]] = True
    if done:
        start, end, owner, key = (np.concatenate([part[k] for part in done] + [last])
                                  for k, last in enumerate((start, end, owner, key)))
        order = np.argsort(key)
        start, end, owner = start[order], end[order], owner[order]
    first_b = len(cuts[0][0])  # the first of side B's polygons: each side's edges apart, in the same order
    pieces = []
    for whole, edges in zip(wholes, (owner < first_b, owner >= first_b)):
        cut_owner = owner[edges]
        pieces.append(tuple(np.concatenate([part, more]) for part, more in zip(
            whole, (owners_pair[cut_owner], polygons[cut_owner, 0], start[edges], end[edges]))))
    return pieces, ambiguous


def _columns(planes: np.ndarray, count: int) -> np.ndarray:
    """``planes`` (C, R, 4) with ``count`` columns, padded with planes no round reads (each polygon's rounds end
    before them)."""
    return np.concatenate([planes, np.tile(_NO_PLANE, (len(planes), count - planes.shape[1], 1))], axis=1)


def _snapped(distances: np.ndarray, snap) -> np.ndarray:
    return np.where(np.abs(distances) <= snap, 0.0, distances)


def _clip_round(start, end, owner, key, closing_key, planes, snaps, on_plane_inside):
    """One round: clip the polygons (edges ``start -> end`` of polygon ``owner``, ordered by ``key``), each by its
    plane (one per polygon: every polygon still in the rounds has one); returns the new edges with their keys (a
    closing edge's: ``closing_key`` plus its polygon) and the polygons that left the half-space more than once.
    ``on_plane_inside`` says per polygon whether a point on its plane is inside.
    Only the edges that cross the plane get a cut point (the others keep their ends)."""
    plane, snap = planes[owner], snaps[owner]
    normal, offset = plane[:, :3], plane[:, 3]
    s_start = _snapped(np.einsum("ij,ij->i", start, normal) - offset, snap)
    s_end = _snapped(np.einsum("ij,ij->i", end, normal) - offset, snap)
    on_plane = on_plane_inside[owner]
    in_start = (s_start < 0.0) | (on_plane & (s_start == 0.0))  # ``<= 0`` where a point on the plane is inside
    in_end = (s_end < 0.0) | (on_plane & (s_end == 0.0))
    leaving, entering = in_start & ~in_end, ~in_start & in_end
    crossing = np.flatnonzero(leaving | entering)
    first, last = start[crossing], end[crossing]
    near, far = s_start[crossing], s_end[crossing]
    cut = first + np.clip(near / (near - far), 0.0, 1.0)[:, None] * (last - first)
    count = len(planes)
    leaves = leaving[crossing]
    exits = np.bincount(owner[crossing[leaves]], minlength=count)
    entries = np.bincount(owner[crossing[~leaves]], minlength=count)
    mixed = (exits > 1) | (exits != entries)
    exit_point, entry_point = np.zeros((count, 3)), np.zeros((count, 3))
    exit_point[owner[crossing[leaves]]] = cut[leaves]
    entry_point[owner[crossing[~leaves]]] = cut[~leaves]
    closed = np.flatnonzero(exits == 1)
    start, end = start.copy(), end.copy()
    start[crossing[~leaves]] = cut[~leaves]
    end[crossing[leaves]] = cut[leaves]
    kept = in_start | in_end
    return (np.concatenate([start[kept], exit_point[closed]]), np.concatenate([end[kept], entry_point[closed]]),
            np.concatenate([owner[kept], closed]), np.concatenate([key[kept], closing_key + closed]), mixed)
