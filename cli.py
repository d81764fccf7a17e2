"""The headless command: ``blender --background FILE.blend --command collision_inspector check ...``.

``run(argv)`` checks the open file's scene with the same engine as the panel (or, with ``--self``, each object
against itself), prints the clashes, writes the optional reports and returns the exit code: 0 clean, 1 clashes
of the ``--fail-on`` kind, 2 a usage, scene or file error (docs/cli-and-reports.md).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time

import bpy

from .analysis.background import Announced, collection_paused
from .analysis.clash import start_check
from .analysis.clash_report import ClashReport, write_csv, write_json
from .analysis.geometry import ObjectGeometryError
from .analysis.inspect import measure_modes, record_modes
from .analysis.review import with_review_states
from .analysis.scan import start_scan
from .analysis.self_check import check_objects
from .analysis.self_check_report import SelfCheckReport
from .analysis.self_check_report import write_csv as write_self_csv
from .analysis.self_check_report import write_json as write_self_json
from .analysis.store import stored_reviews
from .farm.plan import parse_shard

COMMAND = "collision_inspector"
USAGE_ERROR = 2

#: --fail-on: which statuses make the command exit with 1.
FAILING_STATUSES = {
    'penetrating': {'penetrating'},
    'clearance': {'penetrating', 'touching', 'clearance'},
    'none': set(),
}


#: A number followed by units, as Blender's unit fields accept it: "5mm", "0.5 in", "1' 2\"", "1m 20cm".
LENGTH_WITH_UNIT = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*[a-zµ'\"][\w\s.'\"µ]*$", re.IGNORECASE)


class UsageError(Exception):
    """Bad arguments or an unusable scene or file: exit code 2, message on stderr."""


def parse_length(text: str, scene: bpy.types.Scene | None = None) -> float:
    """A length in world units from ``text``: a plain number is in world units; one with a unit
    ("5mm", "0.5 in", "1'2\"") is converted with Blender's unit parser (``bpy.utils.units.to_value``) in
    the scene's unit system and unit scale. ValueError when it is neither."""
    try:
        return float(text)
    except ValueError:
        pass
    if not LENGTH_WITH_UNIT.match(text):  # anything else would be evaluated as a Python expression
        raise ValueError(f"not a length: {text!r}")
    units = scene.unit_settings if scene is not None else None
    system = units.system if units is not None and units.system != 'NONE' else 'METRIC'
    metres = bpy.utils.units.to_value(system, 'LENGTH', text)
    scale = units.scale_length if units is not None and units.scale_length > 0 else 1.0
    # Blender's unit factors and unit scale are single precision ("5mm" gives 0.00500000025): keep the
    # 7 significant digits they hold.
    return float(f"{metres / scale:.7g}")


def _length(text: str) -> float:
    """A finite length >= 0 (argparse type), with or without a unit (see ``parse_length``)."""
    try:
        value = parse_length(text, bpy.context.scene)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or a length with a unit: {text!r}") from None
    if not math.isfinite(value) or value < 0.0:
        raise argparse.ArgumentTypeError(f"must be a finite length >= 0: {text!r}")
    return value


def _frame_range(text: str) -> tuple[int, int]:
    """``START-END`` (argparse type): two frame numbers, START <= END."""
    match = re.fullmatch(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*", text)
    if match is None or int(match[1]) > int(match[2]):
        raise argparse.ArgumentTypeError(f"not a frame range START-END with START <= END: {text!r}")
    return int(match[1]), int(match[2])


def _shard(text: str) -> tuple[int, int]:
    """``K/N`` (argparse type): shard K of N, 1 <= K <= N."""
    try:
        return parse_shard(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of exiting the (Blender) process on bad arguments."""

    def error(self, message: str):
        raise UsageError(f"{self.format_usage()}{self.prog}: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=f"blender --background FILE.blend --command {COMMAND}",
        description="Collision Inspector: exact clash checks between the objects of a .blend file.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser(
        "check",
        help="check object pairs for clashes; exit 0 clean, 1 clashes of the --fail-on kind, 2 usage/file error",
        description=(
            "Check pairs of objects for clashes (their evaluated surfaces; convex hulls with --hulls). "
            "A pair is 'penetrating', 'touching' (|signed distance| <= touch tolerance) or a 'clearance' "
            "violation (apart, but closer than the clearance). Exit codes: 0 no clash of the --fail-on "
            "kind, 1 such clashes exist, 2 usage, scene or file error."
        ),
    )
    check.add_argument("--scope", choices=("selected", "active", "all", "collections"),
                       help="which pairs: all pairs among the selected objects, the active object against the "
                            "other selected, collection --a against --b, or all objects of the scene "
                            "(default: collections when --a is given, else all)")
    check.add_argument("--a", metavar="COLLECTION", help="collection A (scope collections)")
    check.add_argument("--b", metavar="COLLECTION", help="collection B (default: A against itself)")
    check.add_argument("--clearance", type=_length, default=0.0, metavar="D",
                       help="report pairs closer than D as clearance violations (default 0); world units, or "
                            "with a unit: 5mm, 0.2in")
    check.add_argument("--touch-tolerance", type=_length, metavar="T",
                       help="|signed distance| <= T counts as touching (default: the scene's setting); world units "
                            "or with a unit")
    check.add_argument("--hulls", action="store_true", default=None,
                       help="measure convex hulls (physics proxies) instead of the real surfaces "
                            "(default: the file's Convex Hulls setting)")
    check.add_argument("--frames", type=_frame_range, metavar="START-END",
                       help="scan the animation: measure every frame from START to END (e.g. 1-250) and report, "
                            "per pair, its worst frame, first_contact_frame, deepest_frame, max_depth and the "
                            "frames in contact")
    check.add_argument("--self", action="store_true", dest="self_check",
                       help="check each object of the scope against itself instead of pairs: faces that pass "
                            "through each other, the curves where they cross and, for closed objects, the volume "
                            "covered twice; exits 1 when an object intersects itself (unless --fail-on none)")
    check.add_argument("--shard", type=_shard, metavar="K/N",
                       help="measure only shard K of N (1 <= K <= N): a share of the candidate pairs balanced by "
                            "their estimated cost, or with --frames a run of frames; the shards' JSON reports are "
                            "joined by 'python -m farm merge OUT.json PART.json ...' into the report of one "
                            "whole check")
    check.add_argument("--json", metavar="OUT", help="write the report as JSON to OUT")
    check.add_argument("--csv", metavar="OUT", help="write the report as CSV to OUT")
    check.add_argument("--fail-on", choices=tuple(FAILING_STATUSES), default="penetrating",
                       help="exit 1 when penetrating pairs exist (default), when any clash exists "
                            "(penetrating, touching or clearance), or never")
    return parser


def _collection(name: str | None, option: str) -> bpy.types.Collection | None:
    if name is None:
        return None
    collection = bpy.data.collections.get(name)
    if collection is None:
        known = ", ".join(sorted(c.name for c in bpy.data.collections)) or "none"
        raise UsageError(f"{option}: no collection named {name!r} (collections: {known})")
    return collection


def plural(count: int, noun: str) -> str:
    """"1 object", "2 objects", "0 candidate pairs"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


class _ProgressPrinter:
    """Prints the steps' ``(done, total)`` as progress lines on stderr, at most one per second and the last
    of each phase, each phase with its own fixed total: a scan's ``12/60 frames scanned``; a check's
    ``120/2000 objects read``, then ``3/41 candidate pairs measured`` (the check's steps count the
    objects, then the objects and the pairs, known once every object is read and the broad phase ran)."""

    def __init__(self, objects: int | None = None) -> None:
        self.last = 0.0
        self.objects = objects  # None: the steps are a scan's frames

    def __call__(self, done: int, total: int) -> None:
        if self.objects is None:
            what = "frames scanned"
        elif total == self.objects:
            what = "objects read"
        else:
            done, total, what = done - self.objects, total - self.objects, "candidate pairs measured"
        now = time.monotonic()
        if now - self.last >= 1.0 or done == total:
            self.last = now
            print(f"{COMMAND}: {done}/{total} {what}", file=sys.stderr, flush=True)


#: Blender options before ``--command`` that take no value: an argument after one of them is a file to open.
FLAG_OPTIONS = frozenset({
    "-b", "--background", "--factory-startup", "-noaudio", "--python-use-system-env", "-y", "--enable-autoexec",
    "-Y", "--disable-autoexec", "-q", "--quiet", "-d", "--debug", "--disable-crash-handler",
    "--disable-abort-handler", "--offline-mode", "--online-mode", "--no-window-focus", "--debug-python",
})


def command_position(argv: list[str]) -> int | None:
    """Where ``--command`` (``-c``) is on Blender's command line; None when this was not run by it (e.g. from
    a script)."""
    return next((index for index, arg in enumerate(argv) if arg in ("--command", "-c")), None)


def named_files(argv: list[str]) -> list[str]:
    """The files named on Blender's command line before ``--command``: arguments that are neither an
    option nor an option's value (after an option not in ``FLAG_OPTIONS``). Empty when not run by
    ``--command``."""
    end = command_position(argv)
    if end is None:
        return []
    before = argv[1:end]
    return [arg for index, arg in enumerate(before)
            if not arg.startswith("-") and (index == 0 or not before[index - 1].startswith("-")
                                            or before[index - 1] in FLAG_OPTIONS)]


def unread_blend_files(argv: list[str]) -> list[str]:
    """The files named on Blender's command line (``named_files``) that are not the open file.

    Blender reports a file it cannot read (missing, not a .blend, a directory, whatever its name) and
    carries on with its startup scene; a pipeline must not then pass a clash check on that scene.
    """
    open_file = os.path.realpath(bpy.data.filepath) if bpy.data.filepath else None
    return [name for name in named_files(argv) if os.path.realpath(name) != open_file]


def _check(arguments: argparse.Namespace) -> ClashReport | SelfCheckReport:
    unread = unread_blend_files(sys.argv)
    if unread:
        raise UsageError(f"could not open {', '.join(unread)} (see Blender's message above)")
    if command_position(sys.argv) is not None and not bpy.data.filepath:
        raise UsageError(f"no .blend file to check: name one before --command, as in "
                         f"blender --background FILE.blend --command {COMMAND} check")
    scope = arguments.scope or ("collections" if arguments.a else "all")
    if scope == "collections" and arguments.a is None:
        raise UsageError("--scope collections needs --a COLLECTION")
    if scope != "collections" and (arguments.a or arguments.b):
        raise UsageError(f"--a and --b only apply to --scope collections, not {scope}")
    context = bpy.context
    if arguments.self_check:
        if arguments.frames:
            raise UsageError("--self checks the current frame: it does not take --frames")
        if arguments.shard:
            raise UsageError("--self checks each object once, in one process: it does not take --shard")
        return _self_check(context, scope, arguments)
    try:
        modes = measure_modes(context.scene)
    except ValueError as error:  # a 'View' plane in background mode, a zero custom normal
        raise UsageError(f"the file's plane mode cannot be measured here: {error}") from None
    options = dict(scope=scope.upper(), collection_a=_collection(arguments.a, "--a"),
                   collection_b=_collection(arguments.b, "--b"), clearance=arguments.clearance,
                   touch_tolerance=arguments.touch_tolerance, use_hulls=arguments.hulls, modes=modes,
                   shard=arguments.shard)
    if arguments.frames:
        report = _scan(context, arguments.frames, options)
    else:
        report, steps = start_check(context.scene, context.evaluated_depsgraph_get(), **options)
        progress = _ProgressPrinter(report.objects)
        with collection_paused():  # (as ``check_scene``: the reading's thousands of small objects too)
            for step in steps:
                if not isinstance(step, Announced):  # (for the interface: nothing was done since the last step)
                    progress(*step)
    record_modes(report, context.scene.collision_inspector, modes)
    # Review states of pairs reviewed in the panel and saved with the file carry over to the report.
    report.results = with_review_states(report.results, stored_reviews(context.scene.collision_inspector))
    return report


def _self_check(context, scope: str, arguments: argparse.Namespace) -> SelfCheckReport:
    """Each object of the scope (both collections' objects with --scope collections) checked against itself."""
    view_layer = context.view_layer
    if scope == "all":
        objects = context.scene.objects
    elif scope == "collections":
        objects = {obj for name, option in ((arguments.a, "--a"), (arguments.b, "--b")) if name
                   for obj in _collection(name, option).all_objects}
    else:
        objects = [obj for obj in view_layer.objects if obj.select_get(view_layer=view_layer)]
        if scope == "active" and view_layer.objects.active is not None:
            objects = [view_layer.objects.active]
    report, _checked = check_objects(objects, view_layer, context.evaluated_depsgraph_get(), scope.upper())
    return report


def _print_self_report(report: SelfCheckReport) -> None:
    for name, reason in sorted(report.skipped.items()):
        print(f"{COMMAND}: skipped {name}: {reason}", file=sys.stderr)
    for result in report.intersecting:
        volume = "" if result.covered_twice_volume is None else \
            f"\tcovered_twice_volume={result.covered_twice_volume:.6g}"
        print(f"{result.object}\tself\tface_pairs={result.face_pairs}\tcurves={result.curves}{volume}")
    print(f"{COMMAND}: {plural(len(report.results), 'object')} checked against themselves: "
          f"{len(report.intersecting)} intersecting ({report.seconds:.2f} s)")


def _scan(context, frames: tuple[int, int], options: dict) -> ClashReport:
    """The animation scan of ``frames`` (``analysis.scan``), progress on stderr."""
    try:
        report, steps = start_scan(context.scene, context.evaluated_depsgraph_get(), frame_start=frames[0],
                                   frame_end=frames[1], **options)
    except ValueError as error:  # a shard without frames
        raise UsageError(f"--shard: {error}") from None
    progress = _ProgressPrinter()
    for done, total in steps:
        progress(done, total)
    return report


def _print_report(report: ClashReport) -> None:
    for name, reason in sorted(report.skipped.items()):
        print(f"{COMMAND}: skipped {name}: {reason}", file=sys.stderr)
    for result in report.results:
        scanned = ("" if result.max_depth is None else
                   f"\tfirst_contact_frame={result.first_contact_frame}\tdeepest_frame={result.deepest_frame}"
                   f"\tmax_depth={result.max_depth:.6g}")
        print(f"{result.object_a}\t{result.object_b}\t{result.status}\t{result.signed_distance:.6g}{scanned}")
    counts = ", ".join(f"{count} {status}" for status, count in report.counts.items())
    print(f"{COMMAND}: {plural(report.objects, 'object')}, {plural(report.candidate_pairs, 'candidate pair')} of "
          f"{report.possible_pairs}: {counts} ({report.seconds:.2f} s){modes_text(report)}")


def modes_text(report: ClashReport) -> str:
    """How the pairs were measured, for the summary line: '' for the usual way, else the plane (and its
    normal) or the rigid-body shapes."""
    if report.plane_normal is not None:
        normal = ", ".join(f"{x:.6g}" for x in report.plane_normal)
        return f"; measured in the {report.plane_mode.lower()} plane, normal ({normal})"
    return "; measured with rigid-body shapes" if report.rigid_body_shapes else ""


def run(argv: list[str]) -> int:
    """The command: parse ``argv`` (the arguments after the command id), check, report; the exit code."""
    try:
        arguments = build_parser().parse_args(argv)
    except SystemExit as done:  # --help printed its text
        return int(done.code or 0)
    except UsageError as error:
        print(error, file=sys.stderr)
        return USAGE_ERROR
    try:
        report = _check(arguments)
        self_check = isinstance(report, SelfCheckReport)
        for path, write in ((arguments.json, write_self_json if self_check else write_json),
                            (arguments.csv, write_self_csv if self_check else write_csv)):
            if path:
                write(report, path)
    except (UsageError, ObjectGeometryError) as error:
        print(f"{COMMAND}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except OSError as error:
        print(f"{COMMAND}: error: cannot write the report: {error}", file=sys.stderr)
        return USAGE_ERROR
    if self_check:
        _print_self_report(report)
        return 1 if report.intersecting and arguments.fail_on != 'none' else 0
    _print_report(report)
    failing = FAILING_STATUSES[arguments.fail_on]
    return 1 if any(result.status in failing for result in report.results) else 0
