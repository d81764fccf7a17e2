"""Time the clash check's core on a kitbashed roof of ~5,000 small non-convex parts (target: <= 10 s), next to coal
answering collision or distance on the same candidate pairs.

    nice -n 19 .venv/core/bin/python benchmarks/bench_kitbash.py [--rows R --columns C] [--profile]

The scene (benchmarks/kitbash_scene.py) and the figures: docs/performance.md, "Clash check". CPU times.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]
from core import overlapping_pairs  # noqa: E402  (needs the path above)
from core.mesh import Solid, TriangleMesh, measure_solid_pairs  # noqa: E402
from core.mesh.classify import classify_solids  # noqa: E402
from kitbash_scene import roof  # noqa: E402
from timing import machine_load  # noqa: E402

#: The add-on's default thresholds (world units): solver tolerance, touch tolerance (also the broad phase's margin).
TOLERANCE, TOUCH = 1e-9, 1e-5


def check(meshes) -> tuple[dict, dict, list]:
    """The clash check's core steps on the parts: ``(seconds per step, counts, candidate pairs)``, with Python's cyclic garbage
    collector paused as the add-on's check pauses it (``analysis.background.collection_paused``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _timed_check(meshes)
    finally:
        if enabled:
            gc.enable()


def _timed_check(meshes) -> tuple[dict, dict, list]:
    """``check`` with the collector as it is."""
    clock = time.process_time
    started = clock()
    solids = [Solid(TriangleMesh.from_arrays(vertices, triangles), name=str(k))
              for k, (vertices, triangles) in enumerate(meshes)]
    lows = np.array([solid.bounds[0] for solid in solids])
    highs = np.array([solid.bounds[1] for solid in solids])
    pairs = [tuple(pair) for pair in overlapping_pairs(lows, highs, margin=TOUCH).tolist()]
    broad = clock()
    involved = sorted({index for pair in pairs for index in pair})
    methods = Counter(classify_solids([solids[index] for index in involved]))  # together, as the check classifies
    classified = clock()
    apart, answers = measure_solid_pairs([(solids[i], solids[j]) for i, j in pairs], tolerance=TOLERANCE,
                                         touch_tolerance=TOUCH)
    measured = clock()
    statuses = Counter(answer.status for answer in answers if answer is not None)
    statuses["separated"] += len(apart.index)
    seconds = {"reading and broad phase": broad - started, "classifying": classified - broad,
               "measuring": measured - classified, "total": measured - started}
    return seconds, {"pairs": len(pairs), "methods": dict(methods), "statuses": dict(statuses)}, pairs


def coal_anchor(meshes, pairs) -> tuple[float, int]:
    """coal's BVH builds and collision (distance when apart) on the same candidate pairs: ``(CPU s, colliding)``."""
    import coal
    started = time.process_time()
    models = []
    for vertices, triangles in meshes:
        model = coal.BVHModelOBBRSS()
        model.beginModel(len(triangles), len(vertices))
        model.addVertices(np.array(vertices))
        model.addTriangles(np.array(triangles))
        model.endModel()
        models.append(model)
    identity = coal.Transform3s()
    colliding = 0
    for i, j in pairs:
        result = coal.CollisionResult()
        if coal.collide(models[i], identity, models[j], identity, coal.CollisionRequest(), result):
            colliding += 1
        else:
            coal.distance(models[i], identity, models[j], identity, coal.DistanceRequest(), coal.DistanceResult())
    return time.process_time() - started, colliding


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--columns", type=int, default=70)
    parser.add_argument("--profile", action="store_true", help="cProfile the check, top 30 by cumulative time")
    args = parser.parse_args()
    names, meshes = roof(args.rows, args.columns, np.random.default_rng(0))
    triangles = sum(len(mesh[1]) for mesh in meshes)
    print(f"kitbashed roof: {len(meshes):,} parts, {triangles:,} triangles; {machine_load()}")
    if args.profile:
        import cProfile
        import pstats
        profiler = cProfile.Profile()
        profiler.enable()
    seconds, counts, pairs = check(meshes)
    if args.profile:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    print(f"  candidate pairs {counts['pairs']:,}; objects in them by method {counts['methods']}; "
          f"answers {counts['statuses']}")
    print("  check (CPU s): " + ", ".join(f"{step} {value:.2f}" for step, value in seconds.items())
          + "  (target <= 10 s)")
    anchor, colliding = coal_anchor(meshes, pairs)
    print(f"  coal, BVH builds and collide/distance on the same pairs (CPU s): {anchor:.2f} ({colliding:,} colliding)")


if __name__ == "__main__":
    main()
