"""Median time of the overlay's label layout (``ui.label_layout.spread_labels``), which runs whenever a
view's batches are rebuilt (the view moved): crowded labels, up to the overlay's 300 per view, without and
with intersection curves on screen to keep off (projected rings of many segments, as a mesh pair's curves are).

Run from the repository root: ``python benchmarks/bench_label_layout.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from ui.label_layout import spread_labels  # noqa: E402  (pure numpy; the repository root is on sys.path first)


def median_ms(anchors: np.ndarray, sizes: np.ndarray, curves: np.ndarray | None = None, repeats: int = 15) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        spread_labels(anchors, sizes, obstacles=curves)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main() -> None:
    rng = np.random.default_rng(1)
    for count, spread_px in ((30, 1000.0), (300, 1000.0), (300, 300.0)):
        anchors = rng.uniform(0.0, spread_px, size=(count, 2))
        sizes = np.column_stack([rng.uniform(60.0, 110.0, count), np.full(count, 20.0)])
        shown = spread_labels(anchors, sizes).shown.sum()
        print(f"{count:4d} labels in {spread_px:5.0f} px square: {median_ms(anchors, sizes):6.2f} ms, {shown} shown")
    for count, rings, per_ring in ((30, 4, 500), (300, 20, 2000), (300, 100, 2000)):
        anchors = rng.uniform(0.0, 1000.0, size=(count, 2))
        sizes = np.column_stack([rng.uniform(60.0, 110.0, count), np.full(count, 20.0)])
        curves = ring_segments(rng, rings, per_ring, 1000.0)
        layout = spread_labels(anchors, sizes, obstacles=curves)
        print(f"{count:4d} labels in 1000 px square, {len(curves):6d} curve segments ({rings} rings): "
              f"{median_ms(anchors, sizes, curves, repeats=7):6.2f} ms, {layout.shown.sum()} shown")


def ring_segments(rng: np.random.Generator, rings: int, per_ring: int, spread_px: float) -> np.ndarray:
    """(rings * per_ring, 2, 2) segments of projected rings (ellipses of random size) across the square."""
    angles = np.linspace(0.0, 2.0 * np.pi, per_ring + 1)
    segments = []
    for centre, (rx, ry) in zip(rng.uniform(0.0, spread_px, (rings, 2)), rng.uniform(20.0, 200.0, (rings, 2))):
        ring = centre + np.column_stack([rx * np.cos(angles), ry * np.sin(angles)])
        segments.append(np.stack([ring[:-1], ring[1:]], axis=1))
    return np.concatenate(segments)


if __name__ == "__main__":
    main()
