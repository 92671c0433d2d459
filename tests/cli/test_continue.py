"""``jubex continue``, ``analyse`` and ``result`` work on a run from any directory.

A run keeps its resolved spec with absolute paths, so nothing a command does depends on the
directory it is started from.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

Jubex = Callable[..., CompletedProcess[str]]

STUDY = """\
name: copyit
parameters:
  x: [1, 2]
files:
  inputs: [{copy: input.txt}]
patterns:
  found: {value: 'value=$jube_pat_int'}
steps:
  s:
    suffix: _n$x
    files: [inputs]
    do: cat input.txt && test -e FLAG && echo value=${x}0
    analyse: found
"""


def test_continue_analyse_and_result_from_another_directory(jubex: Jubex, tmp_path: Path) -> None:
    study = tmp_path / "study"
    study.mkdir()
    (study / "d.yaml").write_text(STUDY.replace("FLAG", str(tmp_path / "flag")))
    (study / "input.txt").write_text("input\n")
    first = jubex(tmp_path, "run", "study/d.yaml", "-q", "--no-result")
    assert first.returncode == 1, first.stderr  # no flag yet: both fail
    (tmp_path / "flag").touch()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run_dir = study / "runs" / "000000"
    again = jubex(elsewhere, "continue", str(run_dir), "--retry-failed", "-q", "--no-result")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 done" in again.stdout
    for name in ("000000_s_n1", "000001_s_n2"):
        assert (run_dir / name / "work" / "input.txt").read_text() == "input\n"
    analysed = jubex(elsewhere, "analyse", str(run_dir), "--force")
    assert analysed.returncode == 0, analysed.stderr
    table = jubex(elsewhere, "result", str(run_dir), "-f", "csv")
    assert table.returncode == 0, table.stderr
    assert [line.split(",")[:3] for line in table.stdout.splitlines()[1:]] == [
        ["0", "1", "10"],
        ["1", "2", "20"],
    ]


SLOW = """\
name: killed
parameters:
  x: [1, 2, 3, 4, 5, 6]
patterns:
  v:
    v: {regex: "v=$jube_pat_int"}
steps:
  s:
    do: sleep 2 && echo v=$x
    analyse: [v]
results:
  t:
    columns: [x, v]
"""


def test_continue_after_a_kill_ends_with_the_table_result_prints(
    jubex: Jubex, tmp_path: Path
) -> None:
    """``kill -9`` of jubex and its workpackages mid-run: continue finishes the run and
    prints every row, as a later ``jubex result`` does."""
    import os
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    (tmp_path / "k.yaml").write_text(SLOW)
    running = subprocess.Popen(
        [sys.executable, "-m", "jubex", "run", "k.yaml", "-j", "2", "-q"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    store = tmp_path / "runs" / "000000" / "jubex.sqlite"
    query = "SELECT count(*) FROM workpackage WHERE state = 'done'"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.2)
        try:
            with sqlite3.connect(store) as db:
                if db.execute(query).fetchone()[0] >= 2:
                    break
        except sqlite3.Error:
            continue
    time.sleep(0.5)  # the next two are under way
    os.killpg(running.pid, signal.SIGKILL)
    running.wait()
    finished = jubex(tmp_path, "continue")
    assert finished.returncode == 0, finished.stdout + finished.stderr
    later = jubex(tmp_path, "result", "-T", "t")
    table = finished.stdout[finished.stdout.index("   t\n") :]
    assert "left out" not in table
    assert table == later.stdout
