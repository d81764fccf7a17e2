"""What reading a big object costs the main thread: Suzanne under a level-5 subdivision (1,007,616 triangles), read
at once on the main thread (``analysis.shapes.read_mesh``, as every reading was before it went in steps) and in
steps (``read_solid_steps``: Blender's arrays copied on the main thread, the rest on a worker thread).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_reading.py [REPEATS]          # PyPI bpy module

Prints, per way, the median and least CPU time of the main thread (``time.thread_time``) and of the whole process
over ``REPEATS`` interleaved reads (default 7), the longest step of the main thread, and checks that both ways give
the same vertices and triangles bit for bit. In the bpy module the object is subdivided once, when the scene is
built; in the interface the first reading also has Blender subdivide it (docs/performance.md, "Reading a big
object").
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from pathlib import Path

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)

REPEATS = 7


def subdivided_suzanne() -> bpy.types.Object:
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    bpy.ops.mesh.primitive_monkey_add()
    suzanne = bpy.context.active_object
    suzanne.modifiers.new("Subdivision", 'SUBSURF').levels = 5
    bpy.context.view_layer.update()
    return suzanne


def stepped(steps) -> tuple[object, float]:
    """The steps' answer and the main thread's longest step (CPU seconds)."""
    longest = 0.0
    while True:
        began = time.thread_time()
        try:
            next(steps)
        except StopIteration as finished:
            return finished.value, max(longest, time.thread_time() - began)
        longest = max(longest, time.thread_time() - began)


def main() -> None:
    repeats = int(sys.argv[-1]) if sys.argv[-1].isdigit() else REPEATS
    addon = load_registered_addon()
    shapes = importlib.import_module(addon.__name__ + ".analysis.shapes")
    suzanne = subdivided_suzanne()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    source = shapes.Source(suzanne.name, suzanne, suzanne)
    figures = {"at once": [], "in steps": []}
    for _repeat in range(repeats):
        thread, process = time.thread_time(), time.process_time()
        at_once = shapes.read_mesh(source, depsgraph)
        figures["at once"].append((time.thread_time() - thread, time.process_time() - process,
                                   time.thread_time() - thread))
        thread, process = time.thread_time(), time.process_time()
        solid, longest = stepped(shapes.read_solid_steps(source, depsgraph, False))
        figures["in steps"].append((time.thread_time() - thread, time.process_time() - process, longest))
        assert np.array_equal(solid.raw_mesh.vertices, at_once.vertices)
        assert np.array_equal(solid.raw_mesh.triangles, at_once.triangles)
    print(f"Suzanne, level 5: {len(at_once.vertices):,} vertices, {len(at_once.triangles):,} triangles; "
          f"{repeats} reads each way, interleaved; the same vertices and triangles bit for bit")
    for way, rows in figures.items():
        main_thread, process, longest = (np.array(column) for column in zip(*rows))
        print(f"  {way:<9} main thread {statistics.median(main_thread):.3f} s CPU (least {main_thread.min():.3f}), "
              f"longest step {statistics.median(longest):.3f} s; whole process {statistics.median(process):.3f} s")
    addon.unregister()


if __name__ == "__main__":
    main()
