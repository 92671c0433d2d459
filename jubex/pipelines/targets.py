"""What a continuous-benchmarking pipeline runs: each study on each platform."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jubex.definition.model import Benchmark
from jubex.errors import UsageError

#: the resources a batch job of a study asks for, at most (nodes, minutes)
_TIME = re.compile(r"^(?:(\d+)-)?(?:(\d+):)?(\d+)(?::(\d+))?$")


@dataclass(frozen=True)
class Target:
    """One study on one platform: a job of each stage of the pipeline."""

    definition: str
    benchmark: str
    platform: str
    #: the study's largest resources, for a batch runner's allocation
    nodes: int
    minutes: int

    @property
    def slug(self) -> str:
        """The target's name in job names and paths: letters, digits, ``-`` and ``_``."""
        return re.sub(r"[^A-Za-z0-9_-]+", "_", f"{self.benchmark}-{self.platform}")

    @property
    def outpath(self) -> str:
        return f"runs/{self.slug}"


def targets(definitions: Sequence[str], platforms: Sequence[str]) -> list[Target]:
    """The studies on the platforms, each study loaded and checked (no code of it runs):
    a pipeline is never written for a study that would not run."""
    from jubex.api import load

    found = []
    for definition in definitions:
        path = Path(definition)
        if path.is_absolute() or ".." in path.parts:
            raise UsageError(
                f"'{definition}': a pipeline runs studies of its repository: give the "
                "definition's path relative to the repository's top (where the pipeline runs)"
            )
        benchmark = load(path)
        nodes, minutes = _largest(benchmark)
        found += [Target(definition, benchmark.name, p, nodes, minutes) for p in platforms]
    slugs = [t.slug for t in found]
    twice = sorted({s for s in slugs if slugs.count(s) > 1})
    if twice:
        raise UsageError(f"two targets would share the name '{twice[0]}': rename a benchmark")
    return found


def _largest(benchmark: Benchmark) -> tuple[int, int]:
    """The most nodes and the longest time any step of the study asks for (1 node, 60
    minutes where none is written as a number)."""
    nodes, minutes = 1, 60
    for step in benchmark.steps.values():
        given, time = step.resources.nodes, step.resources.time
        if given and given.strip().isdigit():
            nodes = max(nodes, int(given))
        if time:
            minutes = max(minutes, _minutes(time) or 0)
    return nodes, minutes


def _minutes(text: str) -> int | None:
    """``30m``, ``2h``, ``1:30:00``, ``1-00:00:00`` as whole minutes (None: unreadable)."""
    text = text.strip()
    unit = {"s": 1 / 60, "m": 1, "min": 1, "h": 60, "d": 1440}
    for suffix in ("min", "s", "m", "h", "d"):
        if text.endswith(suffix) and text[: -len(suffix)].isdigit():
            return max(1, round(int(text[: -len(suffix)]) * unit[suffix]))
    match = _TIME.match(text)
    if not match:
        return None
    days, hours, mins, secs = (int(g) if g else 0 for g in match.groups())
    if match.group(2) is None and match.group(4) is None:
        return mins
    if match.group(4) is None:
        return days * 1440 + hours * 60 + mins
    return days * 1440 + hours * 60 + mins + (1 if secs else 0)
