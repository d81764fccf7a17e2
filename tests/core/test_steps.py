"""``core.steps``: work done a step at a time, run to its end or until a deadline, or on a worker thread."""

import threading
import time

import pytest

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


def test_run_until_takes_no_step_that_would_end_past_the_deadline_going_by_the_longest_so_far():
    """Steps of 50 ms with 130 ms left: two are taken (the third, as long, would end after the deadline); with 180 ms
    left, three (a sleep may overshoot by up to 10 ms)."""
    def slow(log):
        for step in range(10):
            time.sleep(0.05)
            log.append(step)
            yield
        return len(log)

    for left, taken in ((0.13, 2), (0.18, 3)):
        log = []
        began = time.perf_counter()
        assert run_until(slow(log), began + left) == (False, None) and len(log) == taken


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
