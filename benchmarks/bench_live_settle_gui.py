"""Count how often the live update is left waiting after a scripted drag, in Blender's interface: Suzanne under a
level-3 subdivision and a cube sunk into her, analysed, live update on; a timer moves the cube 2 cm at a time, 15
times 50 ms apart (setting its location only, as scripts and add-ons do: the depsgraph is evaluated when Blender
next gets to it), then a watch waits up to ``PATIENCE`` seconds for the pair to be measured where the cube is.

    BLENDER_XVFB=1 blender --python benchmarks/bench_live_settle_gui.py -- [RUNS]

Per run: how long after the last move the pair was measured (no result stale, none pending), or that it was still
waiting ("Waiting until nothing moves") when the watch gave up, and its depth against a fresh Analyse of the same
scene. Then the count of runs left waiting, and Blender quits.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import bpy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)

MOVES = 15
STEP = 0.02
INTERVAL = 0.05
PATIENCE = 12.0
WATCH_INTERVAL = 0.05
CUBE_START = (0.9, 0.0, 0.0)


def main(runs: int) -> None:
    addon = load_registered_addon()
    live = sys.modules[addon.__name__ + ".analysis.live"]
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    bpy.ops.mesh.primitive_monkey_add()
    monkey = bpy.context.active_object
    monkey.modifiers.new("Subdivision", 'SUBSURF').levels = 3
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=CUBE_START)
    cube = bpy.context.active_object
    settings = bpy.context.scene.collision_inspector
    settings.scope = 'ALL'
    outcomes = []

    def analysed_depth() -> float:
        assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
        return settings.results[0].depth

    def start_run() -> float | None:
        cube.location = CUBE_START
        settings.live_update = False
        analysed_depth()
        settings.live_update = True
        moves = iter(range(MOVES))
        bpy.app.timers.register(lambda: wait_primed(moves), first_interval=WATCH_INTERVAL)
        return None

    def wait_primed(moves) -> float | None:
        if live.preparing() or bpy.app.timers.is_registered(live.settle):
            return WATCH_INTERVAL
        bpy.app.timers.register(lambda: move(moves), first_interval=INTERVAL)
        return None

    def move(moves) -> float | None:
        if next(moves, None) is None:
            stopped = time.perf_counter()
            bpy.app.timers.register(lambda: watch(stopped), first_interval=WATCH_INTERVAL)
            return None
        cube.location.x -= STEP
        return INTERVAL

    def watch(stopped: float) -> float | None:
        waited = time.perf_counter() - stopped
        waiting = any(result.stale or result.volume_pending for result in settings.results)
        if waiting and waited < PATIENCE:
            return WATCH_INTERVAL
        shown = settings.results[0].depth
        settings.live_update = False
        fresh = analysed_depth()
        outcomes.append(waiting)
        print(f"run {len(outcomes)}: " + (f"still waiting after {waited:.1f} s" if waiting else
                                          f"measured {waited:.2f} s after the last move")
              + f", depth {shown:.4f} (a fresh Analyse: {fresh:.4f})", flush=True)
        if len(outcomes) < runs:
            bpy.app.timers.register(start_run, first_interval=0.2)
        else:
            print(f"left waiting in {sum(outcomes)} of {runs} runs", flush=True)
            bpy.ops.wm.quit_blender()
        return None

    bpy.app.timers.register(start_run, first_interval=1.0)


if __name__ == "__main__":
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    main(int(args[0]) if args else 12)
