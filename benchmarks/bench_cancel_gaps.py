"""How long abandoned work can go on after Esc: the longest stretches of a worker thread's CPU time between two of
the core's cancel checkpoints while Analyse, Resolve, Directional Depth, Copy Pair and Check Self-Intersections work
on big objects (``bench_gui_stall.py``'s subdivided Suzanne and cube, ``bench_self_check.py``'s 1M-triangle sculpt).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_cancel_gaps.py
    blender --background --factory-startup --python benchmarks/bench_cancel_gaps.py

Esc cancels a worker at its next ``core.steps.checkpoint``, so a stretch without one is how long the worker can go on
after Esc: a machine-independent figure (CPU time of the worker alone) beside the real interface's
``bench_gui_stall.py``. Prints each run's worker CPU, its checkpoints and their cost, and its longest stretches with
the checkpoints (file:line) that begin and end them. Details: docs/performance.md, "The interface during long work".
"""

from __future__ import annotations

import importlib
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "scripts"), str(REPO / "benchmarks")]  # also when Blender runs the script
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
from bench_gui_stall import big_pair  # noqa: E402
from bench_self_check_gui import sculpt_object  # noqa: E402
from timing import machine_load  # noqa: E402

#: The worker threads' name (``core.steps.in_background``).
WORKER = "collision_inspector work"
#: Stretches printed per run.
LONGEST = 4


def where(frame, package: str) -> str:
    """``file:line (function)`` of a frame, the file relative to the add-on's folder (named ``package``)."""
    parts = Path(frame.f_code.co_filename).parts
    name = "/".join(parts[parts.index(package) + 1:] if package in parts else parts[-1:])
    return f"{name}:{frame.f_lineno} ({frame.f_code.co_name})"


def record_checkpoints(addon, marks: list) -> None:
    """From now on, append ``(the worker's CPU time, where)`` to ``marks`` at every checkpoint a worker thread
    passes, and as each worker's work begins and ends (every module's ``checkpoint`` and the background module's
    ``in_background`` wrapped)."""
    steps, background = addon.core.steps, addon.analysis.background
    checkpoint, in_background = steps.checkpoint, background.in_background

    def recorded() -> None:
        if threading.current_thread().name == WORKER:
            marks.append((time.thread_time(), where(sys._getframe(1), addon.__name__)))
        checkpoint()

    def marked_in_background(work, *args, **kwargs):
        def marked():
            marks.append((time.thread_time(), "the work begins"))
            try:
                return work()
            finally:
                marks.append((time.thread_time(), "the work ends"))
        return in_background(marked, *args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name.startswith(addon.__name__ + ".") and getattr(module, "checkpoint", None) is checkpoint:
            module.checkpoint = recorded
    background.in_background = marked_in_background


def checkpoint_cost(addon) -> float:
    """Seconds of one checkpoint on a worker that has not been cancelled."""
    steps, timed = addon.core.steps, []

    def work() -> None:
        started, count = time.thread_time(), 200_000
        for _ in range(count):
            steps.checkpoint()
        timed.append((time.thread_time() - started) / count)

    steps.run_to_end(steps.in_background(work))
    return timed[0]


def report(name: str, marks: list, cost: float) -> None:
    """The run's worker CPU, its checkpoints, and its longest stretches between two marks."""
    stretches, worker, checkpoints, previous = [], 0.0, 0, None
    for clock, place in marks:
        if place == "the work begins":
            previous = (clock, place)
            continue
        stretches.append((clock - previous[0], previous[1], place))
        worker += clock - previous[0]
        checkpoints += place != "the work ends"
        previous = (clock, place)
    stretches.sort(reverse=True)
    print(f"{name}: worker CPU {worker:.2f} s, {checkpoints:,} checkpoints (~{1e3 * checkpoints * cost:.2f} ms); "
          f"the longest stretches between checkpoints:")
    for seconds, began, ended in stretches[:LONGEST]:
        print(f"  {seconds:6.3f} s  {began}  ->  {ended}")


def copy_pair_steps(inspect, background, scene, depsgraph, result, path: Path):
    """Copy Pair's steps: the document, then its file (as the operator runs them)."""
    document = yield from inspect.pair_document_steps(scene, depsgraph, result)
    size = len(document["points_a"]) + len(document["points_b"])
    return (yield from background.meanwhile(lambda: inspect.write_document(path, document), size))


def run(steps) -> None:
    for _ in steps:
        pass


def main() -> None:
    addon = load_registered_addon()
    clash = importlib.import_module(addon.__name__ + ".analysis.clash")
    inspect = importlib.import_module(addon.__name__ + ".analysis.inspect")
    resolve = importlib.import_module(addon.__name__ + ".analysis.resolve")
    self_check = importlib.import_module(addon.__name__ + ".analysis.self_check")
    shapes = importlib.import_module(addon.__name__ + ".analysis.shapes")
    background = addon.analysis.background
    cost = checkpoint_cost(addon)
    marks: list = []
    record_checkpoints(addon, marks)
    print(f"Blender {bpy.app.version_string}; {machine_load()}; a checkpoint costs {1e9 * cost:.0f} ns")

    big_pair()
    scene, suzanne = bpy.context.scene, bpy.data.objects["Suzanne"]
    depsgraph = bpy.context.evaluated_depsgraph_get()
    result = SimpleNamespace(object_a=bpy.data.objects["Cube"], name_a="Cube", object_b=suzanne, name_b="Suzanne",
                             method="mesh", status="penetrating", signed_distance=-0.5, normal=(1.0, 0.0, 0.0))
    suzanne.evaluated_get(depsgraph).to_mesh()  # Blender's subdivision, on the main thread: not the worker's
    triangles = sum(len(obj.evaluated_get(depsgraph).data.loop_triangles) for obj in bpy.data.objects)
    print(f"Suzanne under a level-5 subdivision and a cube: {triangles:,} triangles")
    run(clash.start_check(scene, depsgraph, scope='SELECTED', every_pair=True)[1])
    report("Analyse", marks, cost)
    bpy.context.scene.collision_inspector.scope = 'SELECTED'
    bpy.ops.collision_inspector.analyze('EXEC_DEFAULT')  # the result Resolve moves Suzanne out of
    marks.clear()
    _offset, undo, steps = resolve.start_resolve(bpy.context, 0)
    run(steps)
    undo()
    report("Resolve", marks, cost)
    marks.clear()
    run(inspect.directional_depth_steps(scene, depsgraph, result, np.array([1.0, 0.0, 0.0])))
    report("Directional Depth", marks, cost)
    marks.clear()
    with tempfile.TemporaryDirectory() as folder:
        run(copy_pair_steps(inspect, background, scene, depsgraph, result, Path(folder) / "pair.json"))
    report("Copy Pair", marks, cost)
    marks.clear()

    sculpt = sculpt_object()
    source = next(iter(shapes.scope_sources([sculpt], bpy.context.view_layer, bpy.context.evaluated_depsgraph_get(),
                                            {})))
    print(f"The sculpt: {len(sculpt.data.polygons):,} triangles")
    run(self_check.check_source_steps(source, bpy.context.evaluated_depsgraph_get()))
    report("Check Self-Intersections", marks, cost)
    addon.unregister()


if __name__ == "__main__":
    main()
