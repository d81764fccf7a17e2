"""How long Blender's interface stalls while Analyse and Resolve work on a big pair: Suzanne under a level-5
subdivision (about 1M triangles) through a cube, in the real interface.

    BLENDER_XVFB=1 blender --factory-startup --python benchmarks/bench_gui_stall.py [-- aa-off]

A timer asking to run every 10 ms measures how long the interface could not answer (nor see Esc) while Analyse,
Resolve and Analyse again run as clicks do; each prints its duration, the longest gap and when it began, the gaps
over 200 ms, the median gap, and the viewport's draws meanwhile and their time (Blender's own work: one draw per
anti-aliasing sample after a change, seconds each on a software renderer; ``aa-off`` makes it one). Details:
docs/performance.md, "The interface during long work".
"""

from __future__ import annotations

import faulthandler
import statistics
import sys
import time
from pathlib import Path

import bpy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)

WATCH_INTERVAL = 0.01
SUBDIVISIONS = 5


def big_pair() -> None:
    """Suzanne, subdivided, and a cube through her side: the only selected objects."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    bpy.ops.mesh.primitive_monkey_add(location=(0.0, 0.0, 0.0))
    suzanne = bpy.context.active_object
    suzanne.name = "Suzanne"
    suzanne.modifiers.new("Subdivision", 'SUBSURF').levels = SUBDIVISIONS
    bpy.ops.mesh.primitive_cube_add(location=(0.9, 0.0, 0.0), size=1.0)
    bpy.context.active_object.name = "Cube"
    for obj in bpy.data.objects:
        obj.select_set(True)


def in_viewport(operator, **properties) -> None:
    """Run ``operator`` as a click in the 3D view does."""
    window = bpy.context.window_manager.windows[0]
    area = next(area for area in window.screen.areas if area.type == 'VIEW_3D')
    region = next(region for region in area.regions if region.type == 'WINDOW')
    with bpy.context.temp_override(window=window, area=area, region=region):
        operator('INVOKE_DEFAULT', **properties)


def count_viewport_draws() -> list:
    """``[(began, seconds)]`` of every viewport draw from now on (its first to its last draw handler)."""
    draws, began = [], [None]

    def first() -> None:
        began[0] = time.perf_counter()

    def last() -> None:
        if began[0] is not None:
            draws.append((began[0], time.perf_counter() - began[0]))
            began[0] = None

    bpy.types.SpaceView3D.draw_handler_add(first, (), 'WINDOW', 'PRE_VIEW')
    bpy.types.SpaceView3D.draw_handler_add(last, (), 'WINDOW', 'POST_PIXEL')
    return draws


def main() -> None:
    faulthandler.enable()  # a crash in Blender shows the Python line it came from
    arguments = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if "aa-off" in arguments:  # (--factory-startup: the preferences are not saved)
        bpy.context.preferences.system.viewport_aa = 'OFF'
    draws = count_viewport_draws()
    load_registered_addon()
    big_pair()
    settings = bpy.context.scene.collision_inspector
    settings.scope = 'SELECTED'
    depsgraph = bpy.context.evaluated_depsgraph_get()
    print(f"{sum(len(obj.evaluated_get(depsgraph).data.polygons) for obj in bpy.data.objects)} faces evaluated")
    runs = [("Analyse", bpy.ops.collision_inspector.analyze), ("Resolve", bpy.ops.collision_inspector.resolve),
            ("Analyse again", bpy.ops.collision_inspector.analyze)]
    state = {"run": -1, "running": False, "gaps": [], "drawn": [], "last": 0.0, "began": 0.0}

    def start_next() -> None:
        state["run"] += 1
        if state["run"] == len(runs):
            bpy.ops.wm.quit_blender()
            return
        if state["run"] == 2:
            settings.results.clear()  # Analyse again: done once there are results
        state["gaps"], state["drawn"], state["running"] = [], [], True
        draws.clear()
        state["began"] = state["last"] = time.perf_counter()
        in_viewport(runs[state["run"]][1])

    def watch() -> float:
        now = time.perf_counter()
        if state["running"]:
            state["gaps"].append(now - state["last"])
            state["drawn"].append(any(state["last"] <= began < now for began, _seconds in draws))
            if settings.results and not busy():
                gaps = state["gaps"]
                undrawn = [gap for gap, drawn in zip(gaps, state["drawn"]) if not drawn] or [0.0]
                print(f"{runs[state['run']][0]}: {now - state['began']:.2f} s, the interface stalled "
                      f"{1e3 * max(gaps):.0f} ms at most (from {sum(gaps[:gaps.index(max(gaps))]):.1f} s on), "
                      f"{sum(gap > 0.2 for gap in gaps)} times over 200 ms, "
                      f"median gap {1e3 * statistics.median(gaps):.0f} ms ({len(gaps)} gaps); the viewport drew "
                      f"{len(draws)} times, {sum(seconds for _began, seconds in draws):.1f} s in all; longest gap "
                      f"without a viewport draw {1e3 * max(undrawn):.0f} ms", flush=True)
                state["running"] = False
                bpy.app.timers.register(start_next, first_interval=1.0)
        state["last"] = now
        return WATCH_INTERVAL

    def busy() -> bool:
        """A modal Analyse or Resolve still runs."""
        return any(operator.bl_idname.startswith("COLLISION_INSPECTOR") for window in
                   bpy.context.window_manager.windows for operator in window.modal_operators)

    bpy.app.timers.register(watch, first_interval=WATCH_INTERVAL)
    bpy.app.timers.register(start_next, first_interval=3.0)


if __name__ == "__main__":
    main()
