"""Read one Darshan log with PyDarshan and print its sums as one JSON object.

Run in a child process by :mod:`jubex.analysis.builtin.darshan` (its source is passed to
``python -c``, so that this file's directory, which holds a ``darshan.py`` of its own, never
shadows the PyDarshan package): darshan-util, the C library under PyDarshan, dies of a
segmentation fault on about a quarter of damaged logs and prints its complaints to the
process's stderr, and neither may reach jubex. It imports nothing of jubex.

The output holds, per module (POSIX, MPI-IO, STDIO): the sums over all records of the
counters that add up, the access sizes Darshan counted most often, and the seconds the
slowest and the fastest rank spent in I/O; or ``{"error": "..."}`` when the log cannot be read.
"""

from __future__ import annotations

import json
import sys
from typing import Any

MODULES = {"POSIX": "POSIX", "MPI-IO": "MPIIO", "STDIO": "STDIO"}
#: counters that are a position, a mode, a rank or one record's extreme: they do not add up
_NOT_ADDITIVE = ("MODE", "MAX_", "ALIGNMENT", "STRIDE", "ACCESS", "FASTEST", "SLOWEST", "RANK")


def _records(backend: Any, log: Any, module: str) -> list[dict[str, Any]]:
    """Every record of ``module``; a ValueError when darshan-util fails midway.

    PyDarshan's ``log_get_generic_record`` takes a failed read for the end of the records,
    which would undercount silently; this loop tells the two apart.
    """
    info = backend.log_get_modules(log)[module]
    out: list[dict[str, Any]] = []
    while True:
        buf = backend.ffi.new("void **")
        got = backend.libdutil.darshan_log_get_record(log["handle"], info["idx"], buf)
        if got == 0:
            return out
        if got < 0:
            raise ValueError(f"the {module} records are damaged (record {len(out) + 1})")
        record = backend.ffi.cast(backend._structdefs[module], buf)
        out.append(backend._make_generic_record(record, module, "dict"))
        backend.libdutil.darshan_free(buf[0])


def _summary(module: str, records: list[dict[str, Any]], nprocs: int) -> dict[str, Any]:
    prefix = MODULES[module]
    sums: dict[str, float] = {}
    sizes: dict[str, int] = {}
    ranks: dict[int, float] = {}
    for record in records:
        values = {n: v.item() if hasattr(v, "item") else v for n, v in _values(record)}
        for name, value in values.items():
            short = name[len(prefix) + 1 :]
            if short.endswith("TIMESTAMP") or any(part in short for part in _NOT_ADDITIVE):
                continue
            sums[short] = sums.get(short, 0) + value
        for slot in range(1, 5):
            size = values.get(f"{prefix}_ACCESS{slot}_ACCESS", 0)
            count = values.get(f"{prefix}_ACCESS{slot}_COUNT", 0)
            if count > 0:
                sizes[str(size)] = sizes.get(str(size), 0) + count
        _rank_times(prefix, int(record["rank"]), values, nprocs, ranks)
    times = list(ranks.values())
    return {
        "sums": sums,
        "sizes": sizes,
        "ranks": {
            "count": len(times),
            "slowest": max(times, default=0.0),
            "fastest": min(times, default=0.0),
            "total": sum(times),
        },
    }


def _values(record: dict[str, Any]) -> list[tuple[str, Any]]:
    return [*record["counters"].items(), *record["fcounters"].items()]


def _rank_times(
    prefix: str, rank: int, values: dict[str, Any], nprocs: int, ranks: dict[int, float]
) -> None:
    """Add a record's I/O seconds to its rank; a shared record (rank -1) gives its slowest
    and fastest rank their own times and the other ranks equal shares of the rest."""
    kinds = ("READ", "WRITE", "META")
    total = sum(max(values.get(f"{prefix}_F_{kind}_TIME", 0.0), 0.0) for kind in kinds)
    if rank >= 0:
        ranks[rank] = ranks.get(rank, 0.0) + total
        return
    slowest = values.get(f"{prefix}_SLOWEST_RANK", -1)
    fastest = values.get(f"{prefix}_FASTEST_RANK", -1)
    if slowest < 0 or fastest < 0 or nprocs < 2:
        for each in range(nprocs):
            ranks[each] = ranks.get(each, 0.0) + total / max(nprocs, 1)
        return
    slow_time = values.get(f"{prefix}_F_SLOWEST_RANK_TIME", 0.0)
    fast_time = values.get(f"{prefix}_F_FASTEST_RANK_TIME", 0.0)
    others = [r for r in range(nprocs) if r not in (slowest, fastest)]
    rest = max(total - slow_time - (fast_time if fastest != slowest else 0.0), 0.0)
    ranks[slowest] = ranks.get(slowest, 0.0) + slow_time
    if fastest != slowest:
        ranks[fastest] = ranks.get(fastest, 0.0) + fast_time
    for each in others:
        ranks[each] = ranks.get(each, 0.0) + rest / len(others)


def read(path: str) -> dict[str, Any]:
    import darshan.backend.cffi_backend as backend  # type: ignore[import-untyped,import-not-found,unused-ignore]

    log = backend.log_open(path)
    if log is None or log.get("handle") in (None, backend.ffi.NULL):
        raise ValueError("not a Darshan log, or its header is damaged")
    try:
        job = backend.log_get_job(log)
        modules = backend.log_get_modules(log)
        nprocs = int(job["nprocs"])
        out: dict[str, Any] = {
            "log_version": job["log_ver"],
            "library_version": job.get("metadata", {}).get("lib_ver", ""),
            "nprocs": nprocs,
            "run_time": float(job["run_time"]),
            "partial": sorted(m for m, info in modules.items() if info["partial_flag"]),
            "modules": {},
        }
        for module in MODULES:
            if module in modules:
                records = _records(backend, log, module)
                out["modules"][module] = _summary(module, records, nprocs)
        return out
    finally:
        backend.log_close(log)


def main() -> None:
    try:
        found = read(sys.argv[1])
    except ImportError as exc:
        found = {"error": f"PyDarshan cannot be imported ({exc})", "missing": True}
    except Exception as exc:  # darshan-util's failures surface as many exception types
        found = {"error": str(exc) or type(exc).__name__}
    json.dump(found, sys.stdout)


if __name__ == "__main__":
    main()
