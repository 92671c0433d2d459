"""Many writers at once and writers killed halfway, on both back ends: nothing is lost,
nothing is half there, nobody fails with "locked", readers are not held up.

(bench/bench_resultsdb.py does the same with 8 writers of 1,000 runs.)"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import sqlalchemy as sa

from jubex.resultsdb.connect import Database

WRITERS = 8
RUNS_EACH = 6


def publisher(runs: list[Path], url: str) -> subprocess.Popen[str]:
    """``jubex publish`` of these runs in a process of its own."""
    argv = [sys.executable, "-m", "jubex", "publish", *map(str, runs), "--database", url]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def counts(url: str) -> dict[str, int]:
    database = Database(url)
    with database.reading() as connection:
        found = {
            table: connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar() or 0
            for table in ("runs", "stores", "points", "samples", "verdicts")
        }
    database.close()
    return found


def test_eight_writers_at_once_lose_nothing_and_readers_go_on(database, made, copies, tmp_path):
    runs = copies(made / "000000", WRITERS * RUNS_EACH, tmp_path / "runs")
    Database(database).ensure_schema()
    reads: list[int] = []
    stop = threading.Event()

    def read() -> None:
        reader = Database(database)
        while not stop.is_set():
            with reader.reading() as connection:
                reads.append(connection.execute(sa.text("SELECT count(*) FROM samples")).scalar())
            time.sleep(0.05)
        reader.close()

    reading = threading.Thread(target=read)
    reading.start()
    writers = [publisher(runs[i::WRITERS], database) for i in range(WRITERS)]
    outcomes = [writer.communicate(timeout=500) for writer in writers]
    stop.set()
    reading.join()
    for writer, (_out, err) in zip(writers, outcomes, strict=True):
        assert writer.returncode == 0, err
        assert "locked" not in err
    found = counts(database)
    assert found["runs"] == found["stores"] == len(runs)
    assert found["samples"] == len(runs) * per_run(made, tmp_path)
    assert len(reads) > 5 and reads == sorted(reads), reads  # reads went on, counts only grew


def per_run(made: Path, tmp_path: Path) -> int:
    """The samples one copy of the run gives, as published alone."""
    url = str(tmp_path / "alone.sqlite")
    subprocess.run(
        [sys.executable, "-m", "jubex", "publish", str(made / "000000"), "--database", url],
        check=True,
        capture_output=True,
    )
    return counts(url)["samples"]


def test_a_writer_killed_at_any_moment_leaves_whole_runs_only(database, made, copies, tmp_path):
    runs = copies(made / "000000", 24, tmp_path / "runs")
    expected = per_run(made, tmp_path)
    Database(database).ensure_schema()
    rng = random.Random(28)
    kills = 0
    for _ in range(4):
        before = counts(database)["runs"]
        writer = publisher(runs, database)
        deadline = time.monotonic() + 120
        while counts(database)["runs"] == before and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.3))
        if writer.poll() is None:
            os.kill(writer.pid, signal.SIGKILL)
            kills += 1
        writer.wait()
        found = counts(database)
        assert found["stores"] == found["runs"]
        assert found["samples"] == found["runs"] * expected
        assert found["verdicts"] == found["runs"] * 10
    assert kills >= 2
    finished = publisher(runs, database)
    assert finished.communicate(timeout=300)[0].count("published to") == 24 - found["runs"]
    assert counts(database)["runs"] == 24
