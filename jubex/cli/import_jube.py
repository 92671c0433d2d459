"""``jubex import-jube DIR``: run directories JUBE made, brought in as jubex runs."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from jubex.cli.common import shown
from jubex.cli.import_ import add_target
from jubex.errors import JubexError
from jubex.results.tables.jube_tables import JUBE_TABLES, check_jube_tables
from jubex.store.jube_dir import ANALYSE
from jubex.store.jube_import import (
    JUBE_RESULT,
    JUBE_TABLES_LEFT_OUT,
    import_jube,
    imported_jube,
    jube_run_dirs,
)
from jubex.store.rundir import Run

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex import-jube bench_run/000042", "one JUBE run into ./runs; then: jubex result"),
    ("jubex import-jube bench_run", "every run of a JUBE benchmark's outpath"),
    ("jubex import-jube bench_run -i 3 -i 5", "JUBE's runs 3 and 5"),
    ("jubex import-jube bench_run --site jureca", "runs you know ran on JURECA"),
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
    parser.add_argument(
        "--site",
        default="",
        metavar="NAME",
        help="the system the JUBE runs ran on, as you know it (JUBE does not record it): "
        "the site their results are published and compared under",
    )
    add_target(parser, "a JUBE run")


def handle(args: argparse.Namespace) -> int:
    """Import each run; of several, one refused is said and the others still imported
    (exit status 2 then)."""
    outpath = Path(args.outpath)
    sources = jube_run_dirs(Path(args.dir), args.run_id)
    refused = 0
    for source in sources:
        try:
            _import(source, outpath, args)
        except JubexError as exc:
            if len(sources) == 1:
                raise
            refused += 1
            print(exc, file=sys.stderr)
    if refused:
        print(f"{refused} of {len(sources)} JUBE runs refused (above)", file=sys.stderr)
    return 2 if refused else 0


def _import(source: Path, outpath: Path, args: argparse.Namespace) -> None:
    earlier = [] if args.again else imported_jube(source, outpath)
    if earlier:
        ids = ", ".join(run_dir.name for run_dir in earlier)
        print(
            f"{shown(source)} is already imported as run {ids} in {shown(outpath)}; "
            "not imported again (--again imports it once more)"
        )
        return
    run = import_jube(source, outpath, site=args.site)
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
    _check_tables(run)
    run.store.close()


def _check_tables(run: Run) -> None:
    """JUBE's tables (result/*.dat) against jubex's: each said, a difference on stderr as
    a warning, and noted in the run for ``jubex result``."""
    folder = run.dir / JUBE_RESULT
    try:
        checked = check_jube_tables(run, folder)
    except JubexError as exc:  # the run is imported; only its tables cannot be made
        print(f"  warning: JUBE's tables not compared: {exc.message}", file=sys.stderr)
        return
    for left_out in json.loads(run.meta.get(JUBE_TABLES_LEFT_OUT) or "[]"):
        print(f"  warning: JUBE's {left_out}: not kept", file=sys.stderr)
    if not checked:
        return
    run.store.set_meta({JUBE_TABLES: json.dumps([asdict(c) for c in checked])})
    print(f"  JUBE's tables (result/*.dat) kept in {shown(folder)}:")
    for item in checked:
        if item.verdict == "differs":
            print(f"  warning: JUBE's {item.file} {item.said}", file=sys.stderr)
        else:
            print(f"    {item.file}: {item.said}")
