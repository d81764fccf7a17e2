"""Benchmark of an object duplicated in place (Shift+D without a move): two identical tori whose faces coincide
everywhere, the case where nearly every triangle pair's decision is a tie that the perturbed model settles.

Run from the repository root in the core environment:

    .venv/core/bin/python benchmarks/bench_duplicated.py [--quick]

Figures: CPU seconds (best of three runs, one for the bigger torus) of the whole pair (``collide_solids``: status, curves, overlap volume,
push-out), of its overlap volume and of its intersection curves alone, with the load.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "core"))
sys.path.insert(0, str(REPO / "benchmarks"))
import mesh_fixtures as fixtures  # noqa: E402  (needs the paths above)
from core.mesh import Solid, collide_solids  # noqa: E402
from core.mesh.intersection import surface_intersection  # noqa: E402
from core.mesh.volume import overlap_volume  # noqa: E402
from timing import best_cpu, machine_load  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run each, the smaller torus only")
    quick = parser.parse_args().quick
    print(machine_load())
    for major, minor, repeats in ((64, 32, 1),) if quick else ((64, 32, 3), (256, 64, 1)):
        torus = fixtures.torus(2.0, 0.5, major, minor)
        twin = fixtures.mesh(torus.vertices.copy(), torus.triangles.copy())
        volume_time, (volume, _) = best_cpu(lambda: overlap_volume(torus, twin), repeats)
        curves_time, _ = best_cpu(lambda: surface_intersection(torus, twin), repeats)
        pair_time, contact = best_cpu(lambda: collide_solids(Solid(torus), Solid(twin)), repeats)
        print(f"{len(torus.triangles):6d} triangles each: pair {pair_time:6.2f} s ({contact.status}, depth "
              f"{contact.depth:.4f}), overlap volume {volume_time:6.2f} s ({volume:.6f}), curves {curves_time:6.2f} s")


if __name__ == "__main__":
    main()
