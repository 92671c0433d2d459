"""`jubex export` and `jubex import` of a run of N analysed workpackages with IOR output.

The run is made as in bench_analyse_result.py (N work directories, each with a real ~10 kB
IOR output and an exit status), analysed once; then, each in a fresh process, the run is
exported with its outputs, exported without them, and the full bundle imported into an
empty runs directory. Median of RUNS.

    python bench/bench_bundle.py --n 10000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench_analyse_result import make_run
from timing import JUBEX, timed_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = {
        "export": [],
        "export --no-outputs": [],
        "import": [],
    }
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        work = Path(tmp)
        run_dir = make_run(work, args.n, "bw", 1)
        timed_cpu([*JUBEX, "analyse", str(run_dir)], work)
        bundle = work / "b.tar.gz"
        for i in range(args.runs):
            times["export"].append(
                timed_cpu([*JUBEX, "export", str(run_dir), "-o", str(bundle)], work)
            )
            small = work / "small.tar.gz"
            times["export --no-outputs"].append(
                timed_cpu([*JUBEX, "export", str(run_dir), "--no-outputs", "-o", str(small)], work)
            )
            target = work / f"imported-{i}"
            times["import"].append(
                timed_cpu([*JUBEX, "import", str(bundle), "--outpath", str(target)], work)
            )
        sizes = bundle.stat().st_size, small.stat().st_size
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    full, small_mib = (size / 2**20 for size in sizes)
    print(f"N = {args.n}: bundle {full:.1f} MiB, without outputs {small_mib:.1f} MiB")
    for what, values in times.items():
        wall = statistics.median(t for t, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"jubex {what}: {wall:.2f} s wall, {cpu:.2f} s CPU (median of {args.runs})")


if __name__ == "__main__":
    main()
