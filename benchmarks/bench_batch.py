"""Benchmark of ``core.collide_many``: CPU microseconds per pair, side by side with coal when installed.

Run from the repository root: ``python benchmarks/bench_batch.py`` (``--quick`` for fewer repeats).
The scenes and columns: docs/performance.md, "What each benchmark measures".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import core  # noqa: E402  (the repository root must be on sys.path first)
from core.narrowphase.batch import ShapeSet, collide_many  # noqa: E402
from timing import machine_load, median_us  # noqa: E402  (this script's folder is on sys.path)

try:
    import coal
except ImportError:  # the coal column is skipped
    coal = None

NEAR_TARGET, AT_1000_TARGET = 10.0, 3.0  # per pair, x coal: from about 100 pairs up; at 1,000 pairs


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def rigid(rotation: np.ndarray, offset: np.ndarray) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, :3], matrix[:3, 3] = rotation, offset
    return matrix


class Body:
    """One prepared shape for core and for coal, with its rigid placement."""

    def __init__(self, rng: np.random.Generator, kind: int, rotation: np.ndarray, offset: np.ndarray):
        self.rotation, self.offset = rotation, offset
        if kind == 0:
            half = rng.uniform(0.2, 0.5, 3)
            self.core = core.Box(half)
            self.coal = None if coal is None else coal.Box(*(2.0 * half))
        elif kind == 1:
            self.rotation = np.eye(3)
            radius = rng.uniform(0.2, 0.5)
            self.core = core.Sphere(np.zeros(3), radius)
            self.coal = None if coal is None else coal.Sphere(radius)
        else:
            points = rng.normal(size=(40, 3))
            points = 0.4 * points / np.linalg.norm(points, axis=1)[:, None]
            self.core = core.Polytope(points)
            self.coal = None if coal is None else coal_hull(points)

    def matrix(self, shift: np.ndarray) -> np.ndarray:
        return rigid(self.rotation, self.offset + shift)

    def placed(self, shift: np.ndarray):
        return self.core.transformed(self.matrix(shift))

    def coal_transform(self, shift: np.ndarray):
        return coal.Transform3s(self.rotation, self.offset + shift)


def coal_hull(points: np.ndarray):
    vertices = coal.StdVec_Vec3s()
    vertices.extend(points)
    return coal.ConvexBase.convexHull(vertices, False, "Qt")


def scene(count: int, penetrating_share: float, seed: int) -> list[tuple[Body, Body]]:
    """``count`` pairs; B sits beside A at a gap, or overlapping it for ``penetrating_share`` of them."""
    rng = np.random.default_rng(seed)
    pairs = []
    for k in range(count):
        offset_a = rng.uniform(-50, 50, 3)
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        reach = 0.5 if rng.uniform() < penetrating_share else rng.uniform(1.1, 1.6)
        a = Body(rng, k % 3, random_rotation(rng), offset_a)
        b = Body(rng, (k // 3) % 3, random_rotation(rng), offset_a + reach * direction)
        pairs.append((a, b))
    return pairs


def median_us_per_pair(run: Callable[[int], object], repeats: int, count: int) -> float:
    return median_us(run, repeats) / count


def shifts(repeats: int) -> list[np.ndarray]:
    return [1e-4 * k * np.array([0.3, -0.5, 0.8]) for k in range(repeats)]


def measure(count: int, penetrating_share: float, repeats: int) -> dict:
    pairs = scene(count, penetrating_share, seed=count)
    moves = shifts(repeats)

    shapes_a, shapes_b = ShapeSet([a.core for a, _ in pairs]), ShapeSet([b.core for _, b in pairs])
    base_a = np.array([a.matrix(np.zeros(3)) for a, _ in pairs])
    base_b = np.array([b.matrix(np.zeros(3)) for _, b in pairs])

    def batch(k):
        matrices_a, matrices_b = base_a.copy(), base_b.copy()
        matrices_a[:, :3, 3] += moves[k]
        matrices_b[:, :3, 3] -= moves[k]
        return collide_many(shapes_a, shapes_b, matrices_a=matrices_a, matrices_b=matrices_b)

    def loop(k):
        return [core.collide(a.placed(moves[k]), b.placed(-moves[k])) for a, b in pairs]

    figures = {"batch": median_us_per_pair(batch, repeats, count),
               "loop": median_us_per_pair(loop, repeats, count)}
    batch_answers, loop_answers = batch(0), loop(0)
    figures["max |sd batch - loop|"] = max(abs(x.signed_distance - y.signed_distance)
                                          for x, y in zip(batch_answers, loop_answers))
    figures["penetrating"] = sum(c.status == "penetrating" for c in loop_answers)
    if coal is not None:
        request = coal.DistanceRequest()
        request.enable_signed_distance = True

        def coal_loop(k):
            for a, b in pairs:
                coal.distance(a.coal, a.coal_transform(moves[k]), b.coal, b.coal_transform(-moves[k]),
                              request, coal.DistanceResult())

        figures["coal"] = median_us_per_pair(coal_loop, repeats, count)
        figures["max |sd batch - coal|"] = max(
            abs(c.signed_distance - coal.distance(a.coal, a.coal_transform(moves[0]), b.coal,
                                                  b.coal_transform(-moves[0]), request, coal.DistanceResult()))
            for c, (a, b) in zip(batch_answers, pairs))
    return figures


def repeats(count: int, quick: bool) -> int:
    """Fewer repeats for larger batches (each is longer)."""
    return max(3, (30 if quick else 100) // max(1, count // 10))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (rougher medians)")
    args = parser.parse_args()
    print(f"core.collide_many benchmark, median CPU us per pair; coal "
          f"{'(not installed)' if coal is None else coal.__version__}; "
          f"{machine_load()}")
    header = (f"{'scene':22} {'pairs':>6} {'pen.':>5} {'core batch':>11} {'core loop':>10} {'coal':>8} "
              f"{'batch/coal':>11} {'|sd batch-loop|':>16} {'|sd batch-coal|':>16}")
    print(header)
    print("-" * len(header))
    targets = []
    for name, share in (("apart", 0.0), ("mixed (1 in 5 deep)", 0.2)):
        for count in (10, 100, 1000):
            f = measure(count, share, repeats(count, args.quick))
            ratio = f["batch"] / f["coal"] if "coal" in f else None
            print(f"{name:22} {count:6d} {f['penetrating']:5d} {f['batch']:11.1f} {f['loop']:10.1f} "
                  f"{f.get('coal', float('nan')):8.1f} {'-' if ratio is None else f'{ratio:.1f}x':>11} "
                  f"{f['max |sd batch - loop|']:16.1e} {f.get('max |sd batch - coal|', float('nan')):16.1e}")
            if ratio is not None and count >= 100:
                limit = AT_1000_TARGET if count >= 1000 else NEAR_TARGET
                targets.append((f"{name}, {count} pairs: batch <= {limit:.0f}x coal per pair", f"{ratio:.1f}x",
                                ratio <= limit))
    print("\ntargets")
    for name, figure, ok in targets:
        print(f"  {'met' if ok else 'MISSED':6} {name}: {figure}")


if __name__ == "__main__":
    main()
