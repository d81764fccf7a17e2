"""Work done a step at a time: a generator that yields between steps and returns its answer, so that a caller
short of time (the live update, between two mouse moves) can stop after any step and go on later, and any other
caller runs it to the end at once. ``in_background`` makes steps of one long call by running it on a worker thread
(numpy lets go of the interpreter in most long operations, so the caller's thread stays free meanwhile); closed
early, it cancels the call at its next ``checkpoint``: long loops of the core call one between chunks of work."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Generator
from typing import TypeVar

Answer = TypeVar("Answer")
Steps = Generator[None, None, Answer]


class Cancelled(Exception):
    """Raised by ``checkpoint`` in a call whose caller gave up on it (``in_background`` closed early): the call ends
    there, leaving every object it was given as it was or as a finished step left it (a cached tree or
    classification is stored whole or not at all), and its answer is never made."""


class _Cancellation(threading.local):
    """The calling thread's cancellation flag (``in_background`` gives its worker one; other threads have none)."""

    flag: threading.Event | None = None


_current = _Cancellation()


def checkpoint() -> None:
    """Raise ``Cancelled`` when the calling thread's work has been given up on; otherwise nothing (a few tenths of a
    microsecond). Long loops of the core call it between chunks of work, so that abandoned work stops soon."""
    flag = _current.flag
    if flag is not None and flag.is_set():
        raise Cancelled("the work was cancelled")


def run_to_end(steps: Steps[Answer]) -> Answer:
    """Every remaining step of ``steps``; its answer."""
    return run_until(steps, math.inf)[1]


def run_until(steps: Steps[Answer], deadline: float) -> tuple[bool, Answer | None]:
    """Steps of ``steps`` until it ends, or until the next step, were it as long as the longest one of this call,
    would end past ``deadline`` (``time.perf_counter()``; at least one step, so that every call makes progress):
    ``(True, answer)`` once it has ended, else ``(False, None)``. A caller short of time is late by at most the
    amount a step outlasts the ones before it. A cancelled worker stops between steps (``checkpoint``)."""
    longest = 0.0
    while True:
        checkpoint()
        began = time.perf_counter()
        try:
            next(steps)
        except StopIteration as done:
            return True, done.value
        now = time.perf_counter()
        longest = max(longest, now - began)
        if now + longest >= deadline:
            return False, None


#: How long a step of ``in_background`` waits for its worker before it yields (seconds).
WAIT_SECONDS = 0.02


def in_background(work: Callable[[], Answer], wait: float = WAIT_SECONDS) -> Steps[Answer]:
    """``work()`` on a worker thread, as steps: each step waits up to ``wait`` seconds for it; the answer is
    ``work``'s, or its exception raised in the caller. Closed early, the steps abandon the worker and cancel its
    work, which ends at its next ``checkpoint`` (``Cancelled``), its answer dropped: ``work`` must touch nothing
    the caller goes on using."""
    outcome: list = []
    cancelled = threading.Event()

    def run() -> None:
        _current.flag = cancelled
        try:
            outcome.append((True, work()))
        except BaseException as error:  # handed to the caller, who raises it
            outcome.append((False, error))

    worker = threading.Thread(target=run, name="collision_inspector work", daemon=True)
    worker.start()
    try:
        while True:
            worker.join(wait)
            if not worker.is_alive():
                break
            yield
    finally:
        cancelled.set()  # (closed early: the worker stops at its next checkpoint; finished: nothing to stop)
    finished, answer = outcome[0]
    if not finished:
        raise answer
    return answer
