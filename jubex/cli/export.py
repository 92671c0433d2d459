"""``jubex export RUN... -o study.tar.gz``: runs packed to be tabulated and reproduced
elsewhere."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.cli.common import add_runs_selector, selected_runs, shown
from jubex.store.bundle import export_runs

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex export -o study.tar.gz", "the latest run, outputs included"),
    ("jubex export -i all --no-outputs -o study.tar.gz", "every run, without outputs"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_runs_selector(parser)
    parser.add_argument(
        "-o", "--output", required=True, help="the bundle to write (a .tar.gz file)"
    )
    parser.add_argument(
        "--no-outputs",
        action="store_true",
        help="leave the workpackages' directories out (the store still has every value)",
    )


def handle(args: argparse.Namespace) -> int:
    runs = selected_runs(args)
    target = Path(args.output)
    counts = export_runs(runs, target, outputs=not args.no_outputs)
    left = counts["links_left_out"]
    print(
        f"wrote {shown(target)}: {counts['runs']} run(s), {counts['files']:,} file(s), "
        f"{counts['bytes']:,} bytes before compression"
        + (f"; {left} link(s) leading out of their run left out" if left else "")
    )
    return 0
