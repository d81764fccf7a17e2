"""Which objects the panel's scope covers, and why it cannot be analysed when it cannot.

Objects count when they have geometry or instance a collection (``shapes.is_candidate``).
"""

import bpy

from .shapes import is_candidate


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
