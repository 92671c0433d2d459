"""``jubex analyse [RUN]``: read the outputs not read yet into the run store."""

from __future__ import annotations

import argparse

from jubex.analysis.run import analyse_run
from jubex.cli.common import add_run_selector, selected_run, shown
from jubex.engine.driver import run_lock


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)
    parser.add_argument("--force", action="store_true", help="read every output again")


def handle(args: argparse.Namespace) -> int:
    run = selected_run(args)
    with run_lock(run.dir):
        count = analyse_run(run, force=args.force)
    print(f"run {shown(run.dir)}: {count} workpackage(s) analysed")
    return 0
