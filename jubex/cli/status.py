"""``jubex status [RUN]``: counts per step and state, and why failed workpackages failed."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import TypedDict

from jubex.analysis.run import missing_analysis
from jubex.cli.common import REPORT_FORMATS, add_format, add_run_selector, selected_run, shown
from jubex.store.rundir import wp_dir_of
from jubex.store.store import FAILED, STATES

TAIL = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)
    add_format(parser, REPORT_FORMATS, "pretty")


class _Failed(TypedDict):
    """A failed workpackage as the status shows it (and prints it as JSON)."""

    id: int
    step: str
    exit_code: int | None
    reason: str
    params: dict[str, str]
    stderr: list[str]
    workdir: str


def _tail(path: Path, lines: int = TAIL) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return []


def handle(args: argparse.Namespace) -> int:
    run = selected_run(args)
    counts = run.store.counts()
    per_step: dict[str, dict[str, int]] = defaultdict(dict)
    for (step, state), n in counts.items():
        per_step[step][state] = n
    failed: list[_Failed] = []
    for wp in run.store.workpackages(states=[FAILED]):
        work = wp_dir_of(run.dir, wp) / "work"
        failed.append(
            {
                "id": wp.id,
                "step": wp.step,
                "exit_code": wp.exit_code,
                "reason": wp.reason,
                "params": {k: str(v) for k, v in wp.point.items()},
                "stderr": _tail(work / "stderr"),
                "workdir": str(work),
            }
        )
    empty = [{"id": i, "reason": r} for i, r in missing_analysis(run)]
    meta = run.meta
    if args.format == "json":
        print(
            json.dumps(
                {
                    "run": str(run.dir),
                    "name": meta.get("name"),
                    "steps": per_step,
                    "failed": failed,
                    "analysis_missing": empty,
                },
                indent=1,
            )
        )
        return 0
    print(f"run {shown(run.dir)} ({meta.get('name')}, platform {meta.get('platform')})")
    for step, states in per_step.items():
        parts = ", ".join(f"{states[s]} {s}" for s in STATES if states.get(s))
        print(f"  {step}: {parts}")
    for f in failed:
        print(f"  workpackage {f['id']} ({f['step']}) failed: {f['reason']}  [{f['workdir']}]")
        for line in f["stderr"]:
            print(f"    | {line}")
    for e in empty:
        print(f"  workpackage {e['id']}: analysers found nothing usable ({e['reason']})")
    return 0
