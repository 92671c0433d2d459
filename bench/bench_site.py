"""``jubex site`` of a large results database: how long a build takes, how big its pages are.

RUNS synthetic runs (bench/resultsdb_fill.py: SERIES sites, METRICS metrics, REPS
repetitions, one point each, a step planted in ``m00`` at the 600th run of each site) beside
one real published run. Timed in a fresh ``jubex`` process each (wall and CPU seconds, the
CPU of the build's worker processes included: they are its children, waited for):

1. the first build into an empty directory;
2. a rebuild with nothing new (every file compared, none written);
3. a rebuild after ADD more runs at one site (the files that changed written).

It prints the number of files, the largest page (HTML) and the largest file of the site,
the peak memory of the builds, and the load average beside the figures.

    python bench/bench_site.py --runs 10000 --metrics 50 --reps 5 --series 10
    python bench/bench_site.py --runs 1000 --metrics 3           # a quick look
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_resultsdb import real_run
from resultsdb_fill import fill, template_of
from timing import ENV, JUBEX

from jubex.dashboard.parallel import cores
from jubex.resultsdb.connect import Database


def build(url: str, site: Path, work: Path) -> str:
    """One ``jubex site`` build: its wall, user and system seconds (of the child: the
    system's share, the page faults of its memory and the files it makes, is the part
    that varies most from build to build on a shared host), and what it said."""
    cmd = [*JUBEX, "site", "db:", "-o", str(site), "--database", url]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    said = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=ENV, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return (
        f"{wall:.1f} s wall, {user:.1f} s user + {system:.1f} s system; "
        f"load {os.getloadavg()[0]:.1f}; {said.stdout.strip()}"
    )


def sizes(site: Path) -> tuple[int, tuple[int, str], tuple[int, str]]:
    files = [p for p in site.rglob("*") if p.is_file()]
    pages = [p for p in files if p.suffix == ".html"]
    largest_page = max(pages, key=lambda p: p.stat().st_size)
    largest = max(files, key=lambda p: p.stat().st_size)
    return (
        len(files),
        (largest_page.stat().st_size, str(largest_page.relative_to(site))),
        (largest.stat().st_size, str(largest.relative_to(site))),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--metrics", type=int, default=50)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--series", type=int, default=10)
    parser.add_argument("--add", type=int, default=10)
    parser.add_argument("--keep", metavar="DIR", help="keep (and reuse) the database there")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="bench_site-"))
    work.mkdir(parents=True, exist_ok=True)
    url = str(work / "results.sqlite")
    database = Database(url)
    if not (work / "runs").exists():
        subprocess.run(
            [*JUBEX, "publish", str(real_run(work)), "--database", url],
            check=True, env=ENV, stdout=subprocess.DEVNULL,
        )  # fmt: skip
    fill(
        database, template_of(database), runs=args.runs, series=args.series,
        metrics=args.metrics, reps=args.reps, step_at=600,
    )  # fmt: skip
    site = work / "site"
    if site.exists():
        subprocess.run(["rm", "-rf", str(site)], check=True)
    print(f"{args.runs} runs x {args.metrics} metrics x {args.reps} repetitions, "
          f"{args.series} sites; {cores()} core(s) (a build's processes); "
          f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
    for what in ("first build", "rebuild, nothing new"):
        print(f"{what}: {build(url, site, work)}")
    fill(
        database, template_of(database), runs=args.runs + args.add, series=args.series,
        metrics=args.metrics, reps=args.reps, step_at=600,
    )  # fmt: skip
    print(f"rebuild after {args.add} new runs: {build(url, site, work)}")
    count, page, largest = sizes(site)
    print(f"{count} files; largest page {page[0] / 1e6:.2f} MB ({page[1]}); largest file "
          f"{largest[0] / 1e6:.2f} MB ({largest[1]})")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory of a build (the largest child's): {peak:.0f} MB")


if __name__ == "__main__":
    sys.exit(main())
