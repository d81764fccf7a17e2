"""``collide_solid_pairs`` and ``measure_solid_pairs``: many pairs at once, convex ones screened together, with
warm slots that carry each pair's last answer to its next one and a deadline for the live update."""

from __future__ import annotations

import time
from collections.abc import Iterator, MutableSequence, Sequence
from itertools import repeat
from typing import NamedTuple

import numpy as np

from ...contact import PENETRATING, SEPARATED
from ...narrowphase.batch import ApartPairs
from ...steps import checkpoint
from ..distance import MeshDistance
from ..drag.starts import ConvexStart, PairStart
from ..drag.penetrating_pairs import keep_convex_starts, renewed_penetrating, translated_warm
from ..drag.separated_pairs import (begin_renewals, bounded_warm, catch_up, finish_renewals, find_hull_gaps,
                                    probe_hull_points, renew_ahead, separated_warm, start_answer)
from ..drag.translated_contact import TranslationStart
from ..drag.translated_distance import (RENEW_STEP_SECONDS, Renewal, SeparationStart, separation_start,
                                        start_after_translation)
from ..solid import CONVEX, HULL, MESH, Solid
from .convex_pairs import convex_answer, epa_deadline, pair_regions, screen_convex_pairs, separated_answer
from .dispatch import solid_pair
from .mesh_pairs import mesh_pairs_together
from .result import SolidContact, has_overlap_volume, pair_method, pair_options, pair_size
from .volumes import pair_volumes

#: Mesh pairs whose push-out searches run in lockstep at a time, at most: each step's numpy calls are paid once a
#: chunk, so smaller chunks cost more (the kitbashed roof's check 7-9 % slower at 256 a chunk) ...
LOCKSTEP_PAIRS = 1024
#: ... and at most this many triangles of both sides of all a chunk's pairs (what its rounds hold stays small).
LOCKSTEP_TRIANGLES = 1 << 18


def lockstep_chunks(triangles: Sequence[int]) -> Iterator[list[int]]:
    """The indices of mesh pairs with ``triangles`` each (both sides' counts), in order, in the chunks measured in
    lockstep: at most ``LOCKSTEP_PAIRS`` pairs and ``LOCKSTEP_TRIANGLES`` triangles (a pair over that alone)."""
    chunk: list[int] = []
    total = 0
    for index, count in enumerate(triangles):
        if chunk and (len(chunk) == LOCKSTEP_PAIRS or total + count > LOCKSTEP_TRIANGLES):
            yield chunk
            chunk, total = [], 0
        chunk.append(index)
        total += count
    if chunk:
        yield chunk


def collide_solid_pairs(pairs: Sequence[tuple[Solid, Solid]], *, tolerance: float | None = None,
                        touch_tolerance: float | None = None, max_iterations: int | None = None,
                        clearance: float = 0.0, volumes: bool = True,
                        warm: MutableSequence[PairStart | None] | None = None,
                        deadline: float | None = None) -> list[SolidContact | None]:
    """``[collide_solids(a, b, ...) for a, b in pairs]``, with the convex pairs screened together.

    Convex (and hull) pairs go through GJK in lockstep (``core.narrowphase.batch``); those found apart by more than
    ``clearance`` keep that answer (their closest points), the rest get ``collide_solids``' full
    treatment: EPA, contact region, overlap volume (unless ``volumes`` is False: then an overlapping convex
    pair's volume is left out, ``volume_pending``; it is the costly part for finely tessellated objects).
    Other pairs are measured one by one.

    ``warm``, one slot per pair, serves pairs measured again and again as they move (live update): a convex
    pair whose hulls overlap starts EPA from its slot's polytope when that still encloses the origin
    (``core.narrowphase.warm_epa.collide_warm``: same certificate, depth the same to the tolerance) and leaves its final
    polytope in the slot for the next query. A penetrating mesh pair leaves what its answer proved
    (``translated_contact.TranslationStart``); with ``volumes`` False, while only translations have moved
    the objects since and its lower bound still proves the overlap, the pair is answered from that, without
    a triangle test (its depth bounded, its volume and crossing curves pending), else measured in full. A
    separated mesh pair leaves its triangle pairs near the closest ones (``translated_distance.SeparationStart``):
    while only translations have moved the objects since, its exact distance is found among them, in either mode.

    ``deadline`` (a ``time.perf_counter()`` value) bounds the time spent on overlapping convex pairs (EPA) and
    on pairs measured in full one by one (non-convex pairs their starts do not answer), in the order given: none
    is started after it, and those left are None, their slots unchanged (for a caller that must answer in time,
    such as an update while the user drags; convex pairs the screen finds apart are answered whatever the time,
    and with ``volumes`` False a pair left is answered from its last exact answer when only translated since and it
    still certainly penetrates, an overlapping convex pair, or stays apart, a separated mesh pair:
    ``answered_from_last``).
    With a deadline, a separated mesh pair its start no longer answers is renewed a step at a time until then
    (``translated_distance.Renewal`` in its slot: it waits, None, while the renewal goes on at the next calls), and the
    time left renews ahead the starts of separated mesh pairs a drag has spent more than ``RENEW_AHEAD`` of, so that a
    drag of a few such pairs never stops for a renewal; without a deadline a renewal under way is run to its end.
    """
    apart, answers = measure_solid_pairs(pairs, tolerance=tolerance, touch_tolerance=touch_tolerance,
                                         max_iterations=max_iterations, clearance=clearance, volumes=volumes,
                                         warm=warm, deadline=deadline)
    for k, contact in zip(apart.index.tolist(), apart.contacts()):
        answers[k] = contact
    return answers


class ApartSolids(NamedTuple):
    """Pairs of a batch found apart by more than the clearance, as columns (row ``k`` is pair ``index[k]``):
    the answer ``collide_solids`` gives them, without a Python object per pair. ``pairs`` are GJK's columns
    (``core.narrowphase.batch.ApartPairs``: distance, normal, closest points, bounds); ``methods`` each pair's method
    ('convex' or 'hull'); ``has_volume`` where the overlap volume is 0 rather than None (both closed, no hulls)."""

    pairs: ApartPairs
    methods: list[str]
    has_volume: np.ndarray

    @property
    def index(self) -> np.ndarray:
        return self.pairs.index

    @classmethod
    def joined(cls, parts: Sequence[ApartSolids]) -> ApartSolids:
        """The rows of ``parts`` (one or more) one after another."""
        pairs = ApartPairs(*(np.concatenate(columns) for columns in zip(*(part.pairs for part in parts))))
        return cls(pairs, [method for part in parts for method in part.methods],
                   np.concatenate([part.has_volume for part in parts]))

    def contacts(self) -> list[SolidContact]:
        """A ``SolidContact`` per row, as ``collide_solids`` answers it."""
        return [separated_answer(contact, method, volume) for contact, method, volume in
                zip(self.pairs.contacts(), self.methods, self.has_volume.tolist())]


def measure_solid_pairs(pairs: Sequence[tuple[Solid, Solid]], *, tolerance: float | None = None,
                        touch_tolerance: float | None = None, max_iterations: int | None = None,
                        clearance: float = 0.0, volumes: bool = True,
                        warm: MutableSequence[PairStart | None] | None = None, deadline: float | None = None
                        ) -> tuple[ApartSolids, list[SolidContact | None]]:
    """``collide_solid_pairs``, with the pairs the batch found apart by more than ``clearance`` as columns
    (``ApartSolids``) and None at their places in the list: a clash check of hundreds of objects keeps tens
    of thousands of separated pairs as numbers. Arguments as for ``collide_solid_pairs``; pairs the
    ``deadline`` left unmeasured are None in the list too, and not in the columns."""
    options = {"tolerance": tolerance, "touch_tolerance": touch_tolerance}
    if max_iterations is not None:
        options["max_iterations"] = max_iterations
    answers: list[SolidContact | None] = [None] * len(pairs)
    methods = [pair_method(a, b) for a, b in pairs]
    convex = [k for k, method in enumerate(methods) if method in (CONVEX, HULL)]
    starts = None if warm is None else [warm[k].polytope if isinstance(warm[k], ConvexStart) else None
                                         for k in convex]
    apart, screened = screen_convex_pairs([pairs[k] for k in convex], options, starts, epa_deadline(deadline))
    signed = apart.signed_distance
    far = (signed > apart.touch_tolerance) & (signed >= clearance)  # separated (``classify``), beyond the clearance
    for row, contact in zip(apart.index[~far].tolist(), apart.take(~far).contacts()):
        screened[row] = contact  # apart, but within the clearance: measured in full below
    near = []
    for k, contact in zip(convex, screened):
        if contact is None:
            continue
        if contact.status == SEPARATED and contact.signed_distance >= clearance:
            answers[k] = separated_answer(contact, methods[k], has_overlap_volume(*pairs[k], methods[k]))
        else:
            near.append((k, contact))
    overlapping = [pairs[k] for k, contact in near if contact.status == PENETRATING]
    measured = iter(pair_volumes(overlapping)) if volumes else repeat((None, None, 0.0))
    regions = pair_regions([pairs[k] for k, _contact in near], [contact for _k, contact in near])
    for (k, contact), region in zip(near, regions):
        overlaps = contact.status == PENETRATING
        pending = overlaps and not volumes and has_overlap_volume(*pairs[k], methods[k])
        answers[k] = convex_answer(contact, *pairs[k], next(measured) if overlaps else (0.0, None, 0.0), region,
                                   volume_pending=pending)
    if warm is not None:
        keep_convex_starts(pairs, convex, screened, starts, warm, answers, carry=not volumes)
    rows = apart.take(far)
    index = np.asarray(convex, dtype=np.int64)[rows.index].tolist()
    columns = ApartSolids(rows._replace(index=np.asarray(index, dtype=np.int64)), [methods[k] for k in index],
                          np.array([has_overlap_volume(*pairs[k], methods[k]) for k in index], dtype=bool))
    # The pairs left: not convex (convex ones are answered, in the columns, or left by the deadline).
    rest = [k for k, answer in enumerate(answers) if answer is None and methods[k] not in (CONVEX, HULL)]
    separated, outrun, begun, hull_gaps, closest = [], [], set(), {}, {}
    if warm is not None:
        if deadline is None:
            finish_renewals(rest, warm)
        separated = [k for k in rest if isinstance(warm[k], (SeparationStart, Renewal))]
        separated_warm(pairs, separated, warm, answers)
        if deadline is not None:  # renewed a step at a time, below, once the pairs that cannot be have had their turn
            outrun = [k for k in separated if answers[k] is None]
            hull_gaps, closest = find_hull_gaps(pairs, outrun, warm, options, deadline)
            begun = begin_renewals(pairs, outrun, warm, hull_gaps)
        if not volumes:
            translated_warm(pairs, [k for k in rest if isinstance(warm[k], TranslationStart)], warm, answers)
    if warm is None and deadline is None:  # (a clash check): the mesh pairs' push-out searches in lockstep
        _mesh_pairs_in_lockstep(pairs, [k for k in rest if methods[k] == MESH], options, answers)
    renewing = set() if warm is None else {k for k in rest if isinstance(warm[k], Renewal)}  # (they wait)
    longest = 0.0  # the longest pair measured one by one so far: the next starts only if one as long fits in time
    for k in [k for k in rest if answers[k] is None and k not in renewing]:
        checkpoint()  # (a cancelled caller's worker stops here)
        began = time.perf_counter()
        if deadline is not None and began + longest >= deadline:
            break
        answers[k], start = _one_by_one(*pairs[k], options, None if warm is None else warm[k], volumes=volumes,
                                        keep=warm is not None, deadline=deadline)
        longest = max(longest, time.perf_counter() - began)
        if warm is not None:
            warm[k] = start
    if deadline is not None:  # (a pair measured in full above may have another kind of start now)
        probe_hull_points(pairs, hull_gaps, closest, warm, deadline)
        catch_up(pairs, outrun, warm, answers, deadline, begun)
        answering = [k for k in separated if answers[k] is not None and isinstance(warm[k], (SeparationStart, Renewal))]
        renew_ahead(pairs, answering, warm, deadline - RENEW_STEP_SECONDS)
        if not volumes:
            bounded_warm(pairs, [k for k in separated if answers[k] is None], warm, answers, hull_gaps)
    return columns, answers


def _mesh_pairs_in_lockstep(pairs: Sequence[tuple[Solid, Solid]], mesh: list[int], options: dict,
                            answers: list[SolidContact | None]) -> None:
    """The answers of the mesh pairs at ``mesh`` (indices), in ``lockstep_chunks``: their push-out searches ask the
    exact test together (``mesh_pairs_together``)."""
    for rows in lockstep_chunks([len(pairs[k][0].mesh.triangles) + len(pairs[k][1].mesh.triangles) for k in mesh]):
        chunk = [mesh[row] for row in rows]
        chunk_options = [pair_options(*pairs[k], options["tolerance"], options["touch_tolerance"],
                                      options.get("max_iterations")) for k in chunk]
        for k, (contact, _proved) in zip(chunk, mesh_pairs_together([pairs[k] for k in chunk], chunk_options)):
            answers[k] = contact


def _one_by_one(a: Solid, b: Solid, options: dict, start: PairStart | None, *, volumes: bool, keep: bool,
                deadline: float | None = None) -> tuple[SolidContact | None, TranslationStart | SeparationStart | None]:
    """A pair measured alone (its keywords resolved as ``collide_solids`` does). With what to start its next
    answer from: a penetrating mesh pair's (it costs nothing), and when ``keep`` a separated mesh pair's
    (``translated_distance``; a ``start`` that ran out tells whether the drag is slow enough for a start to
    serve, and a pair only moved by less than its distance since is measured from it, without a full
    measurement: ``translated_distance.start_after_translation``). Under a ``deadline``, a penetrating mesh pair whose
    renewal fails is not measured in full in the same call (the two together took 12-13 ms at 10k vertices, one
    update's whole budget): ``(None, None)``, so that its next turn measures it in full at once."""
    if not volumes and isinstance(start, TranslationStart):
        renewed = renewed_penetrating(a, b, start)
        if renewed is not None:
            return renewed
        if deadline is not None:
            return None, None
    if keep and isinstance(start, SeparationStart):
        moved = start_after_translation(start, a, b, pair_size(a, b))
        if moved is not None:
            return start_answer(moved), moved
    options = pair_options(a, b, options["tolerance"], options["touch_tolerance"], options.get("max_iterations"))
    contact, proved = solid_pair(a, b, options)
    if keep and contact.method == MESH and contact.status == SEPARATED and not contact.curves:
        found = MeshDistance(contact.distance, contact.point_a, contact.point_b, -1, -1)
        previous = start if isinstance(start, SeparationStart) else None
        return contact, separation_start(a, b, found, pair_size(a, b), contact.tolerance, contact.overlap_volume,
                                         previous)
    return contact, proved
