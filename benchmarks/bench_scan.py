"""Time the animation scan (target: 250 frames x 20 pairs of 1k-vertex objects <= 2 s).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_scan.py      # PyPI bpy module
    blender --background --python benchmarks/bench_scan.py   # real Blender

20 pairs of UV spheres (930 vertices, convex) side by side; each B is keyed to swing from 1 apart to 0.5
deep into its A and back over frames 1-250. Times ``bpy.ops.collision_inspector.scan()`` (scope: all
objects, broad phase per frame), and, for comparison, stepping the 250 frames alone (``frame_set``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import bpy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)

PAIRS = 20
FRAMES = 250
SPACING = 8.0


def sphere(name: str, x: float) -> bpy.types.Object:
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=30, radius=1.0, location=(x, 0.0, 0.0))
    obj = bpy.context.active_object
    obj.name = name
    return obj


def main() -> None:
    addon = load_registered_addon()
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, FRAMES
    for k in range(PAIRS):
        sphere(f"A{k:02d}", k * SPACING)
        b = sphere(f"B{k:02d}", k * SPACING + 3.0)
        for frame, x in ((1, 3.0), (FRAMES // 2, 1.5), (FRAMES, 3.0)):
            b.location.x = k * SPACING + x
            b.keyframe_insert("location", index=0, frame=frame)
    scene.collision_inspector.scope = 'ALL'
    scene.frame_set(1)
    vertices = len(bpy.data.objects["A00"].data.vertices)
    start = time.perf_counter()
    for frame in range(1, FRAMES + 1):
        scene.frame_set(frame)
    stepping = time.perf_counter() - start
    scene.frame_set(1)
    start, cpu = time.perf_counter(), time.process_time()
    assert bpy.ops.collision_inspector.scan() == {'FINISHED'}
    scan, cpu = time.perf_counter() - start, time.process_time() - cpu
    results = scene.collision_inspector.results
    deepest = max(r.max_depth for r in results)
    print(f"{FRAMES} frames x {PAIRS} pairs of {vertices}-vertex spheres ({results[0].method}): scan {scan:.2f} s "
          f"(CPU {cpu:.2f} s; frame_set alone {stepping:.2f} s); {len(results)} pairs in contact, "
          f"deepest {deepest:.3f}")
    addon.unregister()


if __name__ == "__main__":
    main()
