"""``core.steps``: work done a step at a time, run to its end or until a deadline, or on a worker thread."""

import threading
import time

import pytest

import core.steps as core_steps
from core.steps import in_background, run_to_end, run_until


def counted(steps: int, log: list):
    """A generator of ``steps`` steps that logs each and answers how many it took."""
    for step in range(steps):
        log.append(step)
        yield
    return len(log)


def test_run_to_end_takes_every_step_and_gives_the_answer():
    log = []
    assert run_to_end(counted(5, log)) == 5 and log == [0, 1, 2, 3, 4]


def test_run_until_a_past_deadline_still_takes_one_step():
    log = []
    steps = counted(3, log)
    assert run_until(steps, time.perf_counter() - 1.0) == (False, None) and log == [0]
    assert run_until(steps, time.perf_counter() - 1.0) == (False, None) and log == [0, 1]
    assert run_until(steps, time.perf_counter() + 60.0) == (True, 3) and log == [0, 1, 2]


def test_run_until_a_generator_with_no_steps_answers_at_once():
    assert run_until(counted(0, []), time.perf_counter() - 1.0) == (True, 0)


def test_run_until_takes_no_step_that_would_end_past_the_deadline_going_by_the_longest_so_far(monkeypatch):
    """Steps of 50 ms on a fake clock: with 130 ms left two are taken (the third, as long, would end after the
    deadline); with 180 ms left, three; a step longer than the others (120 ms) stops the run one step earlier."""
    clock = [0.0]
    monkeypatch.setattr(core_steps.time, "perf_counter", lambda: clock[0])

    def timed(log, lengths):
        for step, length in enumerate(lengths):
            clock[0] += length
            log.append(step)
            yield
        return len(log)

    for left, lengths, taken in ((0.13, [0.05] * 10, 2), (0.18, [0.05] * 10, 3), (0.25, [0.05, 0.12] + [0.05] * 8, 2)):
        log = []
        assert run_until(timed(log, lengths), clock[0] + left) == (False, None) and len(log) == taken


def test_in_background_yields_while_its_work_runs_then_answers():
    release = threading.Event()
    steps = in_background(lambda: release.wait(60.0) and "answer", wait=0.001)
    for _ in range(3):
        assert next(steps) is None  # the work waits for the event: the steps go on yielding
    release.set()
    assert run_to_end(steps) == "answer"


def test_in_background_raises_the_works_exception_in_the_caller():
    def broken():
        raise ValueError("Cube has no faces")

    with pytest.raises(ValueError, match="Cube has no faces"):
        run_to_end(in_background(broken))


def test_in_background_closed_early_abandons_the_work_which_ends_on_its_own():
    release, ended = threading.Event(), threading.Event()
    steps = in_background(lambda: release.wait(60.0) and ended.set(), wait=0.001)
    next(steps)
    steps.close()  # returns at once although the work still runs
    assert not ended.is_set()
    release.set()
    assert ended.wait(60.0)
