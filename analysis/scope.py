"""Scopes: which objects a check covers, which of their pairs it allows, and why the panel's scope cannot be
analysed when it cannot. Objects count when they have geometry or instance a collection (``shapes.is_candidate``).
"""

from collections.abc import Iterable

import bpy
import numpy as np

from .shapes import is_candidate

SCOPES = ('SELECTED', 'ACTIVE', 'COLLECTIONS', 'ALL')


def selected_geometry_objects(context: bpy.types.Context) -> list:
    """Selected objects that have geometry, sorted by name (pair order: A is the earlier name)."""
    return sorted((obj for obj in context.selected_objects if is_candidate(obj)), key=lambda obj: obj.name)


def scope_refusal(context: bpy.types.Context) -> str:
    """Why the scope set in the panel cannot be analysed now ('' when it can)."""
    settings = context.scene.collision_inspector
    if settings.scope == 'COLLECTIONS':
        return "" if settings.collection_a is not None else "Choose collection A (and B, or none for A against itself)"
    if settings.scope == 'ALL':
        count = sum(is_candidate(obj) for obj in context.scene.objects)
        return "" if count >= 2 else f"The scene needs at least two objects with geometry; it has {count}"
    count = len(selected_geometry_objects(context))
    if settings.scope == 'ACTIVE':
        active = context.active_object
        if active is None or not is_candidate(active) or not active.select_get():
            return "Make a selected object with geometry active"
        if count < 2:
            return f"Select at least one more object with geometry besides the active one; {count} selected"
        return ""
    if count < 2:
        return (f"Select at least two objects with geometry (meshes, curves, text, surfaces, metaballs); "
                f"{count} selected")
    return ""


def scope_signature(context: bpy.types.Context) -> str:
    """What the panel's scope covers now: the scope with its collections or its objects' names."""
    settings = context.scene.collision_inspector
    if settings.scope == 'COLLECTIONS':
        names = [c.name for c in (settings.collection_a, settings.collection_b) if c is not None]
    elif settings.scope == 'ALL':
        names = [context.scene.name]
    else:
        names = [obj.name for obj in selected_geometry_objects(context)]
        if settings.scope == 'ACTIVE':
            names.insert(0, context.active_object.name)
    return "\n".join([settings.scope, *names])


def _geometry_objects(objects: Iterable[bpy.types.Object]) -> list:
    """Objects with geometry (or instancing it), each once, sorted by name (names are unique within a file)."""
    return sorted({obj for obj in objects if is_candidate(obj)}, key=lambda obj: obj.name)


def scope_sides(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, scope: str,
                objects: Iterable[bpy.types.Object] | None, active: bpy.types.Object | None,
                collection_a: bpy.types.Collection | None,
                collection_b: bpy.types.Collection | None) -> tuple[list, list]:
    """``(side A, side B)`` objects for the scope; the same list twice means all pairs among them."""
    view_layer = scene.view_layers[depsgraph.view_layer.name]  # the original: selection is current there
    if scope == 'ALL':
        everything = _geometry_objects(scene.objects)
        return everything, everything
    if scope == 'COLLECTIONS':
        if collection_a is None:
            raise ValueError("scope 'COLLECTIONS' needs collection_a")
        side_a = _geometry_objects(collection_a.all_objects)
        if collection_b is None or collection_b == collection_a:
            return side_a, side_a
        return side_a, _geometry_objects(collection_b.all_objects)
    chosen = _geometry_objects(view_layer.objects.selected if objects is None else objects)
    if scope == 'SELECTED':
        return chosen, chosen
    if scope == 'ACTIVE':
        active = view_layer.objects.active if active is None else active
        if active is None or not is_candidate(active):
            return [], []
        return [active], [obj for obj in chosen if obj != active]
    raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")


def allowed_pairs(candidates: np.ndarray, in_a: np.ndarray, in_b: np.ndarray) -> list[tuple[int, int]]:
    """Candidate index pairs ``i < j`` (objects sorted by name) that the scope allows, as ``(a, b)``.

    A pair is kept when one object is on side A and the other on side B; the A-side object becomes
    ``object_a``. When both objects are on both sides (all pairs among one set) the earlier name is A.
    """
    first, second = candidates.T
    forward = in_a[first] & in_b[second]
    backward = ~forward & in_a[second] & in_b[first]
    pairs = np.where(forward[:, None], candidates, candidates[:, ::-1])[forward | backward]
    return list(map(tuple, pairs.tolist()))


def possible_pairs(side_a: list, side_b: list) -> int:
    """How many distinct unordered pairs of different objects the two sides allow (a brute-force count)."""
    set_a, set_b = set(side_a), set(side_b)
    both, only_a, only_b = len(set_a & set_b), len(set_a - set_b), len(set_b - set_a)
    return both * (both - 1) // 2 + both * (only_a + only_b) + only_a * only_b
