"""Contact regions of many pairs: ``contact_regions`` (one batched call) against ``contact_region`` pair by pair.

Run from the repository root: ``python benchmarks/bench_regions.py`` (``--quick`` for fewer repeats).
Scenes of 1,000 pairs:
- "cubes": 2 m cubes (hulls of their 8 corners, as the clash check measures them) randomly placed and
  rotated in a 6 m box, the first 1,000 overlapping pairs (mostly corner or edge against a face);
- "stacked": boxes resting face down on others, turned about the vertical (polygons).
Figures are CPU microseconds per pair, medians over repeats of ``time.process_time``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import core  # noqa: E402  (the repository root must be on sys.path first)
from core.contact_patch.batch import contact_regions  # noqa: E402
from core.contact_patch.region import contact_region  # noqa: E402
from timing import machine_load, median_us  # noqa: E402  (this script's folder is on sys.path)

PAIRS = 1000
CORNERS = np.array(list(itertools.product((-1.0, 1.0), repeat=3)))


def rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def cube_pairs(rng: np.random.Generator) -> list[tuple]:
    cubes = [core.Polytope(CORNERS @ rotation(rng).T + rng.uniform(-3.0, 3.0, 3)) for _ in range(300)]
    pairs = []
    for a, b in itertools.combinations(cubes, 2):
        contact = core.collide(a, b)
        if contact.colliding:
            pairs.append((a, b, contact))
            if len(pairs) == PAIRS:
                break
    return pairs


def stacked_pairs(rng: np.random.Generator) -> list[tuple]:
    pairs = []
    for _ in range(PAIRS):
        half_a, half_b = rng.uniform(0.5, 1.0, 3), rng.uniform(0.2, 0.5, 3)
        turn = np.eye(4)
        angle = rng.uniform(0.0, np.pi)
        turn[:2, :2] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
        turn[:3, 3] = [*rng.uniform(-0.5, 0.5, 2), half_a[2] + half_b[2] - 0.01]
        a, b = core.Box(half_a), core.Box(half_b, turn)
        pairs.append((a, b, core.collide(a, b)))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    repeats = 3 if parser.parse_args().quick else 7
    rng = np.random.default_rng(0)
    print(f"{PAIRS:,} pairs, CPU us per pair ({machine_load()})")
    print(f"{'scene':10s} {'one by one':>12s} {'batched':>10s} {'speed-up':>9s}")
    for name, pairs in (("cubes", cube_pairs(rng)), ("stacked", stacked_pairs(rng))):
        shapes_a, shapes_b, contacts = zip(*pairs)
        one = median_us(lambda k: [contact_region(a, b, c) for a, b, c in pairs], repeats, time.process_time)
        many = median_us(lambda k: contact_regions(shapes_a, shapes_b, contacts), repeats, time.process_time)
        print(f"{name:10s} {one / len(pairs):12.1f} {many / len(pairs):10.1f} {one / many:8.1f}x")


if __name__ == "__main__":
    main()
