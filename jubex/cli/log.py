"""``jubex log [RUN]``: the state history of a run's workpackages, with timestamps."""

from __future__ import annotations

import argparse
import time

from jubex.cli.common import add_run_selector, selected_run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)
    parser.add_argument("-w", "--workpackage", type=int, help="only this workpackage")


def handle(args: argparse.Namespace) -> int:
    run = selected_run(args)
    for wp, when, state, detail in run.store.events(args.workpackage):
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))
        print(f"{stamp}.{int(when % 1 * 1000):03d}  wp {wp:<6} {state:<10} {detail}")
    return 0
