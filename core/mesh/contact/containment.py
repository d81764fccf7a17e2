"""Whether two solids share interior: surfaces crossing or sharing faces, or a vertex of one inside the other deeper
than the tolerance (exact winding numbers); also for a batch of translations of one of them at once
(``shares_interior_after``, what a push-out's search asks)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...broadphase.sort_and_sweep import overlapping_pairs_between
from ...vector.arrays import cross, dot, largest3, smallest3
from ..bvh import TriangleBVH
from ..distance import nearest_on_surface
from ..intersection import FLAT_PAIRS, RELATIVE_TOLERANCE, default_tolerance, surfaces_overlap
from ..inside import beyond_slabs, crossing_windings, stacked_crossing_windings
from ..pair_distances import nearest_distances
from ..solid import Solid
from ..stacked import StackedMeshes, pairings
from ..triangle_intersection import (apart_on_common_line, coplanar_overlap_areas, pair_crossings, plane_heights,
                                     proper_mask)
from ..trimesh import TriangleMesh

#: Pairs of meshes with at most this many triangle pairs have a push-out's batches of offsets answered in one pass
#: (``shares_interior_after``; 8 tori against 2,000-triangle blobs: 0.6-0.7 s where offset by offset took 1.0-1.2 s);
#: larger ones, sculpts, offset by offset down their trees, the smaller object moved (``share_interior_moved``).
BATCHED_TRIANGLE_PAIRS = 1 << 22
#: ``shares_interior_after`` tests every offset's candidates in one pass while there are at most this many (triangle
#: pair, offset) candidates; beyond, the offsets are tested one at a time (``share_interior_moved``, down the trees).
BATCH_CANDIDATES = 200_000
#: ``vertices_poke_in`` tests points in meshes of at most this many triangles without their trees, every such mesh's
#: points in one pass (``stacked_crossing_windings``, ``nearest_distances``: the same answers as down the trees).
STACKED_TRIANGLES = 1024
#: Larger objects have their tree built for it when they have none yet; smaller ones are tested without.
TREE_TRIANGLES = 1 << 16
#: ``vertices_poke_in`` gathers the vertices of meshes of at most this many vertices in one pass (their vertices
#: stacked); larger ones' (sculpts) are gathered mesh by mesh, without copying them.
STACKED_VERTICES = 1 << 16


def boxes_apart(a: Solid, b: Solid) -> bool:
    """The objects' boxes are further apart than ``surface_intersection``'s tolerance: no two triangles can
    cross or touch there, and no vertex of one can lie inside the other."""
    (low_a, high_a), (low_b, high_b) = a.bounds, b.bounds
    gap = float(np.maximum(low_b - high_a, low_a - high_b).max())
    return gap > default_tolerance(a.mesh, b.mesh, None)


def share_interior(a: Solid, b: Solid, crossing=None) -> bool:
    """The objects share interior: surfaces cross, coplanar faces overlap with both solids on the same side,
    one object lies inside the other, or their surfaces meet and a vertex of one pokes into the other
    (``vertices_poke_in``). Surfaces that only touch are not overlapping."""
    return share_interior_many([(a, b, crossing)])[0]


def share_interior_many(requests: list[tuple[Solid, Solid, object]]) -> list[bool]:
    """``share_interior`` of several ``(a, b, crossing)`` (``crossing`` may be None), the vertices of every pair
    whose surfaces do not share interior tested together (``vertices_poke_in``)."""
    answers = []
    for a, b, crossing in requests:
        if crossing is None:
            shared = surfaces_overlap(a.mesh, b.mesh, trees=(a.bvh, b.bvh))
        else:
            shared = crossing.shares_interior
        answers.append(shared)
    asked = [k for k, shared in enumerate(answers) if not shared]
    poking = vertices_poke_in([(requests[k][0], requests[k][1], np.zeros((1, 3))) for k in asked])
    for k, poke in zip(asked, poking):
        answers[k] = bool(poke[0])
    return answers


def share_interior_moved(a: Solid, b: Solid, offset: np.ndarray) -> bool:
    """``share_interior`` of A and B moved by ``offset``, the smaller object moved (A by -offset when it has fewer
    triangles): a moved copy's triangles, boxes and tree are computed again, which for a sculpt of a million
    triangles costs about half a second per test. Vertices poking in are tested on the unmoved objects, as
    ``shares_interior_after`` tests them."""
    offset = np.asarray(offset, dtype=np.float64).reshape(1, 3)
    moved = _moved_pair(a, b, offset[0])
    if surfaces_overlap(moved[0].mesh, moved[1].mesh, trees=(moved[0].bvh, moved[1].bvh)):
        return True
    return bool(vertices_poke_in([(a, b, offset)])[0][0])


def _moved_pair(a: Solid, b: Solid, offset: np.ndarray) -> tuple[Solid, Solid]:
    if len(a.mesh.triangles) < len(b.mesh.triangles):
        return a.translated(-offset), b
    return a, b.translated(offset)


def shares_interior_after(a: Solid, b: Solid, offsets: np.ndarray) -> np.ndarray:
    """``[share_interior_moved(a, b, offset) for offset in offsets]`` ((K, 3) offsets), the same answers, with the
    triangle pairs of every offset tested in one pass when there are few enough (``BATCH_CANDIDATES``).

    Each offset's candidate pairs are those ``intersection.candidate_pairs`` keeps without trees (boxes within the
    tolerance; the trees only drop pairs that can neither cross nor share faces), found among the pairs whose boxes
    meet the moved object's boxes swept over all the offsets; its moved corners and normals are computed as its
    moved mesh's are, so every pair's exact test sees the same numbers. The offsets whose surfaces do not overlap
    have their vertices tested (``vertices_poke_in``), every offset's at once."""
    return shares_interior_after_many([(a, b, offsets)])[0]


def shares_interior_after_many(requests: list[tuple[Solid, Solid, np.ndarray]]) -> list[np.ndarray]:
    """``shares_interior_after`` of several pairs (``(a, b, offsets)`` each), their triangle pairs found and tested
    together in one pass: the batches of many pairs' push-out searches cost about what one does."""
    offsets = [np.asarray(offsets, dtype=np.float64).reshape(-1, 3) for _a, _b, offsets in requests]
    batch, alone = _OffsetPairs.of_requests([(a, b) for a, b, _offsets in requests], offsets)
    shared = _shared_offsets(batch, int(sum(len(moves) for moves in offsets)))
    bounds = np.cumsum([0] + [len(moves) for moves in offsets]).tolist()
    answers = [shared[low:high] for low, high in zip(bounds[:-1], bounds[1:])]
    for index in np.flatnonzero(alone).tolist():
        a, b, _offsets = requests[index]
        answers[index][:] = [share_interior_moved(a, b, offset) for offset in offsets[index]]
    asked = [np.flatnonzero(~shared & ~single) for shared, single in zip(answers, np.asarray(alone, dtype=bool))]
    poking = vertices_poke_in([(a, b, moves[rows]) for (a, b, _offsets), moves, rows in zip(requests, offsets, asked)])
    for shared, rows, poke in zip(answers, asked, poking):
        shared[rows] = poke
    return answers


class _OffsetPairs(NamedTuple):
    """The triangle pairs of batches of offsets of B, as ``shares_interior_after`` tests them: corners and area normals
    of A's and of B's moved triangles, the offset each row belongs to (``offset``, numbered on over the batches), per
    offset the tolerance and the size it is relative to, and what the rows' vertex ids are read from (``ids``): the
    rows of the stacked meshes ``still`` and ``moving`` each row pairs, the rows before ``split`` those whose A moves
    (the meshes only: the stacks' arrays are let go with the rows made)."""

    corners_a: np.ndarray
    normals_a: np.ndarray
    corners_b: np.ndarray
    normals_b: np.ndarray
    offset: np.ndarray
    tolerance: np.ndarray
    sizes: np.ndarray
    still: list[TriangleMesh]
    moving: list[TriangleMesh]
    still_rows: np.ndarray
    moving_rows: np.ndarray
    split: int

    def ids(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Vertex ids (K, 3) of A's and of B's triangles of the (increasing) ``rows``, each in its own mesh's
        numbering (the crossing test reads only their order within a triangle, which the stacks' numbering, each
        mesh's shifted by a constant, keeps): only the few rows the exact crossing test reads them for are gathered."""
        cut = int(np.searchsorted(rows, self.split))
        first, second = rows[:cut], rows[cut:]
        still, moving = (np.concatenate([mesh.triangles for mesh in meshes] + [np.zeros((0, 3), np.int64)])
                         for meshes in (self.still, self.moving))
        ids_a = _two_runs(moving, self.moving_rows[first], still, self.still_rows[second])
        ids_b = _two_runs(still, self.still_rows[first], moving, self.moving_rows[second])
        return ids_a, ids_b

    @classmethod
    def of_requests(cls, pairs: list[tuple[Solid, Solid]], offsets: list[np.ndarray]
                    ) -> tuple[_OffsetPairs, np.ndarray]:
        """The rows of every pair's ``offsets`` (K, 3) at once, and which pairs are left to be tested offset by
        offset (too many candidates, ``BATCH_CANDIDATES``: their offsets have no rows). Each offset's candidates are
        those ``intersection.candidate_pairs`` keeps without trees, the smaller object moved as
        ``share_interior_moved`` moves it; pairs are stacked (``StackedMeshes``) and every comparison is made as
        for one pair alone, so each row holds the numbers a pair's own moved mesh would."""
        move_a = np.array([len(a.mesh.triangles) < len(b.mesh.triangles) for a, b in pairs], dtype=bool)
        still = StackedMeshes([b.mesh if moved else a.mesh for (a, b), moved in zip(pairs, move_a.tolist())])
        moving = StackedMeshes([a.mesh if moved else b.mesh for (a, b), moved in zip(pairs, move_a.tolist())])
        counts = np.array([len(moves) for moves in offsets], dtype=np.int64)
        request = np.repeat(np.arange(len(pairs)), counts)
        shifts = np.concatenate(offsets) if offsets else np.zeros((0, 3))
        shifts = np.where(move_a[request][:, None], -shifts, shifts)
        low, high = moving.vertex_boxes
        still_sizes = np.array([mesh.size for mesh in still.meshes])
        sizes = np.maximum(still_sizes[request], ((high[request] + shifts) - (low[request] + shifts)).max(axis=1))
        tolerance = RELATIVE_TOLERANCE * sizes
        i, j, alone = _swept_candidates(still, moving, shifts, request, tolerance, counts)
        # every (candidate, offset) of a pair, candidate after candidate, kept where the moved boxes meet (a pair's
        # one offset's boxes are the swept boxes its candidates were found with: only pairs of more need the test)
        candidate_counts = np.bincount(still.owner[i], minlength=len(pairs))
        pair, candidate, k, _starts = pairings(candidate_counts, counts)
        candidate += (np.cumsum(candidate_counts) - candidate_counts)[pair]
        k += (np.cumsum(counts) - counts)[pair]
        i, j = i[candidate], j[candidate]
        several = np.flatnonzero(counts[pair] > 1)
        if len(several):
            rows_i, rows_j, rows_k = i[several], j[several], k[several]
            margin = tolerance[rows_k][:, None]
            shift = np.take(shifts, rows_k, axis=0)
            lows, highs = np.take(moving.lows, rows_j, axis=0) + shift, np.take(moving.highs, rows_j, axis=0) + shift
            near = ((np.take(still.lows, rows_i, axis=0) - margin <= highs + margin)
                    & (lows - margin <= np.take(still.highs, rows_i, axis=0) + margin)).all(axis=1)
            keep = np.ones(len(i), dtype=bool)
            keep[several[~near]] = False
            i, j, k = i[keep], j[keep], k[keep]
        # the rows of pairs whose A moves first, then the others: each column is two runs of gathered rows
        first_moves = move_a[still.owner[i]]
        order = np.concatenate([np.flatnonzero(first_moves), np.flatnonzero(~first_moves)])
        i, j, k, split = i[order], j[order], k[order], int(np.count_nonzero(first_moves))
        corners_a = _two_runs(moving.corners, j[:split], still.corners, i[split:])
        corners_b = _two_runs(still.corners, i[:split], moving.corners, j[split:])
        corners_a[:split] += np.take(shifts, k[:split], axis=0)[:, None]
        corners_b[split:] += np.take(shifts, k[split:], axis=0)[:, None]
        still_normals = np.concatenate([mesh.area_normals for mesh in still.meshes]) if pairs else np.zeros((0, 3))
        normals_a, normals_b = np.empty((len(i), 3)), np.empty((len(i), 3))
        normals_a[:split] = _area_normals(corners_a[:split])
        _take_rows(still_normals, i[split:], normals_a[split:])
        _take_rows(still_normals, i[:split], normals_b[:split])
        normals_b[split:] = _area_normals(corners_b[split:])
        return cls(corners_a, normals_a, corners_b, normals_b, k, tolerance, sizes, still.meshes, moving.meshes, i, j,
                   split), alone


def _two_runs(first: np.ndarray, first_rows: np.ndarray, second: np.ndarray, second_rows: np.ndarray) -> np.ndarray:
    """Rows ``first_rows`` of ``first`` then rows ``second_rows`` of ``second``, as one array."""
    out = np.empty((len(first_rows) + len(second_rows),) + first.shape[1:], dtype=first.dtype)
    _take_rows(first, first_rows, out[:len(first_rows)])
    _take_rows(second, second_rows, out[len(first_rows):])
    return out


def _rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values[rows]``, gathered by ``np.take``: several times faster than indexing on (n, 3) and (n, 3, 3) arrays."""
    return np.take(values, rows, axis=0)


def _take_rows(values: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = values[rows]`` (rows in range), gathered in place: several times faster than indexing on (n, 3) and
    (n, 3, 3) arrays, the same values."""
    np.take(values, rows, axis=0, out=out, mode="clip")


def _area_normals(corners: np.ndarray) -> np.ndarray:
    """Area normals of triangles ``corners`` (K, 3, 3), as ``TriangleMesh.area_normals`` computes them."""
    return cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])


def _shared_offsets(pairs: _OffsetPairs, count: int) -> np.ndarray:
    """Which of the ``count`` offsets some triangle pair of theirs makes share interior: crossing for real, or faces
    in one plane overlapping with both solids on the same side (containment aside)."""
    # Only pairs straddling each other's planes can cross for real, only pairs in one plane can share faces: the
    # crossing test runs on the first alone (less those whose crossings of each other's planes are clearly apart),
    # the overlap of faces on the second; B's corners are measured only against A's planes that A's corners straddle
    # or lie in.
    k, tolerance = pairs.offset, pairs.tolerance[pairs.offset]
    a_heights = plane_heights(pairs.corners_a, pairs.corners_b, pairs.normals_b)
    straddles_a = (largest3(a_heights) > tolerance) & (smallest3(a_heights) < -tolerance)
    flat_a = largest3(np.abs(a_heights)) <= tolerance
    rows = np.flatnonzero(straddles_a | flat_a)
    corners_a, normals_a, corners_b, normals_b, a_heights, k, tolerance = (
        _rows(values, rows) for values in (pairs.corners_a, pairs.normals_a, pairs.corners_b, pairs.normals_b,
                                           a_heights, k, tolerance))
    b_heights = plane_heights(corners_b, corners_a, normals_a)
    shared = np.zeros(count, dtype=bool)
    crossing = np.flatnonzero(straddles_a[rows] & (largest3(b_heights) > tolerance)
                              & (smallest3(b_heights) < -tolerance))
    apart = apart_on_common_line(*(_rows(values, crossing) for values in (corners_a, normals_a, a_heights, corners_b,
                                                                          normals_b, b_heights, tolerance)),
                                 pairs.sizes[k[crossing]])
    crossing = crossing[~apart]
    if len(crossing):
        ids_a, ids_b = pairs.ids(rows[crossing])
        found = pair_crossings(_rows(corners_a, crossing), ids_a, _rows(normals_a, crossing),
                               _rows(corners_b, crossing), ids_b, _rows(normals_b, crossing))
        shared[k[crossing[proper_mask(found, *found.segments(), tolerance[crossing])]]] = True
    flat = np.flatnonzero(flat_a[rows] & (largest3(np.abs(b_heights)) <= tolerance) & ~shared[k])
    if len(flat):
        area, _centroid = coplanar_overlap_areas(corners_a[flat], corners_b[flat], normals_a[flat])
        facing = dot(normals_a[flat], normals_b[flat])
        shared[k[flat[(area > tolerance[flat] * pairs.sizes[k[flat]]) & (facing > 0.0)]]] = True
    return shared


def _swept_candidates(still: StackedMeshes, moving: StackedMeshes, shifts: np.ndarray, request: np.ndarray,
                      tolerance: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Triangle pairs (rows of ``still``, rows of ``moving``), pair after pair, whose boxes, widened by the pair's
    largest ``tolerance``, meet the moving boxes swept over its ``shifts`` (every pair any shift's test can need;
    ``request`` each shift's pair, ``counts`` the shifts per pair), and which pairs have more than
    ``BATCH_CANDIDATES`` of them times their shifts (left out of the rows). Only the triangles whose boxes meet the
    other side's whole box take part (no other can), all their pairs screened at once when they are few
    (``FLAT_PAIRS``), else by a sort and sweep."""
    count = len(counts)
    has = counts > 0
    starts = (np.cumsum(counts) - counts)[has]
    reach, shift_low, shift_high = np.zeros(count), np.zeros((count, 3)), np.zeros((count, 3))
    if len(starts):
        reach[has] = np.maximum.reduceat(tolerance, starts)
        shift_low[has] = np.minimum.reduceat(shifts, starts, axis=0)
        shift_high[has] = np.maximum.reduceat(shifts, starts, axis=0)
    swept_lows = moving.lows + np.take(shift_low, moving.owner, axis=0)
    swept_highs = moving.highs + np.take(shift_high, moving.owner, axis=0)
    swept_low, swept_high = _boxes_of(moving, swept_lows, swept_highs)
    still_low, still_high = still.triangle_box
    near_still = _meeting(still.lows, still.highs, swept_low[still.owner], swept_high[still.owner],
                          reach[still.owner])
    near_moving = _meeting(swept_lows, swept_highs, still_low[moving.owner], still_high[moving.owner],
                           reach[moving.owner])
    near_still, near_moving = near_still[has[still.owner[near_still]]], near_moving[has[moving.owner[near_moving]]]
    still_counts = np.bincount(still.owner[near_still], minlength=count)
    moving_counts = np.bincount(moving.owner[near_moving], minlength=count)
    flat = still_counts * moving_counts <= FLAT_PAIRS
    pair, i, j, _starts = pairings(np.where(flat, still_counts, 0), np.where(flat, moving_counts, 0))
    i += (np.cumsum(still_counts) - still_counts)[pair]  # (places among the near rows)
    j += (np.cumsum(moving_counts) - moving_counts)[pair]
    # each near row's box widened by its pair's reach once, then compared pair by pair
    still_widened, moving_widened = reach[still.owner[near_still]][:, None], reach[moving.owner[near_moving]][:, None]
    still_lows, still_highs = (np.take(values, near_still, axis=0) for values in (still.lows, still.highs))
    moving_lows, moving_highs = (np.take(values, near_moving, axis=0) for values in (swept_lows, swept_highs))
    still_lows -= still_widened
    still_highs += still_widened
    moving_lows -= moving_widened
    moving_highs += moving_widened
    keep = ((np.take(still_lows, i, axis=0) <= np.take(moving_highs, j, axis=0))
            & (np.take(moving_lows, j, axis=0) <= np.take(still_highs, i, axis=0))).all(axis=1)
    found_i, found_j = [near_still[i[keep]]], [near_moving[j[keep]]]
    for k in np.flatnonzero(~flat).tolist():
        rows_still = slice(still.triangle_starts[k], still.triangle_starts[k + 1])
        rows_moving = slice(moving.triangle_starts[k], moving.triangle_starts[k + 1])
        i, j = overlapping_pairs_between(still.lows[rows_still], still.highs[rows_still], swept_lows[rows_moving],
                                         swept_highs[rows_moving], margin=float(reach[k])).T
        found_i.append(i + still.triangle_starts[k])
        found_j.append(j + moving.triangle_starts[k])
    i, j = np.concatenate(found_i), np.concatenate(found_j)
    alone = np.bincount(still.owner[i], minlength=count) * counts > BATCH_CANDIDATES
    keep = ~alone[still.owner[i]]
    order = np.argsort(still.owner[i[keep]], kind="stable")
    return i[keep][order], j[keep][order], alone


def _boxes_of(stack: StackedMeshes, lows: np.ndarray, highs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, 3) the box of each mesh's rows of ``lows`` and ``highs`` (infinite the wrong way round for none)."""
    count = len(stack.meshes)
    low, high = np.full((count, 3), np.inf), np.full((count, 3), -np.inf)
    filled = np.flatnonzero(stack.counts > 0)
    if len(filled):
        low[filled] = np.minimum.reduceat(lows, stack.triangle_starts[filled], axis=0)
        high[filled] = np.maximum.reduceat(highs, stack.triangle_starts[filled], axis=0)
    return low, high


def _meeting(lows: np.ndarray, highs: np.ndarray, low: np.ndarray, high: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """Indices of the boxes that meet the boxes [``low``, ``high``] (one per row) once both are widened by ``reach``
    (compared as the pair screen compares two boxes, so a box failing here fails against every box inside that one)."""
    reach = reach[:, None]
    return np.flatnonzero(((lows - reach <= high + reach) & (low - reach <= highs + reach)).all(axis=1))


def indices_in_box(vertices: np.ndarray, box: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Indices of the vertices inside ``box`` (only those can be inside the object it bounds)."""
    low, high = box
    return np.flatnonzero(((vertices >= low) & (vertices <= high)).all(axis=1))


def strided_sample(indices: np.ndarray, count: int) -> np.ndarray:
    """Up to ``count`` evenly strided entries of ``indices``."""
    return indices[:: max(1, len(indices) // count)][:count]


def points_inside(outer: Solid, points: np.ndarray) -> np.ndarray:
    """Which points ``outer`` (a closed object) winds around (``rays.crossing_windings``, exact; a point on its
    surface as the perturbation moves it)."""
    return crossing_windings(outer.mesh, points, bvh=outer.bvh) > 0


def vertices_poke_in(requests: list[tuple[Solid, Solid, np.ndarray]]) -> list[np.ndarray]:
    """For each ``(a, b, offsets)`` and each of its (K, 3) offsets of B: some vertex of one object lies inside the
    other (a closed one) deeper than the crossing search's tolerance (B's vertices moved by the offset tested in A,
    A's moved back by it in B), every pair's points tested together.

    Surfaces can meet without crossing beyond the tolerance and still share interior: a ring of a sphere's vertices
    exactly on a face has the cap below it poke through, and no triangle straddles the face. Where the surfaces do
    not cross, a vertex of one lies inside the other deeper than the tolerance unless the overlap is about that thin
    (docs/architecture.md, "Mesh: surfaces that meet without crossing"). Only the moved vertices in the other's box
    and not certainly beyond its vertices' slabs (``inside.beyond_slabs``) have their winding numbers counted."""
    answers, inners, outers, moves, asked, tolerances = [], [], [], [], [], []
    for index, (a, b, offsets) in enumerate(requests):
        offsets = np.asarray(offsets, dtype=np.float64).reshape(-1, 3)
        answers.append(np.zeros(len(offsets), dtype=bool))
        if not len(offsets):
            continue
        tolerance = default_tolerance(a.mesh, b.mesh, None)
        for inner, outer, shifts in ((b, a, offsets), (a, b, -offsets)):
            if outer.closed:
                inners.append(inner.mesh)
                outers.append(outer)
                moves.append(shifts)
                asked.append(index)
                tolerances.append(tolerance)
    if not outers:
        return answers
    test, offset, points = _moved_vertices_in_boxes(inners, outers, moves)
    solids, outer_of = _distinct(outers)
    stack = StackedMeshes([solid.mesh for solid in solids])
    keep = np.flatnonzero(~beyond_slabs(stack, points, outer_of[test]))
    test, offset, points = test[keep], offset[keep], np.take(points, keep, axis=0)
    deep = _deeper_than(points, outer_of[test], solids, np.asarray(tolerances)[test], stack)
    for t, k in zip(test[deep].tolist(), offset[deep].tolist()):
        answers[asked[t]][k] = True
    return answers


def _distinct(solids: list[Solid]) -> tuple[list[Solid], np.ndarray]:
    """The distinct solids among ``solids`` (by identity, in first-seen order) and each entry's place among them."""
    places: dict[int, int] = {}
    index = np.array([places.setdefault(id(solid), len(places)) for solid in solids], dtype=np.int64)
    firsts = {}
    for solid in solids:
        firsts.setdefault(id(solid), solid)
    return list(firsts.values()), index


def _moved_vertices_in_boxes(inners: list[TriangleMesh], outers: list[Solid], moves: list[np.ndarray]
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(test, offset, points)``: the vertices of ``inners[t]`` used by its triangles, each moved by each of the
    shifts ``moves[t]`` (K_t, 3) that brings it into the box of ``outers[t]``, with their test and shift's row; small
    meshes' vertices all in one pass, large ones' (``STACKED_VERTICES``) test by test."""
    big = [len(mesh.vertices) > STACKED_VERTICES for mesh in inners]
    found = [_stacked_moved_vertices([t for t, large in enumerate(big) if not large], inners, outers, moves)]
    for t in [t for t, large in enumerate(big) if large]:
        offset, points = _moved_vertices_in_box(inners[t], outers[t].bounds, moves[t])
        found.append((np.full(len(offset), t), offset, points))
    return tuple(np.concatenate(columns) for columns in zip(*found))


def _moved_vertices_in_box(mesh: TriangleMesh, box: tuple[np.ndarray, np.ndarray], shifts: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray]:
    """``(offset, points)``: the used vertices of one large mesh moved by the ``shifts`` that bring them into
    ``box``, with the shift's row."""
    low, high = box
    vertices = mesh.vertices
    reach_low, reach_high = low - shifts.max(axis=0), high - shifts.min(axis=0)
    near = np.flatnonzero((vertices[:, 0] >= reach_low[0]) & (vertices[:, 0] <= reach_high[0]) & mesh.used)
    near = near[((vertices[near] >= reach_low) & (vertices[near] <= reach_high)).all(axis=1)]
    moved = vertices[near][None, :, :] + shifts[:, None, :]
    offset, vertex = np.nonzero(((moved >= low) & (moved <= high)).all(axis=2))
    return offset, moved[offset, vertex]


def _stacked_moved_vertices(tests: list[int], inners: list[TriangleMesh], outers: list[Solid],
                            moves: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_moved_vertices_in_boxes`` of the ``tests`` of small meshes, all at once."""
    if not tests:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 3))
    stack = StackedMeshes([inners[t] for t in tests])
    counts = np.array([len(moves[t]) for t in tests], dtype=np.int64)
    starts = np.cumsum(counts) - counts
    shifts = np.concatenate([moves[t] for t in tests])
    low, high = (np.array(corner) for corner in zip(*[outers[t].bounds for t in tests]))
    shift_low, shift_high = np.minimum.reduceat(shifts, starts, axis=0), np.maximum.reduceat(shifts, starts, axis=0)
    used = np.concatenate([mesh.used for mesh in stack.meshes])  # (corners of triangles)
    owner = stack.vertex_owner
    near = np.flatnonzero(used & ((stack.vertices >= (low - shift_high)[owner])
                                  & (stack.vertices <= (high - shift_low)[owner])).all(axis=1))
    near_counts = np.bincount(owner[near], minlength=len(tests))
    segment, vertex, shift, _starts = pairings(near_counts, counts)
    vertex = near[(np.cumsum(near_counts) - near_counts)[segment] + vertex]
    shift += starts[segment]
    points = stack.vertices[vertex] + shifts[shift]
    inside = np.flatnonzero(((points >= low[segment]) & (points <= high[segment])).all(axis=1))
    return np.asarray(tests, dtype=np.int64)[segment[inside]], shift[inside] - starts[segment[inside]], points[inside]


def _deeper_than(points: np.ndarray, outer_of: np.ndarray, solids: list[Solid], tolerances: np.ndarray,
                 stack: StackedMeshes) -> np.ndarray:
    """Which ``points`` lie inside their outer object (``solids[outer_of[p]]``, ``stack`` their meshes) deeper than
    their ``tolerances[p]``: winding numbers, then the distance to the surface of the points inside; small objects'
    points in one pass (``STACKED_TRIANGLES``), large ones' down their trees."""
    small = np.array([len(solid.mesh.triangles) <= STACKED_TRIANGLES for solid in solids])
    stack_index = np.cumsum(small) - 1  # each small solid's place among the small ones
    small_meshes = stack if small.all() else StackedMeshes([solid.mesh for solid, is_small in zip(solids, small)
                                                            if is_small])
    windings = np.zeros(len(points), dtype=np.int64)
    stacked = np.flatnonzero(small[outer_of])
    if len(stacked):
        windings[stacked] = stacked_crossing_windings(small_meshes, points[stacked], stack_index[outer_of[stacked]])
    for k in np.flatnonzero(~small).tolist():
        rows = np.flatnonzero(outer_of == k)
        if len(rows):
            windings[rows] = crossing_windings(solids[k].mesh, points[rows], bvh=_tree(solids[k]))
    inside = np.flatnonzero(windings > 0)
    deep = np.zeros(len(points), dtype=bool)
    if not len(inside):
        return deep
    distances = np.empty(len(inside))
    stacked = np.flatnonzero(small[outer_of[inside]])
    if len(stacked):
        distances[stacked] = nearest_distances(small_meshes, points[inside[stacked]],
                                               stack_index[outer_of[inside[stacked]]])
    for k in np.flatnonzero(~small).tolist():
        rows = np.flatnonzero(outer_of[inside] == k)
        if len(rows) and _tree(solids[k]) is None:
            distances[rows] = nearest_distances([solids[k].mesh], points[inside[rows]], np.zeros(len(rows), int))
        elif len(rows):
            distances[rows] = nearest_on_surface(solids[k].mesh, points[inside[rows]], bvh=solids[k].bvh)[0]
    deep[inside] = distances > tolerances[inside]
    return deep


def _tree(solid: Solid) -> TriangleBVH | None:
    """The solid's triangle tree when it is built already or the solid is too large to go without one
    (``TREE_TRIANGLES``), else None: a blob measured against a box builds none (the flat tests give the same
    answers)."""
    if "bvh" in solid.__dict__ or len(solid.mesh.triangles) > TREE_TRIANGLES:
        return solid.bvh
    return None
