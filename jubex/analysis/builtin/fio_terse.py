"""fio's terse output (``--minimal``, ``--output-format=terse``), versions 3 to 5.

One line of values separated by ``;`` per job: the terse version, fio's version, the job's
name, its group and error, then per direction (read, write, and from version 4 trim) the
KiB moved, the bandwidth in KiB/s, the IOPS, the runtime in ms, submission and completion
latency (min, max, mean, stdev, in us), 20 completion-latency percentiles (``99.000000%=
123``, unused ones ``0%=0``), total latency, and bandwidth samples (version 5 adds their
count and IOPS samples); then CPU, I/O depths and latency buckets, disk utilisation, and
the job's description if it has one. Each job is a record; terse output prints no group
totals, and none are computed. fio ends every line with a newline: a line without one was
cut short, and so was one with fewer fields than its version has.
"""

from __future__ import annotations

import re

from jubex.analysis.builtin.common import Collector, failure, number
from jubex.analysis.builtin.fio_common import CLUES, ERRORS, METRICS, percentile_name
from jubex.analysis.measurement import ParseResult

#: a terse line: its version (3, 4 or 5), fio's version, a job name, a group, an error
LINE = re.compile(r"^([345]);fio-[^;\n]*;[^;\n]*;\d+;\d+;", re.MULTILINE)
#: fields per direction, by terse version; version 3 has no trim
_DIRECTION_FIELDS = {"3": 41, "4": 41, "5": 47}
_DIRECTIONS = {"3": ("read", "write"), "4": ("read", "write", "trim")}
_DIRECTIONS["5"] = _DIRECTIONS["4"]
#: CPU (5), I/O depths (7), latency buckets in us (10) and ms (12) follow the directions
_AFTER = 5 + 7 + 10 + 12
_PERCENTILE = re.compile(r"(\d+(?:\.\d+)?)%=(\d+)")


def is_terse(text: str) -> bool:
    return LINE.search(text) is not None


def parse(text: str) -> ParseResult:
    out = Collector(METRICS)
    record, errors = 0, []
    for match in LINE.finditer(text):
        end = text.find("\n", match.start())
        number_ = text.count("\n", 0, match.start()) + 1
        if end < 0:
            out.problem("the output ends inside a terse line (truncated run?)", number_)
            break
        fields = text[match.start() : end].rstrip("\r").split(";")
        version = fields[0]
        needed = 5 + len(_DIRECTIONS[version]) * _DIRECTION_FIELDS[version] + _AFTER
        if len(fields) < needed:
            out.problem(
                f"a terse version {version} line of {len(fields)} fields, not {needed} or more "
                "(truncated run?)",
                number_,
            )
            continue
        _job(fields, record, out, number_)
        if fields[4] != "0":
            errors.append(f"job '{fields[2]}' reported error {fields[4]}")
        record += 1
    reason = failure(LINE.sub("", text), ERRORS, CLUES) or "; ".join(errors)
    return out.result(reason)


def _job(fields: list[str], record: int, out: Collector, line: int) -> None:
    """One job line's values as a record."""
    version = fields[0]
    out.add("job", fields[2], record)
    out.number("group", fields[3], record, line=line)
    out.number("error", fields[4], record, line=line)
    at = 5
    for d in _DIRECTIONS[version]:
        _direction(fields[at : at + _DIRECTION_FIELDS[version]], d, record, out, line)
        at += _DIRECTION_FIELDS[version]


def _direction(fields: list[str], d: str, record: int, out: Collector, line: int) -> None:
    """A direction's block: left out when the job moved no data that way."""
    if number(fields[0]) == 0:
        return
    out.number(f"{d}_io", fields[0], record, line=line, scale=1024)
    out.number(f"{d}_bw", fields[1], record, line=line, scale=1 / 1024)
    out.number(f"{d}_iops", fields[2], record, line=line)
    runtime = out.value(f"{d}_runtime", fields[3], line)
    out.add(f"{d}_runtime", None if runtime is None else runtime / 1000, record, line=line)
    for kind, at in (("slat", 4), ("clat", 8), ("lat", 32)):
        for stat, value in zip(("min", "max", "mean", "std"), fields[at : at + 4], strict=True):
            out.number(f"{d}_{kind}_{stat}", value, record, line=line)
    for cell in fields[12:32]:
        found = _PERCENTILE.fullmatch(cell)
        point = None if found is None else number(found[1])
        if found is None or point is None or not 0 <= point <= 100:
            out.problem(f"a percentile field fio does not print so: {cell[:30]!r}", line)
        elif point != 0:  # "0%=0": a slot of the 20 fio did not use
            name = f"{d}_clat_p{percentile_name(found[1])}"
            out.number(name, found[2], record, unit="us", line=line)
