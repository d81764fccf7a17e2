"""The overlap of a penetrating pair as a real mesh object (for booleans, 3D-print fixes, report pictures): A's
evaluated mesh intersected with B by Blender's exact Boolean, in the active collection, named after the pair."""

from __future__ import annotations

import bpy

from .shapes import INSTANCE_SEPARATOR


class NoOverlap(ValueError):
    """The pair has no overlap volume to make an object of; the message names the pair and says why."""


def overlap_refusal(result) -> str:
    """Why ``result`` has no overlap object ('' when it has one)."""
    if result.status != 'penetrating':
        return f"{result.label} has no overlap volume: it is {result.status}"
    if result.object_a is None or result.object_b is None:
        return f"{result.label} has no overlap object: one of its objects was deleted"
    if INSTANCE_SEPARATOR in result.name_a or INSTANCE_SEPARATOR in result.name_b:
        return f"{result.label} has no overlap object: an instanced object cannot be intersected on its own"
    if result.volume_certainty == 'none':
        return (f"{result.label} has no overlap volume: an object is an open surface (or measured as its "
                "hull), so it has no inside")
    return ""


def make_overlap_object(context: bpy.types.Context, result) -> bpy.types.Object:
    """A new mesh object, "Overlap A ∩ B", made of what A and B of ``result`` share, placed where A is, in the
    active collection; ``NoOverlap`` (nothing made) when there is none."""
    refusal = overlap_refusal(result)
    if refusal:
        raise NoOverlap(refusal)
    depsgraph = context.evaluated_depsgraph_get()
    obj_a, obj_b = result.object_a, result.object_b
    name = f"Overlap {obj_a.name} \u2229 {obj_b.name}"
    shape = bpy.data.meshes.new_from_object(obj_a.evaluated_get(depsgraph), depsgraph=depsgraph)
    obj = bpy.data.objects.new(name, shape)
    obj.matrix_world = obj_a.matrix_world
    context.collection.objects.link(obj)
    boolean = obj.modifiers.new("Overlap", 'BOOLEAN')
    boolean.operation, boolean.object = 'INTERSECT', obj_b
    context.view_layer.update()
    depsgraph = context.evaluated_depsgraph_get()
    shared = bpy.data.meshes.new_from_object(obj.evaluated_get(depsgraph), depsgraph=depsgraph)
    shared.name = name
    obj.modifiers.remove(boolean)
    obj.data = shared
    bpy.data.meshes.remove(shape)
    if not shared.polygons:
        bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(shared)
        raise NoOverlap(f"{result.label} has no overlap volume: its surfaces touch without sharing space")
    return obj
