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
    """Steps of ``steps`` until it ends, or until the next step, were it as long as the longest one of this call,
    would end past ``deadline`` (``time.perf_counter()``; at least one step, so that every call makes progress):
    ``(True, answer)`` once it has ended, else ``(False, None)``. A caller short of time is late by at most the
    amount a step outlasts the ones before it."""
    longest = 0.0
    while True:
        began = time.perf_counter()
        try:
            next(steps)
        except StopIteration as done:
            return True, done.value
        now = time.perf_counter()
        longest = max(longest, now - began)
        if now + longest >= deadline:
            return False, None
