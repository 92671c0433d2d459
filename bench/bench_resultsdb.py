"""The results database at a centre's scale, on SQLite and PostgreSQL.

1. **Scale**: RUNS synthetic runs (bench/resultsdb_fill.py: 100 sites, METRICS metrics,
   REPS repetitions, one point each; a step planted in ``m00`` 60 % into each site's runs:
   its 600th of 1,000) beside one real published run. Timed, each in a fresh ``jubex``
   process, median of REPEAT: ``jubex history`` of one metric at one point of one site
   (its RUNS / 100 runs, change points included), ``jubex result`` of a result set of
   the 100 latest runs of a site (cache of unpacked runs emptied first: cold; then warm),
   ``jubex query`` of one metric at one site.
2. **Many writers**: WRITERS ``jubex publish`` processes at once, publishing WRITE_RUNS
   copies of a real run (each a run of its own) into an empty database: the wall time,
   the runs in the database afterwards and the writers that failed.

    python bench/bench_resultsdb.py --runs 100000 --metrics 50 --reps 5
    python bench/bench_resultsdb.py --runs 2000 --write-runs 200      # a quick look

PostgreSQL is the server of ci/start-local-postgres.sh ($JUBEX_TEST_POSTGRES); a database
``bench_resultsdb`` is made anew there. BENCH_TMP: where the SQLite files go.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa
from resultsdb_fill import fill, site_of, template_of
from timing import ENV, JUBEX

from jubex.resultsdb.connect import Database
from jubex.store.rundir import STORE, open_run
from jubex.store.store import Store

STUDY = r"""
name: tiny
parameters: {point: [a, b], level: 1000}
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s, better: higher}
steps:
  run:
    iterations: 5
    do: 'echo bw: ${level * (1 + jube_wp_iteration / 100)} MiB/s'
    analyse: [bw]
results:
  bandwidth:
    group_by: [point]
    columns: [point, {name: bw, stats: [n, mean, std]}]
"""


def jubex(*args: str, env: dict[str, str]) -> float:
    """Wall seconds of one jubex command in a fresh process (it must succeed)."""
    start = time.perf_counter()
    subprocess.run([*JUBEX, *args], check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def real_run(work: Path) -> Path:
    """One real, analysed run of the tiny study."""
    (work / "tiny.yaml").write_text(STUDY)
    subprocess.run(
        [*JUBEX, "run", str(work / "tiny.yaml"), "--outpath", str(work / "runs"), "-q"],
        check=True,
        stdout=subprocess.DEVNULL,
        env=ENV,
    )
    return work / "runs" / "000000"


def postgres_database(name: str, keep: bool = False) -> str | None:
    """A database on the test server, made anew (``keep``: as it is, made if missing)."""
    server = os.environ.get("JUBEX_TEST_POSTGRES")
    if not server:
        return None
    admin = sa.create_engine(server)
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        exists = connection.execute(
            sa.text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}
        ).first()
        if exists and not keep:
            connection.exec_driver_sql(f"DROP DATABASE {name} WITH (FORCE)")
        if not exists or not keep:
            connection.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.dispose()
    return sa.engine.make_url(server).set(database=name).render_as_string(hide_password=False)


def scale(url: str, run: Path, args: argparse.Namespace, env: dict[str, str]) -> dict[str, str]:
    database = Database(url)
    subprocess.run(
        [*JUBEX, "publish", str(run), "--database", url],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    template = template_of(database, newest=True)
    with database.writing() as connection:  # a kept database's runs get this jubex's store
        connection.execute(
            sa.text(
                "UPDATE stores SET body = :body WHERE run IN "
                "(SELECT id FROM runs WHERE benchmark = 'bench')"
            ),
            {"body": template.store},
        )
    began = time.perf_counter()
    fill(
        database,
        template,
        runs=args.runs,
        series=100,
        metrics=args.metrics,
        reps=args.reps,
        step_at=step_of(args.runs),
    )
    filled = time.perf_counter() - began
    if database.sqlite:
        with database.writing() as connection:
            connection.exec_driver_sql("ANALYZE")
    else:
        engine = sa.create_engine(database.url)
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
        engine.dispose()
    site = site_of(7)
    common = ("--database", url)
    history = [
        jubex(
            "history",
            f"db:benchmark=bench,site={site},transfer=1MiB",
            "-m",
            "m00",
            *common,
            env=env,
        )
        for _ in range(args.repeat)
    ]
    cache = Path(env["XDG_CACHE_HOME"])
    cold, warm = [], []
    for _ in range(args.repeat):
        shutil.rmtree(cache, ignore_errors=True)
        selector = f"db:benchmark=bench,site={site},last=100"
        cold.append(jubex("result", selector, *common, env=env))
        warm.append(jubex("result", selector, *common, env=env))
    query = [
        jubex("query", "m00", f"db:benchmark=bench,site={site}", *common, "-f", "csv", env=env)
        for _ in range(args.repeat)
    ]
    inside = in_process(url, site, args.repeat, cache, f"{step_of(args.runs):06d}")
    return {
        **inside,
        "fill": f"{filled:.0f} s",
        f"history of one metric and point ({args.runs // 100:,} runs)": (
            f"{statistics.median(history):.2f} s"
        ),
        "result of 100 runs, cold cache": f"{statistics.median(cold):.2f} s",
        "result of 100 runs, warm cache": f"{statistics.median(warm):.2f} s",
        f"query of one metric ({args.runs // 100:,} runs)": f"{statistics.median(query):.2f} s",
    }


def step_of(runs: int) -> int:
    """Where the step is planted in each site's runs: 60 % into them."""
    return runs // 100 * 6 // 10


def in_process(url: str, site: str, repeat: int, cache: Path, step: str) -> dict[str, str]:
    """The same questions asked of the library in this process (no start-up of Python and
    jubex): what a service or a notebook asking them pays (``step``: the run the change
    point must be found at)."""
    import jubex
    from jubex.resultsdb.samples import database_history
    from jubex.resultsdb.select import open_selected

    os.environ["XDG_CACHE_HOME"] = str(cache)
    database = Database(url)
    database.ensure_schema()
    history, cold, warm = [], [], []
    for _ in range(repeat):
        began = time.perf_counter()
        table = database_history(
            f"db:benchmark=bench,site={site},transfer=1MiB", metrics=["m00"], database=database
        )
        history.append(time.perf_counter() - began)
        assert [r["run"] for r in table.records() if r["change_point"]] == [step]
        shutil.rmtree(cache, ignore_errors=True)
        for times in (cold, warm):
            began = time.perf_counter()
            runs = open_selected(f"db:benchmark=bench,site={site},last=100", database)
            jubex.result(runs, analyse=False)
            times.append(time.perf_counter() - began)
    return {
        "in process: history (a site's runs, change point found)": (
            f"{statistics.median(history):.2f} s"
        ),
        "in process: result of 100 runs, cold cache": f"{statistics.median(cold):.2f} s",
        "in process: result of 100 runs, warm cache": f"{statistics.median(warm):.2f} s",
    }


def writers(
    url: str, run: Path, work: Path, args: argparse.Namespace, env: dict[str, str]
) -> dict[str, str]:
    """WRITERS processes publishing WRITE_RUNS distinct runs at once."""
    copies = work / f"copies-{uuid.uuid4().hex[:6]}"
    made = []
    for number in range(args.write_runs):
        target = copies / f"{number:06d}"
        shutil.copytree(run, target)
        store = Store(target / STORE)
        store.set_meta({"uid": uuid.uuid4().hex[:8]})
        store.close()
        made.append(str(target))
    Database(url).ensure_schema()
    began = time.perf_counter()
    procs = [
        subprocess.Popen(
            [*JUBEX, "publish", *made[i :: args.writers], "--database", url],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(args.writers)
    ]
    errors = [proc.communicate()[1] for proc in procs]
    wall = time.perf_counter() - began
    failed = sum(proc.returncode != 0 for proc in procs)
    locked = sum("locked" in error for error in errors)
    database = Database(url)
    with database.reading() as connection:
        count = connection.execute(sa.text("SELECT count(*) FROM runs")).scalar()
    shutil.rmtree(copies)
    return {
        f"{args.writers} writers, {args.write_runs} runs": f"{wall:.0f} s",
        "runs in the database": str(count),
        "writers failed (locked)": f"{failed} ({locked})",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--metrics", type=int, default=50)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--write-runs", type=int, default=1000)
    parser.add_argument("--only", choices=("sqlite", "postgresql"))
    parser.add_argument(
        "--keep",
        metavar="DIR",
        help="keep the scale databases (SQLite in DIR, PostgreSQL's bench_resultsdb) and go on "
        "filling them where an earlier run stopped",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        work = Path(tmp)
        env = {**ENV, "XDG_CACHE_HOME": str(work / "cache"), "XDG_STATE_HOME": str(work)}
        run = real_run(work)
        open_run(run)
        kept = Path(args.keep) if args.keep else work
        backends = {
            "sqlite": str(kept / "scale.sqlite"),
            "postgresql": postgres_database("bench_resultsdb", keep=bool(args.keep)),
        }
        for name, url in backends.items():
            if url is None or (args.only and args.only != name):
                continue
            print(f"## {name}", flush=True)
            for key, value in scale(url, run, args, env).items():
                print(f"{key}: {value}", flush=True)
            target = (
                str(work / "writers.sqlite")
                if name == "sqlite"
                else postgres_database("bench_writers")
            )
            assert target is not None
            for key, value in writers(target, run, work, args, env).items():
                print(f"{key}: {value}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
