"""``jubex runs [OUTPATH]``: the runs below an outpath, with id, name, when, state, comment."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from jubex.errors import UsageError
from jubex.store.rundir import list_runs, outpath_here
from jubex.store.store import FAILED, FINAL_STATES, Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("outpath", nargs="?", help="default: this directory's runs")


def handle(args: argparse.Namespace) -> int:
    base = Path(args.outpath) if args.outpath else outpath_here()
    runs = list_runs(base)
    if not runs:
        raise UsageError(f"no runs found in '{base}'")
    print(f"{'id':<8} {'name':<24} {'created':<19} {'state':<22} comment")
    for run_dir in runs:
        store = Store(run_dir / "jubex.sqlite")
        meta = store.meta()
        counts: dict[str, int] = {}
        for (_step, state), n in store.counts().items():
            counts[state] = counts.get(state, 0) + n
        store.close()
        total = sum(counts.values())
        final = sum(n for s, n in counts.items() if s in FINAL_STATES)
        state = "finished" if final == total else f"{final}/{total} finished"
        if counts.get(FAILED):
            state += f", {counts[FAILED]} failed"
        created = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(meta.get("created", 0))))
        name, comment = meta.get("name", ""), meta.get("comment", "")
        print(f"{run_dir.name:<8} {name:<24} {created:<19} {state:<22} {comment}")
    return 0
