"""`jubex report` (and `jubex plot`) on a run of N finished workpackages with IOR output.

The run is made as by bench_analyse_result.py (jubex's planner, a real IOR output in each
work directory, the workpackages marked done), with two plots declared: a line per
transfer size over the task count with ci95 error bars, and a heatmap of tasks against
transfer size. It is analysed once; then, each in a fresh process: `jubex report` (tables,
both plots as inline SVG, provenance, failures, noise) and `jubex plot` (the declared
plots into the run's plots/), and `jubex result` beside them. Median of RUNS.

    python bench/bench_report.py --n 10000 --runs 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_analyse_result import make_run
from timing import JUBEX

PLOTS = """
plots:
  scaling: {x: tasks, y: write_bw, group: transfer, error: ci95}
  heat: {x: tasks, rows: transfer, y: write_bw}
"""


def timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one command, its output discarded:
    on a busy machine the CPU time is the figure that does not depend on the neighbours."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = {"report": [], "plot": [], "result": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        run_dir = str(make_run(work, args.n, "bw", 1, PLOTS))
        timed([*JUBEX, "analyse", run_dir, "--force"], work)
        for _ in range(args.runs):
            report = [*JUBEX, "report", run_dir, "--no-analyse", "-o", "study.html"]
            times["report"].append(timed(report, work))
            times["plot"].append(timed([*JUBEX, "plot", run_dir, "--no-analyse"], work))
            times["result"].append(timed([*JUBEX, "result", run_dir, "--no-analyse"], work))
        size = (work / "study.html").stat().st_size
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    shown = ", ".join(
        f"jubex {name} {statistics.median(w for w, _ in found):.2f} s"
        f" ({statistics.median(c for _, c in found):.2f} s CPU)"
        for name, found in times.items()
    )
    print(f"N = {args.n}: {shown} (median of {args.runs}); the report is {size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
