"""Long work on big solids (building them from what was read, classifying, measuring) on a worker thread while the
caller's steps wait for it a few hundredths of a second at a time, so that a modal operator's slice never holds the
interface for the whole of one long call (docs/architecture.md, "Long work and the interface")."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..core.mesh import Solid
from ..core.steps import in_background

#: Work on solids of at least this many triangles together runs on a worker thread; smaller work runs at once
#: (a thread costs about a tenth of a millisecond).
BACKGROUND_TRIANGLES = 20000


class Announced(tuple):
    """A step's ``(done, total)`` after which the caller should let the interface show what comes next (the
    report's ``activity``) before taking the next step, which may hold it for a while (reading a big object)."""


def triangle_count(solid: Solid) -> int:
    """The solid's triangles, counted on the solid it was moved from when it is a moved copy (without moving them)."""
    while "raw_mesh" not in solid.__dict__:
        solid = solid.placement[0]
    return len(solid.raw_mesh.triangles)


def triangles_of(solids: list[Solid]) -> int:
    """How many triangles the ``solids`` have together (``triangle_count``): the size of work on them."""
    return sum(triangle_count(solid) for solid in solids)


class _Pauses:
    """The pauses under way on every thread (a worker's job, a modal slice, an abandoned worker that has not yet
    reached its checkpoint), and whether the collector ran before the first of them."""

    def __init__(self) -> None:
        self.lock, self.count, self.was_enabled = threading.Lock(), 0, False


_pauses = _Pauses()


@contextmanager
def collection_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused meanwhile, and as it was before once every pause under way has ended
    (pauses overlap: a worker's job, the modal slices that wait for it, an abandoned worker still going on; the
    collector is the interpreter's). Work that builds thousands of small objects (a check's solids, hulls, answers)
    otherwise has it go over every object alive, Blender's too, every few hundred new ones: about a tenth of a check
    of 2,000 convex objects. The work makes no cycles to collect (what it leaves is freed by reference counts); the
    objects it keeps are looked at once, after."""
    with _pauses.lock:
        if _pauses.count == 0:
            _pauses.was_enabled = gc.isenabled()
        _pauses.count += 1
        gc.disable()
    try:
        yield
    finally:
        with _pauses.lock:
            _pauses.count -= 1
            if _pauses.count == 0 and _pauses.was_enabled:
                gc.enable()


def answer_into(steps: Iterator, answer: list) -> Iterator:
    """``steps``' own steps; once they end, their answer appended to ``answer`` (for a caller that can only
    iterate, such as a modal operator's slices)."""
    answer.append((yield from steps))


def meanwhile(work: Callable[[], Any], triangles: int, progress: Any = None) -> Iterator[Any]:
    """``work()`` on data of that many ``triangles`` (solids: ``triangles_of``): on a worker thread when they are
    enough to hold the interface, yielding ``progress`` while it runs; its answer (or its exception). Closed early,
    the worker is abandoned (it must touch only data that the caller drops). The garbage collector is paused while
    it works (``collection_paused``)."""
    if triangles < BACKGROUND_TRIANGLES:
        with collection_paused():
            return work()
    steps = in_background(lambda: _paused(work))
    try:
        while True:
            try:
                next(steps)
            except StopIteration as finished:
                return finished.value
            yield progress
    finally:
        steps.close()


def _paused(work: Callable[[], Any]) -> Any:
    with collection_paused():
        return work()
