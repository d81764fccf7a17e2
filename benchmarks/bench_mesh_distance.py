"""Benchmark of ``core.mesh.distance.mesh_distance`` against coal's BVH (OBBRSS) mesh distance.

Run from the repository root with coal installed: ``python benchmarks/bench_mesh_distance.py``
(``--quick`` for fewer repeats). Two interlocked tori (chain links) of 65,536 triangles each, apart, in
two placements:
- ``skewed``: B's ring is tilted and shifted, so one pair of surface patches is closest;
- ``symmetric``: B's ring passes through A's centre, so the whole inner equator of A is within
  1e-4 of the minimum distance from a circle of B (a near-tie over thousands of triangle pairs, the
  worst case for any branch-and-bound search).
For each it prints the median time of the tree builds plus the query (one-shot), of the query alone
with prebuilt trees, the same for coal, their ratio and the target (one-shot within 3x of coal), and
the distance difference.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core.mesh.bvh import TriangleBVH  # noqa: E402  (the repository root must be on sys.path first)
from core.mesh.distance import mesh_distance  # noqa: E402
from core.mesh.trimesh import TriangleMesh  # noqa: E402

import coal  # noqa: E402

RATIO_TARGET = 3.0  # one-shot (trees + query) within 3x of coal's


def torus(major: float, minor: float, major_segments: int, minor_segments: int):
    """Torus about z: (vertices, triangles), 2 * major_segments * minor_segments triangles."""
    u = 2 * np.pi * np.arange(major_segments) / major_segments
    v = 2 * np.pi * np.arange(minor_segments) / minor_segments
    ring = major + minor * np.cos(v)
    vertices = np.stack([ring[:, None] * np.cos(u), ring[:, None] * np.sin(u),
                         np.broadcast_to(minor * np.sin(v)[:, None], (minor_segments, major_segments))], -1)
    j, k = np.meshgrid(np.arange(minor_segments), np.arange(major_segments), indexing="ij")
    a = j * major_segments + k
    b = j * major_segments + (k + 1) % major_segments
    c = ((j + 1) % minor_segments) * major_segments + (k + 1) % major_segments
    d = ((j + 1) % minor_segments) * major_segments + k
    triangles = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])
    return vertices.reshape(-1, 3), triangles


def rotation(axis, angle: float) -> np.ndarray:
    k = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    cross = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * cross + (1 - np.cos(angle)) * cross @ cross


PLACEMENTS = {
    "skewed": (rotation([1, 0, 0], np.pi / 2) @ rotation([0, 0, 1], 0.3), (1.0, 0.1, 0.05)),
    "symmetric": (rotation([1, 0, 0], np.pi / 2), (1.0, 0.0, 0.0)),
}


def coal_model(vertices, triangles):
    model = coal.BVHModelOBBRSS()
    model.beginModel(len(triangles), len(vertices))
    model.addVertices(vertices)
    model.addTriangles(triangles)
    model.endModel()
    return model


def coal_query(model_a, model_b) -> float:
    result = coal.DistanceResult()
    return coal.distance(model_a, coal.Transform3s(), model_b, coal.Transform3s(), coal.DistanceRequest(), result)


def median_seconds(run, repeats: int):
    times, value = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        value = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    repeats = 1 if parser.parse_args().quick else 5
    vertices, triangles = torus(1.0, 0.25, 256, 128)
    print(f"two tori of {len(triangles)} triangles each; median of {repeats} runs")
    for name, (linear, offset) in PLACEMENTS.items():
        moved = vertices @ linear.T + np.asarray(offset)
        mesh_a = TriangleMesh.from_arrays(vertices, triangles)
        mesh_b = TriangleMesh.from_arrays(moved, triangles)

        def ours_one_shot():
            fresh_a = TriangleMesh.from_arrays(vertices, triangles)
            fresh_b = TriangleMesh.from_arrays(moved, triangles)
            return mesh_distance(fresh_a, fresh_b).distance

        tree_a, tree_b = TriangleBVH.build(mesh_a), TriangleBVH.build(mesh_b)
        ours_once, distance = median_seconds(ours_one_shot, repeats)
        ours_query, _ = median_seconds(lambda: mesh_distance(mesh_a, mesh_b, bvh_a=tree_a, bvh_b=tree_b).distance,
                                       repeats)
        coal_once, coal_distance = median_seconds(
            lambda: coal_query(coal_model(vertices, triangles), coal_model(moved, triangles)), repeats)
        models = coal_model(vertices, triangles), coal_model(moved, triangles)
        coal_only, _ = median_seconds(lambda: coal_query(*models), repeats)
        ratio = ours_once / coal_once
        print(f"{name}: distance {distance:.12f} (coal {coal_distance:.12f}, diff {abs(distance - coal_distance):.1e})")
        print(f"  trees + query: core {ours_once * 1e3:8.1f} ms   coal {coal_once * 1e3:8.1f} ms   "
              f"ratio {ratio:5.2f} (target <= {RATIO_TARGET:g}: {'met' if ratio <= RATIO_TARGET else 'NOT met'})")
        print(f"  query only:    core {ours_query * 1e3:8.1f} ms   coal {coal_only * 1e3:8.1f} ms   "
              f"ratio {ours_query / coal_only:5.2f}")


if __name__ == "__main__":
    main()
