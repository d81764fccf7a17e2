"""Demo: overlapping objects analysed by Collision Inspector, printed as a table and drawn as an image.

    python3 dev.py demo                   # what the README shows: runs this in the PyPI bpy module
    python scripts/demo.py [IMAGE.png]    # the same, with a Python that can ``import bpy``

The scene: two unit cubes 0.9 apart on x (they overlap by 0.1), a sphere 0.25 above the second cube,
a tilted board resting on the cubes, and a ring (a torus: non-convex) with a pin through its tube. All
six are analysed at once (fifteen pairs); the ring is measured on its triangles.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import bpy
from mathutils import Vector

sys.path.insert(0, str(Path(__file__).resolve().parent))
from addon_loader import load_registered_addon  # noqa: E402  (scripts/ is not a package)

DEFAULT_IMAGE = Path(__file__).resolve().parents[1] / "out" / "demo_overlay.png"
CAMERA_LOCATION = Vector((3.4, -4.6, 3.0))
CAMERA_TARGET = Vector((0.45, 0.0, 0.35))


def add_shape(name: str, color: tuple, operator, **arguments) -> bpy.types.Object:
    operator(**arguments)
    obj = bpy.context.active_object
    obj.name = obj.data.name = name
    obj.color = (*color, 1.0)
    return obj


def build_demo_scene() -> bpy.types.Object:
    """Replace the current scene's objects with the demo objects, all selected; return the camera."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    mesh = bpy.ops.mesh
    add_shape("Cube A", (0.55, 0.65, 0.8), mesh.primitive_cube_add, size=1.0, location=(0.0, 0.0, 0.0))
    add_shape("Cube B", (0.8, 0.7, 0.5), mesh.primitive_cube_add, size=1.0, location=(0.9, 0.0, 0.0))
    add_shape("Sphere", (0.6, 0.8, 0.6), mesh.primitive_uv_sphere_add, radius=0.4,
              location=(1.2, 0.0, 0.5 + 0.25 + 0.4))
    add_shape("Board", (0.8, 0.65, 0.8), mesh.primitive_cube_add, size=1.0, location=(-0.2, -0.25, 0.6),
         rotation=(0.0, math.radians(-12.0), math.radians(30.0)), scale=(1.6, 0.5, 0.12))
    add_shape("Ring", (0.9, 0.75, 0.4), mesh.primitive_torus_add, major_radius=0.45, minor_radius=0.12,
         location=(1.9, 1.0, -0.2))
    add_shape("Pin", (0.7, 0.7, 0.75), mesh.primitive_cylinder_add, radius=0.06, depth=0.9, vertices=24,
         location=(1.9 + 0.45 + 0.05, 1.0, -0.2))
    bpy.context.scene.display.shading.color_type = 'OBJECT'  # the Workbench render shows the object colours
    shapes = list(bpy.context.scene.objects)
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(camera)
    camera.location = CAMERA_LOCATION
    camera.rotation_euler = (CAMERA_TARGET - CAMERA_LOCATION).to_track_quat('-Z', 'Y').to_euler()
    camera.data.lens = 40.0
    for obj in shapes:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = shapes[0]
    return camera


def results_table(scene: bpy.types.Scene, format_length) -> str:
    """The scene's results as a text table: pair, status, value in scene units, normal."""
    rows = [("pair", "status", "value", "normal (A to B)")]
    for result in scene.collision_inspector.results:
        normal = "(" + ", ".join(f"{c:+.3f}" for c in result.normal) + ")"
        rows.append((result.label, result.status, format_length(result.value, scene), normal))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def main(image_path: Path) -> None:
    addon = load_registered_addon()
    scene = bpy.context.scene
    camera = build_demo_scene()
    outcome = bpy.ops.collision_inspector.analyze()
    if outcome != {'FINISHED'}:
        raise SystemExit(f"analyze returned {outcome}")
    units = importlib.import_module(addon.__name__ + ".ui.units")
    print(results_table(scene, units.format_length))
    snapshot = importlib.import_module(addon.__name__ + ".ui.snapshot")
    image_path.parent.mkdir(parents=True, exist_ok=True)
    written = snapshot.render_overlay_snapshot(scene, camera, str(image_path), 1280, 720)
    print(f"overlay image: {written}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_IMAGE)
