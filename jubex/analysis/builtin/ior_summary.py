"""IOR's machine-readable summaries: ``-O summaryFormat=JSON`` and ``-O summaryFormat=CSV``.

The JSON summary is one document (on stdout or in the ``-O summaryFile``); the CSV format
prints only the per-iteration rows, one header per test. Both give the names IOR's text
output gives, so tables do not care which format a run printed.
"""

from __future__ import annotations

import csv
import json
import math
import re

from jubex.analysis.builtin.common import Collector, cut, failure, line_at
from jubex.analysis.measurement import Metric, ParseResult
from jubex.store.measurement import Value

MiB = 2**20
OPS = ("write", "read")
CLUES = ("ERROR", "Error invalid argument", "Invalid options")
ERRORS = re.compile(
    r"^(?:ior )?ERROR\b(?! INVALID)|^Error invalid argument|^Invalid options", re.MULTILINE
)
_CSV_COLUMNS = {  # CSV header -> name suffix (per operation)
    "bw(MiB/s)": "bw",
    "IOPS": "iops",
    "Latency": "latency",
    "open(s)": "open",
    "wr/rd(s)": "wrrd",
    "close(s)": "close",
    "total(s)": "total",
}


def as_bytes(value: float | None, factor: int) -> float | None:
    """``value`` units of ``factor`` bytes, as whole bytes when it is finite."""
    if value is None:
        return None
    size = value * factor
    return round(size) if math.isfinite(size) else size


def parse_json(text: str, metrics: dict[str, Metric]) -> ParseResult:
    """``-O summaryFormat=JSON``: one JSON document, on stdout or in the summary file."""
    out = Collector(metrics)
    start = text.index("{")
    try:
        document, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError) as exc:
        reason = failure(text, ERRORS, CLUES) or (
            f"IOR JSON output is not valid JSON (truncated run?): {_short(exc)}"
        )
        return out.result(reason)
    if not isinstance(document, dict):
        return out.result("IOR JSON output is not a JSON object")
    tests = _objects(document.get("tests"))
    ids = {_id(test.get("TestID"), i): i for i, test in enumerate(tests)}
    for record, test in enumerate(tests):
        _json_results(test.get("Results"), record, out)
    settings: dict[int, dict[str, Value]] = {}
    for entry in _objects(document.get("summary")):
        record = ids.get(_id(entry.get("TestID"), 0), 0)
        _json_summary(entry, record, out, settings.setdefault(record, {}))
    version = document.get("Version")
    for record, values in sorted(settings.items()):
        if isinstance(version, str) and version:
            values["version"] = f"IOR-{version}"
        out.add_all(values.items(), record)
    reason = failure(text[end:], ERRORS, CLUES) or failure(text[:start], ERRORS, CLUES)
    if not reason and not tests:
        reason = "no results: the IOR JSON output has no tests"
    elif not reason and "Finished" not in document:
        reason = "IOR JSON output has no 'Finished' entry (truncated run?)"
    return out.result(reason)


def _short(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) else "nested too deeply"


def _objects(value: object) -> list[dict[str, object]]:
    """The JSON objects of a list (IOR nests result rows in lists of lists)."""
    if not isinstance(value, list):
        return []
    flat = [v for item in value for v in (item if isinstance(item, list) else [item])]
    return [item for item in flat if isinstance(item, dict)]


def _id(value: object, default: int) -> int | str:
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else default


def _json_results(results: object, record: int, out: Collector) -> None:
    keys = {"bwMiB": "bw", "iops": "iops", "latency": "latency", "openTime": "open"}
    keys |= {"wrRdTime": "wrrd", "closeTime": "close", "totalTime": "total"}
    count: dict[str, int] = {}
    for row in _objects(results):
        op = row.get("access")
        if op == "remove" and "totalTime" in row:  # IOR 3.3's JSON has a row for it
            out.number("remove_total", row["totalTime"], record)
        if op not in OPS:
            continue
        iteration = count[op] = count.get(op, -1) + 1
        if iteration == max(count.values()) and list(count.values()).count(iteration) == 1:
            out.add("iteration", iteration, record)
        for key, name in keys.items():
            if key in row:
                out.number(f"{op}_{name}", row[key], record)


def _json_summary(
    entry: dict[str, object], record: int, out: Collector, settings: dict[str, Value]
) -> None:
    op = entry.get("operation")
    if op not in OPS:
        return
    stats = {"bwMaxMIB": "max", "bwMinMIB": "min", "bwMeanMIB": "mean", "bwStdMIB": "std"}
    stats |= {"OPsMax": "ops_max", "OPsMin": "ops_min", "OPsMean": "ops_mean", "OPsSD": "ops_std"}
    stats["MeanTime"] = "time_mean"
    for key, name in stats.items():
        if key in entry:
            out.number(f"{op}_{name}", entry[key], record)
    names = {"numTasks": "tasks", "tasksPerNode": "tasks_per_node", "repetitions": "repetitions"}
    names |= {"filePerProc": "fpp", "reorderTasks": "reorder", "segmentCount": "segments"}
    names |= {"blockSize": "block_size", "transferSize": "transfer_size"}
    settings.update((n, out.value(n, entry[k])) for k, n in names.items() if k in entry)
    if isinstance(api := entry.get("API"), str):
        settings["api"] = api
    if "xsizeMiB" in entry:
        settings["aggregate_size"] = as_bytes(out.value("aggregate_size", entry["xsizeMiB"]), MiB)


def parse_csv(text: str, start: int, metrics: dict[str, Metric]) -> ParseResult:
    """``-O summaryFormat=CSV``: a header per test, then one row per operation and iteration.

    IOR prints no end mark in this format: an output cut at a line break after a whole
    iteration cannot be told from a run with fewer iterations. A row cut short, or an
    iteration that lacks an operation the others have, is seen.
    """
    out = Collector(metrics)
    record, columns = -1, []
    ops: dict[int, dict[int | float, set[str]]] = {}
    first = line_at(text, start)
    for number_, line in enumerate(text[start:].splitlines(), start=first):
        try:
            row = next(csv.reader([line]), [])
        except csv.Error as exc:  # a field beyond csv's limit of 131,072 characters
            out.problem(f"a line that is no CSV row ({exc}): {line[:40]!r}", number_)
            continue
        if row[:2] == ["access", "bw(MiB/s)"]:
            record, columns = record + 1, row
        elif row and row[0] in OPS and record >= 0:
            if len(row) != len(columns):
                out.problem(f"a row of {len(row)} fields under a header of {len(columns)}", number_)
                continue
            _csv_row(dict(zip(columns, row, strict=True)), record, number_, out, ops)
    reason = failure(text, ERRORS, CLUES)
    if not reason and not ops:
        reason = "no results: IOR printed no CSV result rows"
    elif not reason and cut(text):
        reason = "output ends in the middle of a line (truncated run?)"
    elif not reason:
        reason = _csv_incomplete(ops)
    return out.result(reason)


def _csv_row(
    row: dict[str, str],
    record: int,
    line: int,
    out: Collector,
    ops: dict[int, dict[int | float, set[str]]],
) -> None:
    op = row["access"]
    iteration = out.value("iteration", row.get("iter", "0"), line)
    if iteration is None:
        return
    seen = ops.setdefault(record, {})
    if iteration not in seen:
        out.add("iteration", iteration, record)
    seen.setdefault(iteration, set()).add(op)
    for column, suffix in _CSV_COLUMNS.items():
        if column in row:
            out.number(f"{op}_{suffix}", row[column], record, line=line)
    if iteration == min(seen):
        settings = {"block(KiB)": "block_size", "xfer(KiB)": "transfer_size"}
        for column, name in settings.items():
            if column in row:
                value = as_bytes(out.value(name, row[column], line), 1024)
                if name not in out.names(record):
                    out.add(name, value, record, line=line)
        if "numTasks" in row and "tasks" not in out.names(record):
            out.add("tasks", out.value("tasks", row["numTasks"], line), record, line=line)


def _csv_incomplete(ops: dict[int, dict[int | float, set[str]]]) -> str:
    """Why the CSV rows are not whole iterations, or ``""``."""
    for iterations in ops.values():
        expected = set().union(*iterations.values())
        for iteration, done in iterations.items():
            if done != expected:
                missing = ", ".join(sorted(expected - done))
                return f"iteration {iteration} has no {missing} row (truncated run?)"
    return ""
