"""What the built-in analysers share: MPI rank tags, failure lines, a typed collector."""

from __future__ import annotations

import re
from collections.abc import Iterable

from jubex.analysis.measurement import Metric, ParseResult
from jubex.store.measurement import Measurement

#: a floating point number as benchmarks print it
FP = r"[+-]?(?:\d*\.?\d+(?:[eE][-+]?\d+)?|\d+\.)"

# Open MPI --tag-output (``[1,0]<stdout>:``) and srun/mpirun -l (``0: ``, ``0000: ``)
_RANK_TAG = re.compile(r"^(?:\[\d+,\d+\]<std(?:out|err)>:|\d+: ?)", re.MULTILINE)
_TAG_HINT = re.compile(r"\n(?:\[\d+,\d+\]<std|\d+:)")  # starts with a literal: fast to search

# The launcher or the batch system saying the job died; quoted when the program said nothing.
# Plain texts: searching for each is several times faster than one regex alternation.
_ABORTS = (
    "MPI_ABORT was invoked",
    "mpirun detected that one or more processes exited",
    "mpirun noticed that process rank",
    "a non-zero exit code",
    "srun: error:",
    "Segmentation fault",
    "Bus error",
    "Killed",
    "DUE TO TIME LIMIT",
    "CANCELLED AT",
    "oom-kill",
    "Out Of Memory",
)


def untag(text: str) -> str:
    """The output without MPI rank tags, so that tagged and plain output parse alike."""
    if _RANK_TAG.match(text) or _TAG_HINT.search(text):
        return _RANK_TAG.sub("", text)
    return text


def failure(text: str, errors: re.Pattern[str], clues: tuple[str, ...]) -> str:
    """The line that says why a run failed: the program's own error first, else the abort.

    ``errors`` is only searched when one of the ``clues`` (texts every error line holds)
    is in the output at all, which is rare and keeps complete outputs fast.
    """
    match = errors.search(text) if any(clue in text for clue in clues) else None
    if match is not None:
        return _line(text, match.start(), match.end())
    found = [(i, len(a)) for a in _ABORTS if (i := text.find(a)) >= 0]
    if found:
        start, length = min(found)
        return _line(text, start, start + length)
    return ""


def _line(text: str, start: int, end: int) -> str:
    begin = text.rfind("\n", 0, start) + 1
    stop = text.find("\n", end)
    return text[begin : len(text) if stop < 0 else stop].strip()


def number(text: str) -> int | float:
    """A printed number, as int when it is written as one."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def snake(text: str) -> str:
    """A name as jubex spells it: ``Directory creation`` -> ``directory_creation``."""
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")


class Collector:
    """Measurements in the order found, each with the unit its metric declares."""

    def __init__(self, metrics: dict[str, Metric]) -> None:
        self.metrics = metrics
        self.measurements: list[Measurement] = []

    def add(
        self, name: str, value: float | int | str | bool, record: int = 0, unit: str | None = None
    ) -> None:
        if unit is None:
            unit = self.metrics[name].unit
        self.measurements.append(Measurement(name, value, unit, record))

    def add_all(self, items: Iterable[tuple[str, float | int | str | bool]], record: int) -> None:
        for name, value in items:
            self.add(name, value, record)

    def names(self, record: int) -> set[str]:
        return {m.name for m in self.measurements if m.record == record}

    def result(self, reason: str = "") -> ParseResult:
        return ParseResult(self.measurements, ok=not reason, reason=reason)


def metrics(*groups: dict[str, Metric]) -> dict[str, Metric]:
    """One metrics table from several (kept in order, for the documentation)."""
    out: dict[str, Metric] = {}
    for group in groups:
        out.update(group)
    return out
