"""fio's JSON output (``json``, ``json+``): one document, several, and client/server mode."""

from __future__ import annotations

import json
from collections.abc import Mapping

from jubex.analysis import units
from jubex.analysis.builtin.common import Collector, failure, number
from jubex.analysis.builtin.fio_common import (
    CLUES,
    DIRECTIONS,
    ERRORS,
    LATENCIES,
    METRICS,
    percentile_name,
)
from jubex.analysis.measurement import ParseResult

_VERSION = '"fio version"'
#: fio's name for the sum over every host in client/server mode (``--client``)
ALL_CLIENTS = "All clients"


def next_document(text: str, at: int) -> int:
    """Where the next fio JSON document starts from ``at`` (its ``{``, the ``"fio version"``
    key first in it), or -1: other JSON, a banner or shell lines may come before it."""
    while (version := text.find(_VERSION, at)) >= 0:
        start = text.rfind("{", at, version)
        if start >= 0 and not text[start + 1 : version].strip():
            return start
        at = version + len(_VERSION)
    return -1


def parse(text: str, start: int) -> ParseResult:
    """Every fio JSON document of ``text`` from ``start`` on, in order (a script that runs
    fio several times and appends its output, with other lines between the documents).

    Each document's jobs are records, then its reporting groups; in client/server mode
    (``client_stats``) a record per host and job, with ``host``, then fio's own sum over
    all hosts, ``All clients``, as printed (no group totals are computed there).
    """
    out = Collector(METRICS)
    between, record, documents = [text[:start]], 0, 0
    errors: list[str] = []
    while start >= 0:
        documents += 1
        try:
            document, end = json.JSONDecoder().raw_decode(text, start)
        except (ValueError, RecursionError) as exc:
            detail = str(exc) if isinstance(exc, ValueError) else "nested too deeply"
            which = f"fio JSON document {documents}" if documents > 1 else "fio JSON output"
            invalid = f"{which} is not valid JSON (truncated run?): {detail}"
            return out.result(failure(text, ERRORS, CLUES) or invalid)
        if not isinstance(document, dict):
            document = {}
        record = _document(document, record, out, errors)
        start = next_document(text, end)
        between.append(text[end : len(text) if start < 0 else start])
    reason = failure("".join(between), ERRORS, CLUES)
    if not reason and errors:
        reason = "; ".join(errors)
    elif not reason and record == 0:
        reason = "no job results in fio's JSON output"
    return out.result(reason)


def _document(document: dict[str, object], first: int, out: Collector, errors: list[str]) -> int:
    """Add one document's records from record ``first`` on; the next free record."""
    clients = document.get("client_stats")
    listed = clients if isinstance(clients, list) else document.get("jobs")
    jobs = [j for j in listed if isinstance(j, dict)] if isinstance(listed, list) else []
    totals: dict[object, dict[str, list[float]]] = {}
    summed = [j for j in jobs if clients is not None and j.get("jobname") == ALL_CLIENTS]
    record = first
    for job in [j for j in jobs if not any(j is s for s in summed)] + summed:
        name = str(job.get("jobname", ""))
        out.add("job", name, record)
        if clients is not None and name != ALL_CLIENTS:
            out.add("host", str(job.get("hostname", "")), record)
        group = out.value("group", job.get("groupid", 0))
        error = out.value("error", job.get("error", 0))
        out.add_all((("group", group), ("error", error)), record)
        if error:
            errors.append(f"job '{name}' reported error {error}")
        out.add("loops", out.value("loops", _option(document, job, "loops", "1")), record)
        for d in DIRECTIONS:
            _json_direction(job.get(d), d, record, out, totals.setdefault(group, {}))
        _json_sync(job.get("sync"), record, out)
        record += 1
    if clients is not None:
        return record
    for group, by_direction in sorted(
        (g, t) for g, t in totals.items() if isinstance(g, (int, float))
    ):
        out.add("group", group, record)
        for d, (io, runtime) in by_direction.items():
            if runtime > 0:
                out.add(f"{d}_bw", io / runtime / 2**20, record)
            out.add_all(((f"{d}_io", io), (f"{d}_runtime", runtime)), record)
        record += 1
    return record


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
    for kind in LATENCIES:
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
        _json_us(out, f"{prefix}_p{percentile_name(str(pct))}", value, unit, record)


def _json_us(out: Collector, name: str, raw: object, unit: str, record: int) -> None:
    value = out.value(name, raw)
    out.add(name, None if value is None else units.convert(value, unit, "us"), record, "us")
