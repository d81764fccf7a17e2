"""Benchmark of ``core.collide``: median CPU microseconds per query, side by side with coal when installed.

Run from the repository root: ``python benchmarks/bench_core.py`` (``--quick`` for fewer repeats).
What each column measures: docs/performance.md, "What each benchmark measures".
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import core  # noqa: E402  (the repository root must be on sys.path first)
from core.narrowphase.warm_epa import collide_warm  # noqa: E402
from timing import machine_load, median_us  # noqa: E402  (this script's folder is on sys.path)

try:
    import coal
except ImportError:  # the coal column is skipped
    coal = None

try:
    import bench_batch  # the batch figures (this script's folder is on sys.path when it runs)
except ImportError:  # a core without core.narrowphase.batch: no batch figures
    bench_batch = None

REPEATED_QUERY_TARGET_US = 10_000.0  # the 1M-point repeated query must stay under 10 ms
PREPARED_RATIO_TARGET = 10.0  # prepared query within 10x of coal's


def fibonacci_sphere(count: int, radius: float) -> np.ndarray:
    """``count`` points evenly on a sphere: every one is a hull vertex."""
    i = np.arange(count) + 0.5
    z = 1.0 - 2.0 * i / count
    phi = i * np.pi * (3.0 - np.sqrt(5.0))
    r = np.sqrt(1.0 - z * z)
    return radius * np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def noisy_shell(rng: np.random.Generator, count: int, radius: float) -> np.ndarray:
    """A scan-like cloud: ``count`` points in a thin shell (2 % thick) under a sphere."""
    v = rng.normal(size=(count, 3))
    return radius * v / np.linalg.norm(v, axis=1)[:, None] * rng.uniform(0.98, 1.0, size=(count, 1))


def solid_ball(rng: np.random.Generator, count: int, radius: float) -> np.ndarray:
    """A volume scan: ``count`` points uniform in a ball (only a few hundred are hull vertices)."""
    v = rng.normal(size=(count, 3))
    return radius * v / np.linalg.norm(v, axis=1)[:, None] * rng.uniform(size=(count, 1)) ** (1.0 / 3.0)


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


@dataclass
class Pair:
    """Local point clouds of A and B and where B sits (A stays at the origin)."""

    name: str
    points_a: np.ndarray
    points_b: np.ndarray
    offset_b: np.ndarray
    one_shot_repeats: int
    query_repeats: int

    def moves(self, count: int) -> list[np.ndarray]:
        """Offsets of B for the repeated query: tiny different steps, so nothing can be cached."""
        return [self.offset_b + 1e-5 * k * np.array([0.3, -0.5, 0.8]) for k in range(count)]


def translation(offset: np.ndarray) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, 3] = offset
    return matrix


def measure_core(pair: Pair) -> dict:
    world_b = pair.points_b + pair.offset_b
    one_shot = median_us(lambda k: core.collide(pair.points_a, world_b), pair.one_shot_repeats)
    start = time.process_time()
    shape_a, shape_b = core.Polytope(pair.points_a), core.Polytope(pair.points_b)
    prepare = 1e6 * (time.process_time() - start)
    start = time.process_time()
    contact = core.collide(shape_a, shape_b.transformed(translation(pair.offset_b)))
    first = 1e6 * (time.process_time() - start)
    moves = pair.moves(pair.query_repeats)
    query = median_us(lambda k: core.collide(shape_a, shape_b.transformed(translation(moves[k]))),
                      pair.query_repeats)
    warm = collide_warm(shape_a, shape_b.transformed(translation(pair.offset_b)), keep_apart=True)[1]

    def warm_query(k):
        nonlocal warm
        warm = collide_warm(shape_a, shape_b.transformed(translation(moves[k])), warm, keep_apart=True)[1]

    return {"one_shot": one_shot, "prepare": prepare, "first": first, "query": query,
            "warm": median_us(warm_query, pair.query_repeats),
            "signed_distance": contact.signed_distance, "status": contact.status}


def coal_hull(points: np.ndarray):
    vertices = coal.StdVec_Vec3s()
    vertices.extend(points)
    return coal.ConvexBase.convexHull(vertices, False, "Qt")


def coal_signed_distance(hull_a, hull_b, offset_b: np.ndarray) -> float:
    request, result = coal.DistanceRequest(), coal.DistanceResult()
    request.enable_signed_distance = True
    return coal.distance(hull_a, coal.Transform3s(), hull_b, coal.Transform3s(np.eye(3), offset_b),
                         request, result)


def measure_coal(pair: Pair) -> dict | None:
    if coal is None:
        return None

    def one_shot(_):
        coal_signed_distance(coal_hull(pair.points_a), coal_hull(pair.points_b), pair.offset_b)

    one_shot_us = median_us(one_shot, pair.one_shot_repeats)
    hull_a, hull_b = coal_hull(pair.points_a), coal_hull(pair.points_b)
    moves = pair.moves(pair.query_repeats)
    query = median_us(lambda k: coal_signed_distance(hull_a, hull_b, moves[k]), pair.query_repeats)
    return {"one_shot": one_shot_us, "query": query,
            "signed_distance": coal_signed_distance(hull_a, hull_b, pair.offset_b)}


def pairs(quick: bool) -> list[Pair]:
    rng = np.random.default_rng(2024)

    def turned_sphere(count: int) -> np.ndarray:
        return fibonacci_sphere(count, 0.5) @ random_rotation(rng).T

    few = 3 if quick else 7
    near, apart = np.array([0.9, 0.1, 0.05]), np.array([1.1, 0.1, 0.05])
    return [
        Pair("2x100-vertex hulls, colliding", turned_sphere(100), turned_sphere(100), near, 50 * few, 100 * few),
        Pair("2x100-vertex hulls, separated", turned_sphere(100), turned_sphere(100), apart, 50 * few, 100 * few),
        Pair("2x10k-vertex hulls, colliding", turned_sphere(10_000), turned_sphere(10_000), near, few, 10 * few),
        Pair("2x100k-point solid blobs, colliding", solid_ball(rng, 100_000, 0.5), solid_ball(rng, 100_000, 0.5),
             near, few, 10 * few),
        Pair("2x1M raw points, colliding", noisy_shell(rng, 1_000_000, 0.5), noisy_shell(rng, 1_000_000, 0.5),
             near, 1 if quick else 3, 3 * few),
        Pair("2x1M-vertex spheres, colliding", turned_sphere(1_000_000), turned_sphere(1_000_000),
             near, 1 if quick else 3, 3 * few),
    ]


def batch_figures(quick: bool) -> list[tuple[str, str, bool]]:
    """Per-pair cost of ``collide_many`` on pairs apart, beside coal pair by pair (``bench_batch``)."""
    print(f"\nbatches of pairs apart, median CPU us per pair\n{'pairs':>6} {'core batch':>11} {'core loop':>10} "
          f"{'coal':>8} {'batch/coal':>11}")
    targets = []
    for count in (10, 100, 1000):
        figures = bench_batch.measure(count, 0.0, bench_batch.repeats(count, quick))
        ratio = figures["batch"] / figures["coal"] if "coal" in figures else float("nan")
        print(f"{count:6d} {figures['batch']:11.1f} {figures['loop']:10.1f} {figures.get('coal', float('nan')):8.1f} "
              f"{ratio:10.1f}x")
        if count >= 100 and "coal" in figures:
            limit = bench_batch.AT_1000_TARGET if count >= 1000 else bench_batch.NEAR_TARGET
            targets.append((f"batch of {count} pairs apart <= {limit:.0f}x coal per pair", f"{ratio:.1f}x",
                            ratio <= limit))
    return targets


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (rougher medians)")
    parser.add_argument("--only", default="", help="only the pairs whose name holds this text (no batches)")
    args = parser.parse_args()
    print(f"core benchmark, median CPU us per query; coal {'(not installed)' if coal is None else coal.__version__}; "
          f"{machine_load()}")
    header = (f"{'pair':36} {'core one-shot':>14} {'coal hull+query':>16} {'core prepare':>13} "
              f"{'core 1st query':>15} {'core cold':>10} {'core warm':>10} {'coal query':>11} {'cold/coal':>10} "
              f"{'warm/coal':>10} {'|sd core-coal|':>15}")
    print(header)
    print("-" * len(header))
    targets = []
    for pair in [pair for pair in pairs(args.quick) if args.only in pair.name]:
        ours, theirs = measure_core(pair), measure_coal(pair)
        coal_cells = ("-", "-", "-", "-", "-") if theirs is None else (
            f"{theirs['one_shot']:.0f}", f"{theirs['query']:.1f}", f"{ours['query'] / theirs['query']:.1f}",
            f"{ours['warm'] / theirs['query']:.1f}", f"{abs(ours['signed_distance'] - theirs['signed_distance']):.1e}")
        print(f"{pair.name:36} {ours['one_shot']:14.0f} {coal_cells[0]:>16} {ours['prepare']:13.0f} "
              f"{ours['first']:15.0f} {ours['query']:10.1f} {ours['warm']:10.1f} {coal_cells[1]:>11} "
              f"{coal_cells[2]:>10} {coal_cells[3]:>10} {coal_cells[4]:>15}")
        if theirs is not None:
            targets.append((f"{pair.name}: one-shot <= coal hull build + query",
                            f"{ours['one_shot']:.0f} vs {theirs['one_shot']:.0f} us",
                            ours["one_shot"] <= theirs["one_shot"]))
            for kind in ("warm", "query"):
                targets.append((f"{pair.name}: prepared {'cold ' if kind == 'query' else 'warm '}query <= "
                                f"{PREPARED_RATIO_TARGET:.0f}x coal query", f"{ours[kind] / theirs['query']:.1f}x",
                                ours[kind] <= PREPARED_RATIO_TARGET * theirs["query"]))
        if "1M" in pair.name:
            for kind in ("warm", "query"):
                targets.append((f"{pair.name}: repeated {'cold' if kind == 'query' else 'warm'} query < 10 ms",
                                f"{ours[kind] / 1000:.1f} ms", ours[kind] < REPEATED_QUERY_TARGET_US))
    if bench_batch is not None and not args.only:
        targets += batch_figures(args.quick)
    print("\ntargets")
    for name, figure, ok in targets:
        print(f"  {verdict(ok):6} {name}: {figure}")


if __name__ == "__main__":
    main()
