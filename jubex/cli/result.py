"""``jubex result [RUN...]``: a run's result tables (several runs in one table)."""

from __future__ import annotations

import argparse

from jubex.cli.common import (
    FORMATS,
    add_format,
    add_runs_selector,
    add_tabulating_options,
    kept_apart_by,
    tabulated_runs,
    write_output,
)
from jubex.collector import paused as collector_paused
from jubex.results.delivery.deliver import report

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex result", "the latest run's tables"),
    ("jubex result -T bandwidth -f csv -o bw.csv", "one table, as CSV, into a file"),
    ("jubex result -i all --pivot site", "every run as one set, sites side by side"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_runs_selector(parser, "; several runs are one table")
    parser.add_argument(
        "-T", "--table", action="append", default=[], help="only this table (repeatable)"
    )
    add_format(parser, FORMATS, None)
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to this file instead of the terminal"
    )
    add_tabulating_options(parser)
    parser.add_argument(
        "--pivot",
        metavar="KEY",
        help="put the values of this group_by key side by side (e.g. site, platform, run)",
    )


def handle(args: argparse.Namespace) -> int:
    from jubex.store.catalogue import catalogued

    with catalogued():  # the runs read are catalogued once the tables are written
        runs = tabulated_runs(args)
        # the rows of many runs are dicts of plain values, made once and kept: full
        # collections of the cyclic collector walk them all again and find nothing (about
        # a fifth of `result -i all` over 1,000 runs; its peak memory is the same)
        with collector_paused(kept=True):
            text = report(
                runs,
                args.table,
                args.format,
                include_failed=args.include_failed,
                targets=True,
                pivot_by=args.pivot,
                by=kept_apart_by(args),
                width=0 if args.output else None,  # a file is as wide as its table
            )
        write_output(text, args.output)
    return 0
