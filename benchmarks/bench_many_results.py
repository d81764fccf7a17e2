"""Time the overlay and the results browser with 50,000 stored results (targets: rebuild after Next <= 50 ms,
cached redraw <= 5 ms).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_many_results.py [COUNT]         # PyPI bpy module
    blender --background --python benchmarks/bench_many_results.py -- [COUNT]   # real Blender

What is timed: docs/performance.md, "What each benchmark measures".
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
from bench_overlay import HEIGHT, WIDTH, camera_view  # noqa: E402
from mathutils import Matrix, Vector  # noqa: E402

COUNT = 50_000
REPEATS = 20


def fill_results(settings, count: int) -> None:
    """``count`` results of every status spread over a 10 m cube, written a column at a time."""
    rng = np.random.default_rng(0)
    results = settings.results
    results.clear()
    for _index in range(count):
        results.add()
    normals = rng.normal(size=(count, 3))
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    points_b = rng.uniform(-5.0, 5.0, size=(count, 3))
    values = rng.uniform(0.001, 0.3, size=count)
    statuses = np.arange(count) % 4  # the enum values: penetrating, touching, separated, clearance
    signed = np.where(statuses == 0, -values, np.where(statuses == 1, 0.0, values))
    points_a = points_b - signed[:, None] * normals
    for name, column in (("normal_view", normals), ("point_a_view", points_a), ("point_b_view", points_b),
                         ("signed_distance_view", signed)):
        results.foreach_set(name, column.ravel())
    results.foreach_set("status", statuses.astype(np.int32))
    for index, result in enumerate(results):
        result.name_a, result.name_b = f"A{index:06d}", f"B{index:06d}"


def framed_view(target: Vector, distance: float = 1.0) -> tuple[Matrix, Matrix]:
    """A perspective view ``distance`` from ``target`` looking at it, as Next leaves the viewport."""
    view, projection = camera_view(0.3)
    eye = target + Vector((0.0, -distance, 0.3 * distance))
    rotation = (target - eye).to_track_quat('-Z', 'Y').to_matrix().to_4x4()
    return (Matrix.Translation(eye) @ rotation).inverted(), projection


def time_store(addon, settings, cubes: int = 300) -> tuple[int, float, float]:
    """``(results, seconds, seconds with all vanished)`` to store the clashes of ``cubes`` overlapping objects
    (every pair penetrating), as Analyse does at its end, then again when all have vanished."""
    store = importlib.import_module(addon.__name__ + ".analysis.store")
    clash_report = importlib.import_module(addon.__name__ + ".analysis.clash_report")
    mesh = bpy.data.meshes.new("bench_cube")
    names = [bpy.data.objects.new(f"Cube {index:03d}", mesh).name for index in range(cubes)]
    report = clash_report.ClashReport(scope='SELECTED', clearance=0.0, touch_tolerance=1e-5, tolerance=1e-9,
                                      max_iterations=256, objects=cubes)
    report.results = [clash_report.ClashResult(a, b, 'penetrating', -0.1, (1.0, 0.0, 0.0), (0.5, 0.0, 0.0),
                                               (0.4, 0.0, 0.0), 'converged')
                      for index, a in enumerate(names) for b in names[index + 1:]]
    started = time.perf_counter()
    store.store_results(settings, report, keep_vanished=True)
    stored = time.perf_counter() - started
    count = len(settings.results)
    report.results = []
    started = time.perf_counter()
    store.store_results(settings, report, keep_vanished=True)
    vanished = time.perf_counter() - started
    settings.results.clear()
    for name in names:
        bpy.data.objects.remove(bpy.data.objects[name])
    bpy.data.meshes.remove(mesh)
    return count, stored, vanished


def median_ms(action, repeats: int = REPEATS) -> tuple[float, float]:
    wall, cpu = [], []
    for index in range(repeats):
        started, started_cpu = time.perf_counter(), time.thread_time()
        action(index)
        wall.append(time.perf_counter() - started)
        cpu.append(time.thread_time() - started_cpu)
    return 1e3 * statistics.median(wall), 1e3 * statistics.median(cpu)


def main() -> None:
    count = int(sys.argv[-1]) if sys.argv[-1].isdigit() else COUNT
    addon = load_registered_addon()
    overlay = importlib.import_module(addon.__name__ + ".ui.overlay")
    snapshot = importlib.import_module(addon.__name__ + ".ui.snapshot")
    snapshot.ensure_gpu()
    scene = bpy.context.scene
    settings = scene.collision_inspector
    stored = time_store(addon, settings)
    started = time.perf_counter()
    fill_results(settings, count)
    fill_seconds = time.perf_counter() - started

    def view(index: int, new_view: bool):
        return camera_view(0.3 + (0.001 * (index + 1) if new_view else 0.0))

    def next_index() -> None:
        settings.active_result_index = (settings.active_result_index + 1) % count  # what Next changes

    def rebuild(index, new_view=False):
        """The overlay's own work after Next: re-read what changed, per-view geometry, batches, labels."""
        next_index()
        overlay.view_drawing(scene, *view(index, new_view), WIDTH, HEIGHT)

    def lookup(_index):
        """A redraw's own work when nothing changed: find the cached batches."""
        overlay.view_drawing(scene, *view(0, False), WIDTH, HEIGHT)

    def draw(index, new_view=False):
        overlay.draw_scene_overlay(scene, *view(index, new_view), WIDTH, HEIGHT)

    def framed(index, draw_too=False):
        """Next, with the view framed on the new active contact (most results are then off screen)."""
        next_index()
        target = Vector(settings.results[settings.active_result_index].point_b)
        if draw_too:
            overlay.draw_scene_overlay(scene, *framed_view(target), WIDTH, HEIGHT)
        else:
            overlay.view_drawing(scene, *framed_view(target), WIDTH, HEIGHT)

    def next_and_draw(index):
        bpy.ops.collision_inspector.next_result('EXEC_DEFAULT', True)
        draw(index, True)

    offscreen = gpu.types.GPUOffScreen(WIDTH, HEIGHT)
    try:
        with offscreen.bind():
            draw(0)  # warm up: shaders compiled, fonts loaded, first label texts drawn
            figures = {
                "overlay rebuild after Next, same view": median_ms(rebuild),
                "overlay rebuild after Next, new view": median_ms(lambda i: rebuild(i, True)),
                "rebuild after Next, view framed on it": median_ms(framed),
                "rebuild + GPU draw, view framed on it": median_ms(lambda i: framed(i, True), 10),
                "redraw, nothing changed: cache look-up": median_ms(lookup, 100),
                "redraw, nothing changed: with GPU draw": median_ms(lambda i: draw(0), 10),
                "Next operator, without Blender's undo push": median_ms(
                    lambda _i: bpy.ops.collision_inspector.next_result('EXEC_DEFAULT', False), 10),
                "Next operator with its undo push": median_ms(
                    lambda _i: bpy.ops.collision_inspector.next_result('EXEC_DEFAULT', True), 10),
                "Next + rebuild + GPU draw, new view": median_ms(next_and_draw, 10),
            }
    finally:
        offscreen.free()
    print(f"{count:,} results ({fill_seconds:.1f} s to fill), {WIDTH}x{HEIGHT}, Blender {bpy.app.version_string}, "
          f"GPU: {gpu.platform.renderer_get()}, medians:")
    for case, (wall, cpu) in figures.items():
        print(f"  {case:<42} wall {wall:8.2f} ms   thread CPU {cpu:8.2f} ms")
    print(f"storing the {stored[0]:,} clashes of 300 overlapping cubes: {stored[1]:.2f} s; "
          f"again once all vanished (kept as resolved): {stored[2]:.2f} s")
    addon.unregister()


if __name__ == "__main__":
    main()
