"""Median time of the overlay's label layout (``ui.label_layout.spread_labels``), which runs whenever a
view's batches are rebuilt (the view moved): crowded labels, up to the overlay's 300 per view.

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


def median_ms(anchors: np.ndarray, sizes: np.ndarray, repeats: int = 15) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        spread_labels(anchors, sizes)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main() -> None:
    rng = np.random.default_rng(1)
    for count, spread_px in ((30, 1000.0), (300, 1000.0), (300, 300.0)):
        anchors = rng.uniform(0.0, spread_px, size=(count, 2))
        sizes = np.column_stack([rng.uniform(60.0, 110.0, count), np.full(count, 20.0)])
        shown = spread_labels(anchors, sizes).shown.sum()
        print(f"{count:4d} labels in {spread_px:5.0f} px square: {median_ms(anchors, sizes):6.2f} ms, {shown} shown")


if __name__ == "__main__":
    main()
