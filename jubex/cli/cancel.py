"""``jubex cancel [RUN]``: cancel every queued and running job with one scheduler call."""

from __future__ import annotations

import argparse

from jubex.cli.common import add_run_selector, selected_run, shown
from jubex.engine.driver import cancel

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex cancel", "the latest run's queued and running jobs"),
    ("jubex cancel runs/000002", ""),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)


def handle(args: argparse.Namespace) -> int:
    run = selected_run(args)
    print(f"run {shown(run.dir)}: {cancel(run)} workpackage(s) cancelled")
    return 0
