"""Reading many runs: `jubex result -i all` and `jubex history` over RUNS runs of N
workpackages, opening a run in a process, and the start-up of small commands.

One run is made as in bench_analyse_result.py (N work directories with a real IOR output)
and analysed; the other RUNS - 1 are copies of it, each given a run identity of its own
(its store's ``uid``), so that jubex reads them as RUNS runs (a copy with the same identity
is one run read twice). Timed, each in a fresh process, median of REPEAT, wall and CPU
(user + system of the child):

* ``jubex result --outpath runs -i all --no-analyse -T bandwidth``
* ``jubex history ior.yaml -m write_bw`` (every run of the definition)
* ``jubex result RUN --no-analyse -f csv`` of a run of 10 rows, and ``jubex --version``

and in this process the CPU of opening one run (``open_run`` and its definition), per run,
and of reading all runs as ``history`` does (opening, the analysis check, the kept rows).

    python bench/bench_reading_runs.py --runs 1000 --n 20 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_analyse_result import make_run
from timing import JUBEX, timed_cpu

from jubex.api import analyse_runs
from jubex.results.samples.rows import result_rows
from jubex.store.rundir import STORE, open_run


def make_runs(work: Path, runs: int, n: int) -> Path:
    """RUNS analysed runs of N workpackages below ``work/runs``; the definition's path."""
    work.mkdir()
    first = make_run(work, n, "ior", 1)
    opened = open_run(first)
    analyse_runs([opened])
    # closed before its files are copied: closing the copy's descriptors drops this
    # process's POSIX locks on them, and a store still open here is then damaged by the
    # next program that takes it for unused ("database disk image is malformed")
    opened.store.close()
    gc.collect()
    for k in range(1, runs):
        copy = first.parent / f"{k:06d}"
        shutil.copytree(first, copy, symlinks=True)
        with sqlite3.connect(copy / STORE) as db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'uid'", (os.urandom(8).hex(),))
    return work / "ior.yaml"


def open_cpu(run_dirs: list[Path]) -> float:
    """CPU seconds per run of opening each run and reading its benchmark."""
    start = time.process_time()
    for path in run_dirs:
        open_run(path, follow=False).benchmark  # noqa: B018 (read, as a command does)
    return (time.process_time() - start) / len(run_dirs)


def reading_cpu(run_dirs: list[Path]) -> tuple[float, float, float]:
    """CPU seconds of what ``history -m write_bw`` spends reading the runs, in this
    process: opening each (and its meta), the analysis up-to-date check, the result rows
    (kept in the store by an earlier read)."""
    start = time.process_time()
    runs = [open_run(path, follow=False) for path in run_dirs]  # as history opens them
    for run in runs:
        run.meta.get("name")  # as a command finds its runs
    opened = time.process_time()
    analyse_runs(runs)
    checked = time.process_time()
    for run in runs:
        list(result_rows(run, {"write_bw"}, per_iteration=True))
    read = time.process_time()
    for run in runs:
        run.store.close()
    return opened - start, checked - opened, read - checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        definition = make_runs(work / "many", args.runs, args.n)
        (work / "small").mkdir()
        small = make_run(work / "small", 10, "ior", 1)
        analyse_runs([open_run(small)])
        many = work / "many"
        commands = {
            f"result -i all ({args.runs} runs)": (
                [
                    *JUBEX,
                    *("result", "--outpath", "runs", "-i", "all"),
                    "--no-analyse",
                    "-T",
                    "bandwidth",
                ],
                many,
            ),
            f"history ({args.runs} runs)": (
                [*JUBEX, "history", str(definition), "-m", "write_bw"],
                many,
            ),
            "result RUN -f csv (10 rows)": (
                [*JUBEX, "result", str(small), "--no-analyse", "-f", "csv"],
                work,
            ),
            "--version": ([*JUBEX, "--version"], work),
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        opening = []
        reading = []
        run_dirs = sorted((many / "runs").iterdir())
        for _ in range(args.repeat):
            for name, (cmd, cwd) in commands.items():
                times[name].append(timed_cpu(cmd, cwd))
            opening.append(open_cpu(run_dirs))
            reading.append(reading_cpu(run_dirs))
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    print(f"{args.runs} runs of {args.n} workpackages, median of {args.repeat}:")
    for name, found in times.items():
        wall = statistics.median(w for w, _ in found)
        cpu = statistics.median(c for _, c in found)
        print(f"  jubex {name:34} {wall:7.2f} s wall {cpu:7.2f} s CPU")
    print(f"  opening a run (in a process)       {statistics.median(opening) * 1000:7.2f} ms CPU")
    parts = [statistics.median(found) for found in zip(*reading, strict=True)]
    print(
        f"  reading {args.runs} runs (in a process): open {parts[0]:.3f} s, analysis check "
        f"{parts[1]:.3f} s, kept rows {parts[2]:.3f} s: {sum(parts):.3f} s CPU"
    )


if __name__ == "__main__":
    main()
