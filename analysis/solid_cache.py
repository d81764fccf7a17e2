"""Each object's prepared shape, read once and moved to wherever the object is now, and each pair's warm start.

The live update, the animation scan and resolving share it (docs/architecture.md, "Solid cache").
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import bpy
import numpy as np

from ..core.mesh import MESH, PARTS, Solid
from ..core.mesh.drag.separated_pairs import start_for_next_drag
from ..core.mesh.drag.starts import PairStart
from ..core.mesh.drag.translated_distance import Renewal, SeparationStart, without_pairs
from ..core.shapes.convex import Polytope
from ..core.steps import Steps, run_to_end
from .shapes import Source, read_solid_steps

#: A matrix whose linear part has a smaller determinant is treated as singular (the object is read again).
SINGULAR = 1e-12
#: Bytes of triangle pairs the separated non-convex pairs' starts keep while nothing moves, ready for the next drag
#: (``SolidCache.prepare_separation_starts``; about 1 MB per pair of 10k-vertex objects): the most recently
#: measured pairs keep theirs, the others drop them.
KEPT_PAIRS_BUDGET_BYTES = 64 * 2 ** 20


def measures_volumes_later() -> bool:
    """Whether live updates leave overlap volumes for when the objects stop moving: while the interface runs
    (a drag sends an update per mouse move); in background mode nothing waits, so every update is complete."""
    return not bpy.app.background


@dataclass
class _Entry:
    """A source's Solid as read at ``matrix`` (and its inverse), and the last moved copy handed out."""

    matrix: np.ndarray
    inverse: np.ndarray
    solid: Solid
    use_hull: bool
    data: int
    last_matrix: np.ndarray
    last_solid: Solid


def _kept_bytes(start: SeparationStart) -> int:
    """Memory held by a start's triangle pairs."""
    return sum(array.nbytes for array in (start.corners_a, start.corners_b, start.axes, start.gaps,
                                          start.measured_axes, start.measured_gaps))


def data_identity(obj: bpy.types.Object) -> int:
    """Which data ``obj`` has (0 for none), as its session id: unlike its address, never that of data freed before
    (Blender reuses freed memory, so new data at a freed mesh's address would pass for it). A shape read from other
    data is read again."""
    return obj.data.session_uid if obj.data is not None else 0



def source_key(source: Source) -> tuple:
    """What a cached shape belongs to: the owner, the object read, and an instance's name (one object may be
    instanced several times)."""
    return source.owner.as_pointer(), source.obj.as_pointer(), '' if source.matrix is None else source.name


def _determinant(matrix: np.ndarray) -> float:
    """Determinant of the 4x4 affine ``matrix``'s linear part (in floats: ``np.linalg.det`` costs more than
    the scan's per-frame matrix checks can afford)."""
    (a, b, c, _), (d, e, f, _), (g, h, i, _) = matrix[:3].tolist()
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def _move(read: np.ndarray, inverse: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The 4x4 map from where an object was read (``read``, its ``inverse``) to ``matrix``: an exact translation
    when the linear part is unchanged (a turned object only moved: ``matrix @ inverse`` would leave a linear part
    an ulp off the identity, which makes every later query on the shape pay for a turn and keeps a drag from
    being recognised as one)."""
    if (matrix[:3, :3] == read[:3, :3]).all():
        move = np.eye(4)
        move[:3, 3] = matrix[:3, 3] - read[:3, 3]
        return move
    return matrix @ inverse


class SolidCache:
    """Each source's prepared ``Solid``, read once and moved to wherever the source is now, and each pair's
    warm start: an overlapping convex pair's EPA polytope, or what a non-convex pair's last full answer proved
    (penetrating or apart), for its next measurement (docs/architecture.md, "Solid cache")."""

    def __init__(self) -> None:
        self._entries: dict[tuple, _Entry] = {}
        self._warm: dict[tuple, PairStart | None] = {}
        #: When each pair was last measured (a count of measurements): an update short of time starts with the
        #: pairs that waited longest.
        self._measured: dict[tuple, int] = {}
        self._measurements = 0
        #: Per pair, the separation start ``prepare_separation_starts`` left as it is (it could not ready it, or
        #: the budget was spent): not tried again.
        self._left: dict[tuple, SeparationStart] = {}

    def solid(self, source: Source, depsgraph: bpy.types.Depsgraph, use_hull: bool) -> Solid:
        """The source's evaluated shape in world space: read the first time (and after ``forget``, or when its
        mesh data or ``use_hull`` changed), else the cached one moved by the source's current matrix (an
        instance's, or the object's). Raises ObjectGeometryError."""
        return run_to_end(self.solid_steps(source, depsgraph, use_hull))

    def solid_steps(self, source: Source, depsgraph: bpy.types.Depsgraph, use_hull: bool) -> Steps[Solid]:
        """``solid`` as steps (``core.steps``): a big object's reading ends on a worker thread
        (``shapes.read_solid_steps``)."""
        matrix = (source.matrix if source.matrix is not None else
                  np.array(source.obj.evaluated_get(depsgraph).matrix_world, dtype=np.float64))
        key = source_key(source)
        entry = self._entries.get(key)
        read = self._read_as(entry, source, use_hull)
        if read and (matrix == entry.last_matrix).all():
            return entry.last_solid  # not moved since the last call: no need to check its matrix again
        invertible = abs(_determinant(matrix)) > SINGULAR
        if not read or not invertible:
            identity = data_identity(source.obj)  # (before the worker's steps: the object may go meanwhile)
            solid = yield from read_solid_steps(source, depsgraph, use_hull)
            if invertible:
                if measures_volumes_later():  # its support tables built when idle, not in the middle of a drag
                    solid.defer_support_tables()
                self._entries[key] = _Entry(matrix, np.linalg.inv(matrix), solid, use_hull, identity, matrix, solid)
            return solid
        entry.last_matrix = matrix
        entry.last_solid = entry.solid.transformed(_move(entry.matrix, entry.inverse, matrix))
        return entry.last_solid

    def adopt(self, source: Source, solid: Solid, matrix: np.ndarray) -> None:
        """Take ``solid``, read elsewhere (by an analysis) where ``source``'s matrix was ``matrix``, as its shape:
        ``solid()`` hands it out moved to wherever the source is now, as if this cache had read it there (nothing
        when ``matrix`` is singular: the source is then read on use)."""
        if abs(_determinant(matrix)) > SINGULAR:
            self._entries[source_key(source)] = _Entry(matrix, np.linalg.inv(matrix), solid, solid.use_hull,
                                                       data_identity(source.obj), matrix, solid)

    @staticmethod
    def _read_as(entry: _Entry | None, source: Source, use_hull: bool) -> bool:
        """``entry`` holds ``source``'s shape as it is now (the same mesh data, read as asked: hull or not)."""
        return entry is not None and entry.use_hull == use_hull and entry.data == data_identity(source.obj)

    def has_read(self, source: Source, use_hull: bool) -> bool:
        """Whether ``source``'s shape is read (as ``solid`` would hand it out without reading it)."""
        return self._read_as(self._entries.get(source_key(source)), source, use_hull)

    def prepare(self, source: Source, depsgraph: bpy.types.Depsgraph, use_hull: bool) -> None:
        """Read ``source``'s shape and prepare it for measuring: classified, and its hulls (convex objects) or its
        triangle tree and convex hull (the others: a drag asks the hull for bounds and push-outs) built, so that
        measuring a pair of prepared shapes costs no more than that. Raises ObjectGeometryError."""
        solid = self.solid(source, depsgraph, use_hull)
        solid.prepared_polytopes()
        if solid.method in (MESH, PARTS):
            solid.widen_tree()  # a drag may take the other object anywhere
            solid.bvh, solid.hull  # built now, not at the pair's measurement

    def forget(self, pointers: set) -> None:
        """Drop the shapes of the objects at ``pointers`` (their geometry changed), whether they own the
        shape or are instanced: they are read again on their next use."""
        if pointers:
            self._entries = {key: entry for key, entry in self._entries.items()
                             if key[0] not in pointers and key[1] not in pointers}
            self._warm, self._measured, self._left = (
                {pair: value for pair, value in per_pair.items()
                 if not pointers.intersection(pair[0][:2] + pair[1][:2])}
                for per_pair in (self._warm, self._measured, self._left))

    def warm_starts(self, pairs: list[tuple[Source, Source]]) -> list[PairStart | None]:
        """The warm start slot of each pair of sources (None where it has none yet)."""
        return [self._warm.get((source_key(a), source_key(b))) for a, b in pairs]

    def keep_warm_starts(self, pairs: list[tuple[Source, Source]],
                         starts: list[PairStart | None]) -> None:
        """Keep ``starts`` (``warm_starts``' slots, as measuring left them) for the next update."""
        for (a, b), start in zip(pairs, starts):
            self._warm[source_key(a), source_key(b)] = start

    def waited_longest_first(self, pairs: list[tuple[Source, Source]]) -> list[int]:
        """Positions of ``pairs`` ordered from the one measured longest ago (never measured first)."""
        last = [self._measured.get((source_key(a), source_key(b)), -1) for a, b in pairs]
        return sorted(range(len(pairs)), key=last.__getitem__)

    def measured(self, pairs: list[tuple[Source, Source]]) -> None:
        """Note that ``pairs`` were just measured."""
        self._measurements += 1
        for a, b in pairs:
            self._measured[source_key(a), source_key(b)] = self._measurements

    def unbuilt_support_tables(self) -> list[Polytope]:
        """The polytopes of the shapes read while the interface runs that still wait for their support tables
        (``Solid.defer_support_tables``: the hulls of convex objects and of parts, read then, and a non-convex
        object's hull, made at its first penetrating measurement)."""
        return [polytope for entry in self._entries.values() for polytope in entry.solid.pending_support_tables()]

    @property
    def support_tables_pending(self) -> bool:
        """Some shape read while the interface runs still waits for a support table."""
        return bool(self.unbuilt_support_tables())

    def build_support_tables(self, deadline: float) -> None:
        """Build the deferred support tables of the shapes read while the interface runs, at least one, until
        ``time.perf_counter()`` passes ``deadline``."""
        for polytope in self.unbuilt_support_tables():
            polytope.build_support_table()
            if time.perf_counter() >= deadline:
                return

    def prepare_separation_starts(self, deadline: float) -> bool:
        """Ready the separated non-convex pairs' starts for the next drag while nothing moves
        (``core.mesh.drag.separated_pairs.start_for_next_drag``: the triangle pairs near their closest ones where
        they are now, so that a drag's first updates search no tree), most recently measured first, until
        ``time.perf_counter()`` passes ``deadline`` (at least one). Starts beyond ``KEPT_PAIRS_BUDGET_BYTES`` of
        triangle pairs drop theirs (``translated_distance.without_pairs``). A renewal the drag left under way is
        dropped for the start it renews (its steps hold memory, and the pair stands still now). Whether any was
        readied."""
        order = sorted((pair for pair, start in self._warm.items() if isinstance(start, (SeparationStart, Renewal))),
                       key=lambda pair: -self._measured.get(pair, -1))
        used, readied = 0, False
        for pair in order:
            start = self._warm[pair]
            if isinstance(start, Renewal):
                start = start.base
            if used < KEPT_PAIRS_BUDGET_BYTES and self._waits(pair, start):
                if readied and time.perf_counter() >= deadline:
                    return readied
                start, readied = self._ready(pair, start), True
            if used >= KEPT_PAIRS_BUDGET_BYTES:
                start = self._left[pair] = without_pairs(start) if len(start.gaps) else start
            self._warm[pair] = start
            used += _kept_bytes(start)
        return readied

    @property
    def separation_starts_pending(self) -> bool:
        """Some separated non-convex pair's start still waits for ``prepare_separation_starts``."""
        return any(isinstance(start, SeparationStart) and self._waits(pair, start)
                   for pair, start in self._warm.items())

    def _waits(self, pair: tuple, start: SeparationStart) -> bool:
        """``start`` keeps no triangle pairs and was not left as it is (see ``_left``)."""
        return not len(start.gaps) and self._left.get(pair) is not start

    def _ready(self, pair: tuple, start: SeparationStart) -> SeparationStart:
        """``start_for_next_drag`` of ``pair`` where its solids were last handed out; ``start`` itself, left as it
        is, when it cannot give one (or a solid is gone)."""
        a, b = self._entries.get(pair[0]), self._entries.get(pair[1])
        ready = None if a is None or b is None else start_for_next_drag(start, a.last_solid, b.last_solid)
        if ready is None:
            self._left[pair] = start
            return start
        return ready

    def clear(self) -> None:
        self._entries.clear()
        self._warm.clear()
        self._measured.clear()
        self._left.clear()
