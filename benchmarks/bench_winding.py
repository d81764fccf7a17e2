"""Time the generalized winding number of a nearly closed 1M-triangle mesh: every triangle at every point (brute
force) against the triangle tree (``core.mesh.inside.decided_windings``).

    .venv/core/bin/python benchmarks/bench_winding.py [SEGMENTS] [POINTS]

A UV sphere of ``SEGMENTS`` x ``SEGMENTS`` (default 710: about 1M triangles) with ten faces missing, and
``POINTS`` (default 10,000) seeded points in its box. Prints CPU seconds: the tree's build and moments, the
tree's answers, and brute force on the first 20 points (scaled to all of them), with how many points the tree left
to its finer and exact passes and whether every decision matches brute force's on those 20.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_repair import uv_sphere  # noqa: E402  (this folder is on the path)
from core.mesh.bvh import TriangleBVH  # noqa: E402  (needs the path above)
from core.mesh.inside import decided_windings, solid_angle_windings  # noqa: E402
from core.mesh.trimesh import TriangleMesh  # noqa: E402
from core.mesh.winding_tree import tree_windings, winding_moments  # noqa: E402
from timing import machine_load  # noqa: E402

SEGMENTS, POINTS, BRUTE_POINTS = 710, 10_000, 20


def cpu(run) -> tuple[float, object]:
    start = time.process_time()
    value = run()
    return time.process_time() - start, value


def main() -> None:
    segments = int(sys.argv[1]) if len(sys.argv) > 1 else SEGMENTS
    count = int(sys.argv[2]) if len(sys.argv) > 2 else POINTS
    sphere = uv_sphere(segments)
    mesh = TriangleMesh.from_arrays(sphere.vertices, np.delete(sphere.triangles, np.arange(10) * 9973, axis=0))
    points = np.random.default_rng(0).uniform(-1.2, 1.2, size=(count, 3))
    print(f"{len(mesh.triangles):,d} triangles (10 missing), {count:,d} points; {machine_load()}")
    build, bvh = cpu(lambda: TriangleBVH.build(mesh))
    moments, _ = cpu(lambda: winding_moments(bvh))
    first, (rough, bounds) = cpu(lambda: tree_windings(bvh, points))
    undecided = int((np.abs(rough - 0.5) <= bounds).sum())
    tree, windings = cpu(lambda: decided_windings(bvh, points))
    brute, exact = cpu(lambda: solid_angle_windings(mesh, points[:BRUTE_POINTS]))
    same = bool(((windings[:BRUTE_POINTS] > 0.5) == (exact > 0.5)).all())
    print(f"tree: build {build:.2f} s, moments {moments:.2f} s, first pass {first:.2f} s "
          f"(median bound {np.median(bounds):.3f}, {undecided} points left to the finer pass), "
          f"decided windings {tree:.2f} s CPU")
    print(f"brute force: {brute:.2f} s CPU for {BRUTE_POINTS} points, {brute * count / BRUTE_POINTS:.0f} s for all "
          f"(scaled); decisions the same on those: {same}")


if __name__ == "__main__":
    main()
