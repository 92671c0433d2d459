"""``jubex publish RUN...``: runs into the results database, each once and whole."""

from __future__ import annotations

import argparse
from pathlib import Path

from jubex.cli.common import add_runs_selector, selected_runs, shown
from jubex.store.rundir import open_run

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex publish", "the latest run, into the configured results database"),
    ("jubex publish -i all --database results.sqlite", "every run of the outpath, into a file"),
    ("jubex publish runs/000003 --database postgresql://db.example.org/bench", "to a centre's"),
    ("jubex publish results.json", "a harness's record (docs/record.md): imported, published"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_runs_selector(parser, "; imported runs too; a record file (FILE.json) is imported first")


def handle(args: argparse.Namespace) -> int:
    from jubex.api import analyse_runs
    from jubex.resultsdb.connect import Database
    from jubex.resultsdb.publish import publish

    records = [spec for spec in args.runs if _is_record_file(spec)]
    args.runs = [spec for spec in args.runs if spec not in records]
    runs = [open_run(path) for path in _imported(records, args.outpath)]
    if args.runs or args.run_id or args.num is not None or not records:
        runs += selected_runs(args)
    analyse_runs(runs)
    database = Database(args.database)
    for run in runs:
        new = publish(database, run)
        said = "published to" if new else "already in"
        print(f"run {shown(run.dir)}: {said} {database.name}")
    return 0


def _is_record_file(spec: str) -> bool:
    """Whether a RUN argument is a record a harness wrote (a ``.json`` file), not a run."""
    return spec.endswith(".json") and Path(spec).is_file()


def _imported(records: list[str], outpath: str | None) -> list[Path]:
    """The runs the record files become below the outpath (each record once)."""
    from jubex.cli.import_record import import_records
    from jubex.records.record import read_record_file

    made: list[Path] = []
    for name in records:
        made += import_records(read_record_file(Path(name)), Path(name), Path(outpath or "runs"))
    return made
