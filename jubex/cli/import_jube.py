"""``jubex import-jube DIR``: run directories JUBE made, brought in as jubex runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.cli.common import shown
from jubex.cli.import_ import add_target
from jubex.store.jube_dir import ANALYSE
from jubex.store.jube_import import import_jube, imported_jube, jube_run_dirs

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex import-jube bench_run/000042", "one JUBE run into ./runs; then: jubex result"),
    ("jubex import-jube bench_run", "every run of a JUBE benchmark's outpath"),
    ("jubex import-jube bench_run -i 3 -i 5", "JUBE's runs 3 and 5"),
)

#: the states of an imported JUBE run's workpackages, as JUBE's words say them
JUBE_STATES = {
    "done": "done",
    "failed": "failed",
    "submitted": "unfinished",
    "planned": "not started",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "dir",
        metavar="DIR",
        help="a JUBE run directory (bench_run/000042), or a benchmark's outpath (bench_run)",
    )
    parser.add_argument(
        "-i",
        "--id",
        dest="run_id",
        action="append",
        default=[],
        metavar="ID",
        help="of an outpath, import JUBE's run ID (repeatable; default: all)",
    )
    add_target(parser, "a JUBE run")


def handle(args: argparse.Namespace) -> int:
    outpath = Path(args.outpath)
    for source in jube_run_dirs(Path(args.dir), args.run_id):
        earlier = [] if args.again else imported_jube(source, outpath)
        if earlier:
            ids = ", ".join(run_dir.name for run_dir in earlier)
            print(
                f"{shown(source)} is already imported as run {ids} in {shown(outpath)}; "
                "not imported again (--again imports it once more)"
            )
            continue
        run = import_jube(source, outpath)
        counts = run.store.counts()
        said = ", ".join(
            f"{n} {word}"
            for state, word in JUBE_STATES.items()
            if (n := sum(c for (_, s), c in counts.items() if s == state))
        )
        print(f"imported {shown(source)} as {shown(run.dir)} ({said})")
        if not (source / ANALYSE).is_file() and run.benchmark.analysers:
            print(
                f"  {shown(source)} holds no {ANALYSE}: JUBE has not analysed this run, so its "
                "tables are empty (`jube analyse` it, then import it again with --again)"
            )
        run.store.close()
    return 0
