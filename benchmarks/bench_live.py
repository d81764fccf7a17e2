"""Time the live update (target: <= 16 ms per update with 20 pairs of objects up to 10k vertices).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_live.py [VERTICES ...]         # PyPI bpy module
    blender --background --python benchmarks/bench_live.py -- [VERTICES ...]   # real Blender

The drags, edits and figures: docs/performance.md, "What each benchmark measures".
"""

from __future__ import annotations

import importlib
import math
import statistics
import sys
import time
from pathlib import Path

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)

PAIRS = 20
REPEATS = 15
SPACING = 8.0
#: Every A object's and every B object's rotation (radians, XYZ Euler).
TURNS = ((0.3, 0.2, 0.1), (0.1, 0.5, 0.2))


def sphere(name: str, x: float, vertices: int, convex: bool = True) -> bpy.types.Object:
    """An ico sphere (convex: GJK/EPA) with about ``vertices`` vertices (10 x 4^n + 2), or a UV sphere
    (its quads are not planar at float32 precision, so it is measured on its triangles, like any
    non-convex object)."""
    if convex:
        subdivisions = 1 + max(0, round(math.log(max(vertices - 2, 10) / 10, 4)))
        bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=subdivisions, radius=1.0, location=(x, 0.0, 0.0))
    else:
        rings = max(int((vertices / 2) ** 0.5), 3)
        bpy.ops.mesh.primitive_uv_sphere_add(segments=2 * rings, ring_count=rings, radius=1.0, location=(x, 0, 0))
    obj = bpy.context.active_object
    obj.name = name
    return obj


def median_ms(step, repeats: int = REPEATS) -> str:
    """Median wall and CPU time of ``step(k)`` over ``repeats`` calls, and the slowest call's wall time, in ms,
    as text (a one-off stall, such as a cache built in the middle of a drag, shows in the worst)."""
    times, cpu = [], []
    for k in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        step(k)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return (f"{1e3 * statistics.median(times):7.2f} ms (CPU {1e3 * statistics.median(cpu):7.2f}, "
            f"worst {1e3 * max(times):7.2f})")


def main(live, solid_cache, vertices: int, convex: bool) -> None:
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    pairs = [(sphere(f"A{k:02d}", k * SPACING, vertices, convex), sphere(f"B{k:02d}", k * SPACING + 2.5, vertices,
                                                                          convex)) for k in range(PAIRS)]
    for turned in pairs:
        for obj, turn in zip(turned, TURNS):
            obj.rotation_euler = turn
    settings = scene.collision_inspector
    settings.scope = 'ALL'
    settings.clearance = 1.0  # the pairs 0.5 apart are listed as clearance results
    bpy.context.view_layer.update()
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    assert len(settings.results) == PAIRS, len(settings.results)
    print(f"{PAIRS} pairs of {'convex ico' if convex else 'UV'} spheres with {len(pairs[0][0].data.vertices)} "
          f"vertices each, measured as '{settings.results[0].method}'")
    view_layer = bpy.context.view_layer

    answered = []

    def drag(objects, distance: float = 0.001, steps: int = 40):
        """A step of a drag: ``objects`` carried sideways ``distance`` further at every step, back to the start
        after ``steps`` steps (the pairs keep their status; their normals turn at every step, as in a real drag:
        toggling between two places would let warm starts learn both). How many pairs the update answered (not
        left waiting, stale), and how many of those exactly (depth or distance), goes to ``answered``."""
        stale, estimate, bounded = (np.zeros(PAIRS, dtype=bool) for _ in range(3))

        def step(k):
            for b in objects:
                b.location.y = distance * (k % steps)
            view_layer.update()
            settings.results.foreach_get("stale", stale)
            settings.results.foreach_get("depth_is_estimate", estimate)
            settings.results.foreach_get("distance_is_estimate", bounded)
            answered.append((PAIRS - int(stale.sum()), int((~stale & ~estimate & ~bounded).sum())))
        return step

    def answered_since(count: int) -> str:
        """The median numbers of pairs the updates since ``answered`` had ``count`` entries answered, and answered
        exactly (the others from their last answer: bounds), as text."""
        since = answered[count:]
        return (f"{statistics.median(n for n, _exact in since):.0f} of {PAIRS} answered, "
                f"{statistics.median(exact for _n, exact in since):.0f} exactly")

    def turn(obj):
        """A step turning ``obj`` about its z axis by a degree, or back."""
        def step(_k):
            obj.rotation_euler.z = TURNS[1][2] if obj.rotation_euler.z != TURNS[1][2] else TURNS[1][2] + 0.0175
            view_layer.update()
        return step

    def place(objects, gap: float):
        for (a, b) in objects:
            b.location.x, b.location.y = a.location.x + 2.0 + gap, 0.0
        view_layer.update()

    pauses = []

    def settle_all() -> None:
        """``settle`` called until it has measured every pending pair (the timer would call it again), each
        call's time kept in ``pauses`` (the interface waits for one call at a time)."""
        while True:
            start = time.perf_counter()
            again = live.settle()
            pauses.append(time.perf_counter() - start)
            if again is None:
                return

    own = solid_cache.measures_volumes_later
    for live_on, later in ((False, False), (True, False), (True, True)):
        settings.live_update = False  # switched on again below: the shapes are read as this mode reads them
        solid_cache.measures_volumes_later = (lambda: True) if later else (lambda: False)
        settings.live_update = live_on
        label = ("live update off" if not live_on else
                 "live update on, while the interface runs" if later else "live update on, complete")
        for state, gap in (("apart (gap 0.5)", 0.5), ("penetrating (0.3)", -0.3)):
            place(pairs, gap)
            settle_all()
            one = median_ms(drag([pairs[7][1]]))
            fast = median_ms(drag([pairs[7][1]], 0.05, 10))
            turned = median_ms(turn(pairs[7][1]))
            settle_one = median_ms(lambda k: (drag([pairs[7][1]])(k), settle_all()), repeats=3) if later else ""
            first = len(answered)
            every = median_ms(drag([b for _a, b in pairs]), repeats=40 if later else 3)
            every, first = f"{every} [{answered_since(first)}]", len(answered)
            every_fast = median_ms(drag([b for _a, b in pairs], 0.05, 10), repeats=9 if later else 3)
            every_fast = f"{every_fast} [{answered_since(first)}]"
            pauses.clear()
            settle_every = median_ms(lambda k: (drag([b for _a, b in pairs])(k), settle_all()), repeats=3) \
                if later else ""
            longest = f" (the interface waiting {1e3 * max(pauses, default=0.0):.0f} ms at most)"
            print(f"{label}: {state}: one object moved {one} (by 5 cm: {fast}; turned: {turned}), all 20 B moved "
                  f"{every} (by 5 cm: {every_fast}) per update")
            if later:
                print(f"    update and the volumes once it stops: one object {settle_one}, all 20 {settle_every}"
                      f"{longest}")
        if live_on:
            statuses = {r.status for r in settings.results}
            assert statuses == {'penetrating'}, statuses
            assert not any(r.volume_pending for r in settings.results)
    solid_cache.measures_volumes_later = lambda: False
    mesh = pairs[3][1].data

    def edit(k):
        mesh.vertices[0].co.z = 1.0 + 0.001 * (k % 2)
        mesh.update()
        view_layer.update()
    print(f"live update on, complete: one mesh edited (read again) {median_ms(edit)} per update")
    solid_cache.measures_volumes_later = lambda: True
    print(f"live update on, while the interface runs: one mesh edited {median_ms(edit)} per update (its pairs "
          f"waiting for settle once an edit took longer than the update budget); then settled "
          f"{median_ms(lambda _k: settle_all(), repeats=1)}")
    solid_cache.measures_volumes_later = own
    settings.live_update = False


if __name__ == "__main__":
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    addon = load_registered_addon()
    live_module = importlib.import_module(addon.__name__ + ".analysis.live")
    solid_cache_module = importlib.import_module(addon.__name__ + ".analysis.solid_cache")
    for count in map(int, args or ["10000", "1000"]):
        for convex in (True, False):
            main(live_module, solid_cache_module, count, convex)
    addon.unregister()
