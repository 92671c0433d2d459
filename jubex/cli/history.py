"""``jubex history DEFINITION|RUNS...``: a metric across runs over time, change points marked.

A definition stands for every run made from it below its outpath (or ``--outpath``); runs
are given as ``jubex result`` takes them. All are analysed first, then shown oldest first.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from jubex.cli.common import (
    add_database_option,
    add_format,
    add_list_option,
    database_runs,
    is_selector,
    say_read,
)
from jubex.cli.compare import add_noise_options
from jubex.results.tables.formats import render
from jubex.store.rundir import STORE, Run, each_once, list_runs, open_run, resolve_run

if TYPE_CHECKING:
    from jubex.results.tables.table import ResultTable

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex history ior.yaml", "each metric across the runs of ior.yaml, over time"),
    ("jubex history runs -m write_bw -k tasks", "one metric, points told apart by tasks"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="DEFINITION|RUN",
        help="a definition file (every run of it below its outpath), or runs: a run "
        "directory, an id, 'last', -N or a db: selector of published runs",
    )
    parser.add_argument("--outpath", help="where the runs live")
    add_database_option(parser)
    add_list_option(
        parser,
        "-m",
        "--metric",
        metavar="NAME[,NAME...]",
        help="values to follow (default: the headline values, as jubex compare chooses them)",
    )
    add_list_option(
        parser,
        "-k",
        "--keys",
        metavar="P[,P...]",
        help="parameters that identify a point (default: the parameters that vary)",
    )
    add_list_option(
        parser,
        "--by",
        metavar="P[,P...]",
        help="parameters that changed between runs to make axes of the points on purpose "
        "(default: a run whose setting changed starts a new series, named in the output)",
    )
    parser.add_argument(
        "--all", dest="all_metrics", action="store_true", help="follow every measured value"
    )
    add_noise_options(
        parser,
        tolerance="smallest change marked as a change point",
        alpha="chance of a false change point over the whole history",
    )
    add_format(parser, ("pretty", "json"), "pretty")


def runs_of(sources: list[str], outpath: str | None) -> list[Run]:
    """The runs the sources name; a definition file stands for all runs made from it."""
    from jubex.api import resolve

    found: dict[Path, Run | None] = {}
    for source in sources:
        path = Path(source)
        if path.is_file() and not (path.parent / STORE).exists():
            spec = resolve(path, outpath=outpath, templates=False)  # no job is rendered
            name = spec.benchmark.name
            base = Path(spec.outpath).resolve()  # once, not for each of 1,000 runs
            for run_dir in list_runs(Path(spec.outpath)):
                # opened once: it is the run read, if it is one
                run = open_run(run_dir, follow=False)
                if run.meta.get("name") == name:
                    real = run_dir.resolve() if run_dir.is_symlink() else base / run_dir.name
                    found.setdefault(real, run)
                else:
                    run.store.close()
        else:
            found.setdefault(resolve_run(source, outpath).resolve(), None)
    return [run or open_run(run_dir, follow=False) for run_dir, run in found.items()]


def handle(args: argparse.Namespace) -> int:
    selectors = [source for source in args.sources if is_selector(source)]
    others = [source for source in args.sources if not is_selector(source)]
    noise = {
        "tolerance": args.tolerance,
        "alpha": args.alpha,
        "all_metrics": args.all_metrics,
        "by": args.by or (),
    }
    from jubex.collector import paused as collector_paused

    if len(selectors) == 1 and not others:  # from the samples alone: no run opened
        from jubex.resultsdb.connect import Database
        from jubex.resultsdb.samples import database_history

        # its rows are made once and kept, as the runs' rows below
        with collector_paused(kept=True):
            table = database_history(
                selectors[0],
                keys=args.keys,
                metrics=args.metric,
                database=Database(args.database),
                **noise,
            )
        show(table, args.format)
        return 0
    from jubex.api import analyse_runs  # with what analysing imports: not for db: alone
    from jubex.results.trends.history import history_of_runs
    from jubex.store.catalogue import catalogued

    with catalogued():  # the runs read are catalogued once the history is shown
        with collector_paused(kept=True):  # 1,000 runs opened, each kept to the end
            runs = database_runs(selectors, args.database)
            runs += runs_of(others, args.outpath) if others else []
            runs = each_once(runs)
        say_read(runs)
        analyse_runs(runs)
        # the runs' rows are 40,000 dicts of plain values, made once and kept: each full
        # collection of the cyclic collector walks them all again, about a second of a
        # history over 1,000 runs, and finds nothing (its peak memory is the same)
        with collector_paused(kept=True):
            table = history_of_runs(runs, keys=args.keys, metrics=args.metric, **noise)
        show(table, args.format)
    return 0


def show(table: ResultTable, form: str) -> None:
    """Print the history table in the format asked for."""
    text = render(table, "json" if form == "json" else "pretty")
    print(text, end="" if text.endswith("\n") else "\n")
