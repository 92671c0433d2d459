"""The spread statistics of a table's flags (`jubex.results.statistics.spread.examine`: runs differ,
two groups, outliers within executions) on GROUPS groups of EXECUTIONS executions of SIZE
normal values each, in one process, SciPy and NumPy imported before the clock starts.
Median of RUNS, CPU seconds.

    python bench/bench_spread.py --groups 20 --executions 1000 --size 5 --runs 5
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from jubex.results.statistics.spread import examine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--groups", type=int, default=20)
    parser.add_argument("--executions", type=int, default=1000)
    parser.add_argument("--size", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(1)
    groups = [
        [
            [rng.gauss(1000 + rng.gauss(0, 5), 10) for _ in range(args.size)]
            for _ in range(args.executions)
        ]
        for _ in range(args.groups)
    ]
    examine([[1.0, 2.0, 3.0]] * 3, 0.01)  # the imports, out of the measurement
    times = []
    for _ in range(args.runs):
        start = time.process_time()
        for group in groups:
            examine(group, 0.01)
        times.append(time.process_time() - start)
    values = args.groups * args.executions * args.size
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"{values:,} values in {args.groups} groups: {statistics.median(times):.2f} s CPU")


if __name__ == "__main__":
    main()
