"""Median times of the interactive-inspection queries: directional depth, plane mode, rigid-body
shapes and the Copy Pair for Report document.

Run from the repository root: ``python benchmarks/bench_interactive.py`` (``--quick`` for fewer repeats).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import core  # noqa: E402  (the repository root must be on sys.path first)
from core.narrowphase.directional import directional_depth  # noqa: E402
from core.planar.projection import collide_in_plane  # noqa: E402
from core.replay import pair_document  # noqa: E402
from core.shapes.rigid import rigid_body_shape  # noqa: E402
from timing import print_medians  # noqa: E402  (this script's folder is on sys.path)


def sphere_cloud(count: int, radius: float, center, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(count, 3))
    return radius * v / np.linalg.norm(v, axis=1)[:, None] + center


def cases():
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    box_a, box_b = corners, corners * 0.5 + [0.3, 0.2, 1.2]
    small_a, small_b = sphere_cloud(1000, 1.0, [0, 0, 0], 1), sphere_cloud(1000, 0.6, [0.5, 0.3, 1.0], 2)
    big_a = core.Polytope(sphere_cloud(10_000, 1.0, [0, 0, 0], 3))
    big_b = core.Polytope(sphere_cloud(10_000, 0.6, [0.5, 0.3, 1.0], 4))
    matrix = np.eye(4)
    matrix[:3, 3] = [0.0, 0.0, 1.45]
    table = rigid_body_shape("BOX", ([-1, -1, -1], [1, 1, 1]), np.eye(4), 0.04, use_margin=False)
    capsule = rigid_body_shape("CAPSULE", ([-0.5, -0.5, -1.5], [0.5, 0.5, 1.5]), matrix, 0.04)
    hull_points = sphere_cloud(500, 1.0, [0, 0, 0], 5)
    bounds = (hull_points.min(axis=0), hull_points.max(axis=0))
    return [
        ("directional_depth boxes (penetrating, +z)", lambda: directional_depth(box_a, box_b, [0, 0, 1])),
        ("directional_depth boxes (diagonal)", lambda: directional_depth(box_a, box_b, [1, 1, 1])),
        ("directional_depth 1k-point clouds", lambda: directional_depth(small_a, small_b, [0.2, 0.1, 1.0])),
        ("directional_depth 10k-point polytopes", lambda: directional_depth(big_a, big_b, [0.2, 0.1, 1.0])),
        ("directional_depth rigid box-capsule", lambda: directional_depth(table, capsule, [0, 0, 1])),
        ("collide_in_plane boxes (top view)", lambda: collide_in_plane(box_a, box_b, [0, 0, 0], [0, 0, 1])),
        ("collide_in_plane 10k-point clouds", lambda: collide_in_plane(big_a.points, big_b.points, [0, 0, 0],
                                                                       [0.3, -1.0, 0.2])),
        ("rigid_body_shape BOX", lambda: rigid_body_shape("BOX", bounds, matrix, 0.04)),
        ("rigid_body_shape CONVEX_HULL 500 points (shrunk)",
         lambda: rigid_body_shape("CONVEX_HULL", bounds, matrix, 0.04, hull_points, use_margin=False)),
        ("pair_document 1k + 1k points", lambda: pair_document(small_a, small_b)),
    ]


def main() -> None:
    print_medians(cases, __doc__.splitlines()[0], 52)


if __name__ == "__main__":
    main()
