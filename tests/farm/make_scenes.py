"""Run by Blender: save the runner tests' scenes into the folder given after ``--``.

    blender --background --factory-startup --python tests/farm/make_scenes.py -- FOLDER

``objects.blend``: 24 seeded boxes, spheres and (non-convex) tori, some clashing. ``animated.blend``: spheres
sliding through a row of posts over frames 1-40, in contact across the scan's block borders.
"""

import math
import sys
from pathlib import Path

import bpy
import numpy as np


def clear() -> None:
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)


def named(name: str) -> bpy.types.Object:
    obj = bpy.context.active_object
    obj.name = name
    return obj


def objects_scene(folder: Path) -> None:
    clear()
    rng = np.random.default_rng(7)
    for index in range(24):
        location = tuple(rng.uniform(-3.0, 3.0, 3))
        rotation = tuple(rng.uniform(0.0, math.pi, 3))
        if index % 4 == 0:
            bpy.ops.mesh.primitive_torus_add(major_radius=0.5, minor_radius=0.15, location=location,
                                             rotation=rotation, major_segments=24, minor_segments=8)
        elif index % 4 == 1:
            bpy.ops.mesh.primitive_uv_sphere_add(radius=float(rng.uniform(0.2, 0.6)), location=location,
                                                 segments=16, ring_count=8)
        else:
            bpy.ops.mesh.primitive_cube_add(size=float(rng.uniform(0.3, 1.0)), location=location, rotation=rotation)
        named(f"Part {index:02d}")
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / "objects.blend"))


def animated_scene(folder: Path) -> None:
    clear()
    for index in range(3):
        bpy.ops.mesh.primitive_cube_add(size=1.0, location=(2.0 * index, 0.0, 0.0))
        named(f"Post {index}")
    for index, speed in enumerate((0.15, 0.12)):
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, location=(-1.0, 0.2 * index, 0.0), segments=16,
                                             ring_count=8)
        mover = named(f"Mover {index}")
        mover.keyframe_insert("location", index=0, frame=1)
        mover.location.x = -1.0 + speed * 39
        mover.keyframe_insert("location", index=0, frame=40)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 40
    bpy.ops.wm.save_as_mainfile(filepath=str(folder / "animated.blend"))


folder = Path(sys.argv[sys.argv.index("--") + 1])
objects_scene(folder)
animated_scene(folder)
