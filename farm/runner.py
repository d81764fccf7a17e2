"""Run a check's shards as tasks on a ``dask.distributed`` cluster and merge their reports.

``python -m farm run FILE.blend [--frames A-B] [--shards N] [--scheduler tcp://HOST:8786] --json OUT``:
one task per shard, each running ``blender --background FILE --command collision_inspector check --shard
K/N`` (``shard_command``) on a worker, with the add-on from a folder (this one by default) or the worker's
installed extension. Without ``--scheduler`` a ``LocalCluster`` of one single-threaded worker process per
core runs them. Each shard's report comes back as the task's result and is written to the parts folder as
it arrives; a task that fails is retried, and one whose worker is lost is run again by the scheduler: a
shard's report is kept once, so nothing is lost or counted twice. dask is imported only here, when the
runner runs; the add-on never needs it.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path

from .merge import FAILING_STATUSES, MergeError, exit_code, merge_parts, summary, write_report
from .plan import scan_blocks

COMMAND = "collision_inspector"
USAGE_ERROR = 2
#: The add-on's folder: the repository, or the installed extension's folder (``farm`` sits at its root).
ADDON_DIR = Path(__file__).resolve().parents[1]
#: ``--addon installed``: the worker's Blender has the extension installed and enabled.
INSTALLED = "installed"

#: Blender runs this before opening the file when the add-on comes from a folder: the folder imported as
#: ``collision_inspector`` through a symlink (as in the repository's scripts/addon_loader.py) and registered.
LOAD_ADDON = """\
import atexit, importlib, os, shutil, sys, tempfile
link = tempfile.mkdtemp(prefix="collision_inspector_pkg_")
atexit.register(shutil.rmtree, link, True)
os.symlink({folder!r}, os.path.join(link, "collision_inspector"), target_is_directory=True)
sys.path.insert(0, link)
importlib.import_module("collision_inspector").register()
"""


class ShardError(RuntimeError):
    """A shard could not be checked on its worker; the message names the shard, the worker and the cause."""


@dataclass(frozen=True)
class ShardTask:
    """Everything a worker needs to check shard ``index`` of ``count`` (sent to it with the task)."""

    blend: str
    index: int
    count: int
    check_args: tuple[str, ...]
    blender: str = "blender"
    addon: str = str(ADDON_DIR)
    timeout: float | None = None

    @property
    def name(self) -> str:
        return f"shard {self.index}/{self.count}"

    def command(self, part: str) -> list[str]:
        """The Blender command line that checks this shard and writes its JSON report to ``part``."""
        check = ["--command", COMMAND, "check", *self.check_args, "--shard", f"{self.index}/{self.count}",
                 "--json", part, "--fail-on", "none"]
        if self.addon == INSTALLED:
            return [self.blender, "--background", self.blend, *check]
        return [self.blender, "--background", "--factory-startup",
                "--python-expr", LOAD_ADDON.format(folder=self.addon), self.blend, *check]


def _die_with_parent() -> None:
    """In the Blender child: be killed when the worker that started it dies (Linux), so a lost worker
    leaves no Blender running."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (AttributeError, OSError):
        pass


def blender_cause(stderr: str, lines: int = 3) -> str:
    """The lines of Blender's output that say what went wrong: its last error lines, else its last lines."""
    text = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in text if "error" in line.lower() or "Traceback" in line]
    return " | ".join((errors or text)[-lines:]) or "no output"


def run_shard(task: ShardTask) -> str:
    """Run the shard's Blender on this worker; its JSON report as text. ShardError when it fails."""
    host = socket.gethostname()
    with tempfile.TemporaryDirectory(prefix="collision_inspector_shard_") as folder:
        part = Path(folder, "part.json")
        try:
            done = subprocess.run(task.command(str(part)), capture_output=True, text=True, timeout=task.timeout,
                                  stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent if os.name == "posix" else None)
        except (FileNotFoundError, PermissionError) as error:
            raise ShardError(f"{task.name}: cannot start Blender {task.blender!r} on {host}: {error}") from None
        except subprocess.TimeoutExpired:
            raise ShardError(f"{task.name}: Blender took longer than {task.timeout} s on {host}") from None
        if done.returncode not in (0, 1) or not part.exists():
            raise ShardError(f"{task.name}: Blender exited with code {done.returncode} on {host}: "
                             f"{blender_cause(done.stderr)}")
        return part.read_text(encoding="utf-8")


@dataclass
class Outcome:
    """The shards' reports by index, and why the others failed."""

    parts: dict[int, dict]
    failures: dict[int, str]


class ProgressBar:
    """``[#####.....] 3/8 shards, 12 s`` on stderr: redrawn in place on a terminal, a line per shard otherwise."""

    def __init__(self, total: int, stream=sys.stderr, width: int = 30) -> None:
        self.total, self.stream, self.width = total, stream, width
        self.started = time.monotonic()
        self.inline = stream.isatty()

    def update(self, done: int, failed: int) -> None:
        filled = self.width * done // max(self.total, 1)
        text = (f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} shards"
                f"{f', {failed} failed' if failed else ''}, {time.monotonic() - self.started:.0f} s")
        end = "" if self.inline and done < self.total else "\n"
        print(f"\r{text}" if self.inline else text, end=end, file=self.stream, flush=True)


def failure_cause(error: BaseException, task: ShardTask) -> str:
    """A failed task's cause in words, naming its shard."""
    if type(error).__name__ == "KilledWorker":
        return f"{task.name}: its worker was lost every time it ran ({error})"
    text = str(error)
    return text if text.startswith(task.name) else f"{task.name}: {type(error).__name__}: {text}"


def run_shards(client, tasks: list[ShardTask], parts_dir: Path, retries: int = 2,
               progress: ProgressBar | None = None) -> Outcome:
    """Submit one task per shard to ``client``'s cluster and collect the reports as they arrive, each written
    to ``parts_dir/shard-K-of-N.json`` at once (kept whatever happens to the other shards)."""
    from distributed import as_completed

    batch = uuid.uuid4().hex[:8]
    futures = {client.submit(run_shard, task, key=f"collision-inspector-{batch}-shard-{task.index}-of-{task.count}",
                             retries=retries, pure=False): task for task in tasks}
    outcome = Outcome({}, {})
    parts_dir.mkdir(parents=True, exist_ok=True)
    for future in as_completed(futures):
        task = futures[future]
        if future.status == "finished":
            text = future.result()
            (parts_dir / f"shard-{task.index}-of-{task.count}.json").write_text(text, encoding="utf-8")
            outcome.parts[task.index] = json.loads(text)
        else:
            outcome.failures[task.index] = failure_cause(future.exception(), task)
        if progress is not None:
            progress.update(len(outcome.parts) + len(outcome.failures), len(outcome.failures))
    return outcome


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``run`` command's arguments."""
    parser.add_argument("blend", metavar="FILE.blend", help="the file to check (a path every worker can open)")
    parser.add_argument("--json", required=True, metavar="OUT", help="write the merged report as JSON to OUT")
    parser.add_argument("--shards", type=int, metavar="N",
                        help="how many shards (default: one per worker thread; a scan has at most one per block "
                             "of frames)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="a running dask scheduler, e.g. tcp://HOST:8786 (default: a local cluster)")
    parser.add_argument("--workers", type=int, metavar="W",
                        help="worker processes of the local cluster (default: one per core)")
    parser.add_argument("--blender", default="blender", metavar="PATH",
                        help="the Blender executable on the workers (default: blender on their PATH)")
    parser.add_argument("--addon", default=str(ADDON_DIR), metavar="FOLDER|installed",
                        help="the add-on the workers' Blender runs: a folder every worker can read (default: this "
                             "one) or 'installed' (the extension installed and enabled on the workers)")
    parser.add_argument("--parts", metavar="FOLDER",
                        help="where each shard's report is kept (default: OUT's name with .parts)")
    parser.add_argument("--retries", type=int, default=2, metavar="R",
                        help="runs of a failed shard after its first (default 2)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="give up on a shard's Blender after this")
    parser.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="how long to try reaching the scheduler (default 10)")
    parser.add_argument("--fail-on", choices=tuple(FAILING_STATUSES), default="penetrating",
                        help="exit 1 when the report has penetrating pairs (default), any clash, or never")
    for option, meta, text in (("--frames", "START-END", "scan the animation (as check --frames)"),
                               ("--scope", "SCOPE", "as check --scope"), ("--a", "COLLECTION", "as check --a"),
                               ("--b", "COLLECTION", "as check --b"), ("--clearance", "D", "as check --clearance"),
                               ("--touch-tolerance", "T", "as check --touch-tolerance")):
        parser.add_argument(option, metavar=meta, help=text)
    parser.add_argument("--hulls", action="store_true", help="as check --hulls")


def check_arguments(arguments: argparse.Namespace) -> tuple[str, ...]:
    """The ``check`` options given to ``run``, for every shard's command line."""
    passed = []
    for option in ("frames", "scope", "a", "b", "clearance", "touch_tolerance"):
        value = getattr(arguments, option)
        if value is not None:
            passed += [f"--{option.replace('_', '-')}", value]
    return (*passed, *(("--hulls",) if arguments.hulls else ()))


def frame_range(text: str) -> tuple[int, int]:
    """``START-END`` as two frames; ValueError otherwise."""
    match = re.fullmatch(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*", text)
    if match is None or int(match[1]) > int(match[2]):
        raise ValueError(f"not a frame range START-END with START <= END: {text!r}")
    return int(match[1]), int(match[2])


def _cluster(arguments: argparse.Namespace):
    """``(client, closer)``: a client of the given scheduler or of a new local cluster."""
    import logging

    from distributed import Client, LocalCluster

    if arguments.scheduler:
        client = Client(arguments.scheduler, timeout=arguments.connect_timeout)
        return client, client.close
    workers = arguments.workers or os.cpu_count() or 1
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.ERROR)
    client = Client(cluster)

    def close() -> None:
        client.close()
        cluster.close()
    return client, close


def _pickle_farm_by_value() -> None:
    """Send this package's code with the tasks, so that workers need dask and Blender but not this package."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(importlib.import_module(__package__))


def run_command(arguments: argparse.Namespace) -> int:
    """The ``run`` command: exit 0/1 as ``--fail-on`` says, 2 on bad input or a shard that kept failing."""
    out = Path(arguments.json)
    parts_dir = Path(arguments.parts) if arguments.parts else out.with_suffix(".parts")
    if arguments.shards is not None and arguments.shards < 1:
        print("run: error: --shards must be at least 1", file=sys.stderr)
        return USAGE_ERROR
    blocks = None
    if arguments.frames is not None:
        try:
            blocks = scan_blocks(*frame_range(arguments.frames))
        except ValueError as error:
            print(f"run: error: --frames: {error}", file=sys.stderr)
            return USAGE_ERROR
    try:
        import distributed  # noqa: F401  (a clear message when it is missing)
    except ImportError:
        print("run: error: the runner needs dask's distributed: pip install 'dask[distributed]'", file=sys.stderr)
        return USAGE_ERROR
    _pickle_farm_by_value()
    try:
        client, close = _cluster(arguments)
    except (OSError, TimeoutError) as error:
        print(f"run: error: cannot reach the scheduler {arguments.scheduler}: {error}", file=sys.stderr)
        return USAGE_ERROR
    try:
        count = arguments.shards or max(1, sum(client.nthreads().values()))
        if blocks is not None and count > blocks:
            print(f"run: {count} shards asked, but frames {arguments.frames} make {blocks} block(s): "
                  f"{blocks} shard(s)", file=sys.stderr)
            count = blocks
        template = ShardTask(str(Path(arguments.blend).absolute()), 1, count, check_arguments(arguments),
                             arguments.blender, arguments.addon, arguments.timeout)
        tasks = [replace(template, index=index) for index in range(1, count + 1)]
        print(f"run: {count} shard(s) of {arguments.blend} on {len(client.nthreads())} worker(s)", file=sys.stderr)
        outcome = run_shards(client, tasks, parts_dir, arguments.retries, ProgressBar(count))
    finally:
        close()
    return finish(outcome, count, out, parts_dir, arguments.fail_on)


def finish(outcome: Outcome, count: int, out: Path, parts_dir: Path, fail_on: str) -> int:
    """Report failed shards (exit 2, parts kept), or merge the parts into ``out`` and exit as ``fail_on`` says."""
    if outcome.failures:
        for index in sorted(outcome.failures):
            print(f"run: error: {outcome.failures[index]}", file=sys.stderr)
        kept = ", ".join(str(index) for index in sorted(outcome.parts)) or "none"
        print(f"run: {len(outcome.failures)} of {count} shard(s) failed; the reports of shards {kept} are kept in "
              f"{parts_dir}; {out} was not written", file=sys.stderr)
        return USAGE_ERROR
    try:
        document = merge_parts([outcome.parts[index] for index in sorted(outcome.parts)])
        write_report(document, out)
    except (MergeError, OSError) as error:
        print(f"run: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    print(f"run: {count} shard(s) merged into {out}: {summary(document)}")
    return exit_code(document, fail_on)
