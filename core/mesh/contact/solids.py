"""``collide_solids``: the contact between two real objects, convex or not, with a certified push-out.

The pair is measured the exact way its shapes allow (see ``solid``):

- both convex (or hulls asked for): GJK/EPA on the hulls, exact;
- loose convex parts: GJK/EPA per pair of parts; the pair's depth is at least the deepest part pair's;
- otherwise on the triangles: surface crossings and containment decide the status, the exact mesh
  distance measures a gap, and the overlap volume comes from the surfaces.

A penetrating pair gets a push-out ``depth * normal`` that is *certified*: B moved by it is checked with
the exact test before it is reported. ``depth_lower_bound`` is what can be proved about the smallest
push-out; when the two differ by more than the tolerance, ``depth_is_estimate`` is set.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, MutableSequence, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import NamedTuple

import numpy as np

from ...narrowphase.batch import ApartPairs, ShapeSet, screen_many
from ...narrowphase.collide import collide
from ...contact import (PENETRATING, SEPARATED, TOUCHING, Contact, SignedDistanceMixin, classify,
                       frozen_instance)
from ...contact_patch.region import ContactRegion, contact_region, contact_regions
from ...steps import run_to_end, run_until
from ...narrowphase.warm_epa import WarmStart, collide_warm_many
from ..convex_volume import convex_overlap_volumes
from ..distance import MeshDistance, mesh_distance, nearest_on_surface
from ..intersection import default_tolerance, surface_intersection, surfaces_overlap
from .sat_pairs import sat_contacts, sat_ready
from ..solid import CONVEX, HULL, MESH, PARTS, Solid
from ..drag.translated_contact import (
    ProvenDepth,
    TranslatedDepth,
    TranslationStart,
    depth_after_translation,
    pair_translations,
    renewed_start,
    translation_start,
)
from ..drag.translated_distance import (
    RENEW_AHEAD,
    RENEW_STEP_SECONDS,
    BoundedDistance,
    Renewal,
    SeparationStart,
    distance_bounds_after_translation,
    distances_after_translation,
    drag_since,
    keep_probes,
    renewal_steps,
    separation_start,
    spent,
    start_after_translation,
)
from ..volume import overlap_volume
from ..rays import crossing_windings

#: Default touch band and solver accuracy, relative to the pair's size.
DEFAULT_RELATIVE_TOLERANCE = 1e-9
#: Bisection steps per push-out direction: the push-out is within 2^-steps of its bracket.
PUSHOUT_STEPS = 12
#: Vertices sampled per object for the containment test (winding numbers).
CONTAINMENT_SAMPLES = 16
#: Vertices sampled per object for ball centres of the depth's lower bound.
LOWER_BOUND_SAMPLES = 16
#: A dragged penetrating mesh pair whose ball is used up is answered from a renewed start while its push-out is at
#: most this many times the new ball's lower bound (else it is measured in full: a better push-out is wanted).
RENEWED_DEPTH_RATIO = 2.0
#: The share of the time to a deadline that separated mesh pairs dragged past their last answers may spend finding
#: surface points near their convex hulls' closest points (a tight upper bound while they wait; the rest of the time
#: renews their starts, for exact answers).
HULL_SHARE = 0.5
#: The share of the time to a deadline that overlapping convex pairs may spend in EPA: their contact regions take
#: about a third as long again (0.4 against 1.1 ms per warm-started pair of 10k-vertex spheres dragged fast).
EPA_SHARE = 0.75

AXES = np.vstack([np.eye(3), -np.eye(3)])



@dataclass(frozen=True)
class ConvexStart:
    """What an overlapping convex pair's last exact answer left for its next one: its final EPA ``polytope``
    (``warm_epa``: the next solve goes on from it) and, when it penetrates, what the answer ``proved`` about the
    depth (while the interface runs, an update with no time left to solve the pair answers it from that after a
    translation)."""

    polytope: WarmStart
    proved: ProvenDepth | None


#: What a pair's last answer left for its next one (``collide_solid_pairs``' ``warm`` slots).
PairStart = ConvexStart | TranslationStart | SeparationStart | Renewal


@dataclass(frozen=True)
class SolidContact(SignedDistanceMixin):
    """The answer for one pair of objects, with ``core.Contact``'s conventions.

    - ``normal`` is a unit vector from A toward B.
    - Penetrating: ``point_a - point_b == depth * normal``, and moving B by ``depth * normal`` was
      checked to leave the pair touching or apart. For convex pairs the depth is exact; otherwise it is
      at least ``depth_lower_bound`` and ``depth_is_estimate`` says when it may be larger than needed.
      For mesh pairs ``point_b`` lies on the deepest intersection region and ``point_a`` is where the
      push-out takes it.
    - Separated or touching: ``point_b - point_a == distance * normal`` with both points on the surfaces. When
      ``distance_is_estimate`` (a separated mesh pair answered from its last exact answer while dragged, no time
      being left to measure it: ``volume_pending`` too), the distance is at most ``distance`` (those two points)
      and at least ``distance_lower_bound``.
    - ``overlap_volume``: the volume both objects enclose (0 when they do not overlap); None when an
      object is open (no inside, so no volume), when hulls were measured, or when ``volume_pending``:
      the pair was measured without its volume (``measure_solid_pairs(volumes=False)``), to be measured later.
    - ``curves``: the polylines where the surfaces cross, one (K, 3) array each (mesh pairs only); a
      closed loop repeats its first point at the end.
    - ``method``: 'convex', 'parts', 'mesh' or 'hull': how the answer was computed.
    - ``region`` (convex and part pairs that touch or overlap): the patch of witness pairs
      (``core.contact_patch.region.ContactRegion``: a point, a segment or a polygon); ``point_a`` and ``point_b`` then
      sit at its centroid.
    """

    status: str
    signed_distance: float
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    method: str
    tolerance: float
    depth_lower_bound: float = 0.0
    depth_is_estimate: bool = False
    distance_lower_bound: float = 0.0
    distance_is_estimate: bool = False
    overlap_volume: float | None = None
    overlap_centroid: np.ndarray | None = None
    curves: tuple = field(default=(), repr=False)
    solver_status: str = "converged"
    region: ContactRegion | None = field(default=None, repr=False)
    volume_pending: bool = False


def pair_method(a: Solid, b: Solid) -> str:
    """How a pair is measured: hulls if either asks, GJK/EPA when every part is convex, else triangles."""
    methods = {a.method, b.method}
    if HULL in methods:
        return HULL
    if MESH in methods:
        return MESH
    return CONVEX if methods == {CONVEX} else PARTS


def collide_solids(a: Solid, b: Solid, *, tolerance: float | None = None, touch_tolerance: float | None = None,
                   max_iterations: int | None = None) -> SolidContact:
    """Contact between two objects (see ``SolidContact``); tolerances in world units, default relative."""
    return _solid_pair(a, b, _pair_options(a, b, tolerance, touch_tolerance, max_iterations))[0]


def _pair_options(a: Solid, b: Solid, tolerance: float | None, touch_tolerance: float | None,
                  max_iterations: int | None) -> dict:
    """The solvers' keywords for the pair: tolerances in world units (default relative to its size)."""
    size = _pair_size(a, b)
    tolerance = DEFAULT_RELATIVE_TOLERANCE * size if tolerance is None else float(tolerance)
    touch = max(tolerance if touch_tolerance is None else float(touch_tolerance), tolerance)
    options = {"tolerance": tolerance, "touch_tolerance": touch}
    if max_iterations is not None:
        options["max_iterations"] = max_iterations
    return options


def _solid_pair(a: Solid, b: Solid, options: dict) -> tuple[SolidContact, TranslationStart | None]:
    """``collide_solids`` with its keywords resolved, and what a penetrating mesh pair's answer proved for its
    next answers after a translation (None for other pairs)."""
    method = pair_method(a, b)
    if method in (CONVEX, HULL):
        return _convex_pair(a, b, options), None
    if method == PARTS:
        return _parts_pair(a, b, options), None
    return _mesh_pair(a, b, options)


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
        return [_separated_answer(contact, method, volume) for contact, method, volume in
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
    apart, screened = _screened([pairs[k] for k in convex], options, starts, _epa_deadline(deadline))
    signed = apart.signed_distance
    far = (signed > apart.touch_tolerance) & (signed >= clearance)  # separated (``classify``), beyond the clearance
    for row, contact in zip(apart.index[~far].tolist(), apart.take(~far).contacts()):
        screened[row] = contact  # apart, but within the clearance: measured in full below
    near = []
    for k, contact in zip(convex, screened):
        if contact is None:
            continue
        if contact.status == SEPARATED and contact.signed_distance >= clearance:
            answers[k] = _separated_answer(contact, methods[k], _has_volume(*pairs[k], methods[k]))
        else:
            near.append((k, contact))
    overlapping = [pairs[k] for k, contact in near if contact.status == PENETRATING]
    measured = iter(_volumes(overlapping)) if volumes else repeat((None, None))
    regions = _regions([pairs[k] for k, _contact in near], [contact for _k, contact in near])
    for (k, contact), region in zip(near, regions):
        overlaps = contact.status == PENETRATING
        answers[k] = _convex_answer(contact, *pairs[k], next(measured) if overlaps else (0.0, None), region,
                                    volume_pending=overlaps and not volumes and _has_volume(*pairs[k], methods[k]))
    if warm is not None:
        _keep_convex_starts(pairs, convex, screened, starts, warm, answers, carry=not volumes)
    rows = apart.take(far)
    index = np.asarray(convex, dtype=np.int64)[rows.index].tolist()
    columns = ApartSolids(rows._replace(index=np.asarray(index, dtype=np.int64)), [methods[k] for k in index],
                          np.array([_has_volume(*pairs[k], methods[k]) for k in index], dtype=bool))
    # The pairs left: not convex (convex ones are answered, in the columns, or left by the deadline).
    rest = [k for k, answer in enumerate(answers) if answer is None and methods[k] not in (CONVEX, HULL)]
    separated, outrun, begun, hull_gaps, closest = [], [], set(), {}, {}
    if warm is not None:
        if deadline is None:
            _finish_renewals(rest, warm)
        separated = [k for k in rest if isinstance(warm[k], (SeparationStart, Renewal))]
        _separated_warm(pairs, separated, warm, answers)
        if deadline is not None:  # renewed a step at a time, below, once the pairs that cannot be have had their turn
            outrun = [k for k in separated if answers[k] is None]
            hull_gaps, closest = _hull_gaps(pairs, outrun, warm, options, deadline)
            begun = _begin_renewals(pairs, outrun, warm, hull_gaps)
        if not volumes:
            _translated_warm(pairs, [k for k in rest if isinstance(warm[k], TranslationStart)], warm, answers)
    renewing = set() if warm is None else {k for k in rest if isinstance(warm[k], Renewal)}  # (they wait)
    longest = 0.0  # the longest pair measured one by one so far: the next starts only if one as long fits in time
    for k in [k for k in rest if answers[k] is None and k not in renewing]:
        began = time.perf_counter()
        if deadline is not None and began + longest >= deadline:
            break
        answers[k], start = _one_by_one(*pairs[k], options, None if warm is None else warm[k], volumes=volumes,
                                        keep=warm is not None, deadline=deadline)
        longest = max(longest, time.perf_counter() - began)
        if warm is not None:
            warm[k] = start
    if deadline is not None:  # (a pair measured in full above may have another kind of start now)
        _probe(pairs, hull_gaps, closest, warm, deadline)
        _catch_up(pairs, outrun, warm, answers, deadline, begun)
        answering = [k for k in separated if answers[k] is not None and isinstance(warm[k], (SeparationStart, Renewal))]
        _renew_ahead(pairs, answering, warm, deadline - RENEW_STEP_SECONDS)
        if not volumes:
            _bounded_warm(pairs, [k for k in separated if answers[k] is None], warm, answers, hull_gaps)
    return columns, answers


def _keep_convex_starts(pairs: Sequence[tuple[Solid, Solid]], convex: list[int], screened: list[Contact | None],
                        polytopes: list[WarmStart | None], warm: MutableSequence[PairStart | None],
                        answers: list[SolidContact | None], carry: bool) -> None:
    """Leave in the slots of the ``convex`` pairs solved (``screened``) their EPA ``polytopes`` with what their answers
    proved (``ConvexStart``); a pair the deadline left unsolved keeps its slot and, when ``carry`` (while the
    interface runs), is answered from what its last answer proved if it was only translated since and still
    certainly penetrates (``translated_contact.depth_after_translation``: a checked push-out and a lower bound,
    ``answered_from_last``)."""
    for row, k in enumerate(convex):
        if screened[row] is not None:
            answer = answers[k]
            proved = None if answer.status != PENETRATING else \
                ProvenDepth(pairs[k][0].placement, pairs[k][1].placement, answer.depth * answer.normal,
                            answer.depth_lower_bound - answer.tolerance, answer.point_b, answer.tolerance,
                            answer.tolerance)
            warm[k] = None if polytopes[row] is None else ConvexStart(polytopes[row], proved)
        elif carry and answers[k] is None and isinstance(warm[k], ConvexStart) and warm[k].proved is not None:
            moved = depth_after_translation(warm[k].proved, *pairs[k])
            if moved is not None:
                answers[k] = _translated_answer(moved, warm[k].proved, pair_method(*pairs[k]))


def answered_from_last(contact: SolidContact) -> bool:
    """Whether a pair's answer is only bounded, carried from its last exact one because no time was left to measure
    it, so that the pair still waits for its measurement: a convex pair's depth looser than its lower bound
    (``_keep_convex_starts``), or a separated mesh pair's distance (``_bounded_warm``)."""
    return (contact.method in (CONVEX, HULL) and contact.depth_is_estimate) or contact.distance_is_estimate


def _epa_deadline(deadline: float | None) -> float | None:
    """When overlapping convex pairs stop being solved by EPA, so that their contact regions, found after them,
    end near ``deadline`` too: ``EPA_SHARE`` of the time left."""
    if deadline is None:
        return None
    now = time.perf_counter()
    return now + EPA_SHARE * (deadline - now)


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
        renewed = _renewed(a, b, start)
        if renewed is not None:
            return renewed
        if deadline is not None:
            return None, None
    if keep and isinstance(start, SeparationStart):
        moved = start_after_translation(start, a, b, _pair_size(a, b))
        if moved is not None:
            return _start_answer(moved), moved
    options = _pair_options(a, b, options["tolerance"], options["touch_tolerance"], options.get("max_iterations"))
    contact, proved = _solid_pair(a, b, options)
    if keep and contact.method == MESH and contact.status == SEPARATED and not contact.curves:
        found = MeshDistance(contact.distance, contact.point_a, contact.point_b, -1, -1)
        previous = start if isinstance(start, SeparationStart) else None
        return contact, separation_start(a, b, found, _pair_size(a, b), contact.tolerance, contact.overlap_volume,
                                         previous)
    return contact, proved


def _start_answer(start: SeparationStart) -> SolidContact:
    """The answer a separated mesh pair's start was made with, where the pair is now."""
    return _apart_answer(MeshDistance(start.distance, start.point_a, start.point_b, -1, -1),
                         start.point_b - start.point_a, start.touch_tolerance, start.overlap_volume)


def start_for_next_drag(start: SeparationStart, a: Solid, b: Solid) -> SeparationStart | None:
    """A separated mesh pair's ``start`` made ready, while nothing moves, for the pair's next drag: with the triangle
    pairs near its closest ones where the pair is now (``translated_distance.start_after_translation`` at rest), so
    that the drag's first updates need no tree search. None when ``start`` cannot give one (the pair turned since,
    or moved as far as its distance): the next update measures it in full."""
    return start_after_translation(start, a, b, _pair_size(a, b), at_rest=True)


def _separated_warm(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: Sequence[PairStart | None],
                    answers: list[SolidContact | None]) -> None:
    """Answer the ``chosen`` separated mesh pairs whose starts (the one a renewal renews) still prove their exact
    distance, all together (``translated_distance.distances_after_translation``); the others are left None."""
    starts = {k: warm[k].base if isinstance(warm[k], Renewal) else warm[k] for k in chosen}
    found = distances_after_translation([starts[k] for k in chosen], [pairs[k] for k in chosen])
    for k, distance in zip(chosen, found):
        if distance is not None:
            answers[k] = _apart_answer(distance, distance.point_b - distance.point_a, starts[k].touch_tolerance,
                                       starts[k].overlap_volume)


def _start_of(slot: PairStart | None) -> SeparationStart | None:
    """The separated mesh pair's start a slot holds (the one a renewal under way renews), or None."""
    start = slot.base if isinstance(slot, Renewal) else slot
    return start if isinstance(start, SeparationStart) else None


def _hull_gaps(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: Sequence[PairStart | None],
               options: dict, deadline: float) -> tuple[dict[int, float], dict[int, tuple]]:
    """``({k: a lower bound on the distance}, {k: the hulls' closest points})`` of those ``chosen`` separated mesh
    pairs whose convex hulls are apart, among the ones only translated since their starts by half their distance or
    more (their last answer proves little now), until ``deadline``: GJK on the hulls (0.1-0.4 ms for a pair of
    10k-vertex objects, against a 9 ms tree search). The hulls apart, neither object can be inside the other."""
    gaps, closest = {}, {}
    for k in chosen:
        start = _start_of(warm[k])
        if start is None or not np.inf > drag_since(start, *pairs[k]) >= 0.5 * start.distance:
            continue
        if time.perf_counter() >= deadline:
            break
        hulls = collide(pairs[k][0].hull, pairs[k][1].hull, **options)
        if hulls.bounds[0] > hulls.tolerance:
            gaps[k], closest[k] = hulls.bounds[0], (hulls.point_a, hulls.point_b)
    return gaps, closest


def _probe(pairs: Sequence[tuple[Solid, Solid]], hull_gaps: dict[int, float], closest: dict[int, tuple],
           warm: Sequence[PairStart | None], deadline: float) -> None:
    """In ``HULL_SHARE`` of the time left before ``deadline``, give the pairs of ``hull_gaps`` whose bounds are
    loosest the surface points nearest their hulls' ``closest`` points as their starts' probes (about 2 ms a pair,
    ``keep_probes``): near the closest pair while the objects are nearly convex where they face each other, they
    bound the distance tightly above while the pair waits for its renewal."""
    now = time.perf_counter()
    share = now + HULL_SHARE * (deadline - now)
    starts = {k: _start_of(warm[k]) for k in hull_gaps}  # (renewing since _begin_renewals: their bases)
    for k in sorted(hull_gaps, key=lambda k: -_looseness(starts[k], *pairs[k], hull_gaps[k])):
        if time.perf_counter() >= share:
            break
        a, b = pairs[k]
        on_a = nearest_on_surface(a.mesh, closest[k][0][None], bvh=a.bvh)[1][0]
        on_b = nearest_on_surface(b.mesh, closest[k][1][None], bvh=b.bvh)[1][0]
        keep_probes(starts[k], a, b, on_a, on_b)


def _looseness(start: SeparationStart, a: Solid, b: Solid, lower: float) -> float:
    """How far apart the bounds on a pair's distance are now (inf when nothing bounds it)."""
    bounds = distance_bounds_after_translation(start, a, b, known_lower=lower)
    return np.inf if bounds is None else bounds.upper - bounds.lower


def _begin_renewals(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: MutableSequence[PairStart | None],
                    hull_gaps: dict[int, float]) -> set[int]:
    """Begin renewing the starts of the ``chosen`` separated mesh pairs that their starts no longer answer (the drag
    outran them), where they can be renewed (``translated_distance.renewal_steps``: not after a turn, nor a move as
    long as the distance unless their hulls are apart, ``hull_gaps``; the others are left to a full measurement): a
    ``Renewal`` in their slots (a renewal under way, begun ahead or at an earlier update, goes on). The pairs whose
    renewals were begun here."""
    return {k for k in chosen if _renewing(pairs, k, warm, apart=k in hull_gaps)}


def _renewing(pairs: Sequence[tuple[Solid, Solid]], k: int, warm: MutableSequence[PairStart | None],
              apart: bool = False) -> bool:
    """Put in pair ``k``'s slot a ``Renewal`` of the start it holds, when that can be renewed
    (``translated_distance.renewal_steps``, told whether the pair is known to be ``apart``); whether it did."""
    if not isinstance(warm[k], SeparationStart):
        return False
    steps = renewal_steps(warm[k], *pairs[k], _pair_size(*pairs[k]), apart=apart)
    if steps is None:
        return False
    warm[k] = Renewal(warm[k], steps)
    return True


def _catch_up(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: MutableSequence[PairStart | None],
              answers: list[SolidContact | None], deadline: float, begun: set[int]) -> None:
    """Run, a step at a time until ``deadline``, the renewals in the slots of the ``chosen`` pairs
    (``_begin_renewals``), in the order given: one that ends answers its pair at once when it was ``begun`` at this
    call (it renewed the start where the pair is now), else when the renewed start proves where the pair is now
    (``_separated_warm``); if not, the pair is renewed again from there. A pair still renewing when the time is up
    waits (None), its ``Renewal`` in its slot, so that no update is held for a whole renewal (a tree search, 9-22 ms
    at 10k vertices); a renewal that found the pair within the touch band empties its slot (a full measurement
    follows)."""
    for k in chosen:
        fresh = k in begun
        while answers[k] is None and time.perf_counter() < deadline:
            if isinstance(warm[k], SeparationStart):
                if not _renewing(pairs, k, warm):
                    break
                fresh = True
            if not isinstance(warm[k], Renewal):
                break
            done, renewed = run_until(warm[k].steps, deadline)
            if not done:
                return
            warm[k] = renewed
            if renewed is None:
                break
            if fresh:
                answers[k] = _start_answer(renewed)
            else:
                _separated_warm(pairs, [k], warm, answers)


def _bounded_warm(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: Sequence[PairStart | None],
                  answers: list[SolidContact | None], hull_gaps: dict[int, float]) -> None:
    """Answer the ``chosen`` separated mesh pairs no time was left to measure from their last exact answers, when only
    translated since and still certainly apart (``translated_distance.distance_bounds_after_translation``, with the
    convex hulls' distance as a lower bound where ``hull_gaps`` has it): the closer of the last closest points and
    the probes, carried along, and a lower bound (``distance_is_estimate``, pending for a measurement once the
    objects stop); the others are left None."""
    for k in chosen:
        start = _start_of(warm[k])
        bounds = None if start is None else distance_bounds_after_translation(start, *pairs[k],
                                                                              known_lower=hull_gaps.get(k, 0.0))
        if bounds is not None:
            answers[k] = _bounded_answer(bounds, start.touch_tolerance)


def _bounded_answer(bounds: BoundedDistance, touch: float) -> SolidContact:
    """A separated mesh pair's answer from bounds on its distance: the upper one, between surface points."""
    return SolidContact(status=SEPARATED, signed_distance=bounds.upper, normal=(bounds.point_b - bounds.point_a) /
                        bounds.upper, point_a=bounds.point_a, point_b=bounds.point_b, method=MESH, tolerance=touch,
                        distance_lower_bound=bounds.lower, distance_is_estimate=True, volume_pending=True)


def _renew_ahead(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: MutableSequence[PairStart | None],
                 deadline: float) -> None:
    """Renew, a step at a time in the time left before ``deadline``, the starts of the ``chosen`` separated mesh
    pairs (answered from their starts now) that the drag has ``spent`` more than ``RENEW_AHEAD`` of
    (``translated_distance.renewal_steps``): they go on answering meanwhile, so that a drag of a few pairs never
    outruns them (and never stops for a renewal). A renewal the drag outruns anyway goes on (``_catch_up``)."""
    # (a start that keeps no triangle pairs, made at a fast pace, has nothing to renew ahead)
    due = [k for k in chosen
           if isinstance(warm[k], Renewal) or len(warm[k].gaps) and spent(warm[k], *pairs[k]) > RENEW_AHEAD]
    for k in due:  # each renewal begun only once there is time for it (its moved meshes cost a millisecond or two)
        if time.perf_counter() >= deadline:
            return
        if isinstance(warm[k], SeparationStart):
            steps = renewal_steps(warm[k], *pairs[k], _pair_size(*pairs[k]))
            if steps is None:
                continue
            warm[k] = Renewal(warm[k], steps)
        done, start = run_until(warm[k].steps, deadline)
        if done:
            warm[k] = start if start is not None else warm[k].base


def _finish_renewals(chosen: list[int], warm: MutableSequence[PairStart | None]) -> None:
    """Run the renewals in the ``chosen`` slots to their end (a caller with time for them): the renewed start, or
    the one renewed when the renewal found the pair within the touch band (its pair is then measured in full)."""
    for k in chosen:
        if isinstance(warm[k], Renewal):
            warm[k] = run_to_end(warm[k].steps) or warm[k].base


def _translated_warm(pairs: Sequence[tuple[Solid, Solid]], chosen: list[int], warm: Sequence[PairStart | None],
                     answers: list[SolidContact | None]) -> None:
    """Answer the ``chosen`` penetrating mesh pairs whose starts still prove their overlap
    (``translated_contact.depth_after_translation``); the others are left None."""
    for k in chosen:
        moved = depth_after_translation(warm[k], *pairs[k])
        if moved is not None:
            answers[k] = _translated_answer(moved, warm[k])


def _renewed(a: Solid, b: Solid, start: TranslationStart) -> tuple[SolidContact, TranslationStart] | None:
    """A penetrating mesh pair dragged past what its start's ball proves, answered without a full measurement: a new
    ball inside both objects where they are now proves the overlap, and the shorter of the carried push-out and
    the convex hulls' (``translated_contact.renewed_start``) bounds the depth. None (measure it in full) when the
    pair turned or scaled, no ball is found, or the push-out is over ``RENEWED_DEPTH_RATIO`` times the ball's
    bound: the full measurement's push-out would be much nearer the shortest."""
    hull_pushout = _hull_pushout(a, b)
    for ball in _renewal_balls(a, b, start):
        if not 2.0 * ball[1] > start.touch_tolerance:
            continue
        renewed = renewed_start(start, a, b, ball, hull_pushout)
        moved = None if renewed is None else depth_after_translation(renewed, a, b)
        if moved is not None and moved.depth <= RENEWED_DEPTH_RATIO * moved.lower:
            return _translated_answer(moved, renewed), renewed
    return None


def _renewal_balls(a: Solid, b: Solid, start: TranslationStart) -> Iterator[tuple[np.ndarray, float]]:
    """Balls inside both objects to renew ``start`` with, the cheaper first: its own ball carried along
    (``_carried_ball``), then the largest ``_common_ball`` finds (about twice as long: sampled vertices)."""
    carried = _carried_ball(a, b, start)
    if carried is not None:
        yield carried
    found = _common_ball(a, b, None)
    if found is not None:
        yield found


def _hull_pushout(a: Solid, b: Solid) -> np.ndarray | None:
    """A move of B that leaves the convex hulls touching or apart (so the objects too), along the hulls' contact
    normal ``n``: by ``max over A of n.x - min over B of n.y``, from two exact support points; None when the hulls
    do not overlap (by more than rounding)."""
    hull = collide(a.hull, b.hull)
    if hull.status != PENETRATING:
        return None
    normal = hull.normal
    reach = float(normal @ np.asarray(a.hull.support(tuple(normal.tolist())))) - \
        float(normal @ np.asarray(b.hull.support(tuple((-normal).tolist()))))
    return reach * normal if reach > 0.0 else None  # (not positive only by rounding, for hulls barely touching)


def _translated_answer(moved: TranslatedDepth, start: TranslationStart | ProvenDepth, method: str = MESH
                       ) -> SolidContact:
    """A pair's answer after a translation: penetrating, the push-out carried along, volume pending."""
    return SolidContact(
        status=PENETRATING, signed_distance=-moved.depth, normal=moved.normal,
        point_a=moved.point_b + moved.depth * moved.normal, point_b=moved.point_b, method=method,
        tolerance=start.touch_tolerance, depth_lower_bound=moved.lower,
        depth_is_estimate=moved.depth > moved.lower + start.tolerance, volume_pending=True)


def _has_volume(a: Solid, b: Solid, method: str) -> bool:
    """Whether the pair's overlap volume is a number (both objects closed, not measured as hulls)."""
    return method != HULL and a.closed and b.closed


def _separated_answer(contact: Contact, method: str, has_volume: bool) -> SolidContact:
    """The answer for a convex pair apart by more than the clearance: the hulls' closest points."""
    return frozen_instance(SolidContact, status=SEPARATED, signed_distance=contact.signed_distance,
                           normal=contact.normal, point_a=contact.point_a, point_b=contact.point_b, method=method,
                           tolerance=contact.tolerance, overlap_volume=0.0 if has_volume else None,
                           solver_status=contact.solver_status)


def _screened(pairs: list[tuple[Solid, Solid]], options: dict, warm: list[WarmStart | None] | None = None,
              deadline: float | None = None) -> tuple[ApartPairs, list[Contact | None]]:
    """``collide(a.hull, b.hull)`` for every pair: the pairs GJK found clearly apart as columns (None in the
    list), the overlapping pairs of small convex objects measured together by SAT (``sat_pairs``), the rest
    by ``collide``. With ``warm`` slots (one per pair), the overlapping pairs are solved by
    ``collide_warm_many``, from and into their slots, in the order given; pairs with a warm start go there without
    GJK (a pair that has come apart since is solved cold there, and its slot emptied). No pair is solved by EPA
    once the ``deadline`` has passed: those left are None in the list, not in the columns, their slots unchanged."""
    contacts: list[Contact | None] = [None] * len(pairs)
    if not pairs:
        return ApartPairs.none(), contacts
    resumed = [] if warm is None else [k for k, start in enumerate(warm) if start is not None]
    fresh = np.setdiff1d(np.arange(len(pairs)), resumed)
    apart, screened = _screened_together([pairs[k] for k in fresh.tolist()], options)
    apart = apart._replace(index=fresh[apart.index])
    for k, contact in zip(fresh.tolist(), screened):
        contacts[k] = contact
    is_apart = np.zeros(len(pairs), dtype=bool)
    is_apart[apart.index] = True
    ready = [k for k in fresh.tolist() if contacts[k] is None and not is_apart[k] and sat_ready(*pairs[k])]
    sat = sat_contacts([pairs[k] for k in ready], tolerance=options["tolerance"],
                       touch_tolerance=options["touch_tolerance"])
    for k, contact in zip(ready, sat):
        contacts[k] = contact
    rest = [k for k in fresh.tolist() if contacts[k] is None and not is_apart[k]]
    if warm is None:
        for k in rest:
            if deadline is not None and time.perf_counter() >= deadline:
                break
            contacts[k] = collide(pairs[k][0].hull, pairs[k][1].hull, **options)
    else:  # in the order given (the one that waited longest first), whether resumed or not
        _solved_warm(pairs, sorted(resumed + rest), warm, contacts, options, deadline)
    return apart, contacts


def _screened_together(pairs: list[tuple[Solid, Solid]], options: dict) -> tuple[ApartPairs, list[Contact | None]]:
    """``screen_many`` of the pairs' hulls (each distinct hull prepared once), overlapping pairs left open."""
    rows: dict[int, int] = {}
    hulls = []
    for solid in (solid for pair in pairs for solid in pair):
        if rows.setdefault(id(solid), len(hulls)) == len(hulls):
            hulls.append(solid.hull)
    prepared = ShapeSet(hulls)
    return screen_many(prepared.take([rows[id(a)] for a, _b in pairs]), prepared.take([rows[id(b)] for _a, b in pairs]),
                       solve_all=False, **options)


def _solved_warm(pairs: list[tuple[Solid, Solid]], chosen: list[int], warm: MutableSequence[WarmStart | None],
                 contacts: list[Contact | None], options: dict, deadline: float | None = None) -> None:
    """``collide_warm_many`` of the ``chosen`` pairs' hulls from their slots, into ``contacts`` and the slots (those
    the ``deadline`` leaves unsolved stay None, their slots unchanged)."""
    if not chosen:
        return
    solved, kept = collide_warm_many([pairs[k][0].hull for k in chosen], [pairs[k][1].hull for k in chosen],
                                     [warm[k] for k in chosen], deadline=deadline, **options)
    for k, contact, start in zip(chosen, solved, kept):
        contacts[k], warm[k] = contact, start


def _pair_size(a: Solid, b: Solid) -> float:
    (low_a, high_a), (low_b, high_b) = a.bounds, b.bounds
    return float((np.maximum(high_a, high_b) - np.minimum(low_a, low_b)).max())


def _volume(a: Solid, b: Solid) -> tuple[float | None, np.ndarray | None]:
    """Exact overlap volume and centroid of two closed objects; None when either has no inside."""
    return _volumes([(a, b)])[0]


def _volumes(pairs: list[tuple[Solid, Solid]]) -> list[tuple[float | None, np.ndarray | None]]:
    """``_volume`` of every pair; pairs of objects convex to rounding (``Solid.exactly_convex``: face planes
    bound them exactly) are clipped together (``convex_overlap_volumes``)."""
    answers: list[tuple[float | None, np.ndarray | None]] = [
        (None, None) if pair_method(a, b) == HULL or not (a.closed and b.closed) else None for a, b in pairs]
    convex = [k for k, (a, b) in enumerate(pairs) if answers[k] is None and a.exactly_convex and b.exactly_convex]
    for k, answer in zip(convex, convex_overlap_volumes([(pairs[k][0].mesh, pairs[k][1].mesh) for k in convex])):
        answers[k] = answer
    return [answer if answer is not None else overlap_volume(pairs[k][0].mesh, pairs[k][1].mesh)
            for k, answer in enumerate(answers)]


def _convex_pair(a: Solid, b: Solid, options: dict) -> SolidContact:
    """GJK/EPA on the hulls: exact about the objects when both are convex."""
    contact = collide(a.hull, b.hull, **options)
    return _convex_answer(contact, a, b, _volume(a, b) if contact.status == PENETRATING else (0.0, None),
                          _region(contact, a.hull, b.hull))


def _convex_answer(contact: Contact, a: Solid, b: Solid, volume: tuple, region: ContactRegion | None,
                   volume_pending: bool = False) -> SolidContact:
    """The hulls' contact as the pair's answer, with the overlap ``(volume, centroid)`` (or its volume left for
    later) and the ``region`` where they meet."""
    method = pair_method(a, b)
    volume, centroid = (None, None) if method == HULL else volume
    return _from_contact(contact, region, method,
                         depth_lower_bound=contact.depth if contact.status == PENETRATING else 0.0,
                         overlap_volume=volume, overlap_centroid=centroid, volume_pending=volume_pending)


def _region(contact: Contact, shape_a, shape_b) -> ContactRegion | None:
    """The contact region of two convex shapes that touch or overlap (None when apart)."""
    return contact_region(shape_a, shape_b, contact) if contact.colliding else None


def _regions(pairs: list[tuple[Solid, Solid]], contacts: list[Contact]) -> list[ContactRegion | None]:
    """``_region`` of the hulls of every pair, those that touch or overlap computed together."""
    meeting = [k for k, contact in enumerate(contacts) if contact.colliding]
    found = iter(contact_regions([pairs[k][0].hull for k in meeting], [pairs[k][1].hull for k in meeting],
                                 [contacts[k] for k in meeting]))
    return [next(found) if contact.colliding else None for contact in contacts]


def _from_contact(contact: Contact, region: ContactRegion | None, method: str, **fields) -> SolidContact:
    """A convex contact as a SolidContact; with the ``region`` where the shapes touch or overlap, the witness
    points move to the region's centre (apart, the closest points are the answer)."""
    point_a, point_b = (contact.point_a, contact.point_b) if region is None else (region.centroid_a, region.centroid_b)
    return SolidContact(
        status=contact.status, signed_distance=contact.signed_distance, normal=contact.normal,
        point_a=point_a, point_b=point_b, method=method, tolerance=contact.tolerance,
        solver_status=contact.solver_status, region=region, **fields)


def _parts_pair(a: Solid, b: Solid, options: dict) -> SolidContact:
    """Loose convex parts: GJK/EPA per pair of parts, the closest or the deepest pair drives the answer."""
    touch = options["touch_tolerance"]
    part_pairs = [(pa, pb) for pa in a.parts for pb in b.parts]
    contacts = [collide(pa.polytope, pb.polytope, **options) for pa, pb in part_pairs]
    overlapping = [c for c in contacts if c.status == PENETRATING]
    if not overlapping:
        index = min(range(len(contacts)), key=lambda k: contacts[k].signed_distance)
        (pa, pb), closest = part_pairs[index], contacts[index]
        return _from_contact(closest, _region(closest, pa.polytope, pb.polytope), PARTS,
                             overlap_volume=0.0 if a.closed and b.closed else None)
    deepest = max(overlapping, key=lambda c: c.depth)

    def separated_after(offset: np.ndarray) -> bool:
        return all(collide(pa.polytope, pb.polytope.translated(offset), **options).signed_distance >= -touch
                   for pa in a.parts for pb in b.parts)

    # A translation that separates the objects separates every pair of parts: the deepest is a lower bound.
    candidates = [(c.normal, c.depth) for c in sorted(overlapping, key=lambda c: -c.depth)]
    depth, normal = certified_pushout(a, b, candidates, separated_after, deepest.depth, options["tolerance"])
    volume, centroid = _volume(a, b)
    point_b = deepest.point_b
    return SolidContact(
        status=PENETRATING, signed_distance=-depth, normal=normal, point_a=point_b + depth * normal,
        point_b=point_b, method=PARTS, tolerance=deepest.tolerance, depth_lower_bound=deepest.depth,
        depth_is_estimate=depth > deepest.depth + options["tolerance"], overlap_volume=volume,
        overlap_centroid=centroid, solver_status=deepest.solver_status)


def _mesh_pair(a: Solid, b: Solid, options: dict) -> tuple[SolidContact, TranslationStart | None]:
    """Non-convex objects, on their triangles; a penetrating pair with what its answer proved
    (``translated_contact``)."""
    touch, tolerance = options["touch_tolerance"], options["tolerance"]
    if _boxes_apart(a, b):  # no crossing, no shared face, neither inside the other: only the distance to find
        return _apart(a, b, (), tolerance, touch), None
    crossing = surface_intersection(a.mesh, b.mesh, trees=(a.bvh, b.bvh))
    curves = tuple(np.vstack([curve, curve[:1]]) if closed else curve
                   for curve, closed in zip(crossing.curves, crossing.closed))

    def separated_after(offset: np.ndarray) -> bool:
        return not _overlapping(a, b.translated(offset))

    if not _overlapping(a, b, crossing):
        return _apart(a, b, curves, tolerance, touch), None  # apart, or touching without overlap

    hull = collide(a.hull, b.hull, **options)
    candidates = [(hull.normal, hull.depth)] if hull.status == PENETRATING else []
    volume, centroid = _volume(a, b)
    ball = _common_ball(a, b, centroid)
    lower = 0.0 if ball is None else 2.0 * ball[1]
    depth, normal = certified_pushout(a, b, candidates, separated_after, lower, precision=tolerance)
    status = TOUCHING if depth <= touch else PENETRATING
    point_b = _deepest_point(crossing, centroid, b)
    start = translation_start(a, b, point_b, depth * normal, ball, touch, tolerance) if status == PENETRATING else None
    return SolidContact(
        status=status, signed_distance=-depth, normal=normal, point_a=point_b + depth * normal, point_b=point_b,
        method=MESH, tolerance=touch, depth_lower_bound=min(lower, depth), depth_is_estimate=depth > lower + tolerance,
        overlap_volume=volume, overlap_centroid=centroid, curves=curves), start


def _apart(a: Solid, b: Solid, curves: tuple, tolerance: float, touch: float) -> SolidContact:
    """Surfaces that do not cross and neither object inside the other: the exact surface distance."""
    found = mesh_distance(a.mesh, b.mesh, bvh_a=a.bvh, bvh_b=b.bvh)
    fallback = b.mesh.vertices.mean(axis=0) - a.mesh.vertices.mean(axis=0)
    return _apart_answer(found, fallback, touch, 0.0 if a.closed and b.closed else None, curves)


def _apart_answer(found: MeshDistance, fallback: np.ndarray, touch: float, volume: float | None,
                  curves: tuple = ()) -> SolidContact:
    """A mesh pair's answer from its exact surface distance (the normal along ``fallback`` when it is 0)."""
    gap = found.point_b - found.point_a
    length = float(np.linalg.norm(gap))
    normal = gap / length if length > 0.0 else _unit(fallback)
    distance = float(found.distance)
    return SolidContact(
        status=classify(distance, touch), signed_distance=distance, normal=normal, point_a=found.point_a,
        point_b=found.point_a + distance * normal, method=MESH, tolerance=touch, overlap_volume=volume,
        curves=curves)


def _boxes_apart(a: Solid, b: Solid) -> bool:
    """The objects' boxes are further apart than ``surface_intersection``'s tolerance: no two triangles can
    cross or touch there, and no vertex of one can lie inside the other."""
    (low_a, high_a), (low_b, high_b) = a.bounds, b.bounds
    gap = float(np.maximum(low_b - high_a, low_a - high_b).max())
    return gap > default_tolerance(a.mesh, b.mesh, None)


def _unit(vector: np.ndarray) -> np.ndarray:
    length = float(np.linalg.norm(vector))
    return vector / length if length > 0.0 else np.array([0.0, 0.0, 1.0])


def _overlapping(a: Solid, b: Solid, crossing=None) -> bool:
    """The objects share interior: surfaces cross, coplanar faces overlap with both solids on the same side,
    or one object lies inside the other. Surfaces that only touch are not overlapping."""
    if crossing is None:
        shared = surfaces_overlap(a.mesh, b.mesh, trees=(a.bvh, b.bvh))
    else:
        shared = crossing.shares_interior
    return shared or _contained(a, b)


def _in_box(vertices: np.ndarray, box: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Indices of the vertices inside ``box`` (only those can be inside the object it bounds)."""
    low, high = box
    return np.flatnonzero(((vertices >= low) & (vertices <= high)).all(axis=1))


def _sample(indices: np.ndarray, count: int) -> np.ndarray:
    """Up to ``count`` evenly strided entries of ``indices``."""
    return indices[:: max(1, len(indices) // count)][:count]


def _inside(outer: Solid, points: np.ndarray) -> np.ndarray:
    """Which points ``outer`` (a closed object) winds around (``rays.crossing_windings``, exact; a point on its
    surface as the perturbation moves it)."""
    return crossing_windings(outer.mesh, points, bvh=outer.bvh) > 0


def _strictly_inside(outer: Solid, points: np.ndarray) -> np.ndarray:
    """Which points lie inside ``outer`` (a closed object) and off its surface."""
    inside = _inside(outer, points)
    if inside.any():
        inside[inside] = nearest_on_surface(outer.mesh, points[inside], bvh=outer.bvh)[0] > 0.0
    return inside


def _contained(a: Solid, b: Solid) -> bool:
    """Some vertex of one object lies strictly inside the other (closed objects only), asked when the surfaces
    do not cross: then one object is wholly inside the other or neither is, so only an object whose box lies
    within the other's (to the crossing search's tolerance) is looked at."""
    margin = default_tolerance(a.mesh, b.mesh, None)
    for inner, outer in ((a, b), (b, a)):
        (low_in, high_in), (low_out, high_out) = inner.bounds, outer.bounds
        if outer.closed and (low_in >= low_out - margin).all() and (high_in <= high_out + margin).all():
            picked = _sample(_in_box(inner.mesh.vertices, outer.bounds), CONTAINMENT_SAMPLES)
            if _strictly_inside(outer, inner.mesh.vertices[picked]).any():
                return True
    return False


def _slab(a: Solid, b: Solid, direction: np.ndarray) -> float:
    """How far B must move along ``direction`` to lie wholly beyond A's support plane: always enough."""
    return max(float((a.mesh.vertices @ direction).max() - (b.mesh.vertices @ direction).min()), 0.0)


def certified_pushout(a: Solid, b: Solid, candidates: list[tuple[np.ndarray, float]],
                      separated_after: Callable[[np.ndarray], bool], lower: float = 0.0,
                      precision: float = 0.0) -> tuple[float, np.ndarray]:
    """The shortest checked push-out ``(depth, unit normal)`` over the candidate directions and the axes.

    The first direction starts from a length known to separate (its candidate length when that checks
    out, else the slab length, which always separates) and bisects towards zero. Every further direction
    is tried only if the best length so far also separates along it, and then bisects below that.
    Whatever comes back has passed ``separated_after``, the exact test. No push-out shorter than
    ``lower`` (a proven lower bound) is tried, and bisection stops once its bracket is ``precision`` wide.
    """
    directions = [(np.asarray(n, dtype=np.float64), float(t)) for n, t in candidates]
    # The axes on the first candidate's side (all six without one): a box-like overlap often leaves
    # along an axis even when the hulls' normal is diagonal.
    axes = AXES if not directions else AXES[AXES @ directions[0][0] > 0.0]
    directions += [(axis, _slab(a, b, axis)) for axis in axes]
    directions.sort(key=lambda item: item[1])
    best_depth, best_normal = np.inf, directions[0][0]
    for normal, start in directions:
        if best_depth <= lower + precision:
            break  # proven shortest: no direction can do better
        if np.isfinite(best_depth):
            if not separated_after(best_depth * normal):
                continue
            high = best_depth
        else:
            high = start if separated_after(start * normal) else _slab(a, b, normal)
        low = min(lower, high)
        for _ in range(PUSHOUT_STEPS):
            if high - low <= max(precision, high * 0.5**PUSHOUT_STEPS):
                break
            middle = 0.5 * (low + high)
            if separated_after(middle * normal):
                high = middle
            else:
                low = middle
        best_depth, best_normal = high, normal
    return float(best_depth), best_normal


def _carried_ball(a: Solid, b: Solid, start: TranslationStart) -> tuple[np.ndarray, float] | None:
    """The largest ball inside both objects centred where a drag may have taken ``start``'s ball (the objects only
    moved since): its copy in A, its copy in B, or halfway between (two spheres' overlap moves halfway, a ball
    sliding on a face takes it along), often far larger than the copies' overlap proves. ``(centre, radius)``, from
    three points' winding numbers and distances; None when no such centre is inside both."""
    shifts = pair_translations(start.placement_a, start.placement_b, a, b)
    if shifts is None:
        return None
    shift_a, shift_b = shifts
    return _largest_ball(a, b, start.ball_centre + np.array([0.5 * (shift_a + shift_b), shift_a, shift_b]))


def _common_ball(a: Solid, b: Solid, centroid: np.ndarray | None) -> tuple[np.ndarray, float] | None:
    """``(centre, r)`` of the largest ball found inside both objects (None when none is found): 2r bounds the
    depth from below.

    Any translation shorter than 2r leaves the two copies of that ball overlapping, so no shorter
    push-out can separate the objects. Ball centres tried: the overlap's centroid, and for sampled
    vertices of each object lying inside the other at depth d, the point d/2 inward from the vertex.
    """
    if not (a.closed and b.closed):
        return None
    centres = [np.asarray(centroid, dtype=np.float64)[None, :]] if centroid is not None else []
    centres += [_inward_centres(b, a), _inward_centres(a, b)]
    return _largest_ball(a, b, np.vstack(centres))


def _largest_ball(a: Solid, b: Solid, centres: np.ndarray) -> tuple[np.ndarray, float] | None:
    """``(centre, r)`` of the largest ball inside both objects centred at one of ``centres`` (N, 3): r is the
    centre's distance to the nearer surface; None when no centre lies inside both."""
    inside = _inside(a, centres)
    inside[inside] = _inside(b, centres[inside])
    if not inside.any():
        return None
    centres = centres[inside]
    radius = np.minimum(nearest_on_surface(a.mesh, centres, bvh=a.bvh)[0],
                        nearest_on_surface(b.mesh, centres, bvh=b.bvh)[0])
    best = int(radius.argmax())
    return centres[best].copy(), float(radius[best])


def _inward_centres(inner: Solid, outer: Solid) -> np.ndarray:
    """For ``inner``'s vertices (up to a sample) strictly inside ``outer`` at depth d: the point d/2 inward
    along ``inner``'s vertex normal, where a ball of radius about d/2 may fit inside both."""
    vertices = inner.mesh.vertices
    picked = _sample(_in_box(vertices, outer.bounds), LOWER_BOUND_SAMPLES)
    points = vertices[picked]
    inside = _inside(outer, points)
    if not inside.any():
        return np.empty((0, 3))
    picked, points = picked[inside], points[inside]
    depth = nearest_on_surface(outer.mesh, points, bvh=outer.bvh)[0]
    return points - 0.5 * depth[:, None] * _vertex_normals(inner.mesh, picked)


def _vertex_normals(mesh, vertices: np.ndarray) -> np.ndarray:
    """Unit outward normals of the ``vertices`` (indices): the area-weighted sum of the adjacent triangles'
    normals."""
    slot = np.full(len(mesh.vertices), -1, dtype=np.int64)
    slot[vertices] = np.arange(len(vertices))
    sums = np.zeros((len(vertices), 3))
    for corner in range(3):
        rows = slot[mesh.triangles[:, corner]]
        adjacent = np.flatnonzero(rows >= 0)
        np.add.at(sums, rows[adjacent], mesh.area_normals[adjacent])
    length = np.linalg.norm(sums, axis=1, keepdims=True)
    return sums / np.where(length > 0.0, length, 1.0)


def _deepest_point(crossing, centroid: np.ndarray | None, b: Solid) -> np.ndarray:
    """Where to anchor a mesh pair's push-out: the crossing point nearest the overlap's centroid."""
    points = np.vstack(crossing.curves) if crossing.curves else b.mesh.vertices
    target = points.mean(axis=0) if centroid is None else centroid
    return points[np.argmin(((points - target) ** 2).sum(axis=1))].copy()
