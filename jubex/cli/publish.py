"""``jubex publish RUN...``: runs into the results database, each once and whole."""

from __future__ import annotations

import argparse

from jubex.cli.common import add_runs_selector, selected_runs, shown

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex publish", "the latest run, into the configured results database"),
    ("jubex publish -i all --database results.sqlite", "every run of the outpath, into a file"),
    ("jubex publish runs/000003 --database postgresql://db.example.org/bench", "to a centre's"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_runs_selector(parser, "; imported runs too")


def handle(args: argparse.Namespace) -> int:
    from jubex.api import analyse_runs
    from jubex.resultsdb.connect import Database
    from jubex.resultsdb.publish import publish

    runs = selected_runs(args)
    analyse_runs(runs)
    database = Database(args.database)
    for run in runs:
        new = publish(database, run)
        said = "published to" if new else "already in"
        print(f"run {shown(run.dir)}: {said} {database.name}")
    return 0
