"""Pairs measured on their triangles (non-convex objects): surface crossings and containment decide the
status, the exact surface distance measures a gap, a certified push-out and the overlap volume an overlap."""

from __future__ import annotations

from collections.abc import Generator

import numpy as np

from ...contact import PENETRATING, TOUCHING, classify
from ...narrowphase.collide import collide
from ..distance import MeshDistance, mesh_distance, windowed_mesh_distance
from ..drag.translated_contact import TranslationStart, translation_start
from ..intersection import surface_intersection
from ..solid import MESH, Solid
from .containment import (BATCHED_TRIANGLE_PAIRS, boxes_apart, share_interior, share_interior_moved,
                          shares_interior_after, shares_interior_after_many)
from .pushout import BATCH_LEVELS, common_ball, pushout_search, pushout_witnesses
from .result import SolidContact
from .volumes import pair_volume


def mesh_pair(a: Solid, b: Solid, options: dict) -> tuple[SolidContact, TranslationStart | None]:
    """Non-convex objects, on their triangles; a penetrating pair with what its answer proved
    (``translated_contact``)."""
    steps = mesh_pair_steps(a, b, options)
    try:
        offsets = next(steps)
        while True:
            offsets = steps.send(separated_after(a, b, offsets))
    except StopIteration as finished:
        return finished.value


def mesh_pairs_together(pairs: list[tuple[Solid, Solid]], options: list[dict]
                        ) -> list[tuple[SolidContact, TranslationStart | None]]:
    """``mesh_pair`` of every pair (with its options), the push-out searches in lockstep: each round's batches of all
    pairs of small meshes go through the exact test together (``shares_interior_after_many``), the same answers."""
    steps = [mesh_pair_steps(a, b, pair_options) for (a, b), pair_options in zip(pairs, options)]
    results: list = [None] * len(pairs)
    asking = {}
    for k, step in enumerate(steps):
        try:
            asking[k] = next(step)
        except StopIteration as finished:
            results[k] = finished.value
    while asking:
        small = [k for k in asking if _batched(*pairs[k])]
        shared = dict(zip(small, shares_interior_after_many([(*pairs[k], asking[k]) for k in small])))
        for k, offsets in list(asking.items()):
            try:
                asking[k] = steps[k].send(~shared[k] if k in shared else separated_after(*pairs[k], offsets))
            except StopIteration as finished:
                results[k] = finished.value
                del asking[k]
    return results


def separated_after(a: Solid, b: Solid, offsets: np.ndarray) -> np.ndarray:
    """Whether B moved by each of ``offsets`` (K, 3) shares no interior with A: small meshes answer the batch in one
    pass (``shares_interior_after``), larger ones offset by offset down their triangle trees
    (``share_interior_moved``)."""
    if _batched(a, b):
        return ~shares_interior_after(a, b, offsets)
    return np.array([not share_interior_moved(a, b, offset) for offset in offsets], dtype=bool)


def _batched(a: Solid, b: Solid) -> bool:
    """Meshes short of sculpts answer a batch of offsets in one pass, for about the cost of one offset."""
    return len(a.mesh.triangles) * len(b.mesh.triangles) <= BATCHED_TRIANGLE_PAIRS


def mesh_pair_steps(a: Solid, b: Solid, options: dict
                    ) -> Generator[np.ndarray, np.ndarray, tuple[SolidContact, TranslationStart | None]]:
    """``mesh_pair`` as a generator: it yields the push-out search's batches of offsets of B (``pushout_search``) and
    is sent whether B moved by each is apart from A (``separated_after``); it returns ``mesh_pair``'s answer."""
    touch, tolerance = options["touch_tolerance"], options["tolerance"]
    if boxes_apart(a, b):  # no crossing, no shared face, neither inside the other: only the distance to find
        return _apart(a, b, (), tolerance, touch), None
    crossing = surface_intersection(a.mesh, b.mesh, trees=(a.bvh, b.bvh))
    curves = tuple(np.vstack([curve, curve[:1]]) if closed else curve
                   for curve, closed in zip(crossing.curves, crossing.closed))
    if not share_interior(a, b, crossing):
        return _apart(a, b, curves, tolerance, touch), None  # apart, or touching without overlap

    hull = collide(a.hull, b.hull, **options)
    candidates = [(hull.normal, hull.depth)] if hull.status == PENETRATING else []
    volume, centroid, volume_error = pair_volume(a, b)
    ball = common_ball(a, b, centroid)
    lower = 0.0 if ball is None else 2.0 * ball[1]
    # Batches of several bisection steps where the test answers a batch for about the cost of one offset.
    depth, normal = yield from pushout_search(a, b, candidates, lower, precision=tolerance,
                                              levels=BATCH_LEVELS if _batched(a, b) else 1)
    status = TOUCHING if depth <= touch else PENETRATING
    deepest = _deepest_point(crossing, centroid, b)
    start = translation_start(a, b, deepest, depth * normal, ball, touch, tolerance) if status == PENETRATING else None
    point_a, point_b = pushout_witnesses(a, b, depth, normal, tolerance)
    return SolidContact(
        status=status, signed_distance=-depth, normal=normal, point_a=point_a, point_b=point_b,
        method=MESH, tolerance=touch, depth_lower_bound=min(lower, depth), depth_is_estimate=depth > lower + tolerance,
        overlap_volume=volume, overlap_centroid=centroid, volume_error=volume_error, curves=curves), start


def _apart(a: Solid, b: Solid, curves: tuple, tolerance: float, touch: float) -> SolidContact:
    """Surfaces that do not cross and neither object inside the other: the exact surface distance."""
    if "bvh" in a.__dict__ and "bvh" in b.__dict__:  # both trees built already (cached properties)
        found = mesh_distance(a.mesh, b.mesh, bvh_a=a.bvh, bvh_b=b.bvh)
    else:
        found = windowed_mesh_distance(a.mesh, b.mesh)
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
