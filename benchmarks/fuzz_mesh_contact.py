"""Seeded fuzzer of ``collide_solids`` on degenerate contacts between real objects, checked against manifold3d's
overlap volume and coal's distance.

    nice -n 19 .venv/core/bin/python benchmarks/fuzz_mesh_contact.py [--seed S] [--count N] [--family NAME] [--core DIR]

Shapes (boxes, L-brackets, U-channels, UV spheres, tori, cups, blocks with a hole, two loose parts, a hollow box)
are snapped to a dyadic grid, turned by right angles and placed at dyadic offsets, so every coordinate below is
exact: a level of one shape's vertices exactly on a face level of the other (``level``), faces flush from outside or
inside (``flush``), edges on edges (``edge``), a copy moved by nothing or one ulp (``ulp``), anywhere on the grid
(``snapped``). What each failure kind means: docs/performance.md, "What each benchmark measures".
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "core")]
if __name__ == "__main__" and "--core" in sys.argv:  # fuzz another checkout's core (e.g. before a change)
    sys.path.insert(0, sys.argv[sys.argv.index("--core") + 1])
from core.mesh import Solid, collide_solids, measure_solid_pairs  # noqa: E402
from core.mesh.trimesh import TriangleMesh  # noqa: E402
from mesh_fixtures import (block_with_hole, box, coal_distance, coal_surface_distance, cup, extrude,  # noqa: E402
                           joined, l_bracket, manifold_overlap, torus, uv_sphere)

GRID = 2.0 ** -7
#: Overlaps larger than this (the shapes are about 1 across) are surely real; manifold3d's exactly 0 surely none.
REAL_VOLUME = 1e-10
#: The answer's volume against manifold3d's, beyond its own stated error; distances against coal's.
VOLUME_SLACK, DISTANCE_SLACK = 1e-9, 1e-9
#: A push-out lengthened by this leaves no overlap larger than ``LEFT_VOLUME`` (manifold3d).
PUSH_SLACK, LEFT_VOLUME = 1e-7, 1e-12
U_CHANNEL = [(0, 0), (1.0, 0), (1.0, 0.8), (0.8, 0.8), (0.8, 0.2), (0.2, 0.2), (0.2, 0.8), (0, 0.8)]
FAMILIES = ("level", "flush", "edge", "ulp", "snapped")
TURNS = [np.array(p) * np.array(s)[:, None] for p in itertools.permutations(np.eye(3)) for s in
         itertools.product((1.0, -1.0), repeat=3) if np.linalg.det(np.array(p) * np.array(s)[:, None]) > 0]


def _dyadic(rng: np.random.Generator, low: float, high: float) -> float:
    return float(np.round(rng.uniform(low, high) / GRID) * GRID)


def random_shape(rng: np.random.Generator) -> TriangleMesh:
    """One of the shapes, sized 0.3-1.5, snapped to the grid, centred on a grid point and turned by right angles."""
    kind = int(rng.integers(9))
    size = _dyadic(rng, 0.3, 1.5)
    if kind == 0:
        shape = box((0.0, 0.0, 0.0), (size, _dyadic(rng, 0.2, 1.2), _dyadic(rng, 0.2, 1.2)))
    elif kind == 1:
        shape = l_bracket(size=size, thickness=size / 2, depth=_dyadic(rng, 0.2, 1.0))
    elif kind == 2:
        shape = extrude([(size * x, size * y) for x, y in U_CHANNEL], 0.0, _dyadic(rng, 0.3, 1.0))
    elif kind == 3:
        shape = uv_sphere(size / 2, rings=int(rng.choice([6, 8, 12])), segments=int(rng.choice([8, 12, 16])))
    elif kind == 4:
        shape = torus(size / 2, size / 6, int(rng.choice([8, 12, 16])), int(rng.choice([6, 8])))
    elif kind == 5:
        shape = cup(size / 2, size, size / 8, int(rng.choice([8, 12])))
    elif kind == 6:
        shape = block_with_hole(size / 2, size / 5, size / 2, int(rng.choice([8, 12, 16])))
    elif kind == 7:
        shape = joined(box((0.0, 0.0, 0.0), (size / 2, size / 2, size / 2)),
                       box((size, size, 0.0), (1.5 * size, 1.5 * size, size / 2)))
    else:  # a hollow box: its inner wall faces inward (a cavity)
        inner = box((size / 8, size / 8, size / 8), (7 * size / 8, 7 * size / 8, 7 * size / 8))
        shape = joined(box((0.0, 0.0, 0.0), (size, size, size)),
                       TriangleMesh.from_arrays(inner.vertices, inner.triangles[:, ::-1]))
    vertices = np.round(shape.vertices / GRID) * GRID
    vertices -= np.round(vertices.mean(axis=0) / GRID) * GRID
    return TriangleMesh.from_arrays(vertices @ TURNS[int(rng.integers(len(TURNS)))].T, shape.triangles)


def placed(rng: np.random.Generator, family: str, a: TriangleMesh, b: TriangleMesh) -> np.ndarray:
    """B's vertices placed against A as ``family`` says."""
    axis = int(rng.integers(3))
    others = [k for k in range(3) if k != axis]
    low_a, high_a = a.vertices.min(axis=0), a.vertices.max(axis=0)
    low_b, high_b = b.vertices.min(axis=0), b.vertices.max(axis=0)
    offset = np.zeros(3)
    for k in others:  # B's centre somewhere over A's box
        offset[k] = _dyadic(rng, low_a[k], high_a[k]) - np.round(0.5 * (low_b[k] + high_b[k]) / GRID) * GRID
    levels_a, levels_b = np.unique(a.vertices[:, axis]), np.unique(b.vertices[:, axis])
    if family == "level":  # some level of B's vertices on some level of A's
        offset[axis] = rng.choice(levels_a) - rng.choice(levels_b)
    elif family == "flush":  # B's lowest or highest level on A's lowest or highest, from outside or inside
        offset[axis] = rng.choice([low_a[axis], high_a[axis]]) - rng.choice([low_b[axis], high_b[axis]])
    elif family == "edge":  # B's corner level on A's in two axes
        for k in (axis, others[0]):
            offset[k] = high_a[k] - rng.choice([low_b[k], high_b[k]])
    elif family == "ulp":
        return a.vertices + rng.choice([0.0, 1.0, -1.0]) * np.spacing(np.abs(a.vertices).max()) * np.eye(3)[axis]
    else:
        offset[axis] = _dyadic(rng, low_a[axis] - high_b[axis], high_a[axis] - low_b[axis])
    return b.vertices + offset


def random_case(rng: np.random.Generator, family: str) -> tuple[TriangleMesh, TriangleMesh]:
    a = random_shape(rng)
    b = a if family == "ulp" else random_shape(rng)
    return a, TriangleMesh.from_arrays(placed(rng, family, a, b), b.triangles)


def failures(a: TriangleMesh, b: TriangleMesh, statuses: Counter) -> list[str]:
    """What is wrong with the answer for A and B, against manifold3d's volume and coal's distance."""
    solid_a, solid_b = Solid(a), Solid(b)
    contact = collide_solids(solid_a, solid_b)
    statuses[contact.status] += 1
    volume = manifold_overlap(a, b)[0]
    found = []
    if contact.status == "penetrating":
        if volume == 0.0:
            found.append("overlap where there is none")
        if contact.overlap_volume is not None and abs(contact.overlap_volume - volume) > (
                VOLUME_SLACK + (contact.volume_error or 0.0)):
            found.append("volume")
        pushed = TriangleMesh.from_arrays(b.vertices + (-contact.signed_distance + PUSH_SLACK) * contact.normal,
                                          b.triangles)
        if manifold_overlap(a, pushed)[0] > LEFT_VOLUME:
            found.append("push-out leaves overlap")
    else:
        if volume > REAL_VOLUME:
            found.append("overlap missed")
        if abs(contact.signed_distance - coal_distance(a, b)) > DISTANCE_SLACK:
            found.append("distance")
        if max(coal_surface_distance(contact.point_a, a), coal_surface_distance(contact.point_b, b)) > DISTANCE_SLACK:
            found.append("witness point off its surface")
    apart, (batched,) = measure_solid_pairs([(Solid(a), Solid(b))])
    if batched is None:
        batched = apart.contacts()[0] if len(apart.index) else None
    if batched is not None and (batched.status, batched.signed_distance, batched.overlap_volume) != (
            contact.status, contact.signed_distance, contact.overlap_volume):
        found.append("batch differs")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--family", choices=FAMILIES, action="append")
    parser.add_argument("--show", type=int, default=3, help="cases printed per failure kind")
    parser.add_argument("--core", help="directory holding the core package to fuzz (default: this checkout's)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    families = args.family or list(FAMILIES)
    kinds, shown, checked, statuses = Counter(), Counter(), Counter(), Counter()
    started = time.process_time()
    for case in range(args.count):
        family = families[case % len(families)]
        a, b = random_case(rng, family)
        try:
            found = failures(a, b, statuses)
        except Exception as error:  # noqa: BLE001 (a crash is a finding too)
            found = [f"error {type(error).__name__}: {error}"]
        checked[family] += 1
        for kind in found:
            kinds[(family, kind)] += 1
            if shown[(family, kind)] < args.show:
                shown[(family, kind)] += 1
                print(f"case {case} ({family}): {kind}")
    print(f"{sum(checked.values())} cases {dict(checked)}, answers {dict(statuses)}, "
          f"CPU {time.process_time() - started:.1f} s")
    for (family, kind), count in sorted(kinds.items()):
        print(f"  {family}: {kind}: {count}")
    if not kinds:
        print("  no failures")


if __name__ == "__main__":
    main()
