"""mdtest 1.8 / 1.9 / 3.x / 4.x (and jubex-md, which prints mdtest's layout).

The SUMMARY rate table gives max, min, mean and standard deviation per operation over the
iterations, in operations per second. The time table (``-P`` / ``-Z``; mdtest 4 labels it
``ms/op``, but its values are the seconds each phase took, as the per-rank CSV confirms)
gives the same statistics in seconds. A row of zeros is an operation that did not run
(mdtest prints every row), so it is left out rather than reported as a zero rate.
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
_CLUES = ("ERROR", "Error ", "Invalid options")
_ERRORS = re.compile(r"\bERROR\b|^Error |^Invalid options", re.MULTILINE)


def _metrics() -> dict[str, Metric]:
    rates: dict[str, Metric] = {}
    times: dict[str, Metric] = {}
    for op in _OPERATIONS:
        what = op.replace("_", " ")
        for stat in _STATS:
            rates[f"{op}_{stat}"] = Metric(
                "ops/s", True if stat != "std" else None, f"{what}: {stat} rate"
            )
            times[f"{op}_time_{stat}"] = Metric(
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
    )


METRICS = _metrics()


def parse(text: str) -> ParseResult:
    text = untag(text)
    out = Collector(METRICS)
    launched = _LAUNCHED.search(text)
    if launched:
        out.add("version", f"{launched[1]}-{launched[2]}")
        line = line_at(text, launched.start())
        out.number("tasks", launched[3], line=line)
        out.number("nodes", launched[4], line=line)
    counts = _COUNTS.search(text)
    if counts:
        line = line_at(text, counts.start())
        if not launched:
            out.number("tasks", counts[1], line=line)
        for kind in ("files", "directories"):
            if kind in counts[3]:
                out.number(kind, counts[2], line=line)
    rows = _tables(text, out)
    reason = failure(text, _ERRORS, _CLUES)
    if not reason and not launched and not rows:
        reason = "not mdtest output: no 'mdtest-x.y was launched with' line and no SUMMARY table"
    elif not reason and not rows:
        reason = "no SUMMARY table: mdtest did not finish (truncated run?)"
    elif not reason and "-- started at" in text and "-- finished at" not in text:
        reason = "output ends before mdtest's '-- finished at' line (truncated run?)"
    elif not reason and _ROW.match(cut(text)):
        reason = "output ends in the middle of a SUMMARY row (truncated run?)"
    return out.result(reason)


def _tables(text: str, out: Collector) -> int:
    """Add the SUMMARY tables' rows; the number of rate rows found."""
    rate_rows = 0
    headers = list(_SUMMARY.finditer(text))
    for index, header in enumerate(headers):
        first = line_at(text, header.start())
        if index == 0:
            out.number("iterations", header[2], line=first)
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        timing = header[1] == "time"
        for offset, line in enumerate(text[header.end() : end].splitlines()):
            row = _ROW.match(line)
            if not row:
                if _ROW_START.match(line):
                    out.problem(
                        f"a SUMMARY row that is not 4 numbers: {line.strip()[:60]!r}",
                        first + offset,
                    )
                continue
            values = [number(v) for v in row.groups()[2:]]
            if not any(values):
                continue
            op = snake(f"{row[1]} {row[2]}")
            prefix = f"{op}_time" if timing else op
            for stat, value in zip(_STATS, values, strict=True):
                out.add(f"{prefix}_{stat}", value, line=first + offset)
            rate_rows += not timing
    return rate_rows


ANALYSER = BuiltinAnalyser(
    name="mdtest",
    description="mdtest 1.8-4.x SUMMARY tables (also jubex-md, which prints mdtest's layout)",
    parse=parse,
    metrics=METRICS,
)
