"""The cyclic garbage collector is paused while a check works (``analysis.background.collection_paused``): during
``meanwhile``'s work, at once or on the worker thread, through ``check_scene`` and during a modal run's slices; it is
left as it was after, even when the work raises, and a check makes the same report with it running."""

from __future__ import annotations

import dataclasses
import gc
import importlib

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
