"""``python -m farm merge OUT.json PART.json ...`` and ``python -m farm run FILE.blend ... --json OUT``.

Run from the repository, or from the installed extension's folder (``farm`` sits at the add-on's root).
Exit codes as the check's: 0 no clash of the ``--fail-on`` kind, 1 such clashes, 2 bad input (a message
on stderr names the part or the shard and the cause).
"""

from __future__ import annotations

import argparse
import sys

from .merge import FAILING_STATUSES, MergeError, exit_code, merge_parts, read_part, summary, write_report

USAGE_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m farm", description="Collision Inspector's checks in shards: "
                                     "merge the shards' reports, or run the shards on a dask.distributed cluster.")
    commands = parser.add_subparsers(dest="command", required=True)
    merge = commands.add_parser("merge", help="join the JSON reports of a check's shards into one report",
                                description="Join the JSON reports of shards 1 to N of one check (check --shard "
                                            "K/N --json PART.json) into the report one process would have written.")
    merge.add_argument("out", metavar="OUT.json", help="the merged report")
    merge.add_argument("parts", nargs="+", metavar="PART.json", help="the shards' reports, in any order")
    merge.add_argument("--fail-on", choices=tuple(FAILING_STATUSES), default="penetrating",
                       help="exit 1 when the merged report has penetrating pairs (default), any clash, or never")
    from .runner import add_arguments  # no dask here: the runner imports it when it runs
    add_arguments(commands.add_parser(
        "run", help="run a check's shards on a dask.distributed cluster (a local one by default) and merge them",
        description="Run 'blender --background FILE --command collision_inspector check --shard K/N' for K = 1..N "
                    "as tasks on a dask.distributed cluster and merge the shards' reports into --json OUT."))
    return parser


def merge_command(arguments: argparse.Namespace) -> int:
    try:
        document = merge_parts([read_part(path) for path in arguments.parts], list(arguments.parts))
        write_report(document, arguments.out)
    except MergeError as error:
        print(f"merge: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except OSError as error:
        print(f"merge: error: cannot write {arguments.out}: {error}", file=sys.stderr)
        return USAGE_ERROR
    print(f"merge: {len(arguments.parts)} shards: {summary(document)}")
    return exit_code(document, arguments.fail_on)


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    if arguments.command == "merge":
        return merge_command(arguments)
    from .runner import run_command
    return run_command(arguments)


if __name__ == "__main__":
    sys.exit(main())
