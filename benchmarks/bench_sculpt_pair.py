"""Analyse of a sculpt-sized mesh and a prop, next to Blender's own ``mathutils.bvhtree.BVHTree`` on the same pair.

    .venv/bpy-5.0.1/bin/python benchmarks/bench_sculpt_pair.py [--levels N] [--profile] [apart] [overlapping]
    blender --background --factory-startup --python benchmarks/bench_sculpt_pair.py -- [--levels N] [--profile] [apart] [overlapping]

Suzanne under a subdivision of ``--levels`` (default 5: about 1M triangles) and a UV sphere (the prop), once apart
and once through her cheek (or only the placement named). Prints, per placement, the CPU time of ``collision_inspector.analyze`` with its status,
distance or depth and overlap volume, beside the CPU time of building both BVHTrees from the evaluated triangles
and overlapping them (the anchor); then the process's peak memory. ``--profile`` prints the heaviest functions.
"""

from __future__ import annotations

import cProfile
import importlib
import pstats
import resource
import sys
import time
from pathlib import Path

import bpy
from mathutils.bvhtree import BVHTree

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
from timing import machine_load  # noqa: E402

PLACEMENTS = {"apart": (2.2, 0.0, 0.0), "overlapping": (0.9, 0.0, 0.0)}


def argument(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def scene(levels: int) -> tuple[bpy.types.Object, bpy.types.Object]:
    """Suzanne, subdivided, and a 64 x 32 UV sphere of radius 0.5: the only selected objects."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    bpy.ops.mesh.primitive_monkey_add(location=(0.0, 0.0, 0.0))
    sculpt = bpy.context.active_object
    sculpt.name = "Suzanne"
    sculpt.modifiers.new("Subdivision", 'SUBSURF').levels = levels
    sculpt.modifiers["Subdivision"].render_levels = levels
    bpy.ops.mesh.primitive_uv_sphere_add(segments=64, ring_count=32, radius=0.5)
    prop = bpy.context.active_object
    prop.name = "Prop"
    for obj in (sculpt, prop):
        obj.select_set(True)
    bpy.context.view_layer.objects.active = sculpt
    return sculpt, prop


def bvhtree_anchor(objects) -> tuple[float, int]:
    """CPU seconds to build both objects' BVHTrees (evaluated, world space) and overlap them; the pairs found."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    started = time.process_time()
    trees = []
    for obj in objects:
        evaluated = obj.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        mesh.transform(obj.matrix_world)
        trees.append(BVHTree.FromPolygons([v.co for v in mesh.vertices], [p.vertices for p in mesh.polygons]))
        evaluated.to_mesh_clear()
    pairs = trees[0].overlap(trees[1])
    return time.process_time() - started, len(pairs)


def main() -> None:
    levels = argument("--levels", 5)
    profile = "--profile" in sys.argv
    addon = load_registered_addon()
    if profile:  # the work in this thread, where the profiler sees it
        importlib.import_module(addon.__name__ + ".analysis.background").BACKGROUND_TRIANGLES = 1 << 62
    sculpt, prop = scene(levels)
    settings = bpy.context.scene.collision_inspector
    settings.scope = 'SELECTED'
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    triangles = sum(len(p.vertices) - 2 for p in sculpt.evaluated_get(depsgraph).data.polygons)
    print(f"Suzanne at subdivision {levels} ({triangles:,} triangles) and a 64 x 32 UV sphere; "
          f"Blender {bpy.app.version_string}")
    chosen = [name for name in PLACEMENTS if name in sys.argv] or list(PLACEMENTS)
    for placement in chosen:
        location = PLACEMENTS[placement]
        prop.location = location
        bpy.context.view_layer.update()
        anchor, pairs = bvhtree_anchor((sculpt, prop))
        settings.results.clear()
        profiler = cProfile.Profile(time.process_time) if profile else None
        started = time.process_time()
        if profiler:
            profiler.enable()
        bpy.ops.collision_inspector.analyze('EXEC_DEFAULT')
        if profiler:
            profiler.disable()
        cpu = time.process_time() - started
        result = settings.results[0]
        print(f"{placement:<12} Analyse {cpu:6.2f} s CPU | BVHTree build + overlap {anchor:5.2f} s CPU "
              f"({pairs:,} pairs) | ratio {cpu / anchor:4.1f}x | {result.status}, distance {result.distance:.6f} m, "
              f"depth {result.depth:.6f} m, overlap volume {result.overlap_volume:.6f} m³ ({result.volume_certainty})")
        if profiler:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (resident) {peak:,.0f} MB; {machine_load()}")


if __name__ == "__main__":
    main()
