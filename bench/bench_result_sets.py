"""`jubex result` of a result set: RUNS runs of N analysed workpackages each, as one table.

Each run is made as in bench_analyse_result.py (N work directories with a real IOR output,
the three-pattern patternset) and analysed once; then `jubex result RUN1 ... RUNk
--no-analyse`, in a fresh process each time, tabulates all of them together. Median of
REPEAT, wall and CPU (user + system of the child).

    python bench/bench_result_sets.py --runs 10 --n 1000 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_analyse_result import make_run
from timing import JUBEX, timed_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        work = Path(tmp)
        runs = []
        for i in range(args.runs):
            folder = work / f"site{i}"
            folder.mkdir()
            runs.append(make_run(folder, args.n, "bw", 1))
            subprocess.run(
                [*JUBEX, "analyse", str(runs[-1])], check=True, stdout=subprocess.DEVNULL
            )
        cmd = [*JUBEX, "result", *map(str, runs), "--no-analyse", "-T", "bandwidth"]
        times = [timed_cpu(cmd, work) for _ in range(args.repeat)]
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    wall = statistics.median(t for t, _ in times)
    cpu = statistics.median(c for _, c in times)
    print(
        f"{args.runs} runs of {args.n} workpackages: jubex result {wall:.2f} s wall, "
        f"{cpu:.2f} s CPU (median of {args.repeat})"
    )


if __name__ == "__main__":
    main()
