"""Time the scene-wide clash check on 2,000 objects, a quarter of them non-convex (target: <= 4 s).

    .venv/bpy-5.0.1/bin/python benchmarks/bench_clash.py                    # PyPI bpy module
    blender --background --factory-startup --python benchmarks/bench_clash.py   # real Blender

The scene and the figures: docs/performance.md, "What each benchmark measures".
"""

from __future__ import annotations

import importlib
import io
import sys
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
SPACING = 2.0  # metres between grid cells; objects are about 1 m across
NEIGHBOUR_EVERY = 5


def template_mesh(name: str, segments: int, rings: int) -> bpy.types.Mesh:
    """A UV sphere of radius 0.5 (``segments * (rings - 1) + 2`` vertices), or a unit cube for 0 segments, its faces
    in the same order in every run (``reproducible``)."""
    import bmesh  # here: the PyPI bpy module provides bmesh only once bpy has been imported
    bm = bmesh.new()
    if segments:
        bmesh.ops.create_uvsphere(bm, u_segments=segments, v_segments=rings, radius=0.5)
    else:
        bmesh.ops.create_cube(bm, size=1.0)
    return mesh_from_bmesh(bm, name)


def torus_mesh(name: str, ring: int = 24, section: int = 12, major: float = 0.35, minor: float = 0.12
               ) -> bpy.types.Mesh:
    """A closed torus about 0.94 m across (``ring * section`` vertices): a non-convex object."""
    u, v = np.meshgrid(np.arange(ring) * 2 * np.pi / ring, np.arange(section) * 2 * np.pi / section, indexing="ij")
    radius = major + minor * np.cos(v)
    points = np.stack([radius * np.cos(u), radius * np.sin(u), minor * np.sin(v)], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(ring), np.arange(section), indexing="ij")
    corners = [i * section + j, ((i + 1) % ring) * section + j, ((i + 1) % ring) * section + (j + 1) % section,
               i * section + (j + 1) % section]
    quads = np.stack(corners, axis=-1).reshape(-1, 4)
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(points.tolist(), [], quads.tolist())
    mesh.update()
    return mesh


def jittered_copy(mesh: bpy.types.Mesh, rng: np.random.Generator) -> bpy.types.Mesh:
    """A copy of ``mesh`` with every vertex moved by up to 3 % of its size (a unique 1k-vertex blob)."""
    copy = mesh.copy()
    points = np.empty(len(copy.vertices) * 3, dtype=np.float32)
    copy.vertices.foreach_get("co", points)
    points *= rng.uniform(0.97, 1.03, points.shape).astype(np.float32)
    copy.vertices.foreach_set("co", points)
    copy.update()
    return copy


def build_scene(scene: bpy.types.Scene, rng: np.random.Generator, tori: bool = True) -> None:
    """``OBJECTS`` objects on a grid; every ``NEIGHBOUR_EVERY``-th one moved into its x neighbour."""
    box, sphere, blob = template_mesh("box", 0, 0), template_mesh("sphere", 12, 10), template_mesh("blob", 40, 26)
    torus = torus_mesh("torus")
    for index in range(OBJECTS):
        kind = index % 4 if tori or index % 4 != 2 else 0
        mesh = (box, sphere, torus, jittered_copy(blob, rng))[kind]
        obj = bpy.data.objects.new(f"{('Box', 'Sphere', 'Torus', 'Blob')[kind]} {index:04d}", mesh)
        place_on_grid(obj, index, OBJECTS, SPACING, (0.8, 1.0), rng, NEIGHBOUR_EVERY)
        obj.scale = rng.uniform(0.8, 1.0, 3)
        scene.collection.objects.link(obj)
    bpy.context.view_layer.update()


def main() -> None:
    addon = load_registered_addon()
    clash = importlib.import_module(addon.__name__ + ".analysis.clash")
    cli = importlib.import_module(addon.__name__ + ".cli")
    scene = bpy.context.scene
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    build_scene(scene, np.random.default_rng(0), tori="--convex" not in sys.argv)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    vertices = sum(len(obj.data.vertices) for obj in scene.objects)

    command_started = time.perf_counter()  # first: a pipeline's command meets a freshly loaded file
    with redirect_stdout(io.StringIO()):
        exit_code = cli.run(["check", "--fail-on", "none"])
    command_seconds = time.perf_counter() - command_started

    read_done, count = [], len(scene.objects)

    def note_reading_done(done: int, _total: int) -> None:
        if done == count and not read_done:
            read_done.append(time.perf_counter())

    started = time.perf_counter()
    report = clash.check_scene(scene, depsgraph, scope='ALL', progress=note_reading_done)
    finished = time.perf_counter()

    n = report.objects
    print(f"Blender {bpy.app.version_string}: {n} objects, {vertices:,} vertices")
    print(f"  candidate pairs (broad phase): {report.candidate_pairs:,} of {n * (n - 1) // 2:,} "
          f"(N^2 = {n * n:,})")
    methods = {method: sum(r.method == method for r in report.results) for method in ("convex", "parts", "mesh")}
    print(f"  clashes: {report.counts}; measured as {methods}")
    print(f"  through the command (cli.run, first check, exit {exit_code}): {command_seconds:.2f} s  (target <= 4 s)")
    print(f"  check_scene again: {finished - started:.2f} s (reading {read_done[0] - started:.2f} s, "
          f"broad phase, preparing shapes and GJK/EPA {finished - read_done[0]:.2f} s)")
    print(f"  answers' fingerprint {answers_digest([result.as_dict() for result in report.results])} (the same in "
          f"every run of the same code)")


if __name__ == "__main__":
    main()
