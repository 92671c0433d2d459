"""``jubex run --dry-run``: every workpackage as the run would render it; nothing written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jubex.api import DryWorkpackage, dry_run
from jubex.space.plan import HELD, SHARED
from jubex.space.spec import RunSpec
from jubex.workdir.writer import STOPS


def show_dry_run(
    spec: RunSpec, style: str, max_workpackages: int | None = None, earlier: int = 0
) -> int:
    """Print the dry run as text (commands and files) or as one JSON document; ``earlier``
    runs would be made in its outpath before it."""
    items = map(_warned, dry_run(spec, max_workpackages=max_workpackages, earlier=earlier))
    if style == "json":
        found = [_as_dict(item) for item in items]
        print(json.dumps({"platform": spec.platform.name, "workpackages": found}, indent=1))
        return 0
    count = 0
    for item in items:
        _print(item)
        count += 1
    print(
        f"{count} workpackage(s) would run on platform '{spec.platform.name}'; nothing was written"
    )
    return 0


def _warned(item: DryWorkpackage) -> DryWorkpackage:
    """The item, its warnings said on stderr as the run would say them."""
    for warning in item.warnings:
        print(warning, file=sys.stderr)
    return item


def _commands(item: DryWorkpackage) -> list[list[str]]:
    return [[c.text for c in cycle] for cycle in item.rendered.prepared.cycles]


def _as_dict(item: DryWorkpackage) -> dict[str, object]:
    wp = item.rendered.wp
    job = [text for path, text in item.scripts.items() if path.name == "job.sh"]
    return {
        "id": wp.id,
        "step": wp.step,
        "iteration": wp.iteration,
        "shared": wp.kind == SHARED,
        "held": wp.state == HELD,
        "parameters": {k: str(v) for k, v in _kept(item).items()},
        "work_dir": str(item.rendered.prepared.workdir),
        "commands": [text for cycle in _commands(item) for text in cycle],
        "cycles": _commands(item),
        "files": item.actions,
        "job_script": job[0] if job else None,
    }


def _kept(item: DryWorkpackage) -> dict[str, object]:
    """The values the run would keep for the workpackage: a parameter its cycles evaluate
    again (``update_mode="cycle"``) as the last cycle leaves it, as the run stores it."""
    return {**item.rendered.wp.point, **item.rendered.prepared.updated}


def _print(item: DryWorkpackage) -> None:
    wp = item.rendered.wp
    label = " ".join(f"{k}={v}" for k, v in _kept(item).items())
    shared = " (shared)" if wp.kind == SHARED else ""
    held = " (held: runs only if its point needs it)" if wp.state == HELD else ""
    print(f"wp {wp.id} {wp.step}{shared} iteration {wp.iteration}{held}  {label}")
    print(f"  in {item.rendered.prepared.workdir}")
    for action in item.actions:
        if action.endswith(STOPS):
            print(f"  ! {action}")
    cycles = _commands(item)
    for number, commands in enumerate(cycles):
        if len(cycles) > 1:
            print(f"  cycle {number}:")
        for text in commands:
            print("  $ " + text.replace("\n", "\n    "))
    for path, text in item.scripts.items():
        if Path(path).name == "job.sh":
            print(f"  job script {path}:")
            print("    " + text.rstrip("\n").replace("\n", "\n    "))
