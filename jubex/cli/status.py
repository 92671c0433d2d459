"""``jubex status [RUN]``: counts per step and state, and why failed workpackages failed;
exit 1 when some did, as ``jubex run`` does."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path

from jubex.analysis.run import missing_analysis
from jubex.cli.common import REPORT_FORMATS, add_format, add_run_selector, selected_run, shown
from jubex.cli.import_jube import JUBE_STATES
from jubex.cli.provenance import jube_origin, jube_run
from jubex.engine.failures import Cause, failure_causes, id_list
from jubex.store.rundir import Run
from jubex.store.store import DONE, STATES

#: (command line, what it does): the examples of ``--help`` and ``jubex help``
EXAMPLES = (
    ("jubex status", "counts per step and state of the latest run; why failures failed"),
    ("jubex status -i 3 -f json", "run 3 of ./runs, for scripts; exit 1: some failed"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_selector(parser)
    add_format(parser, REPORT_FORMATS, "pretty")


def handle(args: argparse.Namespace) -> int:
    run = selected_run(args)
    counts = run.store.counts()
    per_step: dict[str, dict[str, int]] = defaultdict(dict)
    for (step, state), n in counts.items():
        per_step[step][state] = n
    causes = failure_causes(run)
    done = {wp.id for wp in run.store.workpackages(states=[DONE])}
    empty: dict[str, list[int]] = defaultdict(list)
    for wp_id, reason in missing_analysis(run):
        if wp_id in done:  # a failure says why its outputs gave nothing, an unfinished none
            empty[reason].append(wp_id)
    meta = run.meta
    if args.format == "json":
        print(
            json.dumps(
                {
                    "run": str(run.dir),
                    "name": meta.get("name"),
                    "steps": per_step,
                    "failed": [
                        {**asdict(cause), "count": len(cause.ids), "params": _params(run, cause)}
                        for cause in causes
                    ],
                    "analysis_missing": [
                        {"ids": ids, "reason": reason} for reason, ids in empty.items()
                    ],
                },
                indent=1,
            )
        )
        return 1 if causes else 0
    imported = jube_run(meta)
    where = jube_origin(meta) if imported else f"platform {meta.get('platform')}"
    print(f"run {shown(run.dir)} ({meta.get('name')}, {where})")
    words = JUBE_STATES if imported else {}
    for step, states in per_step.items():
        parts = ", ".join(f"{states[s]} {words.get(s, s)}" for s in STATES if states.get(s))
        print(f"  {step}: {parts}")
    if causes:
        total = sum(len(c.ids) for c in causes)
        print(f"  {total} failed, {len(causes)} cause(s):")
    for cause in causes:
        print(f"    {len(cause.ids)} x {cause.step}: {cause.text}")
        print(f"      workpackage {id_list(cause.ids)}; {_outputs(run, cause.workdir)}")
    for reason, ids in empty.items():
        print(f"  analysers found nothing usable ({reason}): workpackage {id_list(ids)}")
    return 1 if causes else 0


def _outputs(run: Run, workdir: str) -> str:
    """Where a failed workpackage's outputs are: an imported run has none of its own."""
    if run.meta.get("imported_outputs") != "no":
        return f"outputs in {workdir}"
    there = run.meta.get("jube_directory")
    inside = Path(workdir).relative_to(run.dir)
    return "outputs not imported" + (f" (they were in {Path(there) / inside})" if there else "")


def _params(run: Run, cause: Cause) -> dict[str, str]:
    """The parameters of a cause's first workpackage (the values it failed with)."""
    (wp,) = run.store.workpackages(ids=[min(cause.ids)])
    return {k: str(v) for k, v in wp.point.items()}
