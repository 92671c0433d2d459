"""``jubex history db:...`` over a results database of RUNS published runs (SQLite).

The database holds one real published run (bench_resultsdb.py's tiny study) and RUNS
synthetic runs made by SQLite itself (resultsdb_fill.fill_sqlite: 100 sites, METRICS
metrics x REPS repetitions at one point, a step of -20 % in ``m00`` 60 % into each site's
runs: its 600th of 1,000). Timed in fresh processes, median of REPEAT, wall and CPU (user +
system of the child), start-up included: the history of ``m00`` at one point of one site (RUNS / 100
runs), the change point found. ``--keep DIR`` keeps (and reuses) the database.

    python bench/bench_history_db.py --runs 100000 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_resultsdb import real_run, step_of
from resultsdb_fill import fill_sqlite, site_of, template_of
from timing import ENV, JUBEX, timed_cpu

from jubex.resultsdb.connect import Database


def filled(path: Path, work: Path, args: argparse.Namespace) -> str:
    """The URL of a database of RUNS synthetic runs and a real one (made unless kept)."""
    url = str(path)
    if path.exists():
        return url
    run = real_run(work)
    subprocess.run([*JUBEX, "publish", str(run), "--database", url], check=True, env=ENV,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    database = Database(url)
    began = time.perf_counter()
    fill_sqlite(database, template_of(database), runs=args.runs, series=100, metrics=args.metrics,
                reps=args.reps, step_at=step_of(args.runs))  # fmt: skip
    with database.writing() as connection:
        connection.exec_driver_sql("ANALYZE")
    print(f"filled {args.runs} runs in {time.perf_counter() - began:.0f} s", flush=True)
    return url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--metrics", type=int, default=10)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", metavar="DIR", help="keep the database in DIR (reused)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        url = filled(Path(args.keep or tmp) / f"history-{args.runs}.sqlite", work, args)
        command = [*JUBEX, "history", f"db:benchmark=bench,site={site_of(7)},transfer=1MiB",
                   "-m", "m00", "--database", url]  # fmt: skip
        out = subprocess.run(command, check=True, capture_output=True, text=True, env=ENV).stdout
        assert "1 change point(s)" in out, out[-500:]
        times = [timed_cpu(command, work) for _ in range(args.repeat)]
        wall = statistics.median(t[0] for t in times)
        cpu = statistics.median(t[1] for t in times)
        print(f"history of m00 at one point of one site ({args.runs // 100} of {args.runs} "
              f"runs): median of {args.repeat}: {wall:.2f} s wall, {cpu:.2f} s CPU; "
              f"load {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
