"""What job arrays and packs share: jobs that run several workpackages.

Workpackages share such a job only when they share a step, resolved resources and the jobs
they wait for (one job has one resource request and one dependency). Beside each job's
script a manifest lists its workpackages in order, written before the job is submitted, so
that after a crash ``reconcile`` can tell which workpackages a job found by name runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from jubex.errors import JubexError
from jubex.workdir.render import Rendered

MANIFEST = ".ids"


def batches(ready: Iterable[Rendered], size: Callable[[str], int]) -> list[list[Rendered]]:
    """Workpackages that can share one job, in id order, at most ``size(step)`` each."""
    found: dict[tuple, list[Rendered]] = {}
    for item in ready:
        resources = tuple(sorted((k, str(v)) for k, v in item.resources.items()))
        found.setdefault((item.wp.step, resources, item.depends), []).append(item)
    return [
        members[start : start + size(members[0].wp.step)]
        for members in found.values()
        for start in range(0, len(members), size(members[0].wp.step))
    ]


def write_job(script: Path, text: str, members: Sequence[Rendered], what: str) -> None:
    """The job's script, and its manifest beside it (complete or not at all)."""
    manifest = script.with_name(f"{script.stem}{MANIFEST}")
    try:
        script.parent.mkdir(exist_ok=True)
        script.write_text(text)
        manifest.with_suffix(".tmp").write_text("".join(f"{m.wp.id}\n" for m in members))
        os.replace(manifest.with_suffix(".tmp"), manifest)
    except OSError as exc:
        raise JubexError(f"cannot write the {what} script {script}: {exc.strerror}") from None


def read_manifests(directory: Path) -> dict[int, tuple[str, int]]:
    """Workpackage id -> (job name, place in the job), from every manifest, newest winning."""
    try:
        paths = sorted(directory.glob(f"*{MANIFEST}"), key=lambda p: (p.stat().st_mtime, p.name))
    except OSError:
        return {}
    found: dict[int, tuple[str, int]] = {}
    for path in paths:
        try:
            ids = path.read_text().split()
        except OSError:
            continue
        name = path.name[: -len(MANIFEST)]
        found.update({int(wp): (name, i) for i, wp in enumerate(ids) if wp.isdigit()})
    return found
