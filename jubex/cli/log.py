"""``jubex log [RUN]``: the state history of a run's workpackages, with timestamps."""

from __future__ import annotations

import argparse
import json
import time

from jubex.cli.common import REPORT_FORMATS, add_format, add_run_selector, selected_run

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex log", "the latest run's state changes"),
    ("jubex log -i 2 -w 7", "run 2, only workpackage 7"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)
    parser.add_argument("-w", "--workpackage", type=int, metavar="ID", help="only this workpackage")
    add_format(parser, REPORT_FORMATS, "pretty")


def handle(args: argparse.Namespace) -> int:
    run = selected_run(args)
    events = run.store.events(args.workpackage)
    if args.format == "json":
        found = [
            {"time": when, "workpackage": wp, "state": state, "detail": detail}
            for wp, when, state, detail in events
        ]
        print(json.dumps({"run": str(run.dir), "events": found}, indent=1))
        return 0
    for wp, when, state, detail in events:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when))
        print(f"{stamp}.{int(when % 1 * 1000):03d}  wp {wp:<6} {state:<10} {detail}")
    return 0
