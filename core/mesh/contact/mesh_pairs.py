"""Pairs measured on their triangles (non-convex objects): surface crossings and containment decide the
status, the exact surface distance measures a gap, a certified push-out and the overlap volume an overlap."""

from __future__ import annotations

import numpy as np

from ...contact import PENETRATING, TOUCHING, classify
from ...narrowphase.collide import collide
from ..distance import MeshDistance, mesh_distance, windowed_mesh_distance
from ..drag.translated_contact import TranslationStart, translation_start
from ..intersection import surface_intersection
from ..solid import MESH, Solid
from .containment import boxes_apart, share_interior
from .pushout import certified_pushout, common_ball, pushout_witnesses
from .result import SolidContact
from .volumes import pair_volume


def mesh_pair(a: Solid, b: Solid, options: dict) -> tuple[SolidContact, TranslationStart | None]:
    """Non-convex objects, on their triangles; a penetrating pair with what its answer proved
    (``translated_contact``)."""
    touch, tolerance = options["touch_tolerance"], options["tolerance"]
    if boxes_apart(a, b):  # no crossing, no shared face, neither inside the other: only the distance to find
        return _apart(a, b, (), tolerance, touch), None
    crossing = surface_intersection(a.mesh, b.mesh, trees=(a.bvh, b.bvh))
    curves = tuple(np.vstack([curve, curve[:1]]) if closed else curve
                   for curve, closed in zip(crossing.curves, crossing.closed))

    def separated_after(offset: np.ndarray) -> bool:
        # The smaller object moves (by -offset when it is A): a moved copy's triangles, boxes and tree are
        # computed again, which for a sculpt of a million triangles costs about half a second per test.
        if len(a.mesh.triangles) < len(b.mesh.triangles):
            return not share_interior(a.translated(-offset), b)
        return not share_interior(a, b.translated(offset))

    if not share_interior(a, b, crossing):
        return _apart(a, b, curves, tolerance, touch), None  # apart, or touching without overlap

    hull = collide(a.hull, b.hull, **options)
    candidates = [(hull.normal, hull.depth)] if hull.status == PENETRATING else []
    volume, centroid, volume_error = pair_volume(a, b)
    ball = common_ball(a, b, centroid)
    lower = 0.0 if ball is None else 2.0 * ball[1]
    depth, normal = certified_pushout(a, b, candidates, separated_after, lower, precision=tolerance)
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
