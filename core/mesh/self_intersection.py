"""Self-intersections of one mesh: the pairs of its own faces that pass through each other (exact orientation signs,
nothing perturbed, so faces that only touch never count), and the curves where they cross.
See docs/architecture.md, section "Mesh: self-intersections".
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..broadphase.sort_and_sweep import GRID_CELLS_PER_BOX, overlapping_pairs_between
from ..steps import checkpoint
from ..vector.arrays import cross
from .embedded_stars import embedded_stars
from .stacked import StackedMeshes, pairings
from .topology import label_components
from .triangle_intersection import orientation_signs
from .trimesh import TriangleMesh
from .weld import exact_representatives

#: A side test's float value decides when it exceeds this times its permanent (Shewchuk's bound on the rounding of
#: an orientation determinant, 7.8e-16 of it, with a margin: the filter ``orientation_signs`` applies).
SIDE_FILTER = 4e-15
#: Segment ends closer than about this fraction of the mesh's size join their segments into one curve.
JOIN_DISTANCE = 1e-9
#: Grid cells are this many times the median box (its largest side): larger cells list more pairs per cell (one
#: subtraction each), smaller ones enter each box in more cells (sorted, each with two words).
CELL_SIZE = 2.0
#: Grid entry pairs listed per block: bounds the memory of the listing's index arrays.
PAIRS_PER_BLOCK = 1 << 19
#: Candidate pairs decided together (each listed block leaves a few thousand): bounds the memory of the
#: (pairs, 3, 3) corner arrays, and each decision's fixed cost is spread over this many pairs.
PAIRS_DECIDED_TOGETHER = 1 << 16
#: ``self_intersecting`` pairs every two triangles of a mesh of at most this many triangles (a few dozen box tests
#: per triangle, all such meshes' at once); a larger mesh lists its pairs on its own grid (``self_candidate_pairs``).
PAIRED_TRIANGLES = 256
#: Triangle pairs box-tested together by ``self_intersecting`` (bounds the memory of its index arrays).
PAIRED_ROWS = 1 << 20

_FINE = 128  # entry positions per cell and axis (7 bits)
_GUARDS = np.uint64(sum(0x80 << (8 * byte) for byte in range(6)) | (0b101010 << 48))
_UNIT_STEPS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
#: A triangle's corners from corner k (row k), and from corner k with the last two reversed (row 3 + k)
_CORNER_ORDERS = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2], [2, 1, 0]])
_UP = np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True)
class SelfIntersection:
    """The faces of one mesh that pass through each other (``self_intersection``'s result).

    - ``pairs`` (K, 2): triangle index pairs (smaller first) that intersect; ``coplanar`` (K,): those that
      overlap lying in one plane (a fold) rather than crossing.
    - ``segments`` (C, 2, 3): where the crossing pairs (``pairs[~coplanar]``, in order) cross.
    - ``curve_of_segment`` (C,): the curve each segment belongs to, 0..``curve_count`` - 1.
    - ``triangles``: the distinct triangles taking part, sorted.
    """

    pairs: np.ndarray
    coplanar: np.ndarray
    segments: np.ndarray
    curve_of_segment: np.ndarray

    @property
    def count(self) -> int:
        """How many face pairs intersect."""
        return len(self.pairs)

    @property
    def curve_count(self) -> int:
        return int(self.curve_of_segment.max()) + 1 if len(self.curve_of_segment) else 0

    @property
    def triangles(self) -> np.ndarray:
        return np.unique(self.pairs)


def self_candidate_pairs(mesh: TriangleMesh, corner_labels: np.ndarray | None = None) -> Iterator[np.ndarray]:
    """Blocks of (K, 2) triangle pairs ``(i, j)``, i < j, whose boxes overlap (touching counts), each pair once;
    with ``corner_labels`` ((M, 3) integers), less the pairs whose triangles share a label.

    A uniform grid with cells ``CELL_SIZE`` times the median box: each triangle is entered in the cells its box
    meets, the pairs of each cell are listed, and a pair is kept only in the cell holding the larger corner
    of the two boxes' lows (which both boxes meet when they overlap), so no pair is listed twice and no sort
    is needed. Both tests are one subtraction of two 64-bit words per listed pair (``_entry_words``, boxes
    rounded outwards to 1/128 of a cell), the boxes themselves are compared for the pairs that pass. Boxes
    meeting more than ``GRID_CELLS_PER_BOX`` cells are paired with all boxes by a sweep instead
    (``overlapping_pairs_between``).
    """
    lows, highs = mesh.lows, mesh.highs
    count = len(lows)
    if count < 2:
        return
    origin = lows.min(axis=0)
    extent = float((highs.max(axis=0) - origin).max())
    cell = CELL_SIZE * float(np.median((highs - lows).max(axis=1)))
    if not cell > 0.0 or extent / cell > 2.0 ** 20:
        cell = extent / 2.0 ** 20 or 1.0  # degenerate boxes, or a grid too fine for the keys
    checkpoint()  # (a cancelled caller's worker stops here, and below)
    low_at, high_at = (lows - origin) / cell, (highs - origin) / cell  # in cells: monotone in the coordinates
    first = np.floor(low_at).astype(np.int64)
    spans = np.floor(high_at).astype(np.int64) - first + 1
    # the boxes in 1/128 of a cell from their first cell's low corner (rounded outwards; exact: x 128 is)
    fine_low = np.floor(low_at * _FINE).astype(np.int64) - _FINE * first
    fine_high = np.ceil(high_at * _FINE).astype(np.int64) - _FINE * first
    checkpoint()
    cells = spans.prod(axis=1)
    wide = np.flatnonzero(cells > GRID_CELLS_PER_BOX)
    base = (first[:, 0] << 42) | (first[:, 1] << 21) | first[:, 2]
    # boxes meeting at most 2 cells along each axis (nearly all): their cells are their first one moved by 0 or 1
    # along each axis, taken in the order of their first cells' keys so that each step's keys come sorted
    by_key = np.argsort(base)
    checkpoint()
    narrow = by_key[cells[by_key] <= GRID_CELLS_PER_BOX]
    two = (spans[narrow] <= 2).all(axis=1)
    small, large = narrow[two], np.sort(narrow[~two])
    owners, keys, words = [], [], []
    small_spans = spans[small]
    checkpoint()
    # the entries' words in the first cell, and what moving one cell along each axis changes in them
    first_words, axis_changes = _small_box_words(fine_low[small], fine_high[small])
    checkpoint()
    for step in _UNIT_STEPS:
        checkpoint()
        moved = np.flatnonzero((small_spans[:, 0] > step[0]) & (small_spans[:, 1] > step[1])
                               & (small_spans[:, 2] > step[2]))
        owners.append(small[moved])
        keys.append(base[small[moved]] + int((step[0] << 42) | (step[1] << 21) | step[2]))
        step_words = []
        for word in (0, 1):
            entry_words = first_words[word][moved]
            for axis in np.flatnonzero(step):
                entry_words ^= axis_changes[axis][word][moved]
            step_words.append(entry_words)
        words.append(tuple(step_words))
    # the others' cells counted out one by one
    rank = np.arange(cells[large].sum()) - np.repeat(np.cumsum(cells[large]) - cells[large], cells[large])
    owner = np.repeat(large, cells[large])
    y_z = spans[owner, 1] * spans[owner, 2]
    steps = np.stack([rank // y_z, (rank // spans[owner, 2]) % spans[owner, 1], rank % spans[owner, 2]], axis=1)
    owners.append(owner)
    keys.append(base[owner] + ((steps[:, 0] << 42) | (steps[:, 1] << 21) | steps[:, 2]))
    words.append(_entry_words(fine_low[owner], fine_high[owner], steps))
    del rank, owner, y_z, steps, base, first_words, axis_changes
    checkpoint()  # (a cancelled caller's worker stops here)
    keys = np.concatenate(keys)
    order = np.argsort(keys, kind="stable")  # (a merge of sorted runs)
    keys = keys[order]
    checkpoint()
    owner = np.concatenate(owners).astype(np.int32)[order]
    labels = None if corner_labels is None else [np.ascontiguousarray(corner_labels[:, k])[owner] for k in range(3)]
    ahead, behind = (np.concatenate(part)[order] for part in zip(*words))
    del owners, words, order
    checkpoint()
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    sizes = np.diff(np.r_[starts, len(keys)])
    del keys
    later = (np.repeat(starts + sizes, sizes) - 1 - np.arange(len(owner))).astype(np.int64)  # entries after it
    listed = np.cumsum(later) if len(later) else np.zeros(1, np.int64)
    cuts = np.searchsorted(listed, np.arange(PAIRS_PER_BLOCK, int(listed[-1]) + PAIRS_PER_BLOCK, PAIRS_PER_BLOCK))
    begin = 0
    for end in np.unique(np.minimum(cuts + 1, len(owner))):
        counts = later[begin:end]
        firsts = np.cumsum(counts) - counts  # each entry's first pair in the block
        j = np.repeat(np.arange(begin + 1, end + 1) - firsts, counts)
        j += np.arange(len(j))
        keep = np.flatnonzero(((ahead[j] - np.repeat(behind[begin:end], counts)) & _GUARDS) == _GUARDS)
        i, j = begin - 1 + np.searchsorted(firsts, keep, side="right"), j[keep]
        begin = end
        if labels is not None:
            keep = ~_share_label([column[i] for column in labels], [column[j] for column in labels])
            i, j = i[keep], j[keep]
        a, b = owner[i], owner[j]
        # the boxes themselves (rows taken with np.take: about twice as fast as indexing), column by column
        # (numpy's reductions over 3 are slow)
        low_a, high_a, low_b, high_b = (np.take(box, k, axis=0) for box, k in ((lows, a), (highs, a), (lows, b),
                                                                                (highs, b)))
        keep = (low_a[:, 0] <= high_b[:, 0]) & (low_b[:, 0] <= high_a[:, 0])
        keep &= (low_a[:, 1] <= high_b[:, 1]) & (low_b[:, 1] <= high_a[:, 1])
        keep &= (low_a[:, 2] <= high_b[:, 2]) & (low_b[:, 2] <= high_a[:, 2])
        a, b = a[keep], b[keep]
        yield np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1).astype(np.int64)
    if len(wide):  # paired with every box they meet: the narrow ones, and the wide ones after them
        pairs = overlapping_pairs_between(lows[wide], highs[wide], lows, highs)
        wide_box, other = wide[pairs[:, 0]], pairs[:, 1]
        keep = (cells[other] <= GRID_CELLS_PER_BOX) | (other > wide_box)
        if corner_labels is not None:
            keep &= ~_share_label(corner_labels[wide_box].T, corner_labels[other].T)
        yield np.sort(np.stack([wide_box[keep], other[keep]], axis=1), axis=1)


def _entry_words(fine_low: np.ndarray, fine_high: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two 64-bit words per grid entry (a box in the cell ``steps`` past its first cell) such that, for entries i
    and j of one cell, the guard bits ``_GUARDS`` of ``ahead[j] - behind[i]`` are all set exactly when the two
    boxes overlap in that cell's 1/128 steps and the cell holds the larger of their low corners.

    Bytes 0-2: along each axis, 128 + j's high against i's low; bytes 3-5: 128 + (127 - j's low) against 127 - i's
    high (both positions clipped to the cell, 0..127); byte 6, two bits per axis: 2 + (whether j's low is in this
    cell) against 1 - (whether i's is). Every byte (and two-bit field) stays positive, so nothing borrows across.
    """
    parts = [_axis_words(fine_low[:, axis], fine_high[:, axis], steps[:, axis], axis) for axis in range(3)]
    return parts[0][0] | parts[1][0] | parts[2][0], parts[0][1] | parts[1][1] | parts[2][1]


def _axis_words(fine_low: np.ndarray, fine_high: np.ndarray, step, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """One axis's bits of ``_entry_words`` (``step``: one for all boxes, or one per box)."""
    low = np.minimum(np.maximum(fine_low - _FINE * step, 0), _FINE - 1).astype(np.uint64)
    high = np.minimum(np.maximum(fine_high - _FINE * step, 0), _FINE - 1).astype(np.uint64)
    in_cell = (np.asarray(step) == 0).astype(np.uint64)
    near, far, rule = np.uint64(8 * axis), np.uint64(8 * axis + 24), np.uint64(48 + 2 * axis)
    ahead = ((high | np.uint64(128)) << near) | ((np.uint64(255) - low) << far) | ((in_cell | np.uint64(2)) << rule)
    behind = (low << near) | ((np.uint64(_FINE - 1) - high) << far) | ((np.uint64(1) - in_cell) << rule)
    return ahead, behind


def _small_box_words(fine_low: np.ndarray, fine_high: np.ndarray):
    """``_entry_words`` of boxes meeting at most two cells along each axis: (ahead, behind) in their first cell,
    and per axis the bits (ahead, behind) that moving to the next cell along it flips (the axes' bits are
    apart, so any step's words are the first cell's with its axes' flips).

    Along an axis, in the first cell the box spans ``fine_low``..min(``fine_high``, 127) and its low is in the
    cell; in the next one 0..``fine_high`` - 128 (clipped to 0..127) and its low is not.
    """
    low = fine_low.astype(np.uint8)  # 0..127 (the first cell holds the low)
    high = np.minimum(fine_high, _FINE - 1).astype(np.uint8)
    next_high = np.clip(fine_high - _FINE, 0, _FINE - 1).astype(np.uint8)
    ahead, behind = np.zeros((len(low), 8), np.uint8), np.zeros((len(low), 8), np.uint8)
    ahead[:, 0:3], ahead[:, 3:6], ahead[:, 6] = high | 128, 255 - low, 0b111111
    behind[:, 0:3], behind[:, 3:6] = low, 127 - high
    firsts = (ahead.view("<u8").ravel(), behind.view("<u8").ravel())  # (byte 0 the lowest)
    changes = []
    for axis in range(3):
        flips = (high[:, axis] ^ next_high[:, axis]).astype(np.uint64)  # (127 - h1) ^ (127 - h2) too
        moved_low = low[:, axis].astype(np.uint64)  # (255 - low) ^ 255 too
        near, far, rule = np.uint64(8 * axis), np.uint64(8 * axis + 24), np.uint64(1 << (48 + 2 * axis))
        changes.append(((flips << near) | (moved_low << far) | rule, (moved_low << near) | (flips << far) | rule))
    return firsts, changes


def self_intersection(mesh: TriangleMesh) -> SelfIntersection:
    """Which faces of ``mesh`` intersect each other, and the segments and curves where they cross.

    Exact (see the module notes): faces that touch without passing through each other do not count.
    """
    crossing, folded, segments, names = [np.zeros((0, 2), np.int64)], [np.zeros((0, 2), np.int64)], \
        [np.zeros((0, 2, 3))], [np.zeros((0, 2, 3), np.int64)]
    checkpoint()  # (a cancelled caller's worker stops here, and below)
    planes = _Planes.of(mesh)
    checkpoint()
    labels = _star_labels(mesh)
    checkpoint()  # (a cancelled caller's worker stops here, and before each block)
    for block in _joined(self_candidate_pairs(mesh, labels), PAIRS_DECIDED_TOGETHER):
        checkpoint()  # (a cancelled caller's worker stops here)
        crosses, coplanar, ends, end_names = _decide(mesh, planes, block)
        crossing.append(block[crosses])
        folded.append(block[coplanar])
        segments.append(ends)
        names.append(end_names)
    crossing, folded = np.concatenate(crossing), np.concatenate(folded)
    pairs = np.concatenate([crossing, folded])
    coplanar = np.arange(len(pairs)) >= len(crossing)
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    crossing_order = np.lexsort((crossing[:, 1], crossing[:, 0]))  # segments in the order of their pairs
    segments = np.concatenate(segments)[crossing_order]
    return SelfIntersection(pairs[order], coplanar[order], segments,
                            _curves(mesh, np.concatenate(names)[crossing_order], segments))


def self_intersecting(meshes: Sequence[TriangleMesh]) -> np.ndarray:
    """(n,) bool: whether each mesh has faces that intersect each other (``self_intersection(mesh).count > 0``),
    for many small meshes at once: their triangles stacked (``StackedMeshes``: the same coordinates, vertex ids
    moved on), each mesh's candidate pairs listed within it (``_paired_candidates``), all decided together by the
    same exact tests, pair by pair, so each mesh gets the answer it gets alone."""
    stack = StackedMeshes(meshes)
    found = np.zeros(len(stack.meshes), bool)
    if not len(stack.meshes) or not stack.counts.any():
        return found
    mesh = stack.mesh
    planes = _Planes.of(mesh)
    labels = _star_labels(mesh)  # (a vertex's star is its own mesh's: the same labels as each mesh's alone)
    checkpoint()  # (a cancelled caller's worker stops here, and before each block)
    for block in _joined(_paired_candidates(stack, labels), PAIRS_DECIDED_TOGETHER):
        checkpoint()  # (a cancelled caller's worker stops here)
        crosses, coplanar, _ends, _names = _decide(mesh, planes, block)
        found[stack.owner[block[crosses | coplanar, 0]]] = True
    return found


def _paired_candidates(stack: StackedMeshes, labels: np.ndarray) -> Iterator[np.ndarray]:
    """Blocks of (K, 2) stacked rows ``(i, j)``, i < j, of one mesh each, whose boxes overlap (touching counts) and
    whose triangles share no label: each mesh's ``self_candidate_pairs`` (the same pairs, in another order). Meshes
    of at most ``PAIRED_TRIANGLES`` triangles pair every two of their triangles, ``PAIRED_ROWS`` pairs at a time,
    and compare the boxes axis by axis on the pairs still in; larger ones list theirs on their own grid."""
    counts = np.where(stack.counts <= PAIRED_TRIANGLES, stack.counts, 0)
    squares = np.cumsum(counts * counts)
    begin = 0
    while begin < len(counts):
        end = max(int(np.searchsorted(squares, squares[begin] - counts[begin] ** 2 + PAIRED_ROWS, side="right")),
                  begin + 1)
        chunk = np.arange(begin, min(end, len(counts)))
        begin = int(chunk[-1]) + 1
        mesh_of, i, j, _ = pairings(counts[chunk], counts[chunk])
        keep = i < j
        first = stack.first[chunk][mesh_of[keep]]
        t, s = first + i[keep], first + j[keep]
        for axis in range(3):  # axis by axis, on the pairs still in
            low, high = stack.lows[:, axis], stack.highs[:, axis]
            keep = (low[t] <= high[s]) & (low[s] <= high[t])
            t, s = t[keep], s[keep]
        keep = ~_share_label([labels[t, k] for k in range(3)], [labels[s, k] for k in range(3)])
        yield np.stack([t[keep], s[keep]], axis=1)
    for k in np.flatnonzero(stack.counts > PAIRED_TRIANGLES).tolist():
        rows = slice(int(stack.triangle_starts[k]), int(stack.triangle_starts[k + 1]))
        for block in self_candidate_pairs(stack.meshes[k], labels[rows]):
            yield block + stack.triangle_starts[k]


def _joined(blocks: Iterator[np.ndarray], size: int) -> Iterator[np.ndarray]:
    """The (K, 2) blocks joined into blocks of at least ``size`` rows (the last one may be shorter)."""
    waiting, count = [], 0
    for block in blocks:
        waiting.append(block)
        count += len(block)
        if count >= size:
            yield np.concatenate(waiting)
            waiting, count = [], 0
    if waiting:
        yield np.concatenate(waiting)


def _star_labels(mesh: TriangleMesh) -> np.ndarray:
    """(M, 3): each corner's vertex when its star is certified embedded (``embedded_stars``), else a label of its
    own (negative), so that two faces share a label exactly when they share a certified vertex (then they only
    touch: nothing to decide)."""
    triangles = mesh.triangles
    kind = np.int32 if triangles.size < 2 ** 31 and len(mesh.vertices) < 2 ** 31 else np.int64
    own = -1 - np.arange(triangles.size, dtype=kind).reshape(triangles.shape)
    return np.where(embedded_stars(mesh)[triangles], triangles.astype(kind), own)


def _share_label(first: list, second: list) -> np.ndarray:
    """Per pair: whether its two triangles' labels (three columns each) have one in common."""
    shared = np.zeros(len(first[0]), bool)
    for column in first:
        shared |= (column == second[0]) | (column == second[1]) | (column == second[2])
    return shared


@dataclass(frozen=True)
class _Planes:
    """Each triangle's plane for the float filter of its side tests, one row (M, 9) per triangle so that a pair
    gathers it at once: first corner, area normal (edge cross product) and the permanent's factors (the absolute
    values of the normal's two products, coordinate by coordinate: the scale of the test's rounding)."""

    rows: np.ndarray

    @classmethod
    def of(cls, mesh: TriangleMesh) -> "_Planes":
        corners = mesh.corners
        first, second = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
        factors = (np.abs(first[:, [1, 2, 0]] * second[:, [2, 0, 1]])
                   + np.abs(first[:, [2, 0, 1]] * second[:, [1, 2, 0]]))
        return cls(np.column_stack([corners[:, 0], cross(first, second), factors]))


def _sides(mesh: TriangleMesh, planes: _Planes, t: np.ndarray, s: np.ndarray) -> np.ndarray:
    """(K, 3) exact sides (+1, -1, 0) of the corners of triangles ``s`` against the planes of triangles ``t``.

    The float value n_t . (q - o_t) decides when it exceeds ``SIDE_FILTER`` x its permanent |q - o_t| . factors
    (beyond its rounding). The rest are a corner of t (by index: on the plane) or go to the exact
    ``orientation_signs``; a corner of t is always among them (its exact value is 0, so its float value is within
    the bound).
    """
    plane = np.take(planes.rows, t, axis=0)  # (rows taken with np.take: about twice as fast as indexing)
    offsets = np.take(mesh.corners, s, axis=0) - plane[:, None, :3]  # (one row of corners per triangle)
    values = np.einsum("kij,kj->ki", offsets, plane[:, 3:6])
    bound = SIDE_FILTER * np.einsum("kij,kj->ki", np.abs(offsets), plane[:, 6:])
    sides = np.sign(values).astype(np.int8)
    row, corner = np.nonzero(np.abs(values) <= bound)
    if len(row):
        ids, own = mesh.triangles[s[row], corner], mesh.triangles[t[row]]
        on_plane = (ids == own[:, 0]) | (ids == own[:, 1]) | (ids == own[:, 2])
        sides[row[on_plane], corner[on_plane]] = 0
        row, corner, ids = row[~on_plane], corner[~on_plane], ids[~on_plane]
        c = mesh.corners_of(t[row])
        sides[row, corner] = orientation_signs(c[:, 0], c[:, 1], c[:, 2], mesh.vertices[ids], None)
    return sides


def _decide(mesh: TriangleMesh, planes: _Planes, pairs: np.ndarray):
    """For a block of candidate pairs: (crossing mask, coplanar-overlap mask, crossing segments (C, 2, 3),
    their end names (C, 2, 3): edge vertex ids and the pierced triangle, per end)."""
    t, s = pairs[:, 0], pairs[:, 1]
    crossing, coplanar = np.zeros(len(pairs), bool), np.zeros(len(pairs), bool)
    side_q = _sides(mesh, planes, t, s)  # s's corners against t's plane
    straddle_q, level_q = _straddles(side_q)
    maybe = np.flatnonzero(straddle_q | level_q)
    t, s, side_q = t[maybe], s[maybe], side_q[maybe]
    straddle_q, level_q = straddle_q[maybe], level_q[maybe]
    side_p = _sides(mesh, planes, s, t)  # t's corners against s's plane
    straddle_p, level_p = _straddles(side_p)
    straddles = np.flatnonzero(straddle_p & straddle_q)
    flat = np.flatnonzero(level_p & level_q)
    crossing[maybe[straddles]], ends, names = _chords_overlap(mesh, t[straddles], s[straddles], side_p[straddles],
                                                              side_q[straddles])
    coplanar[maybe[flat]] = _areas_overlap(mesh.corners_of(t[flat]), mesh.corners_of(s[flat]))
    return crossing, coplanar, ends, names


def _straddles(sides: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of (K, 3) sides: corners on both sides of the plane; all three on it (column by column: numpy's
    reductions over an axis of 3 cost more than the comparisons)."""
    low = np.minimum(np.minimum(sides[:, 0], sides[:, 1]), sides[:, 2])
    high = np.maximum(np.maximum(sides[:, 0], sides[:, 1]), sides[:, 2])
    return (low < 0) & (high > 0), (low == 0) & (high == 0)


def _lone_corner(signs: np.ndarray) -> np.ndarray:
    """Per row, the corner alone on its side (the one positive corner when there is one, else the one negative
    corner)."""
    positive = signs > 0
    return np.where(positive.sum(1) == 1, np.argmax(positive, 1), np.argmax(signs < 0, 1))


def _chords_overlap(mesh: TriangleMesh, t: np.ndarray, s: np.ndarray, side_p: np.ndarray, side_q: np.ndarray):
    """Pairs (t, s) each straddling the other's plane (``side_p``: t's corners against s's plane, ``side_q``: s's
    against t's): whether their chords overlap over a positive length, and for those the segment and its ends'
    names (Devillers–Guigue, strict)."""
    rows = np.arange(len(t))
    lone_p, lone_q = _lone_corner(side_p), _lone_corner(side_q)
    # each triangle's corners from its lone one, the lone corners on the positive sides: reversing a triangle's
    # last two corners turns its plane over
    swap_q, swap_p = side_p[rows, lone_p] < 0, side_q[rows, lone_q] < 0
    ids_p = np.take_along_axis(np.take(mesh.triangles, t, axis=0), _CORNER_ORDERS[lone_p + 3 * swap_p], 1)
    ids_q = np.take_along_axis(np.take(mesh.triangles, s, axis=0), _CORNER_ORDERS[lone_q + 3 * swap_q], 1)
    p, q = np.take(mesh.vertices, ids_p, axis=0), np.take(mesh.vertices, ids_q, axis=0)
    first = orientation_signs(p[:, 0], p[:, 1], q[:, 0], q[:, 1], None)
    second = orientation_signs(p[:, 0], p[:, 2], q[:, 2], q[:, 0], None)
    overlap = (first < 0) & (second < 0)
    keep = np.flatnonzero(overlap)
    ends, names = _segments(p[keep], q[keep], ids_p[keep], ids_q[keep], t[keep], s[keep])
    return overlap, ends, names


def _segments(p, q, ids_p, ids_q, t, s):
    """The common part of the two chords (float, for drawing), each end named by the edge that makes it
    (its two vertex ids, smaller first) and the triangle that edge pierces."""
    normal_p = cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    normal_q = cross(q[:, 1] - q[:, 0], q[:, 2] - q[:, 0])
    points, names = [], []
    for corners, ids, other_corners, other_normal, other in ((p, ids_p, q, normal_q, s), (q, ids_q, p, normal_p, t)):
        height = np.einsum("kij,kj->ki", corners - other_corners[:, None, 0], other_normal)
        for k in (1, 2):  # the lone corner's two edges reach the other plane
            span = height[:, 0] - height[:, k]
            along = height[:, 0] / np.where(span == 0.0, 1.0, span)
            points.append(corners[:, 0] + along[:, None] * (corners[:, k] - corners[:, 0]))
            edge = np.sort(ids[:, [0, k]], axis=1)
            names.append(np.column_stack([edge, other]))
    points, names = np.stack(points, 1), np.stack(names, 1)  # (C, 4, 3): chord of t (0, 1), chord of s (2, 3)
    direction = cross(normal_p, normal_q)
    position = np.einsum("kij,kj->ki", points, direction)
    rows = np.arange(len(p))
    low_t, low_s = np.where(position[:, 0] <= position[:, 1], 0, 1), np.where(position[:, 2] <= position[:, 3], 2, 3)
    high_t, high_s = 1 - low_t, 5 - low_s
    start = np.where(position[rows, low_t] >= position[rows, low_s], low_t, low_s)
    end = np.where(position[rows, high_t] <= position[rows, high_s], high_t, high_s)
    return (np.stack([points[rows, start], points[rows, end]], 1),
            np.stack([names[rows, start], names[rows, end]], 1))


def orient_2d(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Exact sign of the 2D cross product (b - a) x (c - a) of (..., 2) points (int8): the 3D orientation of
    the points lifted to z = 0 against a point straight above a, which is that cross product exactly."""
    a, b, c = (np.concatenate([v, np.zeros(v.shape[:-1] + (1,))], axis=-1) for v in np.broadcast_arrays(a, b, c))
    return orientation_signs(a, b, c, a + _UP, None)


def _areas_overlap(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Coplanar triangle pairs whose areas overlap (positive area): no edge of either has the other wholly
    on the closed outer side of its line (for convex polygons the separating line, when there is one, can
    be taken along an edge). Zero-area triangles overlap nothing."""
    if not len(p):
        return np.zeros(0, bool)
    normal_p = np.abs(cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]))
    normal_q = np.abs(cross(q[:, 1] - q[:, 0], q[:, 2] - q[:, 0]))  # (a folded pair's normals cancel: not summed)
    drop = np.argmax(np.where((normal_p.max(1) >= normal_q.max(1))[:, None], normal_p, normal_q), 1)
    keep = np.stack([(drop + 1) % 3, (drop + 2) % 3], 1)
    rows = np.arange(len(p))[:, None, None]
    flat_p, flat_q = p[rows, np.arange(3)[None, :, None], keep[:, None]], q[rows, np.arange(3)[None, :, None],
                                                                            keep[:, None]]
    turn_p = orient_2d(flat_p[:, 0], flat_p[:, 1], flat_p[:, 2])
    turn_q = orient_2d(flat_q[:, 0], flat_q[:, 1], flat_q[:, 2])
    overlap = (turn_p != 0) & (turn_q != 0)
    for own, turn, other in ((flat_p, turn_p, flat_q), (flat_q, turn_q, flat_p)):
        for k in range(3):
            sides = orient_2d(own[:, None, k], own[:, None, (k + 1) % 3], other) * turn[:, None]
            overlap &= (sides > 0).any(1)
    return overlap


def _curves(mesh: TriangleMesh, names: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The curve of each segment: segments join where their ends have the same name (vertex ids welded where
    positions are bit-identical, so split-vertex seams do not cut curves), or where their ends fall in one cell
    of either of two grids ``JOIN_DISTANCE`` x the mesh's size wide, offset by half a cell (an end at an
    edge-edge contact is named by either edge: the segments on its two sides name it differently)."""
    if not len(names):
        return np.zeros(0, np.int64)
    used, inverse = np.unique(names[:, :, :2], return_inverse=True)
    welded = exact_representatives(mesh.vertices[used])
    edges = np.sort(welded[inverse.reshape(names.shape[0], 2, 2)], axis=2)
    ends = np.concatenate([edges, names[:, :, 2:]], axis=2).reshape(-1, 3)
    cell = JOIN_DISTANCE * mesh.size or 1.0
    points = segments.reshape(-1, 3) / cell
    keys = [ends] + [np.floor(points + shift).astype(np.int64) for shift in (0.0, 0.5)]
    ends_count = 2 * len(names)
    first, second, offset = [], [], ends_count
    for key in keys:
        _, point = np.unique(key, axis=0, return_inverse=True)
        first.append(np.arange(ends_count))
        second.append(offset + point.reshape(-1))
        offset += int(point.max()) + 1
    # nodes: segment ends (2 per segment, an end's segment is end // 2), then one node per distinct key
    first = np.concatenate([np.arange(ends_count), *first])
    second = np.concatenate([np.repeat(np.arange(0, ends_count, 2), 2), *second])
    root, _ = label_components(offset, first, second)
    _, curve = np.unique(root[0:ends_count:2], return_inverse=True)
    return curve.reshape(-1)
