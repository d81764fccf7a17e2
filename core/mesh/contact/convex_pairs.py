"""Pairs measured on convex shapes: GJK/EPA on the hulls (convex objects, or hulls asked for) or per pair of
loose convex parts, one at a time or screened together, with their contact regions."""

from __future__ import annotations

import time
from collections.abc import MutableSequence

import numpy as np

from ...contact import PENETRATING, SEPARATED, Contact, frozen_instance
from ...contact_patch.batch import contact_regions
from ...contact_patch.region import ContactRegion, contact_region
from ...narrowphase.batch import ApartPairs, ShapeSet, screen_many
from ...narrowphase.collide import collide
from ...narrowphase.epa_lockstep import collide_overlapping
from ...narrowphase.warm_epa import WarmStart, collide_warm_many
from ..classify import prepare_hull_features
from ..solid import HULL, PARTS, Solid, prepare_hulls
from .pushout import certified_pushout, pushout_witnesses
from .result import SolidContact, pair_method
from .sat_pairs import sat_contacts, sat_ready
from .volumes import pair_volume

#: The share of the time to a deadline that overlapping convex pairs may spend in EPA: their contact regions take
#: about a third as long again (0.4 against 1.1 ms per warm-started pair of 10k-vertex spheres dragged fast).
EPA_SHARE = 0.75


def epa_deadline(deadline: float | None) -> float | None:
    """When overlapping convex pairs stop being solved by EPA, so that their contact regions, found after them,
    end near ``deadline`` too: ``EPA_SHARE`` of the time left."""
    if deadline is None:
        return None
    now = time.perf_counter()
    return now + EPA_SHARE * (deadline - now)


def convex_pair(a: Solid, b: Solid, options: dict) -> SolidContact:
    """GJK/EPA on the hulls: exact about the objects when both are convex."""
    contact = collide(a.hull, b.hull, **options)
    return convex_answer(contact, a, b, pair_volume(a, b) if contact.status == PENETRATING else (0.0, None, 0.0),
                          _region(contact, a.hull, b.hull))


def convex_answer(contact: Contact, a: Solid, b: Solid, volume: tuple, region: ContactRegion | None,
                   volume_pending: bool = False) -> SolidContact:
    """The hulls' contact as the pair's answer, with the overlap ``(volume, centroid, error)`` (or its volume left
    for later) and the ``region`` where they meet."""
    method = pair_method(a, b)
    volume, centroid, error = (None, None, 0.0) if method == HULL else volume
    return _from_contact(contact, region, method,
                         depth_lower_bound=contact.depth if contact.status == PENETRATING else 0.0,
                         overlap_volume=volume, overlap_centroid=centroid, volume_error=error,
                         volume_pending=volume_pending)


def _region(contact: Contact, shape_a, shape_b) -> ContactRegion | None:
    """The contact region of two convex shapes that touch or overlap (None when apart)."""
    return contact_region(shape_a, shape_b, contact) if contact.colliding else None


def pair_regions(pairs: list[tuple[Solid, Solid]], contacts: list[Contact]) -> list[ContactRegion | None]:
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


def parts_pair(a: Solid, b: Solid, options: dict) -> SolidContact:
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

    def separated_after(offsets: np.ndarray) -> np.ndarray:
        return np.array([all(collide(pa.polytope, pb.polytope.translated(offset), **options).signed_distance >= -touch
                             for pa in a.parts for pb in b.parts) for offset in offsets], dtype=bool)

    # A translation that separates the objects separates every pair of parts: the deepest is a lower bound.
    candidates = [(c.normal, c.depth) for c in sorted(overlapping, key=lambda c: -c.depth)]
    depth, normal = certified_pushout(a, b, candidates, separated_after, deepest.depth, options["tolerance"])
    volume, centroid, volume_error = pair_volume(a, b)
    point_a, point_b = pushout_witnesses(a, b, depth, normal, options["tolerance"])
    return SolidContact(
        status=PENETRATING, signed_distance=-depth, normal=normal, point_a=point_a,
        point_b=point_b, method=PARTS, tolerance=deepest.tolerance, depth_lower_bound=deepest.depth,
        depth_is_estimate=depth > deepest.depth + options["tolerance"], overlap_volume=volume,
        overlap_centroid=centroid, volume_error=volume_error, solver_status=deepest.solver_status)


def separated_answer(contact: Contact, method: str, has_volume: bool) -> SolidContact:
    """The answer for a convex pair apart by more than the clearance: the hulls' closest points."""
    return frozen_instance(SolidContact, status=SEPARATED, signed_distance=contact.signed_distance,
                           normal=contact.normal, point_a=contact.point_a, point_b=contact.point_b, method=method,
                           tolerance=contact.tolerance, overlap_volume=0.0 if has_volume else None,
                           solver_status=contact.solver_status)


def screen_convex_pairs(pairs: list[tuple[Solid, Solid]], options: dict, warm: list[WarmStart | None] | None = None,
              deadline: float | None = None) -> tuple[ApartPairs, list[Contact | None]]:
    """``collide(a.hull, b.hull)`` for every pair: the pairs GJK found clearly apart as columns (None in the
    list), the overlapping pairs of small convex objects measured together by SAT (``sat_pairs``), the rest
    by ``collide`` (their EPA grown together, ``epa_lockstep``, unless there is a deadline). With ``warm`` slots (one per pair), the overlapping pairs are solved by
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
    meeting = [k for k in fresh.tolist() if contacts[k] is None and not is_apart[k]]
    prepare_hull_features([solid for k in meeting for solid in pairs[k]])
    ready = [k for k in meeting if sat_ready(*pairs[k])]
    sat = sat_contacts([pairs[k] for k in ready], tolerance=options["tolerance"],
                       touch_tolerance=options["touch_tolerance"])
    for k, contact in zip(ready, sat):
        contacts[k] = contact
    rest = [k for k in fresh.tolist() if contacts[k] is None and not is_apart[k]]
    if warm is None and deadline is None:  # EPA grown together (``epa_lockstep``): the same answers
        for k, contact in zip(rest, collide_overlapping([pairs[k][0].hull for k in rest],
                                                        [pairs[k][1].hull for k in rest], **options)):
            contacts[k] = contact
    elif warm is None:
        for k in rest:
            if time.perf_counter() >= deadline:
                break
            contacts[k] = collide(pairs[k][0].hull, pairs[k][1].hull, **options)
    else:  # in the order given (the one that waited longest first), whether resumed or not
        _solved_warm(pairs, sorted(resumed + rest), warm, contacts, options, deadline)
    return apart, contacts


def _screened_together(pairs: list[tuple[Solid, Solid]], options: dict) -> tuple[ApartPairs, list[Contact | None]]:
    """``screen_many`` of the pairs' hulls (each distinct hull prepared once), overlapping pairs left open."""
    rows: dict[int, int] = {}
    hulls = []
    prepare_hulls([solid for pair in pairs for solid in pair])
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
