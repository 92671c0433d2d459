"""``jubex import BUNDLE``: runs of another site unpacked into the runs directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.cli.common import shown
from jubex.errors import UsageError
from jubex.store.bundle import import_bundle, imported_as

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (("jubex import study.tar.gz", "into ./runs; then: jubex result -i all"),)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help="a bundle written by jubex export")
    add_target(parser, "a bundle whose runs are")


def add_target(parser: argparse.ArgumentParser, what: str) -> None:
    """``--outpath`` and ``--again`` of the commands that import runs; ``what``: what
    ``--again`` imports once more."""
    parser.add_argument(
        "--outpath", default="runs", help="the runs directory to import into (default: runs)"
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help=f"import {what} already imported into the outpath once more",
    )


def handle(args: argparse.Namespace) -> int:
    bundle = Path(args.bundle)
    if not bundle.is_file():
        raise UsageError(f"no bundle '{args.bundle}': not a file")
    earlier = [] if args.again else imported_as(bundle, Path(args.outpath))
    if earlier:
        ids = ", ".join(run_dir.name for run_dir in earlier)
        print(
            f"{args.bundle} is already imported as run {ids} in {shown(Path(args.outpath))}; "
            "nothing imported (--again imports it once more)"
        )
        return 0
    for run_dir in import_bundle(bundle, Path(args.outpath)):
        print(f"imported {shown(run_dir)}")
    return 0
