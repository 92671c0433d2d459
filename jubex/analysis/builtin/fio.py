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

import math
import re

from jubex.analysis import units
from jubex.analysis.builtin import fio_json, fio_terse
from jubex.analysis.builtin.common import Collector, failure, number, untag
from jubex.analysis.builtin.fio_common import CLUES, ERRORS, METRICS, percentile_name
from jubex.analysis.measurement import BuiltinAnalyser, ParseResult

__all__ = ["ANALYSER", "METRICS", "parse"]

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


def parse(text: str) -> ParseResult:
    text = untag(text)
    if (start := fio_json.next_document(text, 0)) >= 0:
        return fio_json.parse(text, start)
    if fio_terse.is_terse(text):
        return fio_terse.parse(text)
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


#: client/server mode's normal output: ``hostname=...`` for each server connected, then
#: a bare ``<host>`` line before each host's jobs and group totals, then ``All clients:``
#: (fio's sum over every host and job, its ``BW=205Mi`` without ``/s``); fio prints
#: ``<host>`` at the start of a line only in that mode
_CLIENT_HOST = re.compile(r"^<[^>\s]+> ", re.MULTILINE)
_HOSTNAME = re.compile(r"^hostname=([^,\s]+), be=", re.MULTILINE)
_HOST_BLOCK = re.compile(r"^<([^>\s]+)> ?$")
_ALL_CLIENTS = re.compile(r"^All clients: \(groupid=(\d+), jobs=(\d+)\): err=\s*(\d+)")
_CLIENT_DIRECTION = re.compile(
    rf"^\s*(read|write|trim)\s*: IOPS=({_NUM}), BW=([\d.]+)({_UNIT})(?:/s)?\s*(?:\([^)]*\))?"
    rf"\s*\(([\d.]+)({_UNIT}B)/(\d+)msec\)"
)
#: the sum's last line: what it issued (3.x, four directions each; 2.x ``r=/w=/d=``)
_ISSUED = re.compile(
    r"^\s*issued(?: rwts: total=(?:\d+,){3}\d+ short=(?:\d+,){3}\d+ dropped=(?:\d+,){3}\d+"
    r"|\s*: total=r=\d+/w=\d+/d=\d+, short=r=\d+/w=\d+/d=\d+)",
    re.MULTILINE,
)
#: the client's progress line, which the first host's results follow on the same line
_PROGRESS = re.compile(r"^Jobs: \d+ \(f=\d+\)(?:: (?:\[[^\]]*\])+)?")


def _parse_normal(text: str) -> ParseResult:
    out = Collector(METRICS)
    if _CLIENT_HOST.search(text):
        return _parse_client(text, out)
    reader = _NormalReader(out)
    for reader.line, line in enumerate(text.splitlines(), start=1):
        reader.read(line)
    record, groups = reader.record, reader.groups
    reason = failure(text, ERRORS, CLUES)
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
            name = f"{_latency(self.direction, kind)}_p{percentile_name(pct)}"
            self.add(name, value, unit, self.record, "us")

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


def _groups_incomplete(out: Collector, last_job: int, groups: list[str], first: int = 0) -> str:
    """Why the group totals are not all there, or ``""``: each direction a group's jobs ran
    needs its total line (fio prints them last, so a cut output lacks some). ``first`` is
    the first job's record (a host's block in client/server mode)."""
    group_of: dict[int, object] = {}
    ran: dict[object, set[str]] = {}
    for m in out.measurements:
        if not first <= m.record <= last_job + len(groups):
            continue
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


def _parse_client(text: str, out: Collector) -> ParseResult:
    """Client/server mode: each host's block read as normal output, its records carrying
    ``host``; then ``All clients``, fio's own sum, as printed. Complete when every host
    connected has a block with all its group totals and, for more than one job, the sum
    has every direction the jobs ran."""
    reader = _NormalReader(out)
    hosts: list[tuple[str, int]] = []  # (host, its first record)
    summed = -1
    for reader.line, raw in enumerate(text.splitlines(), start=1):
        line = _PROGRESS.sub("", raw)
        if (block := _HOST_BLOCK.match(line)) is not None:
            reason = _host_incomplete(out, reader, hosts)
            if reason:
                return out.result(reason)
            reader.record += len(reader.groups)
            reader.groups, reader.direction = [], ""
            hosts.append((block[1], reader.record + 1))
        elif (head := _ALL_CLIENTS.match(line)) is not None and hosts and summed < 0:
            reason = _host_incomplete(out, reader, hosts)
            if reason:
                return out.result(reason)
            summed = reader.record = reader.record + len(reader.groups) + 1
            reader.groups, reader.direction = [], ""
            out.add("job", fio_json.ALL_CLIENTS, summed)
            for name, value in (("group", head[1]), ("jobs", head[2]), ("error", head[3])):
                out.number(name, value, summed, line=reader.line)
        elif summed >= 0 and (head := _CLIENT_DIRECTION.match(line)) is not None:
            reader.direction = head[1]
            rate = f"{head[4]}/s" if head[4].endswith("B") else f"{head[4]}B/s"  # 205Mi
            reader.moved(head[1], (head[3], rate), (head[5], head[6]), head[7])
            reader.add(f"{head[1]}_iops", head[2], "IOPS", summed)
        elif hosts and not line.startswith("<"):
            reader.read(line)
    last = _host_incomplete(out, reader, hosts) if summed < 0 else ""
    return out.result(last or _client_incomplete(text, out, hosts, summed))


def _host_incomplete(out: Collector, reader: _NormalReader, hosts: list[tuple[str, int]]) -> str:
    """Why the last host's block is not complete (``""`` when it is), its records given
    their ``host`` when it is."""
    if not hosts:
        return ""
    host, first = hosts[-1]
    if reader.record < first:
        return f"the results of host {host!r} end before its first job (truncated run?)"
    if not reader.groups:
        return f"the results of host {host!r} end before its 'Run status group' totals"
    reason = _groups_incomplete(out, reader.record, reader.groups, first)
    if reason:
        return f"host {host!r}: {reason}"
    for record in range(first, reader.record + len(reader.groups) + 1):
        out.add("host", host, record)
    return ""


def _client_incomplete(text: str, out: Collector, hosts: list[tuple[str, int]], summed: int) -> str:
    """Why a client/server output is not complete, or ``""``."""
    reason = failure(text, ERRORS, CLUES)
    connected = _HOSTNAME.findall(text)
    jobs = sum(1 for m in out.measurements if m.name == "job" and m.record != summed)
    if reason:
        return reason
    if len(hosts) < max(len(connected), 1):
        return (
            f"output ends after the results of {len(hosts)} of the {len(connected)} hosts "
            "connected (truncated run?)"
        )
    if summed < 0:
        if jobs > 1:
            return "output ends before fio's 'All clients' sum over the hosts (truncated run?)"
        return ""
    ran = {m.name for m in out.measurements if m.name.endswith("_io") and m.record < summed}
    said = {m.name for m in out.measurements if m.name.endswith("_io") and m.record == summed}
    if ran - said:
        missing = ", ".join(sorted(n.removesuffix("_io") for n in ran - said))
        return f"output ends before the {missing} line of fio's 'All clients' sum (truncated run?)"
    if not _ISSUED.search(text, text.index("\nAll clients: ")):
        return "output ends inside fio's 'All clients' sum, before its 'issued' line"
    return ""


ANALYSER = BuiltinAnalyser(
    name="fio",
    description="fio 3.x normal and JSON output, one record per job and per reporting group",
    parse=parse,
    metrics=METRICS,
)
