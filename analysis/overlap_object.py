"""The overlap of a penetrating pair by Blender's exact Boolean (A's evaluated mesh intersected with B): as a real
mesh object (for booleans, 3D-print fixes, report pictures), in the active collection, named after the pair, or as
world-space triangles for the overlay, leaving nothing behind."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import bpy
import numpy as np

from .geometry import evaluated_mesh, world_points, world_triangles
from .live import paused
from .shapes import INSTANCE_SEPARATOR, Source, mesh_from_arrays, node_instances, read_arrays


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


@dataclass(frozen=True)
class OverlapMesh:
    """The space two objects share as a closed triangle mesh, world space, outward-facing triangles."""

    points: np.ndarray  # (V, 3) float64
    triangles: np.ndarray  # (T, 3) int64 indices into points


def _realized_mesh(obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph) -> bpy.types.Mesh | None:
    """A new mesh of the object's measured triangles in world space, its Geometry Nodes instances joined (what the
    Boolean, which sees an object's mesh alone, needs of a scatter); None for an object without such instances."""
    if not node_instances(obj, depsgraph):  # most objects: nothing read, the Boolean takes them as they are
        return None
    measured = mesh_from_arrays(read_arrays(Source(obj.name, obj, obj), depsgraph))
    mesh = bpy.data.meshes.new(f"Realized {obj.name}")
    mesh.from_pydata(measured.vertices.tolist(), [], measured.triangles.tolist())
    return mesh


@contextmanager
def _intersected(context: bpy.types.Context, result) -> Iterator[bpy.types.Object]:
    """A temporary object placed where A is, evaluated with A's mesh intersected with B (``NoOverlap`` when the
    pair has no overlap volume); an object with Geometry Nodes instances takes part as its realized mesh, placed in
    the world (``_realized_mesh``). It and the temporary meshes are removed on leaving, whatever happens inside."""
    refusal = overlap_refusal(result)
    if refusal:
        raise NoOverlap(refusal)
    depsgraph = context.evaluated_depsgraph_get()
    obj_a, obj_b = result.object_a, result.object_b
    realized_a, realized_b = _realized_mesh(obj_a, depsgraph), _realized_mesh(obj_b, depsgraph)
    shape = realized_a or bpy.data.meshes.new_from_object(obj_a.evaluated_get(depsgraph), depsgraph=depsgraph)
    probe = bpy.data.objects.new(f"Overlap {obj_a.name} \u2229 {obj_b.name}", shape)
    operand = None if realized_b is None else bpy.data.objects.new(f"Realized {obj_b.name}", realized_b)
    try:
        if realized_a is None:
            probe.matrix_world = obj_a.matrix_world
        context.scene.collection.objects.link(probe)
        if operand is not None:
            context.scene.collection.objects.link(operand)
            operand.hide_set(True)
        boolean = probe.modifiers.new("Overlap", 'BOOLEAN')
        boolean.operation, boolean.object = 'INTERSECT', obj_b if operand is None else operand
        with paused():  # the probe coming and going is no edit of the user's objects
            context.view_layer.update()
        yield probe.evaluated_get(context.evaluated_depsgraph_get())
    finally:
        bpy.data.objects.remove(probe)
        bpy.data.meshes.remove(shape)
        if operand is not None:
            bpy.data.objects.remove(operand)
            bpy.data.meshes.remove(realized_b)


def _no_shared_space(result) -> NoOverlap:
    return NoOverlap(f"{result.label} has no overlap volume: its surfaces touch without sharing space")


def overlap_mesh(context: bpy.types.Context, result) -> OverlapMesh:
    """What A and B of ``result`` share as world-space triangles, nothing left in the file; ``NoOverlap`` when
    there is none."""
    with _intersected(context, result) as probe, evaluated_mesh(probe, context.evaluated_depsgraph_get()) as (
            mesh, matrix_world):
        points, triangles = world_points(mesh, matrix_world), world_triangles(mesh)
    if not len(triangles):
        raise _no_shared_space(result)
    return OverlapMesh(points, triangles)


def make_overlap_object(context: bpy.types.Context, result) -> bpy.types.Object:
    """A new mesh object, "Overlap A \u2229 B", made of what A and B of ``result`` share, placed where A is, in the
    active collection; ``NoOverlap`` (nothing made) when there is none."""
    with _intersected(context, result) as probe:
        name = probe.name
        shared = bpy.data.meshes.new_from_object(probe, depsgraph=context.evaluated_depsgraph_get())
        matrix_world = probe.matrix_world.copy()
    if not shared.polygons:
        bpy.data.meshes.remove(shared)
        raise _no_shared_space(result)
    shared.name = name
    obj = bpy.data.objects.new(name, shared)
    obj.matrix_world = matrix_world
    context.collection.objects.link(obj)
    return obj
