"""Benchmark of the self-intersection check on a sculpt of about a million triangles.

Run from the repository root with the core environment:

    .venv/core/bin/python benchmarks/bench_self_check.py [--quick]

The sculpt is a bumpy head (a sphere displaced along its normals, 500 rings x 1000 segments) joined with
two bumpy eyes that sink into it, about 1.0M triangles in all; ``--quick`` uses a quarter of the rings and
segments. Prints the best of a few runs of ``self_intersection`` (wall and CPU time), the candidate
pairs (boxes overlapping) and the vertices whose stars are certified embedded (the candidates sharing one are
settled without a test), the intersecting face pairs and curves found, and the machine's load.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from core.mesh.embedded_stars import embedded_stars  # noqa: E402
from core.mesh.self_intersection import self_candidate_pairs, self_intersection  # noqa: E402
from core.mesh.trimesh import TriangleMesh  # noqa: E402
from timing import machine_load  # noqa: E402


def bumpy_sphere(rings: int, segments: int, radius: float, centre, bumps: float):
    """A closed, outward UV sphere displaced along its normals by a smooth pattern."""
    polar = np.linspace(0.0, np.pi, rings + 1)[1:-1]
    around = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    u, v = np.meshgrid(polar, around, indexing="ij")
    r = radius * (1.0 + bumps * np.sin(9 * u) * np.cos(7 * v))
    points = np.stack([r * np.sin(u) * np.cos(v), r * np.sin(u) * np.sin(v), r * np.cos(u)], -1).reshape(-1, 3)
    points = np.vstack([points, [[0.0, 0.0, radius], [0.0, 0.0, -radius]]]) + centre
    ids = np.arange((rings - 1) * segments).reshape(rings - 1, segments)
    nxt = np.roll(ids, -1, axis=1)
    quads = [ids[:-1], nxt[:-1], ids[1:], nxt[1:]]
    top, bottom = len(points) - 2, len(points) - 1
    triangles = np.vstack([np.stack([quads[0], quads[2], quads[1]], -1).reshape(-1, 3),
                           np.stack([quads[1], quads[2], quads[3]], -1).reshape(-1, 3),
                           np.stack([np.full(segments, top), ids[0], nxt[0]], -1)[:, [0, 2, 1]],
                           np.stack([np.full(segments, bottom), nxt[-1], ids[-1]], -1)[:, [0, 2, 1]]])
    return points, triangles


def sculpt(scale: int) -> TriangleMesh:
    pieces = [bumpy_sphere(500 // scale, 1000 // scale, 1.0, (0, 0, 0), 0.03),
              bumpy_sphere(60 // scale, 120 // scale, 0.25, (0.35, 0.8, 0.2), 0.05),
              bumpy_sphere(60 // scale, 120 // scale, 0.25, (-0.35, 0.8, 0.2), 0.05)]
    offsets = np.cumsum([0] + [len(points) for points, _ in pieces])
    return TriangleMesh.from_arrays(np.vstack([points for points, _ in pieces]),
                                    np.vstack([triangles + offset for (_, triangles), offset in zip(pieces, offsets)]))


def main() -> None:
    quick = "--quick" in sys.argv
    mesh = sculpt(4 if quick else 1)
    candidates = sum(len(block) for block in self_candidate_pairs(mesh))
    certified = embedded_stars(mesh)
    best_wall, best_cpu, found = np.inf, np.inf, None
    for _ in range(1 if quick else 2):
        wall, cpu = time.perf_counter(), time.process_time()
        found = self_intersection(TriangleMesh(mesh.vertices, mesh.triangles))  # (no derived arrays kept)
        best_wall, best_cpu = min(best_wall, time.perf_counter() - wall), min(best_cpu, time.process_time() - cpu)
    print(f"self_intersection: {len(mesh.triangles):,} triangles, {candidates:,} candidate pairs, "
          f"{certified.sum():,} of {len(certified):,} vertices' stars certified embedded")
    print(f"  best wall {best_wall:.2f} s, CPU {best_cpu:.2f} s; {found.count:,} intersecting face pairs, "
          f"{found.curve_count} curves")
    print(f"  ({machine_load()})")


if __name__ == "__main__":
    main()
