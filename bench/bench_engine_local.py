"""jubex run of N trivial workpackages on the local platform, next to xargs -P doing the same.

Each workpackage prints one line such as ``bw: 123.4 MiB/s`` into its own directory; xargs
runs the same N commands writing the same files with as many processes at once as there are
cores. Reports wall and CPU time (user + system of the children, median of RUNS), the ratio
of jubex's CPU to the xargs floor's, jubex's peak memory, and what a run leaves on disk per
workpackage. On a shared machine the CPU ratio is the figure to read: waiting for a core
inflates the wall times of both.

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

from timing import ENV

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


def timed(cmd: list[str] | str, cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system of the child and its children) and the
    children's peak RSS in MiB so far (a fresh process per run)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, shell=isinstance(cmd, str), env=ENV
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, after.ru_maxrss / 1024


def jubex_run(n: int, work: Path) -> tuple[float, float, float, int, int]:
    """Wall and CPU seconds, peak RSS, files and bytes on disk of ``jubex run`` of n
    workpackages in ``work``."""
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
    wall, cpu, peak = timed(cmd, work)
    run = work / "runs" / "000000"
    files = sum(len(f) for _, _, f in os.walk(run))
    size = sum(p.stat().st_size for p in run.rglob("*") if p.is_file())
    return wall, cpu, peak, files, size


def xargs_run(n: int, work: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the floor: the same n commands by ``xargs -P``."""
    script = 'mkdir -p "w/$1" && echo "bw: $1.4 MiB/s" > "w/$1/stdout"'
    cmd = f"seq 0 {n - 1} | xargs -P {os.cpu_count()} -I{{}} sh -c '{script}' _ {{}}"
    wall, cpu, _ = timed(cmd, work)
    return wall, cpu


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
        "| N | jubex run (s wall) | xargs -P (s wall) | jubex run (s CPU) | xargs -P (s CPU) "
        "| CPU ratio | jubex peak RSS (MiB) | files/wp | bytes/wp |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
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
                wall, cpu, peak, files, size = jubex_run(n, work)
                jubex_times.append((wall, cpu))
                peaks.append(peak)
                work = Path(root) / f"xargs-{n}-{i}"
                work.mkdir()
                xargs_times.append(xargs_run(n, work))
            jw, jc = (statistics.median(t[k] for t in jubex_times) for k in (0, 1))
            xw, xc = (statistics.median(t[k] for t in xargs_times) for k in (0, 1))
            print(
                f"| {n} | {jw:.2f} | {xw:.2f} | {jc:.2f} | {xc:.2f} | {jc / xc:.2f} "
                f"| {max(peaks):.0f} | {files / n:.1f} | {size / n:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
