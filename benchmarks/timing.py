"""Timing helpers shared by the benchmark scripts (run from this folder, which is then on sys.path)."""

from __future__ import annotations

import os
import statistics
import time
from typing import Callable


def median_us(run: Callable[[int], object], repeats: int,
              clock: Callable[[], float] = time.process_time) -> float:
    """Median time of ``run(k)`` for k in range(repeats), in microseconds, by ``clock`` (CPU time of
    this process by default: other jobs on a shared machine disturb it less than wall time)."""
    times = []
    for k in range(repeats):
        start = clock()
        run(k)
        times.append(clock() - start)
    return 1e6 * statistics.median(times)


def machine_load() -> str:
    """'load average a b c on N CPUs': how busy the machine was, to read the figures by."""
    return f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs"
