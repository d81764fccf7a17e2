"""Time ``check --scope all`` on 2,000 convex objects (target: the report's ``seconds`` <= 1.5 s).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_convex_scene.py [--linked] [--profile]
    blender --background --factory-startup --python benchmarks/bench_convex_scene.py

Cubes, ico spheres, cylinders and non-uniformly scaled UV spheres (a quarter each), randomly turned, on a grid
1.4 m apart so that many boxes meet, every fifth object pulled into its neighbour. Each object has its own mesh
data, as objects added one by one have (``--linked``: four meshes shared by all, see "Shared geometry" in
docs/architecture.md). Prints the command's report ``seconds`` next to the target, its CPU time, the candidate
pairs and statuses, and with ``--profile`` the top of a cProfile of a second check.
"""

from __future__ import annotations

import cProfile
import importlib
import io
import json
import pstats
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "scripts"), str(REPO / "benchmarks")]  # also when Blender runs the script
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
from grid_scene import place_on_grid  # noqa: E402
from reproducible import answers_digest, mesh_from_bmesh  # noqa: E402

OBJECTS = 2_000
SPACING = 1.4
NEIGHBOUR_EVERY = 5
TARGET_SECONDS = 1.5


def template(kind: str) -> bpy.types.Mesh:
    """One of the four convex templates, about 1 m across, its faces in the same order in every run
    (``reproducible``)."""
    import bmesh  # here: the PyPI bpy module provides bmesh only once bpy has been imported
    bm = bmesh.new()
    if kind == "cube":
        bmesh.ops.create_cube(bm, size=1.0)
    elif kind == "ico":
        bmesh.ops.create_icosphere(bm, subdivisions=2, radius=0.5)
    elif kind == "cylinder":
        bmesh.ops.create_cone(bm, cap_ends=True, segments=16, radius1=0.5, radius2=0.5, depth=1.0)
    else:
        bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=0.5)
    return mesh_from_bmesh(bm, kind)


def build_scene(scene: bpy.types.Scene, rng: np.random.Generator, linked: bool) -> None:
    kinds = ("cube", "ico", "cylinder", "uv")
    templates = [template(kind) for kind in kinds]
    for index in range(OBJECTS):
        kind = index % 4
        mesh = templates[kind] if linked else templates[kind].copy()
        obj = bpy.data.objects.new(f"{kinds[kind]} {index:04d}", mesh)
        place_on_grid(obj, index, OBJECTS, SPACING, (0.6, 0.9), rng, NEIGHBOUR_EVERY)
        obj.scale = rng.uniform(0.6, 1.3, 3) if kind == 3 else np.full(3, rng.uniform(0.8, 1.0))
        scene.collection.objects.link(obj)
    bpy.context.view_layer.update()


def main() -> None:
    addon = load_registered_addon()
    cli = importlib.import_module(addon.__name__ + ".cli")
    clash = importlib.import_module(addon.__name__ + ".analysis.clash")
    scene = bpy.context.scene
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    build_scene(scene, np.random.default_rng(0), linked="--linked" in sys.argv)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.json"
        started, cpu_started = time.perf_counter(), time.process_time()
        with redirect_stdout(io.StringIO()):
            cli.run(["check", "--scope", "all", "--fail-on", "none", "--json", str(path)])
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        report = json.loads(path.read_text())
    summary = report.get("summary", report)
    seconds = summary.get("seconds", report.get("seconds"))
    results = report.get("results", [])
    statuses = {status: sum(r.get("status") == status for r in results) for status in ("penetrating", "touching",
                                                                                         "clearance")}
    methods = {method: sum(r.get("method") == method for r in results) for method in ("convex", "parts", "mesh")}
    print(f"Blender {bpy.app.version_string}: {OBJECTS} convex objects ({'linked' if '--linked' in sys.argv else 'own'} "
          f"mesh data)")
    print(f"  candidate pairs {summary.get('candidate_pairs')}, {statuses}, methods {methods}")
    print(f"  check --scope all: report seconds {seconds:.2f} s (target <= {TARGET_SECONDS} s); "
          f"command wall {wall:.2f} s, CPU {cpu:.2f} s (all threads; read this on a busy machine)")
    print(f"  answers' fingerprint {answers_digest(results)} (the same in every run of the same code)")
    if "--profile" in sys.argv:
        # the long work inline, not on a worker thread that cProfile does not see
        importlib.import_module(addon.__name__ + ".analysis.background").BACKGROUND_TRIANGLES = sys.maxsize
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        clash.check_scene(scene, bpy.context.evaluated_depsgraph_get(), scope="ALL")
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(45)


if __name__ == "__main__":
    main()
