"""What operators share: the poll of those that need stored results (``NeedsResultsMixin``) and the result their
``index`` names (``chosen_result``), one run that changes the results at a time (``running_refusal``,
``ReplacesResultsMixin``, ``ExclusiveRunMixin``), and running long work a slice at a time (``StepwiseMixin``,
``ProgressStepsMixin``)."""

import time
from collections.abc import Iterator

import bpy

from ..analysis.background import Announced, collection_paused
from ..analysis.geometry import ObjectGeometryError

#: Seconds of work per timer tick of a modal run: the interface stays responsive to Esc.
SLICE_SECONDS = 0.05
#: Interval of the modal run's timer: the slices follow each other with this pause.
TIMER_SECONDS = 0.01
#: The progress indicator counts in thousandths.
PROGRESS_STEPS = 1000


def advance(steps: Iterator[tuple[int, int]], seconds: float) -> tuple[int, int] | None:
    """Run ``steps`` for about ``seconds``, or up to an ``Announced`` step (the interface then shows what comes
    next before a step that may hold it), with the garbage collector paused (``collection_paused``); the last
    ``(done, total)``, or None once they are exhausted."""
    deadline = time.perf_counter() + seconds
    latest = (0, 1)
    with collection_paused():  # (for the slice: the interface's own objects are collected between slices)
        for latest in steps:
            if isinstance(latest, Announced) or time.perf_counter() >= deadline:
                return latest
    return None


class StepwiseMixin:
    """execute/invoke/modal/cancel of an operator that works in slices: from the interface on a timer (progress,
    Esc cancels, the interface stays responsive), from scripts and in background mode to the end at once.

    An operator using it implements ``start(context) -> bool`` (False: refused, already reported),
    ``step(context) -> outcome or None`` (None: not finished yet) and ``stop(context)`` (which calls ``end_timer``),
    and may say what it is doing in the status bar of a modal run (``status``).
    """

    #: Reported when Esc cancels a modal run.
    cancelled_message = "Cancelled; the previous results are kept"
    #: The work's steps, ``(done, total)`` each, from ``start`` on (closed once abandoned).
    steps: Iterator[tuple[int, int]] | None = None
    _timer = None
    _status_shown: str | None = None

    def execute(self, context: bpy.types.Context) -> set:
        """To the end at once (scripts, background mode, redo)."""
        if not self.start(context):
            return {'CANCELLED'}
        while True:
            outcome = self.step(context)
            if outcome is not None:
                return outcome

    def invoke(self, context: bpy.types.Context, _event) -> set:
        """From the interface: a slice per timer tick; Esc cancels."""
        if bpy.app.background or context.window is None:
            return self.execute(context)
        return self.run_modal(context)

    def run_modal(self, context: bpy.types.Context) -> set:
        """Start, then a slice per timer tick of the context's window; Esc cancels."""
        if not self.start(context):
            return {'CANCELLED'}
        self._timer = context.window_manager.event_timer_add(TIMER_SECONDS, window=context.window)
        context.window_manager.modal_handler_add(self)
        self.show_status(context)
        return {'RUNNING_MODAL'}

    def status(self) -> str:
        """What the modal run is doing, for the status bar ('' says nothing)."""
        return ""

    def show_status(self, context: bpy.types.Context) -> None:
        """Put ``status`` in the status bar, with how to cancel, when it has changed (each change redraws the
        window: on a software renderer that is a tenth of a second or more)."""
        text = self.status()
        if text and text != self._status_shown and context.workspace is not None:
            context.workspace.status_text_set(f"{text} \u00b7 Esc cancels")
            self._status_shown = text

    def cancel(self, context: bpy.types.Context) -> None:
        """Blender ends the modal run (window closed, file loaded): abandon it."""
        self.stop(context)

    def modal(self, context: bpy.types.Context, event) -> set:
        if event.type == 'ESC':
            self.stop(context)
            self.report({'WARNING'}, self.cancelled_message)
            return {'CANCELLED'}
        if event.type != 'TIMER':
            return {'PASS_THROUGH'}
        outcome = self.step(context)
        if outcome is None:
            self.show_status(context)
            return {'RUNNING_MODAL'}
        return outcome

    def end_timer(self, context: bpy.types.Context) -> None:
        """Remove the modal run's timer, if any, and its status bar text."""
        if self._timer is not None:
            context.window_manager.event_timer_remove(self._timer)
            self._timer = None
            if context.workspace is not None:
                context.workspace.status_text_set(None)
            self._status_shown = None


#: The modal analysis, animation scan or self-check running now (at most one: each replaces results), or None.
_running: list = [None]


def mark_running(operator: bpy.types.Operator | None) -> None:
    """Note the modal analysis, scan or self-check that runs now (None: none does)."""
    _running[0] = operator


def mark_stopped(operator: bpy.types.Operator) -> None:
    """``operator`` ended: none runs now, if it was the one running."""
    if _running[0] is operator:
        mark_running(None)


def analysis_running() -> bool:
    """True while a modal analysis, scan or self-check runs (its operator still exists and has not finished)."""
    operator = _running[0]
    if operator is None:
        return False
    try:
        operator.as_pointer()  # raises once Blender has freed the operator
    except ReferenceError:  # Blender freed it without ending it (e.g. a file was loaded)
        _running[0] = None
        return False
    return True


#: The operators that change (or read) the results a slice at a time from the interface (type names,
#: ``TYPE_OT_name`` as a running instance reports them): while one runs, none of them starts (one long run at a time).
CHANGING_RESULTS = ("COLLISION_INSPECTOR_OT_analyze", "COLLISION_INSPECTOR_OT_scan", "COLLISION_INSPECTOR_OT_resolve",
                    "COLLISION_INSPECTOR_OT_resolve_all", "COLLISION_INSPECTOR_OT_self_check",
                    "COLLISION_INSPECTOR_OT_directional_depth", "COLLISION_INSPECTOR_OT_copy_pair")


def running_refusal(context: bpy.types.Context | None = None) -> str:
    """Why Analyse, Scan Animation, Resolve, Resolve All, Check Self-Intersections, Directional Depth and Copy Pair
    are greyed out while one of them runs modally ('' when none runs): the run noted by ``mark_running``, or one of
    ``CHANGING_RESULTS`` among the windows' modal operators."""
    if analysis_running():
        return f"{_running[0].bl_label} is already running (Esc cancels it)"
    window_manager = getattr(context, "window_manager", None)
    for window in getattr(window_manager, "windows", ()):
        for operator in window.modal_operators:
            if operator.bl_idname in CHANGING_RESULTS:
                return f"{operator.bl_label} is running (Esc stops it)"
    return ""


class ReplacesResultsMixin:
    """Run from the interface, the operator is noted as running (``mark_running``; its ``stop`` calls
    ``mark_stopped``) so that neither it nor another that changes the results starts meanwhile (their
    ``poll`` asks ``running_refusal``). Goes before ``StepwiseMixin`` in the bases."""

    def run_modal(self, context: bpy.types.Context) -> set:
        outcome = super().run_modal(context)
        if outcome == {'RUNNING_MODAL'}:
            mark_running(self)
        return outcome


class ProgressStepsMixin:
    """``stop`` and ``step`` of a run noted as running (``ReplacesResultsMixin``) whose ``steps`` yield ``(done,
    total)``, shown on the mouse cursor (``start`` calls ``progress_begin``), and end in ``finish(context)``; an
    object that cannot be measured, or was deleted meanwhile, ends it with an error. Goes before
    ``StepwiseMixin`` in the bases."""

    def stop(self, context: bpy.types.Context) -> None:
        """End the progress indicator and the timer; abandon the remaining steps (a worker's answer is dropped)."""
        mark_stopped(self)
        self.steps.close()
        context.window_manager.progress_end()
        self.end_timer(context)

    #: Errors that end the run with their message (ReferenceError: an object was deleted meanwhile).
    stopping_errors: tuple = (ObjectGeometryError, ReferenceError)

    def step(self, context: bpy.types.Context, seconds: float = SLICE_SECONDS) -> set | None:
        """Advance the run for about ``seconds``; the operator's outcome once it is over, else None."""
        try:
            progress = advance(self.steps, seconds)
        except self.stopping_errors as error:
            self.stop(context)
            self.report({'ERROR'}, str(error))
            return {'CANCELLED'}
        if progress is not None:
            done, total = progress
            context.window_manager.progress_update(PROGRESS_STEPS * done // max(total, 1))
            return None
        self.stop(context)
        return self.finish(context)


class NeedsResultsMixin:
    """``poll()`` is True when the scene has results; otherwise the button's tooltip gives ``no_results``."""

    no_results = "No results: analyse first"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not context.scene.collision_inspector.results:
            cls.poll_message_set(cls.no_results)
            return False
        return True


class ExclusiveRunMixin(NeedsResultsMixin):
    """``poll()`` is False while another run that changes the results goes on (``running_refusal``, which the
    tooltip then gives), and without results."""

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        refusal = running_refusal(context)
        if refusal:
            cls.poll_message_set(refusal)
            return False
        return super().poll(context)


def chosen_result(operator: bpy.types.Operator, context: bpy.types.Context):
    """The result the operator works on: its ``index``, or the active one when ``index`` is -1; None (an error
    reported) when there is no such result."""
    settings = context.scene.collision_inspector
    index = settings.active_result_index if operator.index < 0 else operator.index
    if not 0 <= index < len(settings.results):
        operator.report({'ERROR'}, f"No result {index}; there are {len(settings.results)}")
        return None
    return settings.results[index]
