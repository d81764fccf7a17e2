"""Median times of the shape-side queries: primitives through ``collide``, the numpy hull, SAT,
``collide_2d`` and contact regions.

Run from the repository root: ``python benchmarks/bench_shapes.py`` (``--quick`` for fewer repeats).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import core  # noqa: E402  (the repository root must be on sys.path first)
from core.shapes.hull import convex_hull  # noqa: E402
from core.planar.gjk_epa import Circle, collide_2d  # noqa: E402
from core.shapes.primitives import Capsule, Cone, Cylinder, Rounded  # noqa: E402
from core.contact_patch.region import contact_region  # noqa: E402
from core.narrowphase.sat import sat_polytopes  # noqa: E402
from timing import print_medians  # noqa: E402  (this script's folder is on sys.path)


def placed(rotation_seed: int, offset) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(rotation_seed).normal(size=(3, 3)))
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = q * np.sign(np.linalg.det(q)), offset
    return m


def cases():
    rng = np.random.default_rng(0)
    box_a = core.Box([0.5, 0.4, 0.3], placed(1, [0, 0, 0]))
    box_b = core.Box([0.4, 0.3, 0.2], placed(2, [0.3, 0.2, 0.4]))
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    cloud_a, cloud_b = rng.normal(size=(60, 3)) * 0.4, rng.normal(size=(60, 3)) * 0.4 + 0.3
    slab = core.Box([2.0, 2.0, 0.5])
    resting = core.Box([0.5, 0.3, 0.2], np.array([[1, 0, 0, 0.1], [0, 1, 0, 0], [0, 0, 1, 0.69], [0, 0, 0, 1.0]]))
    standing = Cylinder(0.4, 0.3, np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.79], [0, 0, 0, 1.0]]))
    polygon_a, polygon_b = rng.normal(size=(12, 2)), rng.normal(size=(12, 2)) + 0.5
    big_a, big_b = rng.normal(size=(1000, 2)), rng.normal(size=(1000, 2)) + 0.5
    return [
        ("collide cylinder-cylinder (penetrating)", lambda: core.collide(
            Cylinder(0.5, 1.0, placed(4, [0, 0, 0])), Cylinder(0.4, 0.8, placed(5, [0.6, 0.1, 0.0])))),
        ("collide capsule-capsule", lambda: core.collide(Capsule([0, 0, 0], [1, 0, 0], 0.3),
                                                         Capsule([0.5, -0.5, 0.4], [0.5, 0.5, 0.4], 0.2))),
        ("collide cone-box (penetrating)", lambda: core.collide(slab, Cone(0.4, 0.5, placed(6, [0, 0, 0.8])))),
        ("collide rounded box-box", lambda: core.collide(Rounded(box_a, 0.1), box_b)),
        ("convex_hull 1k random points", lambda: convex_hull(rng.normal(size=(1000, 3)))),
        ("convex_hull 100k random points", lambda: convex_hull(rng.normal(size=(100_000, 3)))),
        ("sat boxes (corners)", lambda: sat_polytopes(corners * 0.5, corners * 0.4 + 0.3)),
        ("sat 60-point clouds", lambda: sat_polytopes(cloud_a, cloud_b)),
        ("collide_2d 12-gons", lambda: collide_2d(polygon_a, polygon_b)),
        ("collide_2d 1000-point clouds", lambda: collide_2d(big_a, big_b)),
        ("collide_2d circle-polygon", lambda: collide_2d(Circle([0.2, 0.1], 0.5), polygon_b)),
        ("contact_region box on box (face)", lambda: contact_region(slab, resting, core.collide(slab, resting))),
        ("contact_region cylinder on box (cap)",
         lambda: contact_region(slab, standing, core.collide(slab, standing))),
    ]


def main() -> None:
    print_medians(cases, __doc__.splitlines()[0], 45)


if __name__ == "__main__":
    main()
