"""jubex run of N trivial workpackages on the local platform, next to xargs -P doing the same.

Each workpackage prints one line such as ``bw: 123.4 MiB/s`` into its own directory; xargs
runs the same N commands writing the same files with as many processes at once as there are
cores. Reports wall time (median of RUNS), jubex's peak memory, and what a run leaves on
disk per workpackage.

    python bench/bench_engine_local.py --n 1000 10000 --runs 5
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

DEFINITION = """
name: trivial
parameters:
  i: {{range: {{start: 0, stop: {last}, step: 1}}}}
patterns:
  bw:
    bw: {{regex: "bw: $jube_pat_fp MiB/s", type: float, unit: MiB/s}}
steps:
  work:
    do: 'echo "bw: $i.4 MiB/s"'
    analyse: [bw]
"""


def timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and the child's peak RSS in MiB (a fresh process per run)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) / 1024


def jubex_run(n: int, work: Path) -> tuple[float, float, int, int]:
    definition = work / "trivial.yaml"
    definition.write_text(DEFINITION.format(last=n - 1))
    cmd = [
        sys.executable,
        "-m",
        "jubex",
        "run",
        str(definition),
        "--outpath",
        "runs",
        "-q",
        "--no-result",
    ]
    wall, peak = timed(cmd, work)
    run = work / "runs" / "000000"
    files = sum(len(f) for _, _, f in os.walk(run))
    size = sum(p.stat().st_size for p in run.rglob("*") if p.is_file())
    return wall, peak, files, size


def xargs_run(n: int, work: Path) -> float:
    script = 'mkdir -p "w/$1" && echo "bw: $1.4 MiB/s" > "w/$1/stdout"'
    cmd = f"seq 0 {n - 1} | xargs -P {os.cpu_count()} -I{{}} sh -c '{script}' _ {{}}"
    start = time.perf_counter()
    subprocess.run(cmd, shell=True, cwd=work, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(
        f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
        f"load {os.getloadavg()[0]:.1f}"
    )
    print(
        "| N | jubex run (s) | xargs -P (s) | ratio | jubex peak RSS (MiB) | files/wp | bytes/wp |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    # Nothing is deleted until the end: on ext4 without a journal, inodes freed in the last
    # minutes are skipped one by one when new ones are allocated, so deleting one run's
    # files would slow the next run's file creation (and the more files, the more).
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as root:
        for n in args.n:
            jubex_times, xargs_times, peaks = [], [], []
            files = size = 0
            for i in range(args.runs):
                work = Path(root) / f"jubex-{n}-{i}"
                work.mkdir()
                wall, peak, files, size = jubex_run(n, work)
                jubex_times.append(wall)
                peaks.append(peak)
                work = Path(root) / f"xargs-{n}-{i}"
                work.mkdir()
                xargs_times.append(xargs_run(n, work))
            j, x = statistics.median(jubex_times), statistics.median(xargs_times)
            print(
                f"| {n} | {j:.2f} | {x:.2f} | {j / x:.2f} | {max(peaks):.0f} "
                f"| {files / n:.1f} | {size / n:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
