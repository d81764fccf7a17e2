"""How long Blender's interface stalls while Analyse, Resolve, Directional Depth and Copy Pair work on a big pair
(Suzanne under a level-5 subdivision, about 1M triangles, through a cube) in the real interface, and how soon Esc
stops them.

    BLENDER_XVFB=1 blender --factory-startup --enable-event-simulate --python benchmarks/bench_gui_stall.py \
        [-- [aa-off] [esc] [shot=PNG]]

A 10 ms timer measures how long the interface could not answer while they run as clicks do (Copy Pair's file browser
confirmed): durations, longest and median gaps, gaps over 200 ms, the viewport's draws (``aa-off``: one per change).
Suzanne is not evaluated beforehand. ``esc`` sends Esc (a simulated key press) during each and prints how soon it
stopped, whether the scene was left as it was and how long an abandoned worker went on (its own CPU time after the
operator received the Esc too: the load does not stretch that one); ``shot=PNG`` saves the screen as Analyse starts
reading Suzanne. Details: docs/performance.md, "The interface during long work".
"""

from __future__ import annotations

import faulthandler
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import bpy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)

WATCH_INTERVAL = 0.01
SUBDIVISIONS = 5
#: A cancelled Resolve gets its Esc this long after it starts (its move and first draw done).
RESOLVE_ESC_AFTER = 1.0
#: Esc while classifying or measuring comes this long after the status bar first says so (a key pressed as the
#: status changes waits for the window's redraw, Blender's: seconds on a busy software renderer).
ESC_AFTER = 0.5


def big_pair() -> None:
    """Suzanne, subdivided, and a cube through her side: the only selected objects."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    bpy.ops.mesh.primitive_monkey_add(location=(0.0, 0.0, 0.0))
    suzanne = bpy.context.active_object
    suzanne.name = "Suzanne"
    suzanne.modifiers.new("Subdivision", 'SUBSURF').levels = SUBDIVISIONS
    bpy.ops.mesh.primitive_cube_add(location=(0.9, 0.0, 0.0), size=1.0)
    bpy.context.active_object.name = "Cube"
    for obj in bpy.data.objects:
        obj.select_set(True)


def in_viewport(operator, **properties) -> None:
    """Run ``operator`` as a click in the 3D view does."""
    window = bpy.context.window_manager.windows[0]
    area = next(area for area in window.screen.areas if area.type == 'VIEW_3D')
    region = next(region for region in area.regions if region.type == 'WINDOW')
    with bpy.context.temp_override(window=window, area=area, region=region):
        operator('INVOKE_DEFAULT', **properties)


def count_viewport_draws() -> list:
    """``[(began, seconds)]`` of every viewport draw from now on (its first to its last draw handler)."""
    draws, began = [], [None]

    def first() -> None:
        began[0] = time.perf_counter()

    def last() -> None:
        if began[0] is not None:
            draws.append((began[0], time.perf_counter() - began[0]))
            began[0] = None

    bpy.types.SpaceView3D.draw_handler_add(first, (), 'WINDOW', 'PRE_VIEW')
    bpy.types.SpaceView3D.draw_handler_add(last, (), 'WINDOW', 'POST_PIXEL')
    return draws


def worker_cpu() -> float | None:
    """CPU seconds of the add-on's worker thread running now, its own (None: none runs)."""
    for thread in threading.enumerate():
        if thread.name == "collision_inspector work" and thread.ident is not None:
            try:
                return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
            except OSError:  # it has just ended
                return None
    return None


def stop_times(mixin) -> tuple[list, list, list]:
    """``[time]`` at which the add-on's modal operators received an Esc, ``[(time, main thread's CPU time)]``
    at which each modal run stopped (its timer removed), and the worker's own CPU time at each Esc received
    (``worker_cpu``), from now on."""
    escapes, times, workers, modal, end_timer = [], [], [], mixin.modal, mixin.end_timer

    def timed_modal(self, context, event) -> set:
        if event.type == 'ESC':
            escapes.append(time.perf_counter())
            workers.append(worker_cpu())
        return modal(self, context, event)

    def timed(self, context) -> None:
        times.append((time.perf_counter(), time.thread_time()))
        end_timer(self, context)

    mixin.modal, mixin.end_timer = timed_modal, timed
    return escapes, times, workers


def screenshot_before_reading(shapes, name: str, path: str) -> None:
    """Save the screen (``import``, on the virtual screen) when ``shapes.read_arrays`` is first asked for ``name``."""
    read_arrays = shapes.read_arrays

    def shot_first(source, depsgraph):
        if source.name == name and shapes.read_arrays is shot_first:
            shapes.read_arrays = read_arrays
            subprocess.run(["import", "-window", "root", path], check=True)
            print(f"screenshot before reading {name}: {path}", flush=True)
        return read_arrays(source, depsgraph)

    shapes.read_arrays = shot_first


def reading_times(shapes) -> list:
    """``[(name, Blender's to_mesh, the add-on's work inside it)]``, wall seconds on the main thread, of every evaluated
    mesh ``shapes`` reads from now on (the first ``to_mesh`` of an object the viewport subdivides on the GPU has
    Blender subdivide it on the CPU)."""
    times, evaluated_mesh = [], shapes.evaluated_mesh

    @contextmanager
    def timed(obj, depsgraph):
        began = time.perf_counter()
        with evaluated_mesh(obj, depsgraph) as read:
            entered = time.perf_counter()
            yield read
            times.append((obj.name, entered - began, time.perf_counter() - entered))

    shapes.evaluated_mesh = timed
    return times


class Run:
    """One click: its name, the operator, and for a cancelled run when to press Esc (``esc_when(activity,
    seconds since the start, the last gap)`` True); ``clear`` empties the results first (so that Analyse again
    runs)."""

    def __init__(self, name, operator, esc_when=None, clear=False) -> None:
        self.name, self.operator, self.esc_when, self.clear = name, operator, esc_when, clear


def directional_depth_along_x(mode: str) -> None:
    bpy.ops.collision_inspector.directional_depth(mode, axis='X')


#: When Copy Pair's file browser was confirmed (``time.perf_counter()``), once it was.
confirmed: list[float] = []


def copy_pair_through_its_file_browser(mode: str) -> None:
    """Copy Pair as a click does: its file browser opens, and half a second later Return confirms it."""
    path = Path(bpy.app.tempdir) / "bench_gui_stall_pair.json"
    confirmed.clear()
    bpy.ops.collision_inspector.copy_pair(mode, filepath=str(path))

    def confirm() -> None:
        """Return pressed in the file browser's window (not ``file.execute`` under an override of that window,
        which the file browser closes: Blender crashed in 2 of 6 runs)."""
        for window in bpy.context.window_manager.windows:
            if any(area.type == 'FILE_BROWSER' for area in window.screen.areas):
                window.event_simulate(type='RET', value='PRESS')
                confirmed.append(time.perf_counter())
                return
        print("Copy Pair: no file browser opened", flush=True)

    bpy.app.timers.register(confirm, first_interval=0.5)


def activity_is(prefix: str, after_stall: bool = False, after: float = 0.0):
    """An ``esc_when`` pressing Esc once the running analysis' activity starts with ``prefix`` (with
    ``after_stall``: once the interface answers after a stall of over 200 ms that began with that activity shown;
    with ``after``: that many seconds after it was first shown, once the status bar's redraw is over)."""
    shown = []

    def when(activity: str, _seconds: float, gap: float) -> bool:
        if not activity.startswith(prefix):
            return False
        shown.append(time.perf_counter())
        if after_stall:
            return len(shown) > 1 and gap > 0.2
        return shown[-1] - shown[0] >= after

    return when


def runs_asked(esc: bool) -> list[Run]:
    """The clicks in turn: Analyse, Resolve, Analyse again; with ``esc`` the cancelled ones (and the Analyse that
    Resolve needs)."""
    analyse, resolve = bpy.ops.collision_inspector.analyze, bpy.ops.collision_inspector.resolve
    if not esc:
        return [Run("Analyse", analyse), Run("Resolve", resolve), Run("Analyse again", analyse, clear=True),
                Run("Directional Depth", directional_depth_along_x),
                Run("Copy Pair", copy_pair_through_its_file_browser)]
    return [Run("Analyse, Esc once the status says reading Suzanne", analyse, activity_is("reading Suzanne")),
            Run("Analyse, Esc after the reading's stall", analyse, activity_is("reading Suzanne", after_stall=True)),
            Run("Analyse, Esc while classifying", analyse, activity_is("classifying", after=ESC_AFTER)),
            Run("Analyse, Esc while measuring", analyse, activity_is("measuring", after=ESC_AFTER)),
            Run("Analyse", analyse),
            Run(f"Resolve, Esc {RESOLVE_ESC_AFTER:.0f} s in", resolve,
                lambda _activity, seconds, _gap: seconds >= RESOLVE_ESC_AFTER),
            Run(f"Directional Depth, Esc {RESOLVE_ESC_AFTER:.0f} s in", directional_depth_along_x,
                lambda _activity, seconds, _gap: seconds >= RESOLVE_ESC_AFTER),
            Run(f"Copy Pair, Esc {RESOLVE_ESC_AFTER:.0f} s after its file browser", copy_pair_through_its_file_browser,
                lambda *_: bool(confirmed) and time.perf_counter() - confirmed[-1] >= RESOLVE_ESC_AFTER)]


def main() -> None:
    faulthandler.enable()  # a crash in Blender shows the Python line it came from
    arguments = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if "aa-off" in arguments:  # (--factory-startup: the preferences are not saved)
        bpy.context.preferences.system.viewport_aa = 'OFF'
    draws = count_viewport_draws()
    addon = load_registered_addon()
    running_analysis = addon.operators.base._running  # the modal Analyse running (for its activity)
    escapes, stopped, worker_at_escape = stop_times(addon.operators.base.StepwiseMixin)
    reads = reading_times(addon.analysis.shapes)
    for argument in arguments:
        if argument.startswith("shot="):
            screenshot_before_reading(addon.analysis.shapes, "Suzanne", argument.removeprefix("shot="))
    big_pair()
    settings = bpy.context.scene.collision_inspector
    settings.scope = 'SELECTED'
    print(f"Suzanne: {len(bpy.data.objects['Suzanne'].data.polygons)} faces under a level-{SUBDIVISIONS} subdivision "
          f"(GPU subdivision {'on' if bpy.context.preferences.system.use_gpu_subdivision else 'off'}, anti-aliasing "
          f"{bpy.context.preferences.system.viewport_aa})", flush=True)
    runs = runs_asked("esc" in arguments)
    state = {"run": -1, "running": False, "gaps": [], "drawn": [], "last": 0.0, "began": 0.0, "esc": None,
             "before": None, "stopped": False, "worker": None}

    def scene_state() -> tuple:
        """What a cancelled run must leave as it was: the results and where the objects are."""
        return (len(settings.results), tuple(tuple(tuple(row) for row in obj.matrix_world)
                                             for obj in sorted(bpy.data.objects, key=lambda obj: obj.name)))

    def start_next() -> None:
        state["run"] += 1
        if state["run"] == len(runs):
            bpy.ops.wm.quit_blender()
            return
        run = runs[state["run"]]
        if run.clear:
            settings.results.clear()  # Analyse again: done once there are results
        state["gaps"], state["drawn"], state["running"], state["esc"], state["stopped"] = [], [], True, None, False
        state["worker"] = None
        state["before"] = scene_state()
        draws.clear()
        reads.clear()
        state["began"] = state["last"] = time.perf_counter()
        in_viewport(run.operator)

    def activity() -> str:
        operator = running_analysis[0]
        try:
            return operator._report.activity if operator is not None else ""
        except (AttributeError, ReferenceError):
            return ""

    def watch() -> float:
        now = time.perf_counter()
        reading = worker_cpu()
        state["worker"] = state["worker"] if reading is None else reading  # (once it has ended: its last reading)
        if state["running"]:
            run = runs[state["run"]]
            state["gaps"].append(now - state["last"])
            state["drawn"].append(any(state["last"] <= began < now for began, _seconds in draws))
            if run.esc_when is not None and state["esc"] is None and busy() and run.esc_when(
                    activity(), now - state["began"], now - state["last"]):
                state["esc"] = (now, time.thread_time(), activity(), len(state["gaps"]))
                state["esc_process"] = time.process_time()
                bpy.context.window_manager.windows[0].event_simulate(type='ESC', value='PRESS')
            elif run.esc_when is not None and state["esc"] is not None and not busy() and not state["stopped"]:
                pressed, pressed_cpu, doing, first_gap = state["esc"]
                after = state["gaps"][first_gap:] or [0.0]
                drawn = [seconds for began, seconds in draws if began >= pressed]
                doing = doing or run.name.split(",")[0]
                print(f"{run.name}: Esc at {pressed - state['began']:.2f} s ({doing}; the gap before it "
                      f"{1e3 * state['gaps'][first_gap - 1]:.0f} ms, the longest before it "
                      f"{1e3 * max(state['gaps'][:first_gap]):.0f} ms), the operator received it "
                      f"{1e3 * (escapes[-1] - pressed) if escapes else float('nan'):.0f} ms later and stopped "
                      f"{1e3 * (stopped[-1][0] - pressed):.0f} ms later ({1e3 * (stopped[-1][1] - pressed_cpu):.0f} ms "
                      f"of the main thread's CPU), the interface answered again "
                      f"{1e3 * (now - pressed):.0f} ms later (longest stall meanwhile {1e3 * max(after):.0f} ms; "
                      f"{len(drawn)} viewport draws, {1e3 * sum(drawn):.0f} ms); results and objects "
                      f"{'as they were' if scene_state() == state['before'] else 'CHANGED'}", flush=True)
                state["stopped"] = True
            elif state["stopped"] and not working():
                pressed, process_cpu = state["esc"][0], state["esc_process"]
                at_escape = worker_at_escape[-1] if worker_at_escape else None
                own = "none ran then" if at_escape is None else f"{state['worker'] - at_escape:.2f} s"
                print(f"{run.name}: the abandoned worker ended {now - pressed:.2f} s after Esc "
                      f"({time.process_time() - process_cpu:.2f} s CPU of the process meanwhile; the worker's own CPU "
                      f"after the operator received the Esc: {own})", flush=True)
                finish()
            elif run.esc_when is not None and state["esc"] is None and not busy() and now - state["began"] > 1.0:
                print(f"{run.name}: ended before its Esc ({now - state['began']:.2f} s)", flush=True)
                finish()
            elif run.esc_when is None and settings.results and not busy():
                report(run, now)
                finish()
        state["last"] = now
        return WATCH_INTERVAL

    def report(run: Run, now: float) -> None:
        gaps = state["gaps"]
        undrawn = [gap for gap, drawn in zip(gaps, state["drawn"]) if not drawn] or [0.0]
        print(f"{run.name}: {now - state['began']:.2f} s, the interface stalled "
              f"{1e3 * max(gaps):.0f} ms at most (from {sum(gaps[:gaps.index(max(gaps))]):.1f} s on), "
              f"{sum(gap > 0.2 for gap in gaps)} times over 200 ms, "
              f"median gap {1e3 * statistics.median(gaps):.0f} ms ({len(gaps)} gaps); the viewport drew "
              f"{len(draws)} times, {sum(seconds for _began, seconds in draws):.1f} s in all; longest gap "
              f"without a viewport draw {1e3 * max(undrawn):.0f} ms; read on the main thread: " + (", ".join(
                  f"{name} (to_mesh {1e3 * to_mesh:.0f} ms, then {1e3 * rest:.0f} ms)" for name, to_mesh, rest in reads)
                  or "nothing"), flush=True)

    def finish() -> None:
        state["running"] = False
        bpy.app.timers.register(start_next, first_interval=1.0)

    def working() -> bool:
        """A worker thread of the add-on still runs (an abandoned one included)."""
        return any(thread.name == "collision_inspector work" for thread in threading.enumerate())

    def busy() -> bool:
        """A modal Analyse or Resolve still runs."""
        return any(operator.bl_idname.startswith("COLLISION_INSPECTOR") for window in
                   bpy.context.window_manager.windows for operator in window.modal_operators)

    bpy.app.timers.register(watch, first_interval=WATCH_INTERVAL)
    bpy.app.timers.register(start_next, first_interval=3.0)


if __name__ == "__main__":
    main()
