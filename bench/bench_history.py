"""``history`` of many runs × many metrics in one process: the change points of a site.

RUNS runs of one point with METRICS metrics × REPS repetitions each (a 1 % spread, a step
of -20 % in ``m00`` at the run in the middle), as the site gives them to
:func:`jubex.results.trends.history.history` for one benchmark at one site. Prints the
median CPU seconds of REPEAT calls and the change points found (the planted one only).

    python bench/bench_history.py --runs 1000 --metrics 50
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

from jubex.results.trends.history import RunRows, history_figures


def runs(count: int, metrics: int, reps: int) -> list[RunRows]:
    rng = random.Random(28)
    names = [f"m{m:02d}" for m in range(metrics)]
    made = []
    for i in range(count):
        step = 0.8 if i >= count // 2 else 1.0
        rows = [
            {"transfer": "1MiB", "site": "s", **{n: 1000 * (step if n == "m00" else 1.0)
             * rng.gauss(1, 0.01) for n in names}}
            for _ in range(reps)
        ]  # fmt: skip
        made.append(RunRows(f"{i:06d}", 1.0e9 + 3600 * i, rows))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--metrics", type=int, default=50)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    made = runs(args.runs, args.metrics, args.reps)
    names = [f"m{m:02d}" for m in range(args.metrics)]
    seconds = []
    for _ in range(args.repeat):
        start = time.process_time()
        table = history_figures(
            made, keys=["transfer"], metrics=names, directions=dict.fromkeys(names, True),
            units=dict.fromkeys(names, "MiB/s"), parameters=["transfer"],
        ).table()  # fmt: skip
        seconds.append(time.process_time() - start)
    marked = [
        (r["metric"], r["run"], r["change_point"]) for r in table.records() if r["change_point"]
    ]
    print(f"{args.runs} runs x {args.metrics} metrics x {args.reps} reps: median "
          f"{statistics.median(seconds):.2f} s CPU of {args.repeat}; change points {marked}; "
          f"load {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
