"""``jubex report [RUN...] -o study.html``: a study in one self-contained HTML file."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.api import analyse_runs
from jubex.cli.common import shown
from jubex.errors import UsageError
from jubex.store.rundir import open_run, resolve_run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="run directories, ids, 'last' or -N (default: the latest run); several runs are "
        "one result set",
    )
    parser.add_argument("--outpath", help="where runs live (default: where the latest run is)")
    parser.add_argument("-i", "--id", dest="run_id", help="run id within the outpath (JUBE's -i)")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the HTML file (default: report.html in the last run's directory)",
    )
    parser.add_argument(
        "--include-failed", action="store_true", help="count failed workpackages' values too"
    )
    parser.add_argument(
        "--no-analyse", action="store_true", help="do not read new outputs before reporting"
    )


def handle(args: argparse.Namespace) -> int:
    from jubex.results.report_html import write_report

    runs = [open_run(resolve_run(spec, args.outpath)) for spec in args.runs or [args.run_id]]
    if not args.no_analyse:
        analyse_runs(runs)
    path = Path(args.output) if args.output else runs[-1].dir / "report.html"
    if path.is_dir():
        raise UsageError(f"-o {path}: is a directory; name the HTML file, e.g. -o study.html")
    print(shown(write_report(runs, path, include_failed=args.include_failed)))
    return 0
