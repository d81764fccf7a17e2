"""SAT cross-check of a stored result: an independent test of what GJK/EPA reported for a convex pair.

The separating-axis test (``core.narrowphase.sat``) tries every face normal and edge-edge axis of the two hulls; it
agrees with a correct GJK/EPA answer on status, depth and distance. Its cost grows with the product of
the hulls' edge counts, so it is offered for the small hulls where an independent check is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

import bpy

from ..core.contact import SEPARATED, SignedDistanceMixin
from ..core.shapes.hull import convex_hull
from ..core.narrowphase.sat import cross_check
from .shapes import read_mesh, scope_sources

#: Above this product of the two hulls' edge counts SAT would take seconds: the check is refused.
MAX_EDGE_PRODUCT = 250_000


@dataclass(frozen=True)
class StoredContact(SignedDistanceMixin):
    """The fields of a stored result that ``core.narrowphase.sat.cross_check`` compares."""

    status: str
    signed_distance: float
    normal: tuple
    tolerance: float


def _points(name: str, owner: bpy.types.Object, view_layer, depsgraph):
    """World-space vertices of the result's object ``name`` (an object, or "Instancer ▸ Object")."""
    for source in scope_sources([owner], view_layer, depsgraph, {}):
        if source.name == name:
            return read_mesh(source, depsgraph).vertices
    raise ValueError(f"{name} is no longer in the view layer")


def sat_cross_check(result, view_layer: bpy.types.ViewLayer) -> str:
    """'' when SAT agrees with the stored result, else what disagrees; ValueError says why it cannot run."""
    if result.method not in ('convex', 'hull'):
        raise ValueError("SAT checks convex pairs (and hulls); this pair was measured part by part or on its triangles")
    if result.stale:
        raise ValueError("The objects moved since the analysis: analyse again first")
    if result.object_a is None or result.object_b is None:
        raise ValueError("An object of this result was deleted")
    depsgraph = view_layer.depsgraph
    hulls = [convex_hull(_points(name, owner, view_layer, depsgraph))
             for name, owner in ((result.name_a, result.object_a), (result.name_b, result.object_b))]
    if len(hulls[0].edges) * len(hulls[1].edges) > MAX_EDGE_PRODUCT:
        raise ValueError(f"The hulls have {len(hulls[0].edges)} and {len(hulls[1].edges)} edges: too many for SAT")
    stored = StoredContact(result.status if result.status != 'clearance' else SEPARATED, result.signed_distance,
                           result.normal, result.tolerance)
    disagreement = cross_check(*hulls, stored)
    return "" if disagreement is None else disagreement.message
