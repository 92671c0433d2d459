"""fio 2.x and 3.x: normal and JSON output (``--output-format=normal|json|json+``).

One record per job, in the order fio reports them, then one record per reporting group
(the "Run status group" totals; from JSON they are computed the way fio computes that line:
all bytes of the group over its longest runtime). Directions a job did not run (zero bytes)
are left out. Units are normalised whatever fio printed: bandwidth in MiB/s, latency in
microseconds (``us``), amounts in bytes, runtimes in seconds. fio 2.x wrote ``KB`` and
``MB`` for powers of 1024 (its default ``kb_base``) and its JSON ``io_bytes`` in KiB; the
latency of fsync/fdatasync calls (``sync``) is its own section, not a direction's.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import replace

from jubex.analysis import units
from jubex.analysis.builtin.common import Collector, failure, metrics, number, untag
from jubex.analysis.measurement import BuiltinAnalyser, Metric, ParseResult

_DIRECTIONS = ("read", "write", "trim")
_LATENCIES = ("slat", "clat", "lat")
_PERCENTILES: tuple[str, ...] = ("1", "5", "10", "20", "30", "40", "50", "60", "70", "80")
_PERCENTILES += ("90", "95", "99", "99_5", "99_9", "99_95", "99_99")
_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_NUM = r"[\d.]+[kKMG]?(?![\w.])"
#: a unit's prefix: no digit or dot, so a number and its unit cannot share characters
_UNIT = r"[^\s\d.]*?"

_JOB = re.compile(r"^(\S.*?): \(groupid=(\d+), jobs=(\d+)\): err=\s*(\d+)")
#: fio 2.x: ``read : io=68052KB, bw=2266.1KB/s, iops=566, runt= 30019msec``
_DIRECTION_V2 = re.compile(
    rf"^\s*(read|write|trim)\s*: io=\s*([\d.]+)\s*([KMGTP]?B),\s*bw=\s*([\d.]+)\s*([KMGTP]?B/s),"
    rf"\s*iops=\s*({_NUM})\s*,\s*runt=\s*(\d+)msec"
)
_DIRECTION = re.compile(
    rf"^\s*(read|write|trim)\s*: IOPS=({_NUM}), BW=([\d.]+)({_UNIT}/s)\s*(?:\([^)]*\))?\s*"
    rf"\(([\d.]+)({_UNIT}B)/(\d+)msec\)"
)
_LATENCY = re.compile(
    rf"^\s*(slat|clat|lat|sync)\s*\((nsec|usec|msec)\):\s*min=\s*({_NUM})\s*,\s*max=\s*({_NUM})"
    rf"\s*,\s*avg=\s*({_NUM})\s*,\s*stdev=\s*({_NUM})"
)
#: how the lines above begin: one that begins so but does not read is broken
_STARTS = re.compile(
    r"^\s*(?:(?:read|write|trim)\s*: (?:IOPS|io)=|(?:slat|clat|lat|sync)\s*\(\w+\):\s*min="
    r"|(?:READ|WRITE|TRIM): (?:bw|io)=)"
)
_PERCENTILE_HEAD = re.compile(r"^\s*(clat|lat|slat|sync) percentiles \((nsec|usec|msec)\):")
_PERCENTILE = re.compile(rf"(?<![\d.])(\d+\.\d+)th=\[\s*({_NUM})\]")
_GROUP = re.compile(r"^Run status group (\d+) \(all jobs\):")
_GROUP_LINE = re.compile(
    rf"^\s*(READ|WRITE|TRIM): bw=([\d.]+)({_UNIT}/s).*?io=([\d.]+)({_UNIT}B)\b"
    r".*?run=\d+-(\d+)msec"
)
#: fio 2.x: ``READ: io=68052KB, aggrb=2266KB/s, minb=..., maxb=..., mint=...msec, maxt=...msec``
_GROUP_LINE_V2 = re.compile(
    r"^\s*(READ|WRITE|TRIM): io=([\d.]+)([KMGTP]?B), aggrb=([\d.]+)([KMGTP]?B/s),"
    r".*?maxt=(\d+)msec"
)
#: fio 2.x's units are powers of 1024 whatever they are called
_V2_UNITS = {"B": "B", "KB": "KiB", "MB": "MiB", "GB": "GiB", "TB": "TiB", "PB": "PiB"}
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
    for stat in ("mean", "min", "max", "std"):
        out[f"sync_lat_{stat}"] = Metric(
            "us", False if stat != "std" else None, f"fsync/fdatasync latency {stat}"
        )
    for pct in _PERCENTILES:
        out[f"sync_lat_p{pct}"] = Metric(
            "us", False, f"fsync/fdatasync latency {pct.replace('_', '.')}th percentile"
        )
    return out


def _over_loops(found: dict[str, Metric]) -> dict[str, Metric]:
    """The measured values as what they are: fio's totals over all ``loops`` of a job, of
    which it prints no value each (not a sample per loop); ``loops`` counts them."""
    kept = ("job", "group", "jobs", "error")
    out = {k: m if k in kept else replace(m, summary_over="loops") for k, m in found.items()}
    out["loops"] = Metric("", None, "times the job ran over its file (loops=, JSON output)")
    return out


METRICS = metrics(_over_loops(_metrics()))


def parse(text: str) -> ParseResult:
    text = untag(text)
    version = text.find('"fio version"')
    start = text.rfind("{", 0, version) if version >= 0 else -1
    if start >= 0 and not text[start + 1 : version].strip():  # other JSON may come first
        return _parse_json(text, start)
    return _parse_normal(text)


def _scaled(text: str) -> float | None:
    """fio's ``12.3k`` (powers of 1000); None when it is no number."""
    if text[-1:] in ("k", "K", "M", "G"):
        value = number(text[:-1])
        return None if value is None else value * _SUFFIX[text[-1]]
    value = number(text)
    return None if value is None else value


class _Normal:
    """Adds what one line of normal output says, converting units and noting problems."""

    def __init__(self, out: Collector) -> None:
        self.out = out
        self.line = 0

    def add(self, name: str, text: str, unit: str, record: int, target: str = "") -> None:
        """``text`` in ``unit`` as ``name``, in the metric's unit (``target`` when not one)."""
        target = target or METRICS[name].unit
        value = _scaled(text)
        if value is None:
            self.out.problem(f"{name} is {text[:40]!r}, not a number", self.line)
        else:
            try:
                value = units.convert(value, unit, target)
            except ValueError:
                self.out.problem(f"{name} is in {unit[:20]!r}, not a unit fio prints", self.line)
                value = None
        if value is not None and target == "B" and math.isfinite(value):
            value = round(value)
        self.out.add(name, value, record, target, self.line)


def _parse_normal(text: str) -> ParseResult:
    out = Collector(METRICS)
    reader = _NormalReader(out)
    for reader.line, line in enumerate(text.splitlines(), start=1):
        reader.read(line)
    record, groups = reader.record, reader.groups
    reason = failure(text, _ERRORS, _CLUES)
    if not reason and record < 0:
        reason = "not fio output: no job results ('name: (groupid=..., jobs=...)' lines)"
    elif not reason and not groups:
        reason = "output ends before fio's 'Run status group' totals (truncated run?)"
    elif not reason:
        reason = _groups_incomplete(out, record, groups)
    return out.result(reason)


class _NormalReader(_Normal):
    """Reads normal output line by line: which job, direction and percentile table it is in."""

    def __init__(self, out: Collector) -> None:
        super().__init__(out)
        self.record, self.direction, self.percentiles = -1, "", ("", "")
        self.groups: list[str] = []

    def read(self, line: str) -> None:
        if (job := _JOB.match(line)) is not None:
            self.record += 1
            self.out.add("job", job[1], self.record)
            for name, value in (("group", job[2]), ("jobs", job[3]), ("error", job[4])):
                self.out.number(name, value, self.record, line=self.line)
        elif (head := _DIRECTION.match(line)) is not None and self.record >= 0:
            self.direction = head[1]
            self.moved(head[1], (head[3], head[4]), (head[5], head[6]), head[7])
            self.add(f"{head[1]}_iops", head[2], "IOPS", self.record)
        elif (head := _DIRECTION_V2.match(line)) is not None and self.record >= 0:
            self.direction = head[1]
            bw_unit = _V2_UNITS.get(head[5][:-2], head[5][:-2]) + "/s"
            self.moved(head[1], (head[4], bw_unit), (head[2], _V2_UNITS[head[3]]), head[7])
            self.add(f"{head[1]}_iops", head[6], "IOPS", self.record)
        elif (lat := _LATENCY.match(line)) is not None and self.direction:
            for stat, value in zip(("min", "max", "mean", "std"), lat.groups()[2:], strict=True):
                self.add(f"{_latency(self.direction, lat[1])}_{stat}", value, lat[2], self.record)
        elif (head := _PERCENTILE_HEAD.match(line)) is not None:
            self.percentiles = (head[1], head[2])
        elif line.lstrip().startswith("|") and self.direction and self.percentiles[0]:
            self.percentile_line(line)
        elif not self.group_line(line) and _STARTS.match(line):
            self.out.problem(f"a line fio does not print so: {line.strip()[:60]!r}", self.line)

    def moved(self, d: str, bw: tuple[str, str], io: tuple[str, str], ms: str) -> None:
        """A direction's (or a group total's) bandwidth, amount and runtime."""
        record = self.record if not self.groups else self.record + len(self.groups)
        self.add(f"{d}_bw", bw[0], bw[1], record)
        self.add(f"{d}_io", io[0], io[1], record)
        self.add(f"{d}_runtime", ms, "ms", record)

    def percentile_line(self, line: str) -> None:
        found = _PERCENTILE.findall(line)
        if len(found) != line.count("th=["):
            self.out.problem(f"a percentile line fio does not print so: {line[:60]!r}", self.line)
        kind, unit = self.percentiles
        for pct, value in found:
            self.add(
                f"{_latency(self.direction, kind)}_p{_pct(pct)}", value, unit, self.record, "us"
            )

    def group_line(self, line: str) -> bool:
        """Whether ``line`` is a ``Run status group`` heading or one of its totals (read)."""
        if (group := _GROUP.match(line)) is not None:
            self.groups.append(group[1])
            self.direction = ""
            return True
        total, v2 = _GROUP_LINE.match(line), _GROUP_LINE_V2.match(line)
        if not self.groups or (total is None and v2 is None):
            return False
        record = self.record + len(self.groups)
        if "group" not in self.out.names(record):
            self.out.number("group", self.groups[-1], record, line=self.line)
        if total is not None:
            self.moved(total[1].lower(), (total[2], total[3]), (total[4], total[5]), total[6])
        elif v2 is not None:
            bw = (v2[4], _V2_UNITS.get(v2[5][:-2], v2[5][:-2]) + "/s")
            self.moved(v2[1].lower(), bw, (v2[2], _V2_UNITS[v2[3]]), v2[6])
        return True


def _latency(direction: str, kind: str) -> str:
    """The name of a latency: ``write_clat``; fsync/fdatasync calls are ``sync_lat``."""
    return "sync_lat" if kind == "sync" else f"{direction}_{kind}"


def _groups_incomplete(out: Collector, last_job: int, groups: list[str]) -> str:
    """Why the group totals are not all there, or ``""``: each direction a group's jobs ran
    needs its total line (fio prints them last, so a cut output lacks some)."""
    group_of: dict[int, object] = {}
    ran: dict[object, set[str]] = {}
    for m in out.measurements:
        if m.name == "group":
            group_of[m.record] = m.value
        elif m.name.endswith("_io"):
            group = group_of.get(m.record) if m.record <= last_job else ("total", m.record)
            ran.setdefault(group, set()).add(m.name.partition("_")[0])
    headed = {number(group) for group in groups}
    unheaded = sorted(str(g) for g in ran if not isinstance(g, tuple) and g not in headed)
    if unheaded:  # fio heads every group's totals after all jobs: a cut output lacks the last
        return (
            f"output ends before 'Run status group {unheaded[0]}', the totals of jobs it "
            "printed (truncated run?)"
        )
    for index, group in enumerate(groups):
        number_ = number(group)
        totals = ran.get(("total", last_job + 1 + index), set())
        missing = sorted(ran.get(number_, set()) - totals)
        if missing:
            return (
                f"output ends before the {', '.join(missing)} total of 'Run status group "
                f"{group}' (truncated run?)"
            )
    return ""


def _pct(text: str) -> str:
    """``99.900000`` -> ``99_9``, ``50.00`` -> ``50``."""
    return text.rstrip("0").rstrip(".").replace(".", "_")


def _parse_json(text: str, start: int) -> ParseResult:
    out = Collector(METRICS)
    try:
        document, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError) as exc:
        detail = str(exc) if isinstance(exc, ValueError) else "nested too deeply"
        return out.result(
            failure(text, _ERRORS, _CLUES)
            or f"fio JSON output is not valid JSON (truncated run?): {detail}"
        )
    jobs = document.get("jobs") if isinstance(document, dict) else None
    jobs = [j for j in jobs if isinstance(j, dict)] if isinstance(jobs, list) else []
    totals: dict[object, dict[str, list[float]]] = {}
    errors = []
    for record, job in enumerate(jobs):
        out.add("job", str(job.get("jobname", "")), record)
        group = out.value("group", job.get("groupid", 0))
        error = out.value("error", job.get("error", 0))
        out.add_all((("group", group), ("error", error)), record)
        if error:
            errors.append(f"job '{job.get('jobname')}' reported error {error}")
        out.add("loops", out.value("loops", _option(document, job, "loops", "1")), record)
        for d in _DIRECTIONS:
            _json_direction(job.get(d), d, record, out, totals.setdefault(group, {}))
        _json_sync(job.get("sync"), record, out)
    groups = sorted((g, t) for g, t in totals.items() if isinstance(g, (int, float)))
    for offset, (group, by_direction) in enumerate(groups):
        record = len(jobs) + offset
        out.add("group", group, record)
        for d, (io, runtime) in by_direction.items():
            if runtime > 0:
                out.add(f"{d}_bw", io / runtime / 2**20, record)
            out.add_all(((f"{d}_io", io), (f"{d}_runtime", runtime)), record)
    reason = failure(text[:start] + text[end:], _ERRORS, _CLUES)
    if not reason and errors:
        reason = "; ".join(errors)
    elif not reason and not jobs:
        reason = "no job results in fio's JSON output"
    return out.result(reason)


def _option(
    document: Mapping[str, object], job: Mapping[str, object], key: str, default: str
) -> object:
    """A job's option as fio's JSON states it: the job's own, else the global one."""
    for options in (job.get("job options"), document.get("global options")):
        if isinstance(options, Mapping) and key in options:
            return options[key]
    return default


def _json_direction(
    stats: object, d: str, record: int, out: Collector, totals: dict[str, list[float]]
) -> None:
    if not isinstance(stats, Mapping) or not stats.get("io_bytes"):
        return
    io = out.value(f"{d}_io", stats["io_bytes"])
    if io is not None and "io_kbytes" not in stats and "bw_bytes" not in stats:
        io *= 1024  # fio 2.x: "io_bytes" in KiB; fio 3 added "io_kbytes" and made it bytes
    runtime = out.value(f"{d}_runtime", stats.get("runtime", 0))
    runtime = None if runtime is None else runtime / 1000
    if "bw_bytes" in stats:
        out.number(f"{d}_bw", stats["bw_bytes"], record, scale=2**-20)
    else:
        out.number(f"{d}_bw", stats.get("bw", 0), record, scale=2**-10)
    out.number(f"{d}_iops", stats.get("iops", 0), record)
    out.add_all(((f"{d}_io", io), (f"{d}_runtime", runtime)), record)
    if io is not None and runtime is not None:
        group = totals.setdefault(d, [0, 0.0])
        group[0] += io
        group[1] = max(group[1], runtime)
    for kind in _LATENCIES:
        unit = "ns" if f"{kind}_ns" in stats else "us"
        _json_latency(
            stats.get(f"{kind}_ns" if unit == "ns" else kind), f"{d}_{kind}", unit, record, out
        )


def _json_sync(stats: object, record: int, out: Collector) -> None:
    """fio 3's ``"sync"`` object: the latency of fsync/fdatasync calls, in ns (its
    ``total_ios`` stays 0 where the calls were made: their count is the latency's ``N``)."""
    if isinstance(stats, Mapping):
        _json_latency(stats.get("lat_ns"), "sync_lat", "ns", record, out)


def _json_latency(lat: object, prefix: str, unit: str, record: int, out: Collector) -> None:
    """A latency object: its statistics and percentiles as ``prefix_mean``, ``prefix_p99``..."""
    if not isinstance(lat, Mapping) or not lat.get("N", lat.get("max")):
        return
    names = {"min": "min", "max": "max", "mean": "mean", "stddev": "std"}
    for key, name in names.items():
        if key in lat:
            _json_us(out, f"{prefix}_{name}", lat[key], unit, record)
    percentiles = lat.get("percentile")
    for pct, value in percentiles.items() if isinstance(percentiles, Mapping) else ():
        point = number(pct)
        if point == 0:
            continue  # fio 2.x fills unused percentile_list slots with "0.00": 0
        if point is None or not 0 < point <= 100:
            out.problem(f"{prefix} percentile {str(pct)[:20]!r} is no percentage")
            continue
        _json_us(out, f"{prefix}_p{_pct(str(pct))}", value, unit, record)


def _json_us(out: Collector, name: str, raw: object, unit: str, record: int) -> None:
    value = out.value(name, raw)
    out.add(name, None if value is None else units.convert(value, unit, "us"), record, "us")


ANALYSER = BuiltinAnalyser(
    name="fio",
    description="fio 3.x normal and JSON output, one record per job and per reporting group",
    parse=parse,
    metrics=METRICS,
)
