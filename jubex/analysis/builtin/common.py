"""What the built-in analysers share: MPI rank tags, failure lines, a typed collector."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from jubex.analysis.measurement import Metric, ParseResult
from jubex.language.messages import NOISE, ROOT_CAUSES, stops_mid_sentence, whole_sentence
from jubex.store.measurement import Measurement

#: a floating point number as benchmarks print it; each digit can belong to one part only,
#: so that a long run of digits that does not match fails in linear time
FP = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"

#: no counter, size or rate these programs keep goes beyond what 64 bits hold; a larger
#: value is a corrupt output (and would overflow the statistics taken over it)
LIMIT = 2.0**64

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
    "was unable to find the specified executable",
    "was unable to launch",
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
        return _with_root_cause(text, _line(text, match.start(), match.end()))
    found = [(i, len(a)) for a in _ABORTS if (i := _first(text, a)) >= 0]
    if found:
        start, length = min(found)
        return _with_root_cause(text, _line(text, start, start + length))
    return ""


def _first(text: str, clue: str) -> int:
    """Where ``clue`` first stands in a line that is not harmless noise; -1 when nowhere."""
    at = text.find(clue)
    while at >= 0 and NOISE.search(_line(text, at, at + len(clue), whole=False)):
        at = text.find(clue, at + len(clue))
    return at


def _with_root_cause(text: str, reason: str) -> str:
    """``reason``, or the line naming a root cause such as a full file system."""
    for cause in ROOT_CAUSES:
        if cause not in reason and (at := text.find(cause)) >= 0:
            return _line(text, at, at + len(cause))
    return reason


def _line(text: str, start: int, end: int, whole: bool = True) -> str:
    """The line holding ``text[start:end]``; ``whole``: with the lines that finish its
    sentence, so that a message wrapped over lines is quoted whole, not cut mid-sentence."""
    begin = text.rfind("\n", 0, start) + 1
    stop = text.find("\n", end)
    line = text[begin : len(text) if stop < 0 else stop].strip()
    if not whole or stop < 0 or not stops_mid_sentence(line):
        return line
    following = text[stop + 1 : stop + 2000].splitlines()[:4]
    return " ".join(whole_sentence([line, *(f.strip() for f in following)], 0))


def number(raw: object) -> int | float | None:
    """A printed (or JSON) number, as int when it is written as one; None when it is none."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return raw
    if not isinstance(raw, str):
        return None
    return _text_number(raw)


def _text_number(raw: str) -> int | float | None:
    """:func:`number` of a text."""
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        return float(raw)
    except ValueError:
        return None


def cut(text: str) -> str:
    """The last line when the output ends without its newline (cut mid-line), else ``""``."""
    if not text or text.endswith("\n"):
        return ""
    return text[text.rfind("\n") + 1 :]


def line_at(text: str, position: int) -> int:
    """The 1-based number of the line holding ``text[position]``."""
    return text.count("\n", 0, position) + 1


def snake(text: str) -> str:
    """A name as jubex spells it: ``Directory creation`` -> ``directory_creation``."""
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")


class Collector:
    """Measurements in the order found, each with the unit its metric declares.

    A number that is not one, or is not finite, negative or beyond :data:`LIMIT`, is a
    problem of the output: it is kept as missing (``None``; a per-iteration value is left
    out, as statistics cannot be taken over a hole) and makes the result not ok.
    """

    def __init__(self, metrics: dict[str, Metric]) -> None:
        self.metrics = metrics
        self.measurements: list[Measurement] = []
        self.problems: list[str] = []

    def add(
        self,
        name: str,
        value: float | int | str | bool | None,
        record: int = 0,
        unit: str | None = None,
        line: int = 0,
    ) -> None:
        if unit is None:
            unit = self.metrics[name].unit
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = self.checked(name, value, line)
        if value is None and name in self.metrics and self.metrics[name].repeated:
            return
        self.measurements.append(Measurement(name, value, unit, record))

    def number(
        self,
        name: str,
        raw: object,
        record: int = 0,
        unit: str | None = None,
        line: int = 0,
        scale: float = 1,
    ) -> None:
        """Add ``raw`` (printed text or a JSON value) as a number, times ``scale``; a rate is
        a float however it was printed (IOR prints ``3785`` when it drops the decimals)."""
        metric = self.metrics.get(name)
        if metric is not None and scale == 1 and type(raw) is str:  # the common case, fast
            value = _text_number(raw)
            if value is not None and 0 <= value <= LIMIT:
                if "/s" in metric.unit:
                    value = float(value)
                unit = metric.unit if unit is None else unit
                self.measurements.append(Measurement(name, value, unit, record))
                return
        value = self.value(name, raw, line)
        if value is not None and name in self.metrics and "/s" in self.metrics[name].unit:
            value = float(value)
        self.add(name, value if value is None or scale == 1 else value * scale, record, unit, line)

    def value(self, name: str, raw: object, line: int = 0) -> int | float | None:
        """``raw`` as a number; None, and a problem noted, when it is not a valid one."""
        value = number(raw)
        if value is None:
            self.problem(f"{name} is {_shown(raw)}, not a number", line)
            return None
        return self.checked(name, value, line, raw)

    def checked(self, name: str, value: float, line: int = 0, raw: object = None) -> float | None:
        """``value``, or None and a problem when it is no finite, non-negative measurement."""
        if 0 <= value <= LIMIT:  # False for nan, too
            return value
        if value < 0:
            what = "negative"
        elif isinstance(value, int) or math.isfinite(value):
            what = "too large to be a measurement"
        else:
            what = "not finite"
        self.problem(f"{name} is {_shown(value if raw is None else raw)}: {what}", line)
        return None

    def problem(self, text: str, line: int = 0) -> None:
        self.problems.append(f"line {line}: {text}" if line else text)

    def add_all(
        self, items: Iterable[tuple[str, float | int | str | bool | None]], record: int
    ) -> None:
        for name, value in items:
            self.add(name, value, record)

    def names(self, record: int) -> set[str]:
        return {m.name for m in self.measurements if m.record == record}

    def result(self, reason: str = "") -> ParseResult:
        """The measurements; not ok when ``reason`` says why or the output had problems."""
        problems = "; ".join(self.problems[:3])
        if len(self.problems) > 3:
            problems += f" (and {len(self.problems) - 3} more)"
        text = "; ".join(part for part in (reason, problems) if part)
        return ParseResult(self.measurements, ok=not text, reason=text)


def _shown(raw: object) -> str:
    """A value as quoted in a reason, cut short when it is long."""
    text = repr(raw) if isinstance(raw, str) else str(raw)
    return text if len(text) <= 40 else f"{text[:37]}..."


def metrics(*groups: dict[str, Metric]) -> dict[str, Metric]:
    """One metrics table from several (kept in order, for the documentation)."""
    out: dict[str, Metric] = {}
    for group in groups:
        out.update(group)
    return out
