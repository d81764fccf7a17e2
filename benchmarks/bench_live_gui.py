"""Time a drag in Blender's interface: 20 pairs of turned 10k-vertex spheres, penetrating (0.3) or apart (0.5),
live update on.

    BLENDER_XVFB=1 blender --python benchmarks/bench_live_gui.py -- [STEP_M] [convex|uv] [penetrating|apart]

Once ``settle`` has measured every pair in idle time after live update was switched on (timed: how long, and how
long the interface waited between two calls of a watching timer: the longest wait, and the 90th percentile), a
timer carries the 20 B objects STEP_M (default 0.001 m) further at every step, 40 steps 30 ms apart, as a drag of
all of them does; each step's ``view_layer.update()`` (depsgraph and live update) is timed, and how many pairs it
answered, exactly or from their last answer (an update short of time leaves some waiting, stale, for
the next). Once the drag stops, the same watch times ``settle`` measuring the volumes and building the support
tables a drag leaves. Then Blender quits.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import bpy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
import bench_live  # noqa: E402

STEPS = 40
INTERVAL = 0.03
WATCH_INTERVAL = 0.02


def main(step_m: float, convex: bool, gap: float) -> None:
    addon = load_registered_addon()
    live = sys.modules[addon.__name__ + ".analysis.live"]
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    pairs = [(bench_live.sphere(f"A{k:02d}", k * bench_live.SPACING, 10000, convex),
              bench_live.sphere(f"B{k:02d}", k * bench_live.SPACING + 2.0 + gap, 10000, convex))
             for k in range(bench_live.PAIRS)]
    for turned in pairs:
        for obj, turn in zip(turned, bench_live.TURNS):
            obj.rotation_euler = turn
    settings = bpy.context.scene.collision_inspector
    settings.scope = 'ALL'
    settings.clearance = 1.0  # pairs 0.5 apart are listed as clearance results
    start = time.perf_counter()
    bpy.ops.collision_inspector.analyze()
    print(f"analyse {time.perf_counter() - start:.2f} s")
    start = time.perf_counter()
    settings.live_update = True
    print(f"live update switched on {time.perf_counter() - start:.2f} s")
    updates, answered, gaps, steps = [], [], [], iter(range(STEPS))
    last, dragged = [time.perf_counter()], [False]

    def drag() -> float | None:
        k = next(steps, None)
        if k is None:
            slowest = sorted(updates)[int(0.9 * len(updates))]
            print(f"{len(updates)} updates carrying 20 B objects {step_m} m further each: median "
                  f"{1e3 * statistics.median(updates):.1f} ms, 90th percentile {1e3 * slowest:.1f} ms, "
                  f"{1e3 * min(updates):.0f}-{1e3 * max(updates):.0f} ms, "
                  f"{sum(update > 0.016 for update in updates)} over 16 ms, "
                  f"{statistics.median(n for n, _exact in answered):.0f} of {bench_live.PAIRS} pairs answered, "
                  f"{statistics.median(exact for _n, exact in answered):.0f} exactly (medians; the others "
                  "waiting, stale, or answered from their last answer)")
            last[0], dragged[0] = time.perf_counter(), True
            gaps.clear()
            bpy.app.timers.register(watch, first_interval=WATCH_INTERVAL)
            return None
        for _a, b in pairs:
            b.location.y = step_m * k
        start = time.perf_counter()
        bpy.context.view_layer.update()
        updates.append(time.perf_counter() - start)
        answered.append((sum(not result.stale for result in settings.results),
                         sum(not (result.stale or result.depth_is_estimate or result.distance_is_estimate)
                             for result in settings.results)))
        return INTERVAL

    def watch() -> float | None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now
        pending = sum(result.volume_pending for result in settings.results)
        if (pending == 0 and not bpy.app.timers.is_registered(live.settle)) or len(gaps) > 2000:
            print(f"{'settled after the drag' if dragged[0] else 'every pair measured after switching on'}: "
                  f"{sum(gaps):.2f} s, the interface waiting {1e3 * max(gaps):.0f} ms at most, "
                  f"{1e3 * statistics.quantiles(gaps, n=10)[-1]:.0f} ms in 9 of 10 watches "
                  f"({pending} pairs still pending)")
            if dragged[0]:
                bpy.ops.wm.quit_blender()
            else:
                bpy.app.timers.register(drag, first_interval=0.5)
            return None
        return WATCH_INTERVAL

    bpy.app.timers.register(watch, first_interval=WATCH_INTERVAL)


if __name__ == "__main__":
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    main(float(args[0]) if args else 0.001, (args[1] if len(args) > 1 else "convex") == "convex",
         0.5 if len(args) > 2 and args[2] == "apart" else -0.3)
