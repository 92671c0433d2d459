"""``jubex import-reframe REPORT.json``: a ReFrame run report, as jubex runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.cli.import_ import add_target
from jubex.cli.import_record import import_records
from jubex.records.reframe import read_reframe_report

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    (
        "jubex import-reframe report.json",
        "(reframe ... --report-file=report.json) one run per test and system into ./runs",
    ),
    ("jubex import-reframe report.json --outpath reframe-runs", "into another runs directory"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "report", metavar="REPORT", help="a ReFrame 4.x run report (reframe --report-file)"
    )
    add_target(parser, "a test's results")


def handle(args: argparse.Namespace) -> int:
    path = Path(args.report)
    import_records(read_reframe_report(path), path, Path(args.outpath), again=args.again)
    return 0
