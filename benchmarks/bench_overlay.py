"""Time the viewport overlay's draw callbacks with 100 results (target: < 1 ms per redraw).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_overlay.py          # PyPI bpy module
    blender --background --python benchmarks/bench_overlay.py       # real Blender (needs a GPU context)

Draws into a 1280x720 offscreen buffer through ``draw_scene_overlay``, which is what the POST_VIEW and
POST_PIXEL callbacks run, and prints the median time per redraw for three cases:
the view is unchanged (cached batches), the view moves every redraw (per-view geometry and batches
rebuilt), and the results were just refreshed (results re-read, label texts formatted and drawn
into the atlas). Two figures each: wall time, and CPU time of the calling thread. With a software
GPU (Mesa's llvmpipe, as here) the wall time also holds waits for its rasteriser threads; the
thread's CPU time is the callbacks' own cost, as on a machine with a real GPU.
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from pathlib import Path

import bpy
import gpu
import numpy as np
from mathutils import Matrix, Vector

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)

RESULTS = 100
WIDTH, HEIGHT = 1280, 720
REDRAWS = 200


def fill_results(scene, count: int) -> None:
    """``count`` stored results of every status, spread over a 10 m cube (no collision work needed)."""
    rng = np.random.default_rng(0)
    results = scene.collision_inspector.results
    results.clear()
    for index in range(count):
        normal = rng.normal(size=3)
        normal /= np.linalg.norm(normal)
        point_b = rng.uniform(-5.0, 5.0, size=3)
        value = rng.uniform(0.001, 0.3)
        result = results.add()
        result.name_a, result.name_b = f"A{index}", f"B{index}"
        result.status = ('penetrating', 'touching', 'separated')[index % 3]
        result.normal = normal
        result.point_b = point_b
        if result.status == 'separated':
            result.distance, result.signed_distance = value, value
            result.point_a = point_b - value * normal
        else:
            depth = value if result.status == 'penetrating' else 0.0
            result.depth, result.signed_distance = depth, -depth
            result.point_a = point_b + depth * normal


def camera_view(angle: float) -> tuple[Matrix, Matrix]:
    """A perspective view orbiting the results at 20 m."""
    eye = Vector((20.0 * np.cos(angle), 20.0 * np.sin(angle), 6.0))
    rotation = (-eye).to_track_quat('-Z', 'Y').to_matrix().to_4x4()
    view = (Matrix.Translation(eye) @ rotation).inverted()
    near, far, focal = 0.1, 100.0, 2.0
    projection = Matrix((
        (focal * HEIGHT / WIDTH, 0.0, 0.0, 0.0),
        (0.0, focal, 0.0, 0.0),
        (0.0, 0.0, (far + near) / (near - far), 2.0 * far * near / (near - far)),
        (0.0, 0.0, -1.0, 0.0),
    ))
    return view, projection


def median_ms(draw, redraws: int = REDRAWS) -> tuple[float, float]:
    """Median wall time and median calling-thread CPU time of ``draw``, in milliseconds."""
    wall, cpu = [], []
    for index in range(redraws):
        started, started_cpu = time.perf_counter(), time.thread_time()
        draw(index)
        wall.append(time.perf_counter() - started)
        cpu.append(time.thread_time() - started_cpu)
    return 1e3 * statistics.median(wall), 1e3 * statistics.median(cpu)


def main() -> None:
    addon = load_registered_addon()
    overlay = importlib.import_module(addon.__name__ + ".ui.overlay")
    snapshot = importlib.import_module(addon.__name__ + ".ui.snapshot")
    snapshot.ensure_gpu()
    scene = bpy.context.scene
    fill_results(scene, RESULTS)
    fixed_view = camera_view(0.3)

    def draw_fixed(_index):
        overlay.draw_scene_overlay(scene, *fixed_view, WIDTH, HEIGHT)

    def draw_moving(index):
        overlay.draw_scene_overlay(scene, *camera_view(0.3 + 0.01 * (index + 1)), WIDTH, HEIGHT)

    def draw_refreshed(_index):
        overlay.refresh()
        overlay.draw_scene_overlay(scene, *fixed_view, WIDTH, HEIGHT)

    offscreen = gpu.types.GPUOffScreen(WIDTH, HEIGHT)
    try:
        with offscreen.bind():
            draw_fixed(0)  # warm up: shaders compiled, fonts loaded
            figures = {
                "view unchanged (cached batches)": median_ms(draw_fixed),
                "view moving (per-view rebuild)": median_ms(draw_moving),
                "after refresh() (full rebuild)": median_ms(draw_refreshed, REDRAWS // 4),
            }
    finally:
        offscreen.free()
    print(f"overlay draw, {RESULTS} results, {WIDTH}x{HEIGHT}, Blender {bpy.app.version_string}, "
          f"median of {REDRAWS} redraws:")
    for case, (wall, cpu) in figures.items():
        print(f"  {case:<34} wall {wall:8.3f} ms   thread CPU {cpu:8.3f} ms")
    addon.unregister()


if __name__ == "__main__":
    main()
