"""How long a worker thread's core call keeps the interpreter from the main thread (Blender's interface, which waits
for it): the main thread sleeps 10 ms at a time, as the interface's timer asks, while a worker runs the call
(``core.steps.in_background``), and every wake-up later than that is timed.

    .venv/core/bin/python benchmarks/bench_worker_interpreter.py [--show SECONDS]

Calls: a 1M-triangle tree built whole, the classification of ``bench_self_check.py``'s 1M-triangle sculpt, its
self-intersection check, and a Copy Pair document of 500,000 points with its JSON text. Per call: its CPU time, the
longest wake-up delay and the 99th percentile, and the most CPU time the worker spent within one wait (what it would
hold an idle machine's interface for); ``--show`` prints the worker's stack at every wake-up later than that.
Details: docs/performance.md, "Numpy calls that keep the interpreter".
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import traceback
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from bench_self_check import sculpt  # noqa: E402  (benchmarks/ is on the path: this script's folder)
from core.mesh import Solid, TriangleMesh  # noqa: E402
from core.mesh.bvh import TriangleBVH  # noqa: E402
from core.mesh.self_intersection import self_intersection  # noqa: E402
from core.replay import document_text, pair_document  # noqa: E402
from core.steps import in_background  # noqa: E402

SLEEP = 0.01


def uv_sphere(rings: int, segments: int) -> TriangleMesh:
    """A closed UV sphere of about ``2 * rings * segments`` triangles."""
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, segments, endpoint=False), np.linspace(0, np.pi, rings + 1)[1:-1])
    ring_points = np.stack([np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v)], -1).reshape(-1, 3)
    points = np.concatenate([ring_points, [[0, 0, 1], [0, 0, -1]]])
    top, bottom = len(ring_points), len(ring_points) + 1
    grid = np.arange(len(ring_points)).reshape(rings - 1, segments)
    a, b = grid[:-1], np.roll(grid, -1, axis=1)[:-1]
    c, d = grid[1:], np.roll(grid, -1, axis=1)[1:]
    caps = [np.stack([np.full(segments, top), grid[0], np.roll(grid[0], -1)], -1),
            np.stack([np.full(segments, bottom), np.roll(grid[-1], -1), grid[-1]], -1)]
    quads = [np.stack([a, c, b], -1).reshape(-1, 3), np.stack([b, c, d], -1).reshape(-1, 3)]
    return TriangleMesh.from_arrays(points, np.concatenate(quads + caps), "sphere")


def probe(label: str, work, show: float) -> None:
    """Run ``work`` on a worker while this thread sleeps ``SLEEP`` at a time; print how late it woke."""
    steps = in_background(work, wait=0.0)
    next(steps)
    worker = next(thread for thread in threading.enumerate() if thread.name == "collision_inspector work")
    worker_clock = time.pthread_getcpuclockid(worker.ident)
    worker_cpu, held, late = time.clock_gettime(worker_clock), [], []
    last, began = time.perf_counter(), time.process_time()
    while True:
        try:
            next(steps)
        except StopIteration:
            break
        time.sleep(SLEEP)
        now = time.perf_counter()
        late.append(now - last - SLEEP)
        last = now
        try:
            cpu = time.clock_gettime(worker_clock)
        except OSError:  # the worker ended meanwhile
            cpu = worker_cpu
        held.append(cpu - worker_cpu)
        worker_cpu = cpu
        frame = sys._current_frames().get(worker.ident)
        if late[-1] > show and frame is not None:
            where = " <- ".join(f"{Path(entry.filename).name}:{entry.lineno} {entry.name}"
                                for entry in traceback.extract_stack(frame)[-3:][::-1])
            print(f"  {1e3 * late[-1]:.0f} ms late (worker CPU {1e3 * held[-1]:.0f} ms): {where}", flush=True)
    late = np.array(late or [0.0])
    print(f"{label}: {time.process_time() - began:.2f} s CPU; the main thread woke at most {1e3 * late.max():.0f} ms "
          f"late (99%: {1e3 * np.percentile(late, 99):.0f} ms); most worker CPU within one wait "
          f"{1e3 * max(held or [0.0]):.0f} ms", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", type=float, default=0.1, help="print the worker's stack past this delay (s)")
    show = parser.parse_args().show
    sphere = uv_sphere(707, 707)
    print(f"sphere: {len(sphere.triangles):,} triangles; sculpt: ", end="", flush=True)
    head = sculpt(1)
    print(f"{len(head.triangles):,} triangles", flush=True)
    probe("tree built whole", lambda: TriangleBVH.build(sphere), show)
    probe("classifying the sculpt", lambda: Solid(head).closed, show)
    probe("the sculpt's self-intersections", lambda: self_intersection(head), show)
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float) + 0.5
    probe("Copy Pair's document and text", lambda: document_text(pair_document(sphere.vertices, cube)), show)


if __name__ == "__main__":
    main()
