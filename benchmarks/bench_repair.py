"""Time the repair an object's triangles get before they are classified (``core.mesh.repair.repaired``), at 1M vertices.

    .venv/core/bin/python benchmarks/bench_repair.py [SEGMENTS]

A UV sphere of ``SEGMENTS`` x ``SEGMENTS`` (default 1,000: 998,002 vertices, 2M triangles), three ways: as
Blender builds it (welding finds nothing to do: the common case), split along every tenth ring and meridian as a
UV-seamed import is (welded back, exact), and with its seams split and ten faces missing (the full repair:
welding of the open edges within the tolerance, repeated faces, orientation, holes capped). Prints the best of
three wall and CPU times of each and what the repair found, then the welding of bit-identical positions alone.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from core.mesh.repair import repaired  # noqa: E402  (needs the path above)
from core.mesh.trimesh import TriangleMesh  # noqa: E402
from core.mesh.weld import exact_representatives  # noqa: E402

SEGMENTS = 1000


def uv_sphere(segments: int, split_every: int = 0) -> TriangleMesh:
    """A UV sphere's grid (poles fanned); with ``split_every``, every such ring and meridian gets its own copy of
    the vertices on it, as glTF and PLY store a mesh with UV seams there."""
    rings = segments
    theta = np.pi * np.arange(1, rings) / rings
    phi = 2 * np.pi * np.arange(segments) / segments
    grid = np.stack(np.broadcast_arrays(np.sin(theta)[:, None] * np.cos(phi), np.sin(theta)[:, None] * np.sin(phi),
                                        np.cos(theta)[:, None]), axis=-1).reshape(-1, 3)
    vertices = np.concatenate([grid, [[0, 0, 1], [0, 0, -1]]])
    index = np.arange(len(grid)).reshape(rings - 1, segments)
    a, b = index[:-1], index[1:]
    a2, b2 = np.roll(a, -1, axis=1), np.roll(b, -1, axis=1)
    quads = np.concatenate([np.stack([a, b, b2], -1).reshape(-1, 3), np.stack([a, b2, a2], -1).reshape(-1, 3)])
    top, bottom = len(grid), len(grid) + 1
    after = np.roll(np.arange(segments), -1)
    caps = np.concatenate([np.stack([np.full(segments, top), index[0], index[0, after]], -1),
                           np.stack([np.full(segments, bottom), index[-1, after], index[-1]], -1)])
    triangles = np.concatenate([quads, caps])
    if split_every:
        ring_of = np.concatenate([np.repeat(np.arange(rings - 1), segments), [-1, -1]])
        band = ring_of[triangles].max(axis=1) // split_every * (segments // split_every + 1) + (
            np.tile(np.arange(segments), rings - 1)[np.minimum(triangles, len(grid) - 1)].min(axis=1) // split_every)
        keys = triangles * (band.max() + 1) + band[:, None]  # one copy of a vertex per band that uses it
        unique, inverse = np.unique(keys, return_inverse=True)
        vertices = vertices[unique // (band.max() + 1)]
        triangles = inverse.reshape(-1, 3)
    return TriangleMesh.from_arrays(vertices, triangles)


def best_of_three(mesh: TriangleMesh) -> tuple[float, float, object]:
    """Best wall and CPU seconds of three repairs of fresh copies of ``mesh``, and the repair."""
    walls, cpus = [], []
    for _ in range(3):
        fresh = TriangleMesh.from_arrays(mesh.vertices, mesh.triangles)
        wall, cpu = time.perf_counter(), time.process_time()
        repair = repaired(fresh)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), repair


def main() -> None:
    segments = int(sys.argv[1]) if len(sys.argv) > 1 else SEGMENTS
    clean = uv_sphere(segments)
    split = uv_sphere(segments, split_every=10)
    holed = TriangleMesh.from_arrays(split.vertices, np.delete(split.triangles, np.arange(10) * 9973, axis=0))
    for label, mesh in (("as built", clean), ("split along UV seams", split), ("seams split, 10 faces missing", holed)):
        wall, cpu, repair = best_of_three(mesh)
        print(f"{label:32s} {len(mesh.vertices):>9,d} vertices {len(mesh.triangles):>9,d} triangles: "
              f"{wall:.3f} s wall, {cpu:.3f} s CPU -> {repair.certainty}, {repair.welded_vertices:,d} welded, "
              f"{repair.holes} holes capped, volume error {repair.volume_error:.2e}")
    cpus = []
    for _ in range(3):
        cpu = time.process_time()
        exact_representatives(split.vertices)
        cpus.append(time.process_time() - cpu)
    print(f"welding alone (bit-identical positions) of the split sphere's {len(split.vertices):,d} vertices: "
          f"{min(cpus):.3f} s CPU")


if __name__ == "__main__":
    main()
