"""Time Analyse on 300 selected overlapping cubes (target: <= 3 s), split into where the time goes.

    .venv/bpy-5.0.1/bin/python benchmarks/bench_analyse_cubes.py [CUBES]            # PyPI bpy module
    blender --background --factory-startup --python benchmarks/bench_analyse_cubes.py -- [CUBES]

The scene: ``CUBES`` (default 300) 2 m cubes, randomly rotated, at random places in a 14 m box, all
selected: the Selected scope measures every pair (44,850 for 300) and lists separated ones too; about
1,200 pairs penetrate. Prints the wall and CPU time of the operator (``collision_inspector.analyze``, run
to the end) and its parts: the batched GJK screen of all pairs, SAT on the overlapping ones (EPA for any
left), their contact regions and overlap volumes, the results' conversion for the scene and storing them,
and Blender's own re-evaluation of the scene afterwards (it copies the stored results). A second line does the same with
the cubes piled into a 6 m box, where about a quarter of the pairs penetrate (the per-pair work dominates).
"""

from __future__ import annotations

import collections
import importlib
import sys
import time
from pathlib import Path

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)

CUBES = 300
#: (module, function) of the parts timed, as the add-on's modules see them.
PARTS = (("core.mesh.contact.convex_pairs", "screen_many"), ("core.mesh.contact.convex_pairs", "sat_contacts"),
         ("core.mesh.contact.convex_pairs", "collide"), ("core.mesh.contact.convex_pairs", "contact_regions"),
         ("core.mesh.contact.batch", "pair_volumes"),
         ("analysis.clash", "clash_result"), ("operators.analyse", "store_results"))
LABELS = {"screen_many": "GJK screen of all pairs", "sat_contacts": "SAT on the overlapping pairs",
          "collide": "EPA on the others (touching, near)", "contact_regions": "contact regions",
          "pair_volumes": "overlap volumes", "clash_result": "results for the scene",
          "store_results": "storing the results"}


def cube_scene(count: int, box: float, seed: int = 1) -> None:
    """``count`` selected 2 m cubes at random places and rotations within a ``box`` m cube (the scene emptied)."""
    import bmesh  # here: the PyPI bpy module provides bmesh only once bpy has been imported
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=2.0)
    mesh = bpy.data.meshes.new("cube")
    bm.to_mesh(mesh)
    bm.free()
    rng = np.random.default_rng(seed)
    scene = bpy.context.scene
    for index in range(count):
        obj = bpy.data.objects.new(f"Cube {index:03d}", mesh)
        obj.location = rng.uniform(-box / 2, box / 2, 3)
        obj.rotation_euler = rng.uniform(0.0, np.pi, 3)
        scene.collection.objects.link(obj)
        obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    bpy.context.view_layer.update()


class PartTimer:
    """CPU seconds spent in the ``PARTS`` functions, by wrapping them where the add-on calls them."""

    def __init__(self, addon):
        self.seconds = collections.Counter()
        for module_name, function_name in PARTS:
            module = importlib.import_module(f"{addon.__name__}.{module_name}")
            setattr(module, function_name, self._timed(getattr(module, function_name), function_name))

    def _timed(self, function, name):
        def timed(*args, **kwargs):
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] += time.process_time() - started
        return timed


def run(timer: PartTimer, count: int, box: float) -> None:
    cube_scene(count, box)
    timer.seconds.clear()
    started, started_cpu = time.perf_counter(), time.process_time()
    bpy.ops.collision_inspector.analyze('EXEC_DEFAULT')
    wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    scene = bpy.context.scene
    scene.update_tag()
    started = time.perf_counter()
    bpy.context.view_layer.update()
    copy = time.perf_counter() - started
    statuses = collections.Counter(result.status for result in scene.collision_inspector.results)
    print(f"{count} cubes in a {box:g} m box: {len(scene.collision_inspector.results):,} results "
          f"({statuses['penetrating']:,} penetrating, {statuses['touching']:,} touching): "
          f"Analyse {wall:.2f} s wall, {cpu:.2f} s CPU (target 3 s)")
    for name, label in LABELS.items():
        print(f"  {label:<40} {timer.seconds[name]:6.2f} s CPU")
    print(f"  {'Blender re-evaluating the scene after':<40} {copy:6.2f} s wall")


def main() -> None:
    count = int(sys.argv[-1]) if sys.argv[-1].isdigit() else CUBES
    addon = load_registered_addon()
    timer = PartTimer(addon)
    run(timer, count, 14.0)
    run(timer, count, 6.0)
    addon.unregister()


if __name__ == "__main__":
    main()
