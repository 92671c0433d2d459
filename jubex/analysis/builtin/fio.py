"""fio 3.x: normal and JSON output (``--output-format=normal|json``).

One record per job, in the order fio reports them, then one record per reporting group
(the "Run status group" totals; from JSON they are computed the way fio computes that line:
all bytes of the group over its longest runtime). Directions a job did not run (zero bytes)
are left out. Units are normalised whatever fio printed: bandwidth in MiB/s, latency in
microseconds (``us``), amounts in bytes, runtimes in seconds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from jubex.analysis import units
from jubex.analysis.builtin.common import Collector, failure, metrics, untag
from jubex.analysis.measurement import BuiltinAnalyser, Metric, ParseResult

_DIRECTIONS = ("read", "write", "trim")
_LATENCIES = ("slat", "clat", "lat")
_PERCENTILES = ("1", "5", "10", "20", "30", "40", "50", "60", "70", "80", "90", "95")
_PERCENTILES += ("99", "99_5", "99_9", "99_95", "99_99")
_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_NUM = r"[\d.]+[kKMG]?"

_JOB = re.compile(r"^(\S.*?): \(groupid=(\d+), jobs=(\d+)\): err=\s*(\d+)")
_DIRECTION = re.compile(
    rf"^\s*(read|write|trim)\s*: IOPS=({_NUM}), BW=([\d.]+)(\S+?/s)\s*(?:\([^)]*\))?\s*"
    r"\(([\d.]+)(\S*?B)/(\d+)msec\)"
)
_LATENCY = re.compile(
    rf"^\s*(slat|clat|lat)\s*\((nsec|usec|msec)\):\s*min=\s*({_NUM}),\s*max=\s*({_NUM}),"
    rf"\s*avg=\s*({_NUM}),\s*stdev=\s*({_NUM})"
)
_PERCENTILE_HEAD = re.compile(r"^\s*(clat|lat|slat) percentiles \((nsec|usec|msec)\):")
_PERCENTILE = re.compile(rf"(\d+\.\d+)th=\[\s*({_NUM})\]")
_GROUP = re.compile(r"^Run status group (\d+) \(all jobs\):")
_GROUP_LINE = re.compile(
    r"^\s*(READ|WRITE|TRIM): bw=([\d.]+)(\S+?/s).*?io=([\d.]+)(\S*?B)\b.*?run=\d+-(\d+)msec"
)
_CLUES = ("fio: ", "err=")
_ERRORS = re.compile(
    r"^fio: .*?(?:fail|error|invalid|terminat|unable|cannot|could not|bad )"
    r"|: \(groupid=\d+, jobs=\d+\): err=\s*[1-9]",
    re.MULTILINE | re.IGNORECASE,
)


def _metrics() -> dict[str, Metric]:
    out: dict[str, Metric] = {
        "job": Metric("", None, "job name"),
        "group": Metric("", None, "reporting group id"),
        "jobs": Metric("", None, "jobs this record stands for (normal output)"),
        "error": Metric("", None, "fio's error number for the job (0 = none)"),
    }
    for d in _DIRECTIONS:
        out |= {
            f"{d}_bw": Metric("MiB/s", True, f"{d} bandwidth"),
            f"{d}_iops": Metric("ops/s", True, f"{d} I/O operations per second"),
            f"{d}_io": Metric("B", None, f"bytes {d}"),
            f"{d}_runtime": Metric("s", None, f"{d} runtime"),
        }
        for kind in _LATENCIES:
            for stat in ("mean", "min", "max", "std"):
                out[f"{d}_{kind}_{stat}"] = Metric(
                    "us", False if stat != "std" else None, f"{d} {kind} {stat}"
                )
        for kind in ("clat", "lat"):
            for pct in _PERCENTILES:
                out[f"{d}_{kind}_p{pct}"] = Metric(
                    "us", False, f"{d} {kind} {pct.replace('_', '.')}th percentile"
                )
    return out


METRICS = metrics(_metrics())


def parse(text: str) -> ParseResult:
    text = untag(text)
    start = text.find("{")
    if start >= 0 and '"fio version"' in text[start : start + 200]:
        return _parse_json(text, start)
    return _parse_normal(text)


def _scaled(text: str) -> float:
    """fio's ``12.3k`` (powers of 1000)."""
    return float(text[:-1]) * _SUFFIX[text[-1]] if text[-1] in _SUFFIX else float(text)


def _parse_normal(text: str) -> ParseResult:
    out = Collector(METRICS)
    record, direction, percentiles = -1, "", ("", "")
    groups: list[str] = []
    for line in text.splitlines():
        if (job := _JOB.match(line)) is not None:
            record += 1
            out.add("job", job[1], record)
            out.add_all(
                (("group", int(job[2])), ("jobs", int(job[3])), ("error", int(job[4]))), record
            )
        elif (head := _DIRECTION.match(line)) is not None and record >= 0:
            direction = head[1]
            io = units.convert(float(head[5]), head[6], "B")
            out.add(f"{direction}_bw", units.convert(float(head[3]), head[4], "MiB/s"), record)
            out.add(f"{direction}_iops", _scaled(head[2]), record)
            out.add(f"{direction}_io", round(io), record)
            out.add(f"{direction}_runtime", int(head[7]) / 1000, record)
        elif (lat := _LATENCY.match(line)) is not None and direction:
            stats = zip(("min", "max", "mean", "std"), lat.groups()[2:], strict=True)
            out.add_all(((f"{direction}_{lat[1]}_{s}", _us(v, lat[2])) for s, v in stats), record)
        elif (head := _PERCENTILE_HEAD.match(line)) is not None:
            percentiles = (head[1], head[2])
        elif line.lstrip().startswith("|") and direction and percentiles[0]:
            for pct, value in _PERCENTILE.findall(line):
                name = f"{direction}_{percentiles[0]}_p{_pct(pct)}"
                out.add(name, _us(value, percentiles[1]), record, "us")
        elif (group := _GROUP.match(line)) is not None:
            groups.append(group[1])
            direction = ""
        elif (total := _GROUP_LINE.match(line)) is not None and groups:
            group_record = record + len(groups)
            if "group" not in out.names(group_record):
                out.add("group", int(groups[-1]), group_record)
            d = total[1].lower()
            out.add(f"{d}_bw", units.convert(float(total[2]), total[3], "MiB/s"), group_record)
            out.add(f"{d}_io", round(units.convert(float(total[4]), total[5], "B")), group_record)
            out.add(f"{d}_runtime", int(total[6]) / 1000, group_record)
    reason = failure(text, _ERRORS, _CLUES)
    if not reason and record < 0:
        reason = "not fio output: no job results ('name: (groupid=..., jobs=...)' lines)"
    elif not reason and not groups:
        reason = "output ends before fio's 'Run status group' totals (truncated run?)"
    return out.result(reason)


def _us(value: str, unit: str) -> float:
    return units.convert(_scaled(value), unit, "us")


def _pct(text: str) -> str:
    """``99.900000`` -> ``99_9``, ``50.00`` -> ``50``."""
    return text.rstrip("0").rstrip(".").replace(".", "_")


def _parse_json(text: str, start: int) -> ParseResult:
    out = Collector(METRICS)
    try:
        document, end = json.JSONDecoder().raw_decode(text, start)
    except ValueError as exc:
        return out.result(
            failure(text, _ERRORS, _CLUES)
            or f"fio JSON output is not valid JSON (truncated run?): {exc}"
        )
    jobs = [j for j in document.get("jobs", []) if isinstance(j, dict)]
    totals: dict[int, dict[str, list[float]]] = {}
    errors = []
    for record, job in enumerate(jobs):
        out.add("job", str(job.get("jobname", "")), record)
        out.add_all(
            (("group", int(job.get("groupid", 0))), ("error", int(job.get("error", 0)))), record
        )
        if job.get("error"):
            errors.append(f"job '{job.get('jobname')}' reported error {job['error']}")
        for d in _DIRECTIONS:
            _json_direction(
                job.get(d), d, record, out, totals.setdefault(int(job.get("groupid", 0)), {})
            )
    for offset, (group, by_direction) in enumerate(sorted(totals.items())):
        record = len(jobs) + offset
        out.add("group", group, record)
        for d, (io, runtime) in by_direction.items():
            out.add_all(
                (
                    (f"{d}_bw", io / runtime / 2**20),
                    (f"{d}_io", int(io)),
                    (f"{d}_runtime", runtime),
                ),
                record,
            )
    reason = failure(text[:start] + text[end:], _ERRORS, _CLUES)
    if not reason and errors:
        reason = "; ".join(errors)
    elif not reason and not jobs:
        reason = "no job results in fio's JSON output"
    return out.result(reason)


def _json_direction(
    stats: object, d: str, record: int, out: Collector, totals: dict[str, list[float]]
) -> None:
    if not isinstance(stats, Mapping) or not stats.get("io_bytes"):
        return
    runtime = stats.get("runtime", 0) / 1000
    bw = stats["bw_bytes"] if "bw_bytes" in stats else stats.get("bw", 0) * 1024
    out.add_all(
        (
            (f"{d}_bw", bw / 2**20),
            (f"{d}_iops", float(stats.get("iops", 0))),
            (f"{d}_io", int(stats["io_bytes"])),
            (f"{d}_runtime", runtime),
        ),
        record,
    )
    group = totals.setdefault(d, [0.0, 0.0])
    group[0] += stats["io_bytes"]
    group[1] = max(group[1], runtime)
    for kind in _LATENCIES:
        lat, unit = (
            (stats.get(f"{kind}_ns"), "ns") if f"{kind}_ns" in stats else (stats.get(kind), "us")
        )
        if not isinstance(lat, Mapping) or not lat.get("N", lat.get("max")):
            continue
        names = {"min": "min", "max": "max", "mean": "mean", "stddev": "std"}
        out.add_all(
            (
                (f"{d}_{kind}_{n}", units.convert(float(lat[k]), unit, "us"))
                for k, n in names.items()
                if k in lat
            ),
            record,
        )
        for pct, value in (lat.get("percentile") or {}).items():
            out.add(
                f"{d}_{kind}_p{_pct(pct)}", units.convert(float(value), unit, "us"), record, "us"
            )


ANALYSER = BuiltinAnalyser(
    name="fio",
    description="fio 3.x normal and JSON output, one record per job and per reporting group",
    parse=parse,
    metrics=METRICS,
)
