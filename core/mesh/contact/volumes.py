"""Overlap volumes of pairs of solids: pairs convex to rounding clipped together, objects whose parts overlap
each other part by part (``parts_union``: their union counted once, or bounded), the others from their surfaces."""

from __future__ import annotations

import numpy as np

from ..convex_volume import convex_overlap_volumes
from ..parts_union import union_overlap
from ..solid import HULL, Solid
from ..volume import overlap_volumes
from .result import pair_method


#: A pair's ``(volume, centroid, error)``: ``error`` bounds how much the volume may exceed the true one (0: exact).
PairVolume = tuple[float | None, np.ndarray | None, float]


def pair_volume(a: Solid, b: Solid) -> PairVolume:
    """Overlap volume, centroid and error bound of two closed objects (volume None when either has no inside);
    exact (error 0) unless an object's overlapping parts hold two non-convex ones (``parts_union.union_overlap``)."""
    return pair_volumes([(a, b)])[0]


def pair_volumes(pairs: list[tuple[Solid, Solid]]) -> list[PairVolume]:
    """``pair_volume`` of every pair; pairs of objects convex to rounding (``Solid.exactly_convex``: face planes
    bound them exactly) are clipped together (``convex_overlap_volumes``), the others measured together on their
    surfaces (``overlap_volumes``)."""
    answers: list[PairVolume | None] = [
        (None, None, 0.0) if pair_method(a, b) == HULL or not (a.closed and b.closed) else None for a, b in pairs]
    for k, (a, b) in enumerate(pairs):
        if answers[k] is None and (a.part_overlaps or b.part_overlaps):
            answers[k] = _union_volume(a, b)
    convex = [k for k, (a, b) in enumerate(pairs) if answers[k] is None and a.exactly_convex and b.exactly_convex]
    for k, answer in zip(convex, convex_overlap_volumes([(pairs[k][0].mesh, pairs[k][1].mesh) for k in convex])):
        answers[k] = (*answer, 0.0)
    rest = [k for k, answer in enumerate(answers) if answer is None]
    for k, answer in zip(rest, overlap_volumes([(pairs[k][0].mesh, pairs[k][1].mesh) for k in rest])):
        answers[k] = (*answer, 0.0)
    return answers


def _union_volume(a: Solid, b: Solid) -> PairVolume:
    """The overlap of two closed objects, one of them made of parts that share interior, each taken as the union
    of its parts (``parts_union.union_overlap``: exact, or with a bound on how much shared space was counted twice)."""
    return union_overlap([part.mesh for part in a.parts], [part.convex for part in a.parts], a.part_overlaps,
                         [part.mesh for part in b.parts], [part.convex for part in b.parts], b.part_overlaps)
