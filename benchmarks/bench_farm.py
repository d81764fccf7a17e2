"""Time the cluster runner (``python -m farm run``) on 1, 2 and 4 local workers, with CPU times and a 64-worker
estimate.

    BLENDER=/path/to/blender .venv/core/bin/python benchmarks/bench_farm.py [--objects 20000] [--movers 200]
        [--frames 250] [--workers 1 2 4]

What it builds and prints: docs/performance.md, "What each benchmark measures".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from farm.runner import COMMAND, LOAD_ADDON  # noqa: E402  (needs the path above)
sys.path.insert(0, str(REPO / "benchmarks"))
from reproducible import answers_digest  # noqa: E402

#: Run inside Blender: ``--`` KIND COUNT FRAMES OUT builds the scene and saves it to OUT (the meshes' faces in the same
#: order in every run: ``reproducible``).
BUILD_SCENE = '''
import math, sys
import bpy, bmesh
import numpy as np
kind, count, frames, out, benchmarks = sys.argv[sys.argv.index("--") + 1:]
count, frames = int(count), int(frames)
sys.path.insert(0, benchmarks)
from reproducible import mesh_from_bmesh
for obj in list(bpy.data.objects):
    bpy.data.objects.remove(obj)
def mesh(name, make):
    bm = bmesh.new(); make(bm); return mesh_from_bmesh(bm, name)
def torus(ring=24, section=8, major=0.35, minor=0.12):
    u, v = np.meshgrid(np.arange(ring) * 2 * np.pi / ring, np.arange(section) * 2 * np.pi / section, indexing="ij")
    radius = major + minor * np.cos(v)
    points = np.stack([radius * np.cos(u), radius * np.sin(u), minor * np.sin(v)], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(ring), np.arange(section), indexing="ij")
    quads = np.stack([i * section + j, ((i + 1) % ring) * section + j, ((i + 1) % ring) * section + (j + 1) % section,
                      i * section + (j + 1) % section], axis=-1).reshape(-1, 4)
    data = bpy.data.meshes.new("torus"); data.from_pydata(points.tolist(), [], quads.tolist()); data.update()
    return data
convex = [mesh("box", lambda bm: bmesh.ops.create_cube(bm, size=1.0)),
          mesh("ball", lambda bm: bmesh.ops.create_uvsphere(bm, u_segments=16, v_segments=8, radius=0.5)),
          mesh("cone", lambda bm: bmesh.ops.create_cone(bm, cap_ends=True, segments=16, radius1=0.5, radius2=0.3,
                                                          depth=0.6))]
ring = torus()
rng = np.random.default_rng(1)
side = math.ceil(math.sqrt(count))
collection = bpy.context.scene.collection
for index in range(count):
    obj = bpy.data.objects.new(f"Object {index:05d}", ring if index % 10 == 9 else convex[index % 3])
    collection.objects.link(obj)
    x, y = 2.0 * (index % side), 2.0 * (index // side)
    obj.location = (x - (1.3 if index % 5 == 0 else 0.0), y, 0.0)
    obj.rotation_euler = tuple(rng.uniform(0.0, math.pi, 3))
    if kind == "scan":
        obj.keyframe_insert("location", frame=1)
        obj.location = (x + float(rng.uniform(-1.5, 1.5)), y + float(rng.uniform(-1.5, 1.5)), 0.0)
        obj.keyframe_insert("location", frame=frames)
bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, frames
bpy.ops.wm.save_as_mainfile(filepath=out)
'''


def blender_run(blender: str, *argv: str) -> float:
    """Run Blender with ``argv``; its wall time. Raises when it fails."""
    started = time.perf_counter()
    done = subprocess.run([blender, "--background", "--factory-startup", *argv], capture_output=True, text=True,
                          cwd=REPO)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"Blender failed ({done.returncode}): {done.stderr[-2000:]}")
    return time.perf_counter() - started


def single_process(blender: str, blend: Path, check_args: list[str], out: Path) -> tuple[float, dict]:
    seconds = blender_run(blender, "--python-expr", LOAD_ADDON.format(folder=str(REPO)), str(blend),
                          "--command", COMMAND, "check", *check_args, "--fail-on", "none", "--json", str(out))
    return seconds, json.loads(out.read_text())


def children_cpu() -> float:
    """CPU seconds of the finished child processes so far (with theirs: the runner, its workers, their Blenders)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def farm_run(blender: str, blend: Path, check_args: list[str], workers: int,
             out: Path) -> tuple[float, float, list[dict]]:
    """The runner's wall time, the CPU time of everything it started, and the shards' reports."""
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "farm", "run", str(blend), *check_args, "--workers", str(workers),
                           "--shards", str(workers), "--blender", blender, "--fail-on", "none", "--json", str(out)],
                          capture_output=True, text=True, cwd=REPO,
                          env={key: value for key, value in os.environ.items() if key != "BLENDER_XVFB"})
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"the runner failed ({done.returncode}): {done.stderr[-2000:]}")
    parts = [json.loads(path.read_text()) for path in sorted(out.with_suffix(".parts").glob("shard-*.json"))]
    return seconds, children_cpu() - cpu, parts


def shards_digest(parts: list[dict]) -> str:
    """``answers_digest`` of every shard's results together, by pair (the same however the pairs were shared)."""
    return answers_digest(sorted((row for part in parts for row in part["results"]),
                                 key=lambda row: (row["object_a"], row["object_b"])))


def scenario(blender: str, name: str, blend: Path, check_args: list[str], workers: list[int], folder: Path,
             baseline: bool) -> None:
    print(f"\n{name}", flush=True)
    if baseline:
        whole_seconds, whole = single_process(blender, blend, check_args, folder / "whole.json")
        print(f"  one Blender process, no dask: {whole_seconds:7.1f} s wall, check {whole['seconds']:.1f} s "
              f"({whole['objects']} objects, {whole['candidate_pairs']} candidate pairs, "
              f"{len(whole['results'])} results)", flush=True)
    walls, shard_seconds = {}, {}
    for count in workers:
        wall, cpu, parts = farm_run(blender, blend, check_args, count, folder / f"{name.split()[0]}-{count}.json")
        walls[count], shard_seconds[count] = wall, [part['seconds'] for part in parts]
        speedup = walls[workers[0]] / wall
        print(f"  runner, {count} worker(s), {count} shard(s): {wall:7.1f} s wall, {cpu:7.1f} s CPU, "
              f"speed-up {speedup:4.2f}x; "
              f"shards' check time {', '.join(f'{s:.1f}' for s in shard_seconds[count])} s; "
              f"{parts[0]['objects']} objects, {parts[0]['candidate_pairs']} candidate pairs; load average "
              f"{os.getloadavg()[0]:.1f}; answers' fingerprint {shards_digest(parts)}", flush=True)
    if 1 in shard_seconds and 2 in shard_seconds:
        once = shard_seconds[1][0]
        repeated = max(sum(shard_seconds[2]) - once, 0.0)  # two shards do it twice, one shard once
        divided = max(once - repeated, 0.0)
        overhead = max(walls[1] - once, 0.0)  # cluster start, Blender start, file load, writing
        for cluster in (64,):
            print(f"  estimate: every shard repeats {repeated:.1f} s (reading, broad phase) and {overhead:.1f} s "
                  f"(cluster, Blender, file); {divided:.1f} s divides: {cluster} workers "
                  f"~{overhead + repeated + divided / cluster:.1f} s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--objects", type=int, default=20_000)
    parser.add_argument("--movers", type=int, default=200)
    parser.add_argument("--frames", type=int, default=250)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--blender", default=os.environ.get("BLENDER", "blender"))
    parser.add_argument("--baseline", action="store_true", help="also time one Blender process without dask")
    parser.add_argument("--only", choices=("scan", "check"), help="run one of the two scenarios")
    arguments = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; Blender {arguments.blender}")
    with tempfile.TemporaryDirectory(prefix="bench_farm_") as name:
        folder = Path(name)
        script = folder / "build_scene.py"
        script.write_text(BUILD_SCENE)
        scan, check = folder / "scan.blend", folder / "check.blend"
        if arguments.only != "scan":
            blender_run(arguments.blender, "--python", str(script), "--", "check", str(arguments.objects), "1",
                        str(check), str(REPO / "benchmarks"))
            scenario(arguments.blender, f"check of {arguments.objects} objects", check, [], arguments.workers, folder,
                     arguments.baseline)
        if arguments.only != "check":
            blender_run(arguments.blender, "--python", str(script), "--", "scan", str(arguments.movers),
                        str(arguments.frames), str(scan), str(REPO / "benchmarks"))
            scenario(arguments.blender, f"scan of {arguments.movers} objects over {arguments.frames} frames", scan,
                     ["--frames", f"1-{arguments.frames}"], arguments.workers, folder, arguments.baseline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
