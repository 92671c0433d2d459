"""``jubex query METRIC db:...``: a metric's samples over time, from the results database."""

from __future__ import annotations

import argparse

from jubex.cli.common import FORMATS, add_database_option, add_format, write_output

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex query write_bw db:benchmark=ior,site=juwels", "every sample of write_bw there"),
    ("jubex query write_bw db:transfer=1MiB,last=20 -f csv", "of one point, 20 latest runs"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("metric", metavar="METRIC", help="the measured value, e.g. write_bw")
    parser.add_argument(
        "selector",
        nargs="?",
        default="db:",
        metavar="db:KEY=VALUE,...",
        help="which runs: benchmark, site, platform, user, host, version, id, since, until, "
        "last=N or a parameter NAME=VALUE (default: every published run)",
    )
    add_database_option(parser)
    add_format(parser, FORMATS, "pretty")
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to this file instead of the terminal"
    )


def handle(args: argparse.Namespace) -> int:
    from jubex.errors import UsageError
    from jubex.results.tables.formats import render
    from jubex.resultsdb.connect import Database
    from jubex.resultsdb.samples import query_table
    from jubex.resultsdb.select import is_selector

    if not is_selector(args.selector):
        raise UsageError(
            f"'{args.selector}' is no selector of published runs",
            hint="e.g. jubex query write_bw db:benchmark=ior,since=2026-01-01",
        )
    table = query_table(args.selector, args.metric, Database(args.database))
    write_output(render(table, args.format, width=0 if args.output else None), args.output)
    return 0
