"""How long Blender's interface stalls while Check Self-Intersections works on a sculpt of about a million triangles
(``bench_self_check.py``'s bumpy head with two eyes sunk into it, a plain mesh), and how soon Esc stops it.

    BLENDER_XVFB=1 blender --factory-startup --enable-event-simulate --python benchmarks/bench_self_check_gui.py \
        [-- [shot=PNG]]

A timer asking to run every 10 ms measures how long the interface could not answer (nor see Esc) while the check
runs as a click does: its duration, the longest gap, the gaps over 200 ms and the median gap. A second check gets
Esc (a key press) two seconds in: how long after it the operator stopped, whether the results and the scene were
left as they were, and how long the abandoned worker thread went on (and the process' CPU time meanwhile).
``shot=PNG`` saves the screen just before that Esc (the status bar during the check). The viewport's anti-aliasing
is off: on a software renderer each of its 8 samples is a draw of seconds. Details: docs/performance.md, "The
interface during long work".
"""

from __future__ import annotations

import faulthandler
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
from bench_gui_stall import in_viewport  # noqa: E402
from bench_self_check import sculpt  # noqa: E402

WATCH_INTERVAL = 0.01
#: The cancelled check gets its Esc this long after it starts.
ESC_AFTER = 2.0


def sculpt_object() -> bpy.types.Object:
    """The sculpt as a Blender mesh of triangles, the only object, selected and active."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    built = sculpt(1)
    mesh = bpy.data.meshes.new("Sculpt")
    mesh.vertices.add(len(built.vertices))
    mesh.vertices.foreach_set("co", built.vertices.astype(np.float32).ravel())
    count = len(built.triangles)
    mesh.loops.add(3 * count)
    mesh.loops.foreach_set("vertex_index", built.triangles.astype(np.int32).ravel())
    mesh.polygons.add(count)
    mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * count, 3, dtype=np.int32))
    mesh.polygons.foreach_set("loop_total", np.full(count, 3, dtype=np.int32))
    mesh.update()
    mesh.validate()
    obj = bpy.data.objects.new("Sculpt", mesh)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.update()
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    return obj


def main() -> None:
    faulthandler.enable()
    arguments = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    shot = next((argument.removeprefix("shot=") for argument in arguments if argument.startswith("shot=")), None)
    bpy.context.preferences.system.viewport_aa = 'OFF'  # one viewport draw per change (--factory-startup: not saved)
    load_registered_addon()
    obj = sculpt_object()
    settings = bpy.context.scene.collision_inspector
    print(f"Sculpt: {len(obj.data.polygons):,} triangles", flush=True)
    runs = [("Check Self-Intersections", False), (f"Check Self-Intersections, Esc {ESC_AFTER:.0f} s in", True)]
    state = {"run": -1, "running": False, "gaps": [], "last": 0.0, "began": 0.0, "esc": None, "cpu": 0.0}

    def scene_state() -> tuple:
        return (tuple((item.name, item.face_pairs, item.curves) for item in settings.self_checks),
                tuple(tuple(row) for row in obj.matrix_world), len(obj.data.polygons))

    def busy() -> bool:
        return any(operator.bl_idname.startswith("COLLISION_INSPECTOR") for window in
                   bpy.context.window_manager.windows for operator in window.modal_operators)

    def working() -> bool:
        """A worker thread of the add-on still runs (an abandoned one included)."""
        return any(thread.name == "collision_inspector work" for thread in threading.enumerate())

    def start_next() -> None:
        state["run"] += 1
        if state["run"] == len(runs):
            bpy.ops.wm.quit_blender()
            return
        state["gaps"], state["running"], state["esc"] = [], True, None
        state["before"] = scene_state()
        state["began"] = state["last"] = time.perf_counter()
        state["cpu"] = time.process_time()
        in_viewport(bpy.ops.collision_inspector.self_check)

    def finish() -> None:
        state["running"] = False
        bpy.app.timers.register(start_next, first_interval=1.0)

    def watch() -> float:
        now = time.perf_counter()
        if state["running"]:
            name, esc = runs[state["run"]]
            state["gaps"].append(now - state["last"])
            gaps = state["gaps"]
            if esc and state["esc"] is None and busy() and now - state["began"] >= ESC_AFTER:
                if shot:
                    subprocess.run(["import", "-window", "root", shot], check=True)
                    print(f"screenshot during the check: {shot}", flush=True)
                state["esc"], state["esc_cpu"] = (time.perf_counter(), len(gaps)), time.process_time()
                bpy.context.window_manager.windows[0].event_simulate(type='ESC', value='PRESS')
            elif esc and state["esc"] is not None and not busy() and "stopped" not in state:
                pressed, first = state["esc"]
                state["stopped"] = True
                print(f"{name}: the operator stopped; the interface answered {1e3 * (now - pressed):.0f} ms after "
                      f"Esc (longest gap before it {1e3 * max(gaps[:first]):.0f} ms); results and scene "
                      f"{'as they were' if scene_state() == state['before'] else 'CHANGED'}", flush=True)
            elif esc and "stopped" in state and not working():
                pressed, cpu = state["esc"][0], state["esc_cpu"]
                print(f"{name}: the abandoned worker ended {now - pressed:.2f} s after Esc "
                      f"({time.process_time() - cpu:.2f} s CPU of the process meanwhile)", flush=True)
                del state["stopped"]
                finish()
            elif esc and state["esc"] is None and not busy() and now - state["began"] > 1.0:
                print(f"{name}: ended before its Esc ({now - state['began']:.2f} s; the longest gap "
                      f"{1e3 * max(gaps):.0f} ms)", flush=True)
                finish()
            elif not esc and not busy() and settings.self_checks and now - state["began"] > 0.5:
                print(f"{name}: {now - state['began']:.2f} s wall, {time.process_time() - state['cpu']:.2f} s CPU "
                      f"(both threads); the interface stalled {1e3 * max(gaps):.0f} ms at most (from "
                      f"{sum(gaps[:gaps.index(max(gaps))]):.1f} s on), {sum(gap > 0.2 for gap in gaps)} times over "
                      f"200 ms, median gap {1e3 * statistics.median(gaps):.0f} ms ({len(gaps)} gaps); "
                      f"{settings.self_checks[0].face_pairs:,} face pairs, {settings.self_checks[0].curves} curves",
                      flush=True)
                finish()
        state["last"] = now
        return WATCH_INTERVAL

    bpy.app.timers.register(watch, first_interval=WATCH_INTERVAL)
    bpy.app.timers.register(start_next, first_interval=3.0)


if __name__ == "__main__":
    main()
