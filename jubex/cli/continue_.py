"""``jubex continue [RUN]``: pick a run up where it stopped (after a crash, or --no-wait)."""

from __future__ import annotations

import argparse

from jubex.api import drive
from jubex.cli.common import add_run_selector, selected_run, shown
from jubex.cli.run import add_driving_options, finish, options_from
from jubex.engine.driver import DRIVER_LOG, detach
from jubex.schedulers.registry import scheduler_for

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex continue", "this directory's latest run, where it stopped"),
    ("jubex continue runs/000003 --retry-failed", "run the failed ones again"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)
    parser.add_argument("--retry-failed", action="store_true", help="run failed workpackages again")
    add_driving_options(parser)


def handle(args: argparse.Namespace) -> int:
    run = selected_run(args)
    if args.no_wait and scheduler_for(run.spec.platform).local:
        pid = detach(run, options_from(args), retry_failed=args.retry_failed)
        print(
            f"run {shown(run.dir)}: driven by process {pid} in the background (its output: "
            f"{shown(run.dir / DRIVER_LOG)}); jubex status {shown(run.dir)} shows how far it is"
        )
        return 0
    counts = drive(run, options_from(args), retry_failed=args.retry_failed)
    return finish(run, counts, args)
