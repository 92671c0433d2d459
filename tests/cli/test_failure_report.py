"""Failures as a run and ``jubex status`` report them: counted per cause, each with the line
that explains it; and tables that say why they are empty."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

FAILING = """
name: fail
parameters:
  x: [1, 2, 3, 4]
patterns:
  p:
    bw: {regex: "bw: ([0-9.]+)", type: float}
steps:
  work:
    iterations: 3
    analyse: [p]
    do:
      - 'echo "IOR-3.3 banner"; echo "Began: today"'
      - '[ "$x" -gt 2 ] || nosuchprogram -t 1'
      - >-
        [ "$x" != 3 ] || { echo "mpiexec: unable to find the specified executable" >&2;
        echo "see the manual" >&2; exit 2; }
      - 'echo "bw: $x.5"'
results:
  t:
    columns: [x, bw]
"""


def jubex(cwd: Path, *args: str, check: int = 0) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"},
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == check, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def failed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    home = tmp_path_factory.mktemp("fail")
    (home / "fail.yaml").write_text(FAILING)
    return home, jubex(home, "run", "fail.yaml", "-q", check=1)


def test_the_run_ends_with_its_failures_grouped_by_cause(failed: tuple[Path, str]) -> None:
    _, out = failed
    assert (
        "run runs/000000: 3 done, 9 failed\n"
        "9 workpackage(s) failed, 2 cause(s):\n"
        "  6 x work: exit status 127: nosuchprogram: not found  (workpackage 0, 1, 2, 3, 4, 5)\n"
        "  3 x work: exit status 2: mpiexec: unable to find the specified executable"
        "  (workpackage 6, 7, 8)\n"
        "more: jubex status runs/000000  (outputs in runs/000000/000000_work/work)\n"
    ) in out


def test_status_groups_identical_failures(failed: tuple[Path, str]) -> None:
    home, _ = failed
    out = jubex(home, "status", check=1)
    assert out.count("nosuchprogram") == 1 and "IOR-3.3" not in out
    assert (
        "  9 failed, 2 cause(s):\n    6 x work: exit status 127: nosuchprogram: not found\n" in out
    )
    assert "      workpackage 6, 7, 8; outputs in runs/000000/000006_work/work\n" in out
    assert "analysers found nothing" not in out
    data = json.loads(jubex(home, "status", "-f", "json", check=1))
    assert [(c["count"], c["line"], c["params"]) for c in data["failed"]] == [
        (6, "nosuchprogram: not found", {"x": "1"}),
        (3, "mpiexec: unable to find the specified executable", {"x": "3"}),
    ]


def test_an_empty_table_says_why(failed: tuple[Path, str]) -> None:
    home, _ = failed
    filtered = home / "filtered.yaml"
    filtered.write_text(
        FAILING.replace("columns: [x, bw]", "filter: 'bw > 100'\n    columns: [x, bw]")
    )
    # a filter of measured values true for no row says so with the values the rows have;
    # one of parameters alone can never hold for the run: an error
    out = jubex(home, "run", "filtered.yaml", "-q", "-p", "x=4", "--outpath", "f")
    assert "filter 'bw > 100' of table 't' is true for none of the 3 row(s): bw is 4.5" in out
    filtered.write_text(filtered.read_text().replace("'bw > 100'", "'x > 100'"))
    done = subprocess.run(
        [sys.executable, "-m", "jubex", "run", "filtered.yaml", "-q", "-p", "x=4", "--outpath=e"],
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "filter 'x > 100' of table 't' is true for none of the 3 row(s): x is 4" in done.stderr
    out = jubex(home, "run", "fail.yaml", "-q", "-p", "x=1", "--outpath", "g", check=1)
    assert "empty: all 3 workpackage(s) of its steps failed (jubex status shows why" in out
    quiet = home / "quiet.yaml"
    quiet.write_text(FAILING.replace("'echo \"bw: $x.5\"'", "'echo done'"))
    out = jubex(home, "run", "quiet.yaml", "-q", "-p", "x=4", "--outpath", "h")
    assert "bw: 3 of 3 value(s) missing" in out
