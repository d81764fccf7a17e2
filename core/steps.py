"""Work done a step at a time: a generator that yields between steps and returns its answer, so that a caller
short of time (the live update, between two mouse moves) can stop after any step and go on later, and any other
caller runs it to the end at once."""

from __future__ import annotations

import math
import time
from collections.abc import Generator
from typing import TypeVar

Answer = TypeVar("Answer")
Steps = Generator[None, None, Answer]


def run_to_end(steps: Steps[Answer]) -> Answer:
    """Every remaining step of ``steps``; its answer."""
    return run_until(steps, math.inf)[1]


def run_until(steps: Steps[Answer], deadline: float) -> tuple[bool, Answer | None]:
    """Steps of ``steps`` until it ends or ``time.perf_counter()`` passes ``deadline`` (at least one step, so that
    every call makes progress): ``(True, answer)`` once it has ended, else ``(False, None)``."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return True, done.value
        if time.perf_counter() >= deadline:
            return False, None
