"""``jubex runs [OUTPATH]``: the runs below an outpath, with id, name, when, state, comment."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from jubex.cli.common import REPORT_FORMATS, add_format, shown
from jubex.errors import UsageError
from jubex.store.rundir import list_runs, outpath_here
from jubex.store.store import FAILED, FINAL_STATES, Store

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex runs", "every run below ./runs"),
    ("jubex runs /scratch/me/runs -f json", ""),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "outpath", nargs="?", metavar="OUTPATH", help="default: this directory's runs"
    )
    add_format(parser, REPORT_FORMATS, "pretty")


def handle(args: argparse.Namespace) -> int:
    base = Path(args.outpath) if args.outpath else outpath_here()
    runs = list_runs(base)
    if not runs:
        raise UsageError(f"no runs found in '{base}'")
    found = [_summary(run_dir) for run_dir in runs]
    if args.format == "json":
        print(json.dumps({"outpath": str(base), "runs": found}, indent=1))
        return 0
    print(f"runs of {shown(base)}/ ({base.resolve()})")
    print(f"{'id':<8} {'name':<24} {'created':<19} {'state':<22} comment")
    for run in found:
        created = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(run["created"])))
        state = (
            "finished"
            if run["finished"] == run["workpackages"]
            else (f"{run['finished']}/{run['workpackages']} finished")
        )
        if run["failed"]:
            state += f", {run['failed']} failed"
        print(f"{run['id']:<8} {run['name']:<24} {created:<19} {state:<22} {run['comment']}")
    return 0


def _summary(run_dir: Path) -> dict[str, str | int | float]:
    """One run as its store tells it: id, name, creation time and how far it got."""
    store = Store(run_dir / "jubex.sqlite")
    meta = store.meta()
    counts: dict[str, int] = {}
    for (_step, state), n in store.counts().items():
        counts[state] = counts.get(state, 0) + n
    store.close()
    return {
        "id": run_dir.name,
        "dir": str(run_dir),
        "name": meta.get("name", ""),
        "comment": meta.get("comment", ""),
        "created": float(meta.get("created", 0)),
        "workpackages": sum(counts.values()),
        "finished": sum(n for s, n in counts.items() if s in FINAL_STATES),
        "failed": counts.get(FAILED, 0),
    }
