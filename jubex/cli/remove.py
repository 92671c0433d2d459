"""``jubex remove RUN [--workpackage ID]``: delete a run, or some of its workpackages."""

from __future__ import annotations

import argparse
import shutil

from jubex.cli.common import add_run_selector, selected_run
from jubex.engine.driver import run_lock
from jubex.errors import UsageError
from jubex.store.rundir import owned_wp_dirs

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex remove -i 4 -y", "run 4 of ./runs, without asking"),
    ("jubex remove -w 12", "one workpackage of the latest run, to run it again"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)
    parser.add_argument(
        "-w",
        "--workpackage",
        type=int,
        action="append",
        default=[],
        metavar="ID",
        help="remove only these workpackages (repeatable)",
    )
    parser.add_argument("-y", "--yes", action="store_true", help="do not ask")


def handle(args: argparse.Namespace) -> int:
    if not args.run and not args.run_id:
        raise UsageError("name the run to remove (a path, an id, or 'last')")
    run = selected_run(args)
    where = run.dir.resolve()
    what = f"workpackages {args.workpackage} of " if args.workpackage else ""
    if args.yes:
        print(f"removing {what}{where}")
    elif not _confirmed(f"remove {what}{where}? [y/N] "):
        return 1
    with run_lock(run.dir):
        if not args.workpackage:
            run.store.close()
            shutil.rmtree(run.dir)
            print(f"removed {where}")
            return 0
        rows = {wp.id: wp for wp in run.store.workpackages(ids=args.workpackage)}
        unknown = set(args.workpackage) - set(rows)
        if unknown:
            raise UsageError(f"run {where} has no workpackage {sorted(unknown)}")
        dirs = owned_wp_dirs(run, list(rows.values()))
        run.store.delete_workpackages(list(rows))
        for wp_dir in dirs.values():
            shutil.rmtree(wp_dir, ignore_errors=True)
        print(f"removed {len(rows)} workpackage(s) from {where}")
    return 0


def _confirmed(question: str) -> bool:
    """Ask on the terminal; without one to answer (a script, a pipe), refuse with the way out."""
    try:
        return input(question).strip().lower() in ("y", "yes")
    except EOFError:
        raise UsageError(
            "nothing answered the question whether to remove (no terminal)",
            hint="add --yes to remove without asking",
        ) from None
