"""``jubex publish RUN...``: runs into the results database, each once and whole."""

from __future__ import annotations

import argparse

from jubex.cli.common import add_runs_selector, selected_runs, shown


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
