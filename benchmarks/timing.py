"""Timing helpers shared by the benchmark scripts (run from this folder, which is then on sys.path)."""

from __future__ import annotations

import argparse
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


def best_cpu(function: Callable[[], object], repeats: int) -> tuple[float, object]:
    """``(seconds, result)``: the least CPU time of ``repeats`` calls of ``function``, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        result = function()
        best = min(best, time.process_time() - start)
    return best, result


def machine_load() -> str:
    """'load average a b c on N CPUs': how busy the machine was, to read the figures by."""
    return f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs"


def print_medians(cases: Callable[[], list[tuple[str, Callable[[], object]]]], description: str,
                  width: int) -> None:
    """Command line of the simple benchmarks: ``--quick`` for fewer repeats, then one line per named
    case with its median wall time after a warm-up run."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    repeats = 5 if parser.parse_args().quick else 31
    print(f"{'query':{width}s} {'median':>12s}")
    for name, run in cases():
        run()  # warm-up
        print(f"{name:{width}s} {median_us(lambda k: run(), repeats, clock=time.perf_counter):10.0f} us")
