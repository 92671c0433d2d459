"""Time the tabulate stage: build_table and render over a 10,000-row result set.

Run: ``python bench/bench_results.py``. Each case prints the median of 5 runs in ms, as
wall-clock time and as CPU time of this process (steadier on a machine shared with others).
The input mimics an IOR sweep: 4 parameters, 3 metrics with units, 10 iterations per point.
The target is well under 0.3 s for build_table + render, so that ``jubex result`` (with the
store read) stays under 1 s.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from jubex.definition.model import Column, Table
from jubex.language.values import Size
from jubex.results.comparison.compare import compare
from jubex.results.tables.formats import render
from jubex.results.tables.table import build_table

METRICS = ("write_bw", "read_bw", "iops")
UNITS = {"write_bw": "MiB/s", "read_bw": "MiB/s", "iops": "ops/s", "transfer": "B"}
DIRECTIONS = dict.fromkeys(METRICS, True)
STATS = ("n", "mean", "std", "min", "max")


def make_rows(iterations: int = 10, seed: int = 1) -> list[dict[str, object]]:
    """2 apis x 10 node counts x 10 transfer sizes x 5 ppn x ``iterations`` rows."""
    rng = random.Random(seed)
    transfers = [Size(4096 << i, f"{4 << i}KiB") for i in range(10)]
    rows: list[dict[str, object]] = []
    for api in ("POSIX", "MPIIO"):
        for nodes in range(1, 11):
            for transfer in transfers:
                for ppn in (1, 2, 4, 8, 16):
                    for it in range(iterations):
                        base = nodes * ppn * 100.0
                        rows.append(
                            {
                                "api": api,
                                "nodes": nodes,
                                "transfer": transfer,
                                "ppn": ppn,
                                "write_bw": base * rng.gauss(1, 0.05),
                                "read_bw": None if rng.random() < 0.01 else base * 1.2,
                                "iops": base * 10 * rng.gauss(1, 0.05),
                                "jube_wp_id": len(rows),
                                "jube_step_name": "run",
                                "jube_wp_iteration": it,
                                "run": "r1",
                                "ok": rng.random() > 0.005,
                            }
                        )
    return rows


def median_ms(action: Callable[[], object], runs: int = 5) -> str:
    """``wall ms (cpu ms)``, each the median over ``runs``."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return f"{statistics.median(wall) * 1000:.0f} ms (cpu {statistics.median(cpu) * 1000:.0f} ms)"


def main() -> None:
    rows = make_rows()
    columns = [Column(m, stats=STATS, format=".1f") for m in METRICS]
    cases = {
        "group by 3 parameters (200 groups of 50)": ("api", "nodes", "transfer"),
        "group by 4 parameters (1000 groups of 10)": ("api", "nodes", "transfer", "ppn"),
    }
    print(f"{len(rows)} rows, {len(METRICS)} metrics x {len(STATS)} statistics, median of 5")
    for label, keys in cases.items():
        table = Table("bench", columns=columns, group_by=keys, sort=("-write_bw_mean",))
        build = median_ms(lambda t=table: build_table(rows, t, UNITS, DIRECTIONS))
        result = build_table(rows, table, UNITS, DIRECTIONS)
        print(f"{label}: build_table {build}")
        for fmt in ("pretty", "aligned", "csv", "json"):
            print(f"    render {fmt}: {median_ms(lambda f=fmt, r=result: render(r, f))}")
        both = median_ms(lambda t=table: render(build_table(rows, t, UNITS, DIRECTIONS), "pretty"))
        print(f"    build_table + render pretty: {both}")
    plain = Table("bench", columns=[Column("api"), Column("nodes"), Column("write_bw")])
    ungrouped = median_ms(lambda: render(build_table(rows, plain, UNITS, DIRECTIONS), "csv"))
    print(f"no grouping (10,000 output rows), build_table + render csv: {ungrouped}")
    other = make_rows(seed=2)
    keys = ("api", "nodes", "transfer", "ppn")
    took = median_ms(
        lambda: compare(rows, other, keys=keys, metrics=METRICS, directions=DIRECTIONS)
    )
    print(f"compare, 1000 points x 3 metrics: {took}")


if __name__ == "__main__":
    main()
