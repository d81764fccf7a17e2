"""Time the kitbashed roof's clash check in Blender, through the ``check`` command as a pipeline runs it: reading
every part's evaluated mesh, classifying, measuring, the report (target of the whole check: <= 10 s).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_kitbash_scene.py [--rows R --columns C]
    blender --background --factory-startup --python benchmarks/bench_kitbash_scene.py -- [--rows R --columns C]

The same roof as ``bench_kitbash.py`` (which times the core's steps alone, next to coal), one mesh object per part.
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
import time
from collections import Counter
from contextlib import redirect_stdout
from pathlib import Path

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "scripts"), str(REPO / "benchmarks")]  # also when Blender runs the script
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
from kitbash_scene import roof  # noqa: E402
from reproducible import answers_digest  # noqa: E402
from timing import machine_load  # noqa: E402


def part_object(name: str, vertices: np.ndarray, triangles: np.ndarray) -> bpy.types.Object:
    """A mesh object of one part's world-space triangles (identity transform)."""
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(vertices))
    mesh.vertices.foreach_set("co", np.asarray(vertices, dtype=np.float32).ravel())
    mesh.loops.add(3 * len(triangles))
    mesh.loops.foreach_set("vertex_index", np.asarray(triangles, dtype=np.int32).ravel())
    mesh.polygons.add(len(triangles))
    mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * len(triangles), 3, dtype=np.int32))
    mesh.update()
    return bpy.data.objects.new(name, mesh)


def build_roof(scene: bpy.types.Scene, rows: int, columns: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The scene holding the roof's parts and nothing else; the parts' ``(vertices, triangles)``."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    names, meshes = roof(rows, columns, np.random.default_rng(0))
    for name, (vertices, triangles) in zip(names, meshes):
        scene.collection.objects.link(part_object(name, vertices, triangles))
    bpy.context.view_layer.update()
    return meshes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--columns", type=int, default=70)
    args = parser.parse_args(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:])
    addon = load_registered_addon()
    cli = importlib.import_module(addon.__name__ + ".cli")
    clash = importlib.import_module(addon.__name__ + ".analysis.clash")
    scene = bpy.context.scene
    meshes = build_roof(scene, args.rows, args.columns)
    print(f"Blender {bpy.app.version_string}: kitbashed roof of {len(meshes):,} parts, "
          f"{sum(len(t) for _, t in meshes):,} triangles; {machine_load()}")

    wall, cpu = time.perf_counter(), time.process_time()
    with redirect_stdout(io.StringIO()):
        exit_code = cli.run(["check", "--fail-on", "none"])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    report = clash.check_scene(scene, bpy.context.evaluated_depsgraph_get(), scope='ALL', progress=lambda *_: None)
    print(f"  candidate pairs {report.candidate_pairs:,}; clashes {report.counts}; measured as "
          f"{dict(Counter(result.method for result in report.results))}")
    print(f"  through the command (cli.run, exit {exit_code}): {wall:.2f} s wall, {cpu:.2f} s CPU  "
          f"(target <= 10 s); check_scene again: report seconds {report.seconds:.2f}")
    print(f"  answers' fingerprint {answers_digest([result.as_dict() for result in report.results])}")


if __name__ == "__main__":
    main()
