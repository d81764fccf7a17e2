"""Analyse the selected objects: evaluated geometry -> core GJK/EPA on every pair -> scene results."""

from itertools import combinations

import bpy

from ..core import Polytope, collide
from ..ui import overlay
from ..ui.properties import STATUS_ITEMS
from ..ui.units import format_length
from .geometry import (ObjectGeometryError, evaluated_mesh, has_geometry, hull_note, require_measurable,
                       world_points)


def selected_geometry_objects(context: bpy.types.Context) -> list:
    """Selected objects that have geometry, sorted by name (pair order: A is the earlier name)."""
    return sorted((obj for obj in context.selected_objects if has_geometry(obj)), key=lambda obj: obj.name)


def read_object(obj: bpy.types.Object, depsgraph: bpy.types.Depsgraph) -> tuple:
    """``(world points, hull note)`` of one object, or ObjectGeometryError when unusable."""
    with evaluated_mesh(obj, depsgraph) as (mesh, matrix_world):
        points = require_measurable(obj.name, world_points(mesh, matrix_world))
        return points, hull_note(obj.name, mesh, points)


class COLLISION_INSPECTOR_OT_analyze(bpy.types.Operator):
    """Measure penetration depth or distance, contact normal and witness points of every selected pair"""

    bl_idname = "collision_inspector.analyze"
    bl_label = "Analyse Selected"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        count = len(selected_geometry_objects(context))
        if count < 2:
            cls.poll_message_set(
                f"Select at least two objects with geometry (meshes, curves, text, surfaces, metaballs); "
                f"{count} selected"
            )
            return False
        return True

    def execute(self, context: bpy.types.Context) -> set:
        scene = context.scene
        settings = scene.collision_inspector
        objects = selected_geometry_objects(context)
        depsgraph = context.evaluated_depsgraph_get()
        try:
            geometry = [read_object(obj, depsgraph) for obj in objects]
        except ObjectGeometryError as error:
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}

        shapes = [Polytope(points) for points, _note in geometry]
        pairs = []
        for i, j in combinations(range(len(objects)), 2):
            contact = collide(
                shapes[i],
                shapes[j],
                tolerance=settings.tolerance,
                touch_tolerance=settings.touch_tolerance,
                max_iterations=settings.max_iterations,
            )
            note = "; ".join(n for n in (geometry[i][1], geometry[j][1]) if n)
            pairs.append((objects[i], objects[j], contact, note))

        store_results(settings, pairs)
        overlay.refresh()
        self.report_results(scene, settings.results)
        return {'FINISHED'}

    def report_results(self, scene: bpy.types.Scene, results) -> None:
        """One line per pair in scene units, then how many pairs have each status."""
        for result in results:
            self.report(
                {'WARNING'} if result.hull_note else {'INFO'},
                f"{result.label}: {result.status} {format_length(result.value, scene)}"
                + (f" ({result.hull_note})" if result.hull_note else ""),
            )
        counts = [(status, sum(r.status == status for r in results)) for status, *_rest in STATUS_ITEMS]
        summary = ", ".join(f"{count} {status}" for status, count in counts if count)
        self.report({'INFO'}, f"Analysed {len(results)} pair{'s' if len(results) != 1 else ''}: {summary}")
        unfinished = [result.label for result in results if result.solver_status in {'iteration_limit', 'stalled'}]
        if unfinished:
            self.report(
                {'WARNING'},
                f"The solver stopped early for {', '.join(unfinished)}: depths are upper bounds; "
                "raise Max Iterations or loosen the Tolerance",
            )


def store_results(settings, pairs: list) -> None:
    """Replace ``settings.results`` with one item per ``(object_a, object_b, contact, note)``."""
    settings.results.clear()
    for object_a, object_b, contact, note in pairs:
        result = settings.results.add()
        result.object_a = object_a
        result.object_b = object_b
        result.name_a = object_a.name
        result.name_b = object_b.name
        result.status = contact.status
        result.signed_distance = contact.signed_distance
        result.depth = contact.depth
        result.distance = contact.distance
        result.tolerance = contact.tolerance
        result.normal = contact.normal
        result.point_a = contact.point_a
        result.point_b = contact.point_b
        result.hull_note = note
        result.solver_status = contact.solver_status
    settings.active_result_index = 0
