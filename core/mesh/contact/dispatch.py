"""``collide_solids``: the contact between two real objects, convex or not, measured the exact way their shapes
allow (see ``SolidContact`` for the answer's conventions)."""

from __future__ import annotations

from ..drag.translated_contact import TranslationStart
from ..solid import CONVEX, HULL, PARTS, Solid
from .convex_pairs import convex_pair, parts_pair
from .mesh_pairs import mesh_pair
from .result import SolidContact, pair_method, pair_options


def collide_solids(a: Solid, b: Solid, *, tolerance: float | None = None, touch_tolerance: float | None = None,
                   max_iterations: int | None = None) -> SolidContact:
    """Contact between two objects (see ``SolidContact``); tolerances in world units, default relative."""
    return solid_pair(a, b, pair_options(a, b, tolerance, touch_tolerance, max_iterations))[0]


def solid_pair(a: Solid, b: Solid, options: dict) -> tuple[SolidContact, TranslationStart | None]:
    """``collide_solids`` with its keywords resolved, and what a penetrating mesh pair's answer proved for its
    next answers after a translation (None for other pairs)."""
    method = pair_method(a, b)
    if method in (CONVEX, HULL):
        return convex_pair(a, b, options), None
    if method == PARTS:
        return parts_pair(a, b, options), None
    return mesh_pair(a, b, options)
