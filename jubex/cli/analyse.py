"""``jubex analyse [RUN]``: read the outputs not read yet into the run store."""

from __future__ import annotations

import argparse

from jubex.analysis.run import analyse_run
from jubex.cli.common import add_run_selector, selected_run, shown
from jubex.engine.driver import run_lock
from jubex.errors import UsageError

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex analyse", "read the latest run's new outputs"),
    ("jubex analyse -i 1 --force", "read all of run 1's outputs again"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)
    parser.add_argument("--force", action="store_true", help="read every output again")


def handle(args: argparse.Namespace) -> int:
    run = selected_run(args)
    if run.meta.get("imported_outputs") == "no":
        raise UsageError(
            f"the run {shown(run.dir)} was imported without its outputs: its store holds the "
            "analysis made where it ran, and there is nothing here to read again"
        )
    with run_lock(run.dir):
        count = analyse_run(run, force=args.force)
    print(f"run {shown(run.dir)}: {count} workpackage(s) analysed")
    return 0
