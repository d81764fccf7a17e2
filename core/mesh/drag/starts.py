"""What a pair's last answer leaves for its next one while the objects move (the warm slots of
``collide_solid_pairs``)."""

from __future__ import annotations

from dataclasses import dataclass

from ...narrowphase.warm_epa import WarmStart
from .translated_contact import ProvenDepth, TranslationStart
from .translated_distance import Renewal, SeparationStart


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
