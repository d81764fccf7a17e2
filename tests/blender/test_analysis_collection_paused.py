"""The cyclic garbage collector is paused while a check works (``analysis.background.collection_paused``): during
``meanwhile``'s work, at once or on the worker thread, through ``check_scene`` and during a modal run's slices; it is
left as it was after, even when the work raises or is cancelled, and pauses that overlap (an abandoned worker still
going on) keep it paused until the last ends; a check makes the same report with it running."""

from __future__ import annotations

import dataclasses
import gc
import importlib
import threading
import time

import bpy
import numpy as np
import pytest

from test_analysis_reading_together import crowded_scene  # noqa: I001  (pytest puts tests/blender on sys.path)


@pytest.fixture
def background(addon):
    return importlib.import_module(addon.__name__ + ".analysis.background")


@pytest.fixture
def clash(addon):
    return importlib.import_module(addon.__name__ + ".analysis.clash")


def run(steps):
    while True:
        try:
            next(steps)
        except StopIteration as finished:
            return finished.value


@pytest.mark.parametrize("triangles", [0, 10**9])  # at once, and on the worker thread
def test_work_runs_with_the_collector_paused_and_leaves_it_as_it_was(background, triangles):
    assert gc.isenabled()
    assert run(background.meanwhile(lambda: gc.isenabled(), triangles)) is False
    assert gc.isenabled()

    def failing():
        raise ValueError("the work failed")

    with pytest.raises(ValueError, match="the work failed"):
        run(background.meanwhile(failing, triangles))
    assert gc.isenabled()
    gc.disable()
    try:
        with background.collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off: left off
    finally:
        gc.enable()


def test_a_check_runs_paused_and_reports_what_it_reports_with_the_collector_running(empty_scene, clash,
                                                                                  background, monkeypatch):
    crowded_scene(np.random.default_rng(5), 32)
    seen = []
    paused = clash.check_scene(empty_scene, bpy.context.evaluated_depsgraph_get(), scope="ALL",
                               progress=lambda done, total: seen.append(gc.isenabled()))
    assert seen and not any(seen) and gc.isenabled()

    class Running:  # the collector left running, collecting often
        def __enter__(self):
            gc.set_threshold(10, 2, 2)

        def __exit__(self, *_exc):
            gc.set_threshold(*thresholds)

    thresholds = gc.get_threshold()
    monkeypatch.setattr(clash, "collection_paused", Running)
    monkeypatch.setattr(background, "collection_paused", Running)
    running = clash.check_scene(empty_scene, bpy.context.evaluated_depsgraph_get(), scope="ALL")
    assert gc.get_threshold() == thresholds
    assert sum(result.status == "penetrating" for result in paused.results) >= 10
    assert repr([dataclasses.asdict(r) for r in paused.results]) == repr(
        [dataclasses.asdict(r) for r in running.results])
    assert paused.skipped == running.skipped


def test_a_modal_slice_runs_paused_and_the_interface_gets_the_collector_back(addon):
    advance = importlib.import_module(addon.__name__ + ".operators.base").advance
    seen = []

    def steps():
        for done in range(3):
            seen.append(gc.isenabled())
            yield done, 3

    made = steps()
    assert advance(made, 0.0) == (0, 3)  # a slice that ends after its first step
    assert gc.isenabled()
    assert advance(made, 60.0) is None and gc.isenabled()
    assert seen == [False, False, False]


@pytest.mark.parametrize("first_ends_first", [True, False])
def test_overlapping_pauses_keep_the_collector_paused_until_the_last_one_ends(background, first_ends_first):
    assert gc.isenabled()
    first, second = background.collection_paused(), background.collection_paused()
    first.__enter__()  # a worker's job
    second.__enter__()  # a modal slice meanwhile (its own pause finds the collector off)
    (first if first_ends_first else second).__exit__(None, None, None)
    assert not gc.isenabled()  # the other still works
    (second if first_ends_first else first).__exit__(None, None, None)
    assert gc.isenabled()


def worker_threads() -> set:
    return {thread for thread in threading.enumerate() if thread.name == "collision_inspector work"}


def test_an_abandoned_worker_ending_during_the_next_job_leaves_that_job_paused(background):
    """Esc abandons a worker that goes on until its next checkpoint; the next run's job must not get the collector
    back when that worker ends."""
    waiting, release = threading.Event(), threading.Event()
    before = worker_threads()
    abandoned = background.meanwhile(lambda: waiting.set() or release.wait(60.0), 10**9)
    next(abandoned)
    (first_worker,) = worker_threads() - before
    assert waiting.wait(60.0)
    abandoned.close()  # (its work calls no checkpoint: it goes on until released)
    seen = []

    def next_job():
        release.set()
        first_worker.join(60.0)  # the abandoned worker has ended, its pause with it
        seen.append(gc.isenabled())

    run(background.meanwhile(next_job, 10**9))
    assert not first_worker.is_alive() and seen == [False]
    assert gc.isenabled()


def test_a_cancelled_worker_gives_the_collector_back(background, addon):
    steps_module = importlib.import_module(addon.__name__ + ".core.steps")
    started = threading.Event()

    def endless():
        started.set()
        while True:
            steps_module.checkpoint()
            time.sleep(0.001)

    before = worker_threads()
    steps = background.meanwhile(endless, 10**9)
    next(steps)
    (worker,) = worker_threads() - before
    assert started.wait(60.0) and not gc.isenabled()
    steps.close()  # Esc: ``Cancelled`` at its next checkpoint
    worker.join(60.0)
    assert not worker.is_alive() and gc.isenabled()
