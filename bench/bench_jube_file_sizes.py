"""``jubex validate``, ``info`` and ``run --dry-run`` of a JUBE file of N benchmarks: CPU
seconds (user + system of a fresh process, median of RUNS) at each N, and the CPU per
benchmark, which stays flat when reading the file is linear.

    python bench/bench_jube_file_sizes.py --n 1000 2000 5000 10000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench_bounded_sizes import jube_file
from timing import JUBEX, timed_cpu

COMMANDS = {
    "validate": ["validate", "d.xml"],
    "info": ["info", "d.xml"],
    "run --dry-run": ["run", "d.xml", "--dry-run", "--outpath", "runs"],
}


def measure(n: int, runs: int) -> dict[str, float]:
    """Each command's median CPU seconds on a file of ``n`` benchmarks."""
    cpu: dict[str, list[float]] = {name: [] for name in COMMANDS}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "d.xml").write_text(jube_file(n)[1])
        for _ in range(runs):
            for name, cmd in COMMANDS.items():
                cpu[name].append(timed_cpu([*JUBEX, *cmd], work)[1])
    return {name: statistics.median(found) for name, found in cpu.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 2000, 5000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    print("| N | " + " | ".join(f"{c} (s CPU, ms per benchmark)" for c in COMMANDS) + " |")
    print("| ---: |" + " ---: |" * len(COMMANDS))
    for n in args.n:
        found = measure(n, args.runs)
        cells = " | ".join(f"{s:.2f} ({1000 * s / n:.2f})" for s in found.values())
        print(f"| {n:,} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
