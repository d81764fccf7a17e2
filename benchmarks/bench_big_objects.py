"""Time Analyse of two selected 1M-vertex objects end to end in Blender (target: <= 0.5 s), split into parts.

    .venv/bpy-5.0.1/bin/python benchmarks/bench_big_objects.py [SEGMENTS]          # PyPI bpy module
    blender --background --factory-startup --python benchmarks/bench_big_objects.py -- [SEGMENTS]

Two UV spheres of ``SEGMENTS`` x ``SEGMENTS`` (default 1,000: 998,002 vertices, 2M triangles each), 0.3 m
into each other, selected. Prints the wall and CPU time of ``collision_inspector.analyze`` and of its parts:
copying the evaluated mesh's arrays out of Blender (``analysis.shapes.read_arrays``, the main thread's share of
reading), building the triangles from them (``mesh_from_arrays``: numpy, on a worker thread), classifying each object (loose parts,
closed, convex: ``Solid.method``), preparing the hulls' support (``Solid.hull``), and the pair's answer
(``measure_solid_pairs``: GJK/EPA, contact region, overlap volume). Then the same analysis again with nothing
changed (the objects are read and prepared again: results do not cache shapes between analyses).
"""

from __future__ import annotations

import collections
import importlib
import sys
import time
from pathlib import Path

import bpy

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "scripts"), str(REPO / "benchmarks")]  # also when Blender runs the script
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
from reproducible import mesh_from_bmesh  # noqa: E402

SEGMENTS = 1000


def sphere(name: str, x: float, segments: int) -> bpy.types.Object:
    import bmesh  # here: the PyPI bpy module provides bmesh only once bpy has been imported
    bm = bmesh.new()
    bmesh.ops.create_uvsphere(bm, u_segments=segments, v_segments=segments, radius=1.0)
    obj = bpy.data.objects.new(name, mesh_from_bmesh(bm, name))
    obj.location.x = x
    bpy.context.scene.collection.objects.link(obj)
    obj.select_set(True)
    return obj


def timed(module, name: str, seconds: collections.Counter) -> None:
    """Wrap ``module.name`` so that its CPU time adds up in ``seconds[name]``."""
    function = getattr(module, name)

    def wrapper(*args, **kwargs):
        started = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            seconds[name] += time.process_time() - started
    setattr(module, name, wrapper)


def main() -> None:
    segments = int(sys.argv[-1]) if sys.argv[-1].isdigit() else SEGMENTS
    addon = load_registered_addon()
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    a = sphere("A", 0.0, segments)
    sphere("B", 1.7, segments)
    bpy.context.view_layer.objects.active = a
    bpy.context.view_layer.update()
    clash = importlib.import_module(addon.__name__ + ".analysis.clash")
    solid = importlib.import_module(addon.__name__ + ".core.mesh.solid")
    seconds = collections.Counter()
    shapes = importlib.import_module(addon.__name__ + ".analysis.shapes")
    for name in ("read_arrays", "mesh_from_arrays"):
        timed(shapes, name, seconds)
    timed(clash, "measure_solid_pairs", seconds)
    for prop in ("method", "hull"):  # cached properties: time their first computation
        original = getattr(solid.Solid, prop)

        def first_time(self, original=original, prop=prop):
            started = time.process_time()
            try:
                return original.func(self)
            finally:
                seconds[prop] += time.process_time() - started
        wrapped = solid.cached_property(first_time)
        wrapped.__set_name__(solid.Solid, prop)
        setattr(solid.Solid, prop, wrapped)
    print(f"two UV spheres of {len(a.data.vertices):,} vertices and {2 * segments * (segments - 1):,} triangles, "
          f"Blender {bpy.app.version_string}")
    for attempt in ("first Analyse", "second Analyse"):
        seconds.clear()
        started, started_cpu = time.perf_counter(), time.process_time()
        bpy.ops.collision_inspector.analyze('EXEC_DEFAULT')
        wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
        result = bpy.context.scene.collision_inspector.results[0]
        print(f"{attempt}: {wall:.2f} s wall, {cpu:.2f} s CPU (target 0.5 s); {result.status}, depth "
              f"{result.depth:.6f} m, measured as {result.method}")
        for name, label in (("read_arrays", "copying Blender's arrays"),
                            ("mesh_from_arrays", "building the triangles"), ("method", "classifying"),
                            ("hull", "preparing the hulls' supports"),
                            ("measure_solid_pairs", "the pair's answer, hulls included")):
            print(f"  {label:<34} {seconds[name]:6.2f} s CPU")
    addon.unregister()


if __name__ == "__main__":
    main()
