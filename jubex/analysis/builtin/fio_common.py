"""What fio's readers share: the names of its values, and the lines that say a run failed."""

from __future__ import annotations

import re
from dataclasses import replace

from jubex.analysis.builtin.common import metrics
from jubex.analysis.measurement import Metric

DIRECTIONS = ("read", "write", "trim")
LATENCIES = ("slat", "clat", "lat")
PERCENTILES: tuple[str, ...] = ("1", "5", "10", "20", "30", "40", "50", "60", "70", "80")
PERCENTILES += ("90", "95", "99", "99_5", "99_9", "99_95", "99_99")
CLUES = ("fio: ", "err=")
ERRORS = re.compile(
    r"^fio: .*?(?:fail|error|invalid|terminat|unable|cannot|could not|bad )"
    r"|: \(groupid=\d+, jobs=\d+\): err=\s*[1-9]",
    re.MULTILINE | re.IGNORECASE,
)


def _metrics() -> dict[str, Metric]:
    out: dict[str, Metric] = {
        "job": Metric("", None, "job name ('All clients': fio's sum over the hosts)"),
        "host": Metric("", None, "the host that ran the job (client/server mode)"),
        "group": Metric("", None, "reporting group id"),
        "jobs": Metric("", None, "jobs this record stands for (normal output)"),
        "error": Metric("", None, "fio's error number for the job (0 = none)"),
    }
    for d in DIRECTIONS:
        out |= {
            f"{d}_bw": Metric("MiB/s", True, f"{d} bandwidth"),
            f"{d}_iops": Metric("ops/s", True, f"{d} I/O operations per second"),
            f"{d}_io": Metric("B", None, f"bytes {d}"),
            f"{d}_runtime": Metric("s", None, f"{d} runtime"),
        }
        for kind in LATENCIES:
            for stat in ("mean", "min", "max", "std"):
                out[f"{d}_{kind}_{stat}"] = Metric(
                    "us", False if stat != "std" else None, f"{d} {kind} {stat}"
                )
        for kind in ("clat", "lat"):
            for pct in PERCENTILES:
                out[f"{d}_{kind}_p{pct}"] = Metric(
                    "us", False, f"{d} {kind} {pct.replace('_', '.')}th percentile"
                )
    for stat in ("mean", "min", "max", "std"):
        out[f"sync_lat_{stat}"] = Metric(
            "us", False if stat != "std" else None, f"fsync/fdatasync latency {stat}"
        )
    for pct in PERCENTILES:
        out[f"sync_lat_p{pct}"] = Metric(
            "us", False, f"fsync/fdatasync latency {pct.replace('_', '.')}th percentile"
        )
    return out


def _over_loops(found: dict[str, Metric]) -> dict[str, Metric]:
    """The measured values as what they are: fio's totals over all ``loops`` of a job, of
    which it prints no value each (not a sample per loop); ``loops`` counts them."""
    kept = ("job", "host", "group", "jobs", "error")
    out = {k: m if k in kept else replace(m, summary_over="loops") for k, m in found.items()}
    out["loops"] = Metric("", None, "times the job ran over its file (loops=, JSON output)")
    return out


METRICS = metrics(_over_loops(_metrics()))


def percentile_name(text: str) -> str:
    """``99.900000`` -> ``99_9``, ``50.00`` -> ``50``."""
    return text.rstrip("0").rstrip(".").replace(".", "_")
