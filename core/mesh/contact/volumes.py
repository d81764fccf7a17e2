"""Overlap volumes of pairs of solids: pairs convex to rounding clipped together, objects whose parts overlap
each other part by part (``parts_union``: their union counted once), the others from their surfaces."""

from __future__ import annotations

import numpy as np

from ..convex_volume import convex_overlap_volumes
from ..parts_union import union_overlap
from ..solid import HULL, Solid
from ..volume import overlap_volume
from .result import pair_method


def pair_volume(a: Solid, b: Solid) -> tuple[float | None, np.ndarray | None]:
    """Exact overlap volume and centroid of two closed objects; None when either has no inside."""
    return pair_volumes([(a, b)])[0]


def pair_volumes(pairs: list[tuple[Solid, Solid]]) -> list[tuple[float | None, np.ndarray | None]]:
    """``pair_volume`` of every pair; pairs of objects convex to rounding (``Solid.exactly_convex``: face planes
    bound them exactly) are clipped together (``convex_overlap_volumes``)."""
    answers: list[tuple[float | None, np.ndarray | None]] = [
        (None, None) if pair_method(a, b) == HULL or not (a.closed and b.closed) else None for a, b in pairs]
    for k, (a, b) in enumerate(pairs):
        if answers[k] is None and (a.part_overlaps or b.part_overlaps):
            answers[k] = _union_volume(a, b)
    convex = [k for k, (a, b) in enumerate(pairs) if answers[k] is None and a.exactly_convex and b.exactly_convex]
    for k, answer in zip(convex, convex_overlap_volumes([(pairs[k][0].mesh, pairs[k][1].mesh) for k in convex])):
        answers[k] = answer
    return [answer if answer is not None else overlap_volume(pairs[k][0].mesh, pairs[k][1].mesh)
            for k, answer in enumerate(answers)]


def _union_volume(a: Solid, b: Solid) -> tuple[float, np.ndarray | None] | None:
    """The overlap of two closed objects, one of them made of parts that share interior, each taken as the union
    of its parts (``parts_union.union_overlap``); None when that cannot be measured part by part (then the whole
    surfaces are: shared space inside a part counts twice)."""
    return union_overlap([part.mesh for part in a.parts], [part.convex for part in a.parts], a.part_overlaps,
                         [part.mesh for part in b.parts], [part.convex for part in b.parts], b.part_overlaps)
