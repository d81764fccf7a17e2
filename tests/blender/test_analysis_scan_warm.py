"""The scan measures overlapping convex pairs frame after frame from the previous frame's EPA polytope: its
depth series equals, frame by frame, a cold ``collide`` of the two objects' world vertices, while B slides,
turns, leaves A and comes back."""

from __future__ import annotations

import importlib

import bpy
import numpy as np
import pytest

from test_operators_browse import select_only  # noqa: I001  (pytest puts tests/blender on sys.path)


def uv_sphere(name: str, x: float) -> bpy.types.Object:
    bpy.ops.mesh.primitive_uv_sphere_add(segments=24, ring_count=12, radius=1.0, location=(x, 0.0, 0.0))
    obj = bpy.context.active_object
    obj.name = name
    return obj


def test_warm_started_depths_match_cold_solves(empty_scene, addon):
    scene = empty_scene
    a, b = uv_sphere("A", 0.0), uv_sphere("B", 1.5)
    # B: deep (x 1.2) at frame 1, apart (x 2.3) at frame 12, deep again at frame 24, turning all along
    for frame, x, angle in ((1, 1.2, 0.0), (12, 2.3, 0.6), (24, 1.1, 1.5)):
        b.location.x, b.rotation_euler.z, b.rotation_euler.x = x, angle, 0.5 * angle
        b.keyframe_insert("location", index=0, frame=frame)
        b.keyframe_insert("rotation_euler", frame=frame)
    scene.frame_start, scene.frame_end = 1, 24
    select_only(a, b)
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    store = importlib.import_module(addon.__name__ + ".analysis.store")
    core = importlib.import_module(addon.__name__ + ".core")
    depths = store.depth_series(scene.collision_inspector, 0)
    expected = []
    for frame in range(1, 25):
        scene.frame_set(frame)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        points = [np.array([tuple(obj.evaluated_get(depsgraph).matrix_world @ v.co) for v in obj.data.vertices])
                  for obj in (a, b)]
        expected.append(core.collide(*points).depth)
    assert 0.0 in expected and min(d for d in expected if d > 0.0) < 0.2 and max(expected) > 0.7
    assert depths == pytest.approx(expected, abs=1e-6)
