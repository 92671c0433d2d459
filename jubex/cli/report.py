"""``jubex report [RUN...] -o study.html``: a study in one self-contained HTML file."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.cli.common import (
    add_runs_selector,
    add_tabulating_options,
    kept_apart_by,
    shown,
    tabulated_runs,
)
from jubex.collector import paused as collector_paused
from jubex.errors import UsageError

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex report -o study.html", "the latest run: plots, tables, provenance, failures"),
    ("jubex report -i all -o study.html", "every run of ./runs as one study"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_runs_selector(parser, "; several runs are one result set")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the HTML file (default: report.html in the last run's directory)",
    )
    add_tabulating_options(parser)


def handle(args: argparse.Namespace) -> int:
    from jubex.results.presentation.report_html import write_report

    runs = tabulated_runs(args)
    path = Path(args.output) if args.output else runs[-1].dir / "report.html"
    if path.is_dir():
        raise UsageError(f"-o {path}: is a directory; name the HTML file, e.g. -o study.html")
    # the rows and tables of 10,000 workpackages are plain values made once and kept:
    # the collector's full collections walked them again and again (an eighth of it)
    with collector_paused(kept=True):
        written = write_report(
            runs, path, include_failed=args.include_failed, by=kept_apart_by(args)
        )
    print(shown(written))
    return 0
