"""Benchmark of the exact mesh queries on a ring pierced by a pin (target: all three <= 2 s together).

Run from the repository root in the core environment, which has manifold3d (it builds the meshes with the test
fixtures and times manifold3d next to core):

    .venv/core/bin/python benchmarks/bench_mesh_intersection.py [--quick]

The ring is a torus of 65,536 triangles (256 x 128 segments), the pin a closed cylinder of 256
segments, tilted by 0.3 rad, that goes through the ring's tube from top to bottom (two loops). Prints the least CPU time of a few runs of: ``surfaces_cross``
(status), ``surface_intersection`` (curves) and ``overlap_volume``, then manifold3d's intersection
volume (mesh conversion, boolean and ``volume()``), with both volumes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "core"))
import mesh_fixtures as fixtures  # noqa: E402  (needs the paths above)
from core.mesh.intersection import surface_intersection, surfaces_cross  # noqa: E402
from core.mesh.volume import overlap_volume  # noqa: E402
from timing import best_cpu, machine_load  # noqa: E402  (this script's folder is on sys.path)


def main() -> None:
    repeats = 1 if "--quick" in sys.argv else 3
    ring = fixtures.torus(major=2.0, minor=0.5, major_segments=256, minor_segments=128)
    tilt = np.array([[1.0, 0.0, 0.0], [0.0, np.cos(0.3), -np.sin(0.3)], [0.0, np.sin(0.3), np.cos(0.3)]])
    pin = fixtures.transformed(fixtures.rod(radius=0.2, z0=-1.5, z1=1.5, segments=256), tilt, (2.05, 0.05, 0.0))
    print(f"ring: {len(ring.triangles):,} triangles, pin: {len(pin.triangles):,} triangles; {machine_load()}")
    t_cross, crossing = best_cpu(lambda: surfaces_cross(ring, pin), repeats)
    t_curves, result = best_cpu(lambda: surface_intersection(ring, pin), repeats)
    t_volume, (volume, centroid) = best_cpu(lambda: overlap_volume(ring, pin), repeats)
    t_manifold, reference = best_cpu(lambda: (fixtures.manifold(ring) ^ fixtures.manifold(pin)).volume(), repeats)
    print(f"{'query':<28}{'core (CPU s)':>14}  result")
    print(f"{'surfaces_cross':<28}{t_cross:>14.3f}  {crossing}")
    print(f"{'surface_intersection':<28}{t_curves:>14.3f}  {len(result.curves)} curves "
          f"({', '.join('closed' if c else 'open' for c in result.closed)}), {len(result.segments)} segments")
    print(f"{'overlap_volume':<28}{t_volume:>14.3f}  {volume:.12f} at {np.round(centroid, 6)}")
    print(f"{'total':<28}{t_cross + t_curves + t_volume:>14.3f}")
    print(f"{'manifold3d intersection':<28}{t_manifold:>14.3f}  {reference:.12f} "
          f"(difference {volume - reference:.2e})")


if __name__ == "__main__":
    main()
