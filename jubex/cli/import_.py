"""``jubex import BUNDLE``: runs of another site unpacked into the runs directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.cli.common import shown
from jubex.errors import UsageError
from jubex.store.bundle import import_bundle

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (("jubex import study.tar.gz", "into ./runs; then: jubex result -i all"),)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help="a bundle written by jubex export")
    parser.add_argument(
        "--outpath", default="runs", help="the runs directory to unpack into (default: runs)"
    )


def handle(args: argparse.Namespace) -> int:
    bundle = Path(args.bundle)
    if not bundle.is_file():
        raise UsageError(f"no bundle '{args.bundle}': not a file")
    for run_dir in import_bundle(bundle, Path(args.outpath)):
        print(f"imported {shown(run_dir)}")
    return 0
