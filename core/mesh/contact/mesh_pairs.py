"""Pairs measured on their triangles (non-convex objects): surface crossings and containment decide the
status, the exact surface distance measures a gap, a certified push-out and the overlap volume an overlap.

A pair's measurement is a generator of ``Ask`` steps (``mesh_pair_steps``), so that a clash check answers the same
step of many pairs in one call (``mesh_pairs_together``); a pair alone answers each step as a batch of one."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, NamedTuple

import numpy as np

from ...contact import PENETRATING, TOUCHING, Contact, classify
from ...narrowphase.epa_lockstep import collide_overlapping
from ...steps import checkpoint
from ..distance import MeshDistance, mesh_distance, windowed_mesh_distance
from ..drag.translated_contact import TranslationStart, translation_start
from ..intersection import CrossingCurves, CrossingRows, surface_crossings
from ..pair_distances import mesh_distances
from ..solid import MESH, Solid
from .containment import (BATCHED_TRIANGLE_PAIRS, boxes_apart, share_interior_many, share_interior_moved,
                          shares_interior_after_many)
from .pushout import (BATCH_LEVELS, common_balls, gap_request, pushout_directions, pushout_search,
                      pushout_witnesses_many, stacked_pair)
from .pushout_gaps import pushout_gap_ends
from .result import SolidContact
from .volumes import PairVolume, pair_volumes


class Ask(NamedTuple):
    """A step of a mesh pair's measurement: ``many`` answers a list of such steps' ``args`` (one tuple per pair)
    with a list of answers, the same answer each pair would get alone."""

    many: Callable[[list[tuple]], list]
    args: tuple


def mesh_pair(a: Solid, b: Solid, options: dict) -> tuple[SolidContact, TranslationStart | None]:
    """Non-convex objects, on their triangles; a penetrating pair with what its answer proved
    (``translated_contact``)."""
    return mesh_pairs_together([(a, b)], [options])[0]


def mesh_pairs_together(pairs: list[tuple[Solid, Solid]], options: list[dict]
                        ) -> list[tuple[SolidContact, TranslationStart | None]]:
    """``mesh_pair`` of every pair (with its options), in lockstep: each round, the steps the pairs ask
    (``mesh_pair_steps``) are answered together, one call per kind of step (the push-out's batches of offsets of all
    pairs of small meshes through the exact test at once, ``shares_interior_after_many``), the same answers."""
    for a, b in pairs:  # every pair's box known before the first tree is built
        if not boxes_apart(a, b):
            focus_trees(a, b)
    steps = [mesh_pair_steps(a, b, pair_options) for (a, b), pair_options in zip(pairs, options)]
    results: list = [None] * len(pairs)
    asking: dict[int, Ask] = {}
    for k, step in enumerate(steps):
        try:
            asking[k] = next(step)
        except StopIteration as finished:
            results[k] = finished.value
    while asking:
        checkpoint()  # (a cancelled caller's worker stops here)
        kinds: dict[Callable, list[int]] = {}
        for k, ask in asking.items():
            kinds.setdefault(ask.many, []).append(k)
        answers: dict[int, Any] = {}
        for many, members in kinds.items():
            answers.update(zip(members, many([asking[k].args for k in members])))
        for k in list(asking):
            try:
                asking[k] = steps[k].send(answers[k])
            except StopIteration as finished:
                results[k] = finished.value
                del asking[k]
    return results


def focus_trees(a: Solid, b: Solid) -> None:
    """Each object's triangle tree fine around the other's box (``Solid.focus_tree``: only big objects take it): a
    sculpt measured against a prop needs its tree fine only where the prop is (the push-out's tests that move the
    prop further visit the coarse rest, as exactly)."""
    a.focus_tree(*b.bounds)
    b.focus_tree(*a.bounds)


def separated_after(a: Solid, b: Solid, offsets: np.ndarray) -> np.ndarray:
    """Whether B moved by each of ``offsets`` (K, 3) shares no interior with A: small meshes answer the batch in one
    pass (``shares_interior_after``), larger ones offset by offset down their triangle trees
    (``share_interior_moved``)."""
    return separated_after_many([(a, b, offsets)])[0]


def separated_after_many(requests: list[tuple[Solid, Solid, np.ndarray]]) -> list[np.ndarray]:
    """``separated_after`` of several ``(a, b, offsets)``: the small pairs' triangle pairs tested together."""
    small = [k for k, (a, b, _offsets) in enumerate(requests) if _batched(a, b)]
    answers: list = [None] * len(requests)
    for k, shared in zip(small, shares_interior_after_many([requests[k] for k in small])):
        answers[k] = ~shared
    for k, (a, b, offsets) in enumerate(requests):
        if answers[k] is None:
            answers[k] = np.array([not share_interior_moved(a, b, offset) for offset in offsets], dtype=bool)
    return answers


def _batched(a: Solid, b: Solid) -> bool:
    """Meshes short of sculpts answer a batch of offsets in one pass, for about the cost of one offset."""
    return len(a.mesh.triangles) * len(b.mesh.triangles) <= BATCHED_TRIANGLE_PAIRS


def _surface_crossings(requests: list[tuple[Solid, Solid]]) -> list[CrossingCurves]:
    """The surfaces' crossings of every pair, found together (``surface_crossings``, down the objects' trees where
    they have many triangles near each other: a tree is built only for those)."""
    return surface_crossings([(a.mesh, b.mesh) for a, b in requests],
                             lambda k: (requests[k][0].bvh, requests[k][1].bvh))


def _pair_volumes(requests: list[tuple[Solid, Solid, CrossingRows | None]]) -> list[PairVolume]:
    """The pairs' overlap volumes (``pair_volumes``), their surfaces' crossings taken from the crossings' step."""
    return pair_volumes([(a, b) for a, b, _rows in requests], [rows for _a, _b, rows in requests])


def mesh_pair_steps(a: Solid, b: Solid, options: dict
                    ) -> Generator[Ask, Any, tuple[SolidContact, TranslationStart | None]]:
    """``mesh_pair`` as a generator of ``Ask`` steps (each sent its answer): the surfaces' crossings, the exact
    distance of a pair apart, the overlap volume, the common ball, the push-out search's batches of offsets of B
    (``pushout_search``, answered by ``separated_after``) and its witness points; it returns ``mesh_pair``'s answer."""
    touch, tolerance = options["touch_tolerance"], options["tolerance"]
    if boxes_apart(a, b):  # no crossing, no shared face, neither inside the other: only the distance to find
        found = yield Ask(apart_distances, (a, b))
        return _apart(a, b, found, (), touch), None
    crossing = yield Ask(_surface_crossings, (a, b))
    curves = tuple(np.vstack([curve, curve[:1]]) if closed else curve
                   for curve, closed in zip(crossing.curves, crossing.closed))
    if not (yield Ask(share_interior_many, (a, b, crossing))):
        found = yield Ask(apart_distances, (a, b))
        return _apart(a, b, found, curves, touch), None  # apart, or touching without overlap

    hull = yield Ask(hull_contacts, (a, b, options))
    candidates = [(hull.normal, hull.depth)] if hull.status == PENETRATING else []
    volume, centroid, volume_error = yield Ask(_pair_volumes, (a, b, crossing.rows))
    ball = yield Ask(common_balls, (a, b, centroid))
    lower = 0.0 if ball is None else 2.0 * ball[1]
    # Batches of several bisection steps where the test answers a batch for about the cost of one offset.
    batched = _batched(a, b)
    directions = pushout_directions(a, b, candidates)
    gaps = (yield Ask(pushout_gap_ends, gap_request(a, b, directions, lower))) if batched else None
    search = pushout_search(a, b, directions, lower, precision=tolerance, levels=BATCH_LEVELS if batched else 1,
                            gaps=gaps)
    depth, normal = yield from _asked(search, separated_after_many, a, b)
    status = TOUCHING if depth <= touch else PENETRATING
    deepest = _deepest_point(crossing, centroid, b)
    start = translation_start(a, b, deepest, depth * normal, ball, touch, tolerance) if status == PENETRATING else None
    point_a, point_b = yield Ask(pushout_witnesses_many, (a, b, depth, normal, tolerance))
    return SolidContact(
        status=status, signed_distance=-depth, normal=normal, point_a=point_a, point_b=point_b,
        method=MESH, tolerance=touch, depth_lower_bound=min(lower, depth), depth_is_estimate=depth > lower + tolerance,
        overlap_volume=volume, overlap_centroid=centroid, volume_error=volume_error, curves=curves), start


def hull_contacts(requests: list[tuple[Solid, Solid, dict]]) -> list[Contact]:
    """``collide(a.hull, b.hull, **options)`` of every ``(a, b, options)``, the EPA of those with the same options
    grown together (``epa_lockstep.collide_overlapping``): the push-out's first direction."""
    groups: dict[tuple, list[int]] = {}
    for k, (_a, _b, options) in enumerate(requests):
        groups.setdefault(tuple(sorted(options.items())), []).append(k)
    answers: list = [None] * len(requests)
    for key, members in groups.items():
        found = collide_overlapping([requests[k][0].hull for k in members], [requests[k][1].hull for k in members],
                                    **dict(key))
        for k, contact in zip(members, found):
            answers[k] = contact
    return answers


def _asked(search: Generator, many: Callable, *args) -> Generator[Ask, Any, Any]:
    """``yield from search``, each value it yields asked as ``Ask(many, (*args, value))``."""
    try:
        value = next(search)
        while True:
            value = search.send((yield Ask(many, (*args, value))))
    except StopIteration as finished:
        return finished.value


def apart_distances(requests: list[tuple[Solid, Solid]]) -> list[MeshDistance]:
    """The exact distances of pairs of surfaces that do not cross (an object may lie inside the other): small pairs
    together (``pair_distances.mesh_distances``), others down their trees (over windows of the triangles that can
    hold the closest pair when the trees are not built yet)."""
    small = [k for k, (a, b) in enumerate(requests) if stacked_pair(a, b)]
    found = dict(zip(small, mesh_distances([(requests[k][0].mesh, requests[k][1].mesh) for k in small])))
    return [found[k] if k in found else _tree_distance(a, b) for k, (a, b) in enumerate(requests)]


def _tree_distance(a: Solid, b: Solid) -> MeshDistance:
    if "bvh" in a.__dict__ and "bvh" in b.__dict__:  # both trees built already (cached properties)
        return mesh_distance(a.mesh, b.mesh, bvh_a=a.bvh, bvh_b=b.bvh)
    return windowed_mesh_distance(a.mesh, b.mesh)


def _apart(a: Solid, b: Solid, found: MeshDistance, curves: tuple, touch: float) -> SolidContact:
    """Surfaces that do not cross and neither object inside the other: the answer from their exact distance."""
    fallback = b.mesh.vertices.mean(axis=0) - a.mesh.vertices.mean(axis=0)
    return apart_answer(found, fallback, touch, 0.0 if a.closed and b.closed else None, curves)


def apart_answer(found: MeshDistance, fallback: np.ndarray, touch: float, volume: float | None,
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


def _unit(vector: np.ndarray) -> np.ndarray:
    length = float(np.linalg.norm(vector))
    return vector / length if length > 0.0 else np.array([0.0, 0.0, 1.0])


def _deepest_point(crossing, centroid: np.ndarray | None, b: Solid) -> np.ndarray:
    """Where to anchor a mesh pair's push-out: the crossing point nearest the overlap's centroid."""
    points = np.vstack(crossing.curves) if crossing.curves else b.mesh.vertices
    target = points.mean(axis=0) if centroid is None else centroid
    return points[np.argmin(((points - target) ** 2).sum(axis=1))].copy()
