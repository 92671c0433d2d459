"""mdtest 1.8 / 1.9 / 3.x / 4.x (and jubex-md, which prints mdtest's layout).

Every mdtest run in the output is one record (0, 1, ...): job logs often hold several runs
appended, as IOR's tests are. The SUMMARY rate table gives max, min, mean and standard
deviation per operation over the iterations, in operations per second; the stonewall row
(``File create (stonewall)``: only a mean, the rate until the stonewall) is kept too. The
time table (``-P`` / ``-Z``; mdtest 4 labels it ``ms/op``, but its values are the seconds
each phase took, as the per-rank CSV confirms) gives the same statistics in seconds. A row
of zeros is an operation that did not run (mdtest prints every row), so it is left out
rather than reported as a zero rate.
"""

from __future__ import annotations

import re

from jubex.analysis.builtin.common import (
    FP,
    Collector,
    cut,
    failure,
    line_at,
    metrics,
    number,
    snake,
    untag,
)
from jubex.analysis.measurement import BuiltinAnalyser, Metric, ParseResult

_OPERATIONS = [
    f"{kind}_{action}"
    for kind, actions in (
        ("directory", ("creation", "stat", "read", "rename", "removal")),
        ("file", ("creation", "stat", "read", "rename", "removal")),
        ("tree", ("creation", "removal")),
    )
    for action in actions
]
_STATS = ("max", "min", "mean", "std")

_LAUNCHED = re.compile(
    r"^(\S+?)[- ](\d\S*) was launched with (\d+) total task\(s\) on (\d+) node", re.MULTILINE
)
_COUNTS = re.compile(r"^(\d+) tasks, (\d+) (files/directories|files|directories)\b", re.MULTILINE)
_SUMMARY = re.compile(r"^SUMMARY\s*(rate|time)?\b.*?\(of (\d+) iterations?\)", re.MULTILINE)
_ROW = re.compile(
    rf"^\s*(Directory|File|Tree)\s+(creation|stat|read|rename|removal)\s*:?"
    rf"\s+({FP})\s+({FP})\s+({FP})\s+({FP})\s*$"
)
_ROW_START = re.compile(r"^\s*(?:Directory|File|Tree)\s+(?:creation|stat|read|rename|removal)\b")
_STONEWALL_START = re.compile(r"^\s*(?:Directory|File) create \(stonewall\)")
#: mdtest 3.3+: ``File create (stonewall)   :   NA   NA   810555.174   NA``
_STONEWALL = re.compile(
    rf"^\s*(Directory|File) create \(stonewall\)\s*:?\s+NA\s+NA\s+({FP})\s+NA\s*$"
)
#: where a run begins: mdtest prints its start time first, its launch line next
_RUN = re.compile(r"^-- started at ", re.MULTILINE)
#: mdtest's own error lines: ``ERROR``, ``Error ``, and lower case in 3.x (``error could not
#: create directory '...'``)
_CLUES = ("ERROR", "Error ", "error ", "Invalid options")
_ERRORS = re.compile(r"\bERROR\b|^Error |^error |^Invalid options", re.MULTILINE)


def _metrics() -> dict[str, Metric]:
    rates: dict[str, Metric] = {}
    times: dict[str, Metric] = {}
    for op in _OPERATIONS:
        what = op.replace("_", " ")
        for stat in _STATS:
            higher = None if stat == "std" else True
            rates[f"{op}_{stat}"] = _summary("ops/s", higher, f"{what}: {stat} rate")
            times[f"{op}_time_{stat}"] = _summary(
                "s", False if stat != "std" else None, f"{what}: {stat} time"
            )
    return metrics(
        rates,
        times,
        {
            "tasks": Metric("", None, "MPI tasks"),
            "nodes": Metric("", None, "nodes the tasks ran on"),
            "files": Metric("", None, "files in total (all tasks)"),
            "directories": Metric("", None, "directories in total (all tasks)"),
            "iterations": Metric("", None, "iterations the statistics are over (-i)"),
            "version": Metric("", None, "program and version, e.g. mdtest-4.1.0"),
        },
        {
            f"{kind}_creation_stonewall": _summary(
                "ops/s", True, f"{kind} creation rate until the stonewall (-W)"
            )
            for kind in ("directory", "file")
        },
        {
            f"{kind}_creation_stonewall_time": _summary(
                "s", None, f"{kind} creation time until the stonewall (-W)"
            )
            for kind in ("directory", "file")
        },
    )


def _summary(unit: str, higher: bool | None, help: str) -> Metric:
    """A value of the SUMMARY tables: mdtest's own statistic over its iterations (``-i``),
    which it prints no value of each (not a sample per iteration)."""
    return Metric(unit, higher, f"{help} over the iterations", summary_over="iterations")


METRICS = _metrics()


def parse(text: str) -> ParseResult:
    text = untag(text)
    out = Collector(METRICS)
    starts = [m.start() for m in _RUN.finditer(text)][1:] or [
        m.start() for m in _LAUNCHED.finditer(text)
    ][1:]
    bounds = list(zip([0, *starts], [*starts, len(text)], strict=True))
    reasons = []
    for record, (begin, end) in enumerate(bounds):
        reason = _parse_run(text[begin:end], record, line_at(text, begin) - 1, out)
        if reason and len(bounds) > 1:
            reason = f"run {record + 1} of {len(bounds)} (line {line_at(text, begin)}): {reason}"
        if reason:
            reasons.append(reason)
    return out.result("; ".join(reasons))


def _parse_run(text: str, record: int, offset: int, out: Collector) -> str:
    """Add one mdtest run's values as ``record``; why it failed, or ``""``.

    ``offset`` is the number of lines before the run, for the line numbers of problems.
    """
    launched = _LAUNCHED.search(text)
    if launched:
        out.add("version", f"{launched[1]}-{launched[2]}", record)
        line = offset + line_at(text, launched.start())
        out.number("tasks", launched[3], record, line=line)
        out.number("nodes", launched[4], record, line=line)
    counts = _COUNTS.search(text)
    if counts:
        line = offset + line_at(text, counts.start())
        if not launched:
            out.number("tasks", counts[1], record, line=line)
        for kind in ("files", "directories"):
            if kind in counts[3]:
                out.number(kind, counts[2], record, line=line)
    rows = _tables(text, record, offset, out)
    reason = failure(text, _ERRORS, _CLUES)
    if not reason and not launched and not rows:
        reason = "not mdtest output: no 'mdtest-x.y was launched with' line and no SUMMARY table"
    elif not reason and not rows:
        reason = "no SUMMARY table: mdtest did not finish (truncated run?)"
    elif not reason and "-- started at" in text and "-- finished at" not in text:
        reason = "output ends before mdtest's '-- finished at' line (truncated run?)"
    elif not reason and _ROW.match(cut(text)):
        reason = "output ends in the middle of a SUMMARY row (truncated run?)"
    return reason


def _tables(text: str, record: int, offset: int, out: Collector) -> int:
    """Add the SUMMARY tables' rows; the number of rate rows found."""
    rate_rows = 0
    headers = list(_SUMMARY.finditer(text))
    for index, header in enumerate(headers):
        first = offset + line_at(text, header.start())
        if index == 0:
            out.number("iterations", header[2], record, line=first)
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        timing = header[1] == "time"
        for index_, line in enumerate(text[header.end() : end].splitlines()):
            row = _ROW.match(line)
            if (stonewall := _STONEWALL.match(line)) is not None:
                name = f"{stonewall[1].lower()}_creation_stonewall" + ("_time" if timing else "")
                out.number(name, stonewall[2], record, line=first + index_)
                continue
            if not row:
                if _ROW_START.match(line):
                    out.problem(
                        f"a SUMMARY row that is not 4 numbers: {line.strip()[:60]!r}",
                        first + index_,
                    )
                elif _STONEWALL_START.match(line):
                    out.problem(
                        f"a stonewall row that is not 'NA NA <number> NA': {line.strip()[:60]!r}",
                        first + index_,
                    )
                continue
            values = [number(v) for v in row.groups()[2:]]
            if not any(values):
                continue
            op = snake(f"{row[1]} {row[2]}")
            prefix = f"{op}_time" if timing else op
            for stat, value in zip(_STATS, values, strict=True):
                out.add(f"{prefix}_{stat}", value, record, line=first + index_)
            rate_rows += not timing
    return rate_rows


ANALYSER = BuiltinAnalyser(
    name="mdtest",
    description="mdtest 1.8-4.x SUMMARY tables (also jubex-md, which prints mdtest's layout)",
    parse=parse,
    metrics=METRICS,
)
