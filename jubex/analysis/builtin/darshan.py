"""Darshan logs: what the file system saw of a step, beside the benchmark's own figures.

Each workpackage's log (``darshan.log`` in its work directory, where a step run under
Darshan writes it) is read with PyDarshan (``pip install 'jubex[darshan]'``) in a child
process (:mod:`darshan_reader`): darshan-util crashes on many damaged logs, and a crash
or a damaged log is one workpackage's error, never jubex's. The values are sums over all
ranks and files; the insights are flags with fixed thresholds (:data:`THRESHOLDS`, after
Drishti's), listed in ``darshan_insights`` and, when the study gives its parameter
``declared_transfer`` (e.g. ``declared_transfer: $transfer``), the check of that size
against the access size the file system saw most often.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jubex.analysis.builtin.common import Collector, metrics
from jubex.analysis.measurement import BuiltinAnalyser, Metric, ParseResult
from jubex.errors import JubexError
from jubex.language.values import format_size, parse_value

#: the parameter a study sets to the transfer size it meant (IOR's -t, fio's bs)
DECLARED = "declared_transfer"
#: a damaged log can make darshan-util loop; no healthy log of a benchmark takes this long
TIMEOUT = 120.0

#: Darshan's access-size bins (bytes, upper bounds inclusive), in its counter names
BINS = (
    "0_100",
    "100_1K",
    "1K_10K",
    "10K_100K",
    "100K_1M",
    "1M_4M",
    "4M_10M",
    "10M_100M",
    "100M_1G",
    "1G_PLUS",
)
_SMALL_BINS = BINS[:4]  # up to 100 KiB

#: the insight flags' thresholds; each also needs MIN_REQUESTS requests (or I/O time)
THRESHOLDS = {
    "small_requests": 0.10,  # share of POSIX requests of at most 100 KiB
    "misaligned": 0.10,  # share of POSIX requests not aligned to the file system's block
    "random": 0.20,  # share of POSIX requests neither sequential nor a file's first
    "metadata_bound": 0.50,  # share of POSIX I/O time spent in open, stat, seek, close
    "imbalanced": 0.30,  # (slowest - fastest rank's I/O time) / slowest
}
#: fewer requests than this say too little about a pattern to flag it
MIN_REQUESTS = 100
#: a slowest rank that spent less time in I/O than this is not called imbalanced: noise
MIN_IMBALANCE_SECONDS = 1.0

INSIGHTS = {
    "small_requests": "many requests of at most 100 KiB: per-call overhead dominates",
    "misaligned": "many requests straddle file-system blocks: extra read-modify-write",
    "random": "many requests jump within the file: no read-ahead or streaming",
    "metadata_bound": "open, stat, seek and close took most of the I/O time",
    "imbalanced": "one rank spent much longer in I/O than another: the slowest sets the pace",
    "transfer_mismatch": "the file system saw another request size than the study declared",
}

_MODULES = {"POSIX": "posix", "MPI-IO": "mpiio", "STDIO": "stdio"}


def _metrics() -> dict[str, Metric]:
    per_module: dict[str, Metric] = {}
    for module, short in _MODULES.items():
        per_module[f"{short}_bytes_read"] = Metric("B", None, f"bytes read through {module}")
        per_module[f"{short}_bytes_written"] = Metric("B", None, f"bytes written through {module}")
        for op in ("reads", "writes", "opens"):
            per_module[f"{short}_{op}"] = Metric("", None, f"{op[:-1]} calls through {module}")
    histogram = {
        f"posix_{op}_size_{bin.lower()}": Metric(
            "", None, f"POSIX {op}s of {bin.replace('_', ' to ')} bytes"
        )
        for op in ("read", "write")
        for bin in BINS
    }
    return metrics(
        per_module,
        {
            "posix_stats": Metric("", None, "stat calls (POSIX)"),
            "posix_seeks": Metric("", None, "seek calls (POSIX)"),
            "posix_fsyncs": Metric("", None, "fsync and fdatasync calls (POSIX)"),
        },
        histogram,
        {
            "access_sizes": Metric("", None, "the most common POSIX request sizes with counts"),
            "common_access_size": Metric("B", None, "the most common POSIX request size"),
            "common_access_share": Metric("%", None, "its share of the POSIX requests"),
            "sequential_share": Metric("%", None, "POSIX requests after an earlier offset"),
            "consecutive_share": Metric("%", None, "POSIX requests right after the last one"),
            "posix_read_time": Metric("s", None, "seconds in POSIX reads, all ranks"),
            "posix_write_time": Metric("s", None, "seconds in POSIX writes, all ranks"),
            "posix_meta_time": Metric("s", None, "seconds in open/stat/seek/close, all ranks"),
            "slowest_rank_share": Metric("%", None, "the slowest rank's share of the I/O time"),
            "rank_imbalance": Metric("%", None, "(slowest - fastest rank's I/O time) / slowest"),
            "darshan_insights": Metric("", None, "insight flags, comma-separated; '' for none"),
            "transfer_check": Metric("", None, "'ok' or what was seen against the declared"),
            "darshan_nprocs": Metric("", None, "processes Darshan recorded"),
            "darshan_version": Metric("", None, "log format and runtime version"),
        },
    )


METRICS = _metrics()


def read(path: Path, params: Mapping[str, object]) -> ParseResult:
    """The values of one Darshan log; a not-ok result naming the log when it is bad."""
    out = Collector(METRICS)
    found, problem = _run_reader(path)
    if problem:
        problem = _header(path) or problem
        return out.result(f"{path.name}: {problem}")
    values(found, params, out)
    return out.result()


def _header(path: Path) -> str:
    """Why a log that could not be read is none, from its first bytes: every Darshan log
    starts with its format version (``3.41`` and NUL bytes), whatever its version."""
    try:
        with path.open("rb") as file:
            head = file.read(8)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    match = _VERSION.match(head)
    if match is None:
        return "not a Darshan log: it does not start with a log format version such as 3.41"
    version = match[1].decode()
    if tuple(map(int, version.split("."))) > _NEWEST:
        newest = ".".join(map(str, _NEWEST))
        return f"log format {version} is newer than the newest this PyDarshan reads ({newest})"
    return ""


_VERSION = re.compile(rb"(\d{1,2}\.\d{1,3})\x00")
#: the newest log format PyDarshan 3.5 reads (darshan-util's DARSHAN_LOG_VERSION)
_NEWEST = (3, 41)


def parse(text: str) -> ParseResult:
    """A log is binary and read by path (:func:`read`); text is never one."""
    return ParseResult(ok=False, reason="a Darshan log is a binary file read by its path")


def _run_reader(path: Path) -> tuple[dict[str, Any], str]:
    """The reader's JSON for ``path``, or why there is none."""
    source = Path(__file__).with_name("darshan_reader.py").read_text()
    try:
        done = subprocess.run(
            [sys.executable, "-c", source, str(path.resolve())],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd="/",
        )
    except subprocess.TimeoutExpired:
        return {}, f"reading the Darshan log took over {TIMEOUT:.0f} s (a damaged log?)"
    except OSError as exc:
        return {}, f"cannot start the Darshan log reader ({exc.strerror or exc})"
    if done.returncode < 0:
        return {}, (
            f"not a readable Darshan log: darshan-util crashed on it (signal {-done.returncode})"
            " -- the log is damaged or truncated"
        )
    try:
        found = json.loads(done.stdout)
    except ValueError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {}, f"the Darshan log reader failed: {last[:200]}"
    if "error" in found:
        return {}, _explained(str(found["error"]), bool(found.get("missing")))
    return found, ""


def _explained(error: str, missing: bool) -> str:
    if missing:
        return f"{error}: install it with pip install 'jubex[darshan]'"
    if "NULL" in error or "Failed to open" in error or "header" in error:
        error = "its header is damaged, it is truncated, or it is no Darshan log"
    return f"not a readable Darshan log ({error})"


def values(found: dict[str, Any], params: Mapping[str, object], out: Collector) -> None:
    """Add the values of a reader's output to ``out``."""
    out.add("darshan_version", f"log {found['log_version']}, runtime {found['library_version']}")
    out.number("darshan_nprocs", found["nprocs"])
    if found["partial"]:
        out.problem(
            "the log is incomplete: Darshan ran out of record memory in "
            f"{', '.join(found['partial'])} (its values undercount)"
        )
    modules = found["modules"]
    for module, short in _MODULES.items():
        if module not in modules:
            continue
        sums = modules[module]["sums"]
        out.number(f"{short}_bytes_read", _count(sums, "BYTES_READ"))
        out.number(f"{short}_bytes_written", _count(sums, "BYTES_WRITTEN"))
        out.number(f"{short}_reads", _ops(sums, "READS"))
        out.number(f"{short}_writes", _ops(sums, "WRITES"))
        out.number(f"{short}_opens", _ops(sums, "OPENS"))
    posix = modules.get("POSIX")
    flags: list[str] = []
    if posix is not None:
        _posix(posix, out, flags)
        _ranks(posix["ranks"], out, flags)
    out.add("transfer_check", _transfer(posix, params, out, flags))
    out.add("darshan_insights", ", ".join(flags))


def _count(sums: dict[str, float], name: str) -> int:
    """A counter's sum; Darshan writes -1 for a counter it did not keep."""
    return max(int(sums.get(name, 0)), 0)


def _ops(sums: dict[str, float], name: str) -> int:
    """Calls of a kind; MPI-IO counts independent, collective, split and non-blocking apart."""
    if name in sums:
        return _count(sums, name)
    return sum(_count(sums, f"{kind}_{name}") for kind in ("INDEP", "COLL", "SPLIT", "NB"))


def _posix(posix: dict[str, Any], out: Collector, flags: list[str]) -> None:
    sums = posix["sums"]
    for name in ("stats", "seeks"):
        out.number(f"posix_{name}", _count(sums, name.upper()))
    out.number("posix_fsyncs", _count(sums, "FSYNCS") + _count(sums, "FDSYNCS"))
    for op in ("READ", "WRITE"):
        for bin in BINS:
            out.number(f"posix_{op.lower()}_size_{bin.lower()}", _count(sums, f"SIZE_{op}_{bin}"))
    requests = _count(sums, "READS") + _count(sums, "WRITES")
    sizes = sorted(((int(s), c) for s, c in posix["sizes"].items()), key=lambda sc: (-sc[1], sc[0]))
    if sizes:
        out.add("access_sizes", ", ".join(f"{format_size(s)} x{c}" for s, c in sizes[:4]))
        out.number("common_access_size", sizes[0][0])
        out.number("common_access_share", _percent(sizes[0][1], requests))
    # a file's first request is neither sequential nor consecutive: leave one per open out
    after_first = max(requests - _count(sums, "OPENS"), 0)
    seq = _count(sums, "SEQ_READS") + _count(sums, "SEQ_WRITES")
    consec = _count(sums, "CONSEC_READS") + _count(sums, "CONSEC_WRITES")
    if after_first:
        out.number("sequential_share", min(_percent(seq, after_first), 100.0))
        out.number("consecutive_share", min(_percent(consec, after_first), 100.0))
    times = {kind: max(float(sums.get(f"F_{kind}_TIME", 0.0)), 0.0) for kind in _TIMES}
    for kind, name in _TIMES.items():
        out.number(name, times[kind])
    small = sum(_count(sums, f"SIZE_{op}_{b}") for op in ("READ", "WRITE") for b in _SMALL_BINS)
    if requests >= MIN_REQUESTS:
        if small / requests > THRESHOLDS["small_requests"]:
            flags.append("small_requests")
        if _count(sums, "FILE_NOT_ALIGNED") / requests > THRESHOLDS["misaligned"]:
            flags.append("misaligned")
        if after_first and 1 - min(seq / after_first, 1.0) > THRESHOLDS["random"]:
            flags.append("random")
    total = sum(times.values())
    if total > 0 and times["META"] / total > THRESHOLDS["metadata_bound"]:
        flags.append("metadata_bound")


_TIMES = {"READ": "posix_read_time", "WRITE": "posix_write_time", "META": "posix_meta_time"}


def _ranks(ranks: dict[str, float], out: Collector, flags: list[str]) -> None:
    """The slowest rank's share of the I/O time, and how far the fastest lags behind."""
    slowest, fastest, total = ranks["slowest"], ranks["fastest"], ranks["total"]
    if not ranks["count"] or total <= 0:
        return
    out.number("slowest_rank_share", _percent(slowest, total))
    if ranks["count"] < 2:
        return
    imbalance = (slowest - fastest) / slowest
    out.number("rank_imbalance", 100.0 * imbalance)
    if imbalance > THRESHOLDS["imbalanced"] and slowest >= MIN_IMBALANCE_SECONDS:
        flags.append("imbalanced")


def _transfer(
    posix: dict[str, Any] | None, params: Mapping[str, object], out: Collector, flags: list[str]
) -> str:
    """``ok``, or the sizes the file system saw against the declared one; ``""`` unasked."""
    raw = params.get(DECLARED)
    if raw is None or raw == "":
        return ""
    try:
        declared = raw if isinstance(raw, int) else parse_value(str(raw), "size")
    except JubexError:
        out.problem(f"parameter {DECLARED} is {str(raw)!r}, not a size such as 1m or 4KiB")
        return ""
    if not isinstance(declared, int) or isinstance(declared, bool):
        out.problem(f"parameter {DECLARED} is {str(raw)!r}, not a size such as 1m or 4KiB")
        return ""
    sizes = posix["sizes"] if posix is not None else {}
    if not sizes:
        return f"no POSIX requests seen (declared {format_size(int(declared))})"
    common = max(sizes.items(), key=lambda sc: (sc[1], -int(sc[0])))[0]
    if int(common) == int(declared):
        return "ok"
    flags.append("transfer_mismatch")
    return f"saw {format_size(int(common))}, declared {format_size(int(declared))}"


def _percent(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole else 0.0


ANALYSER = BuiltinAnalyser(
    name="darshan",
    description="Darshan logs (PyDarshan): bytes, requests, sizes and insight flags",
    parse=parse,
    metrics=METRICS,
    default_files=("darshan.log",),
    read=read,
)
