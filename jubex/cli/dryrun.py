"""``jubex run --dry-run``: the workpackages as the run would render them; nothing written.

The first :data:`SHOWN` are rendered and shown, the others counted from the space (a range
of a million values is not rendered a million times), and the output says how many.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from jubex.api import VALIDATE_RENDERED, DryWorkpackage, dry_run
from jubex.space.limit import count_text, count_work
from jubex.space.plan import HELD, SHARED
from jubex.space.spec import RunSpec
from jubex.workdir.writer import STOPS

#: workpackages a dry run shows unless ``--all``: as many as validate renders
SHOWN = VALIDATE_RENDERED
#: benchmarks of a file a dry run plans unless ``--all`` (each is read, resolved and
#: planned: a file of 1,000 small ones took 3.5 s)
SHOWN_BENCHMARKS = 100


def show_dry_run(
    spec: RunSpec,
    style: str,
    max_workpackages: int | None = None,
    earlier: int = 0,
    shown: int | None = SHOWN,
) -> int:
    """Print the dry run as text (commands and files) or as one JSON document; ``earlier``
    runs would be made in its outpath before it. Only the first ``shown`` workpackages
    (None: all) are rendered, the others counted, and the output says how many it left
    out. Returns how many it showed."""
    planned = dry_run(spec, max_workpackages=max_workpackages, earlier=earlier)
    items = map(_warned, islice(planned, shown))
    if style == "json":
        found = [_as_dict(item) for item in items]
        rest = _rest(spec, planned, len(found))
        document = {
            "platform": spec.platform.name,
            "workpackages": found,
            "not_shown": rest.count,
            "not_shown_exact": rest.exact,
        }
        print(json.dumps(document, indent=1))
        return len(found)
    count = 0
    for item in items:
        _print(item)
        count += 1
    rest = _rest(spec, planned, count)
    total = f"{count:,}"
    if rest.count != 0:
        bound = "" if rest.exact else "up to "
        more = "" if rest.count is None else f"{bound}{count_text(rest.count)} "
        which = f"the first {count:,}"
        if shown != SHOWN:  # the rest of what the file's earlier benchmarks left
            which = f"{SHOWN:,} in all, {count:,} of them here"
        print(
            f"... {more}more workpackage(s) not shown: the dry run shows {which} "
            "(--all shows every one)"
        )
        whole = None if rest.count is None else count + rest.count
        total = f"more than {total}" if whole is None else bound + count_text(whole)
    print(
        f"{total} workpackage(s) would run on platform '{spec.platform.name}'; nothing was written"
    )
    return count


@dataclass(frozen=True)
class _Rest:
    """The workpackages a dry run did not show: counted as the limit counts them (an upper
    bound where constraints or an ``active`` condition may drop some; None where values
    worked out per point make more than the lists' lengths say)."""

    count: int | None
    exact: bool


def _rest(spec: RunSpec, planned: Iterator[DryWorkpackage], shown: int) -> _Rest:
    """What is left of the plan once ``shown`` were shown: nothing, or its count."""
    if next(planned, None) is None:
        return _Rest(0, True)
    steps = count_work(spec.benchmark, overrides=spec.overrides, tags=spec.tags)
    total = sum(s.workpackages for s in steps)
    if total <= shown:
        return _Rest(None, False)
    return _Rest(total - shown, all(s.exact for s in steps))


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
        "darshan": item.rendered.prepared.darshan,
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
    for line in item.rendered.prepared.darshan:
        print(f"  | {line}")
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
