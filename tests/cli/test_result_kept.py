"""Every table a run or ``jubex result`` shows is kept in the run directory, per format."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

DEFINITION = """
name: kept
parameters:
  x: [1, 2]
patterns:
  p:
    bw: {regex: "bw: ([0-9.]+)", type: float, unit: MiB/s}
steps:
  work:
    do: 'echo "bw: $x.5"'
    analyse: [p]
results:
  speed:
    style: aligned
    columns: [x, bw]
"""


def jubex(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"},
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("kept")
    (home / "kept.yaml").write_text(DEFINITION)
    jubex(home, "run", "kept.yaml", "-q", "--no-result")
    jubex(home, "run", "kept.yaml", "-q", "--no-result")
    return home


def test_a_run_keeps_its_tables_even_unprinted(home: Path) -> None:
    kept = home / "runs" / "000000" / "result"
    assert sorted(p.name for p in kept.iterdir()) == ["speed.txt"]
    assert (kept / "speed.txt").read_text() == jubex(home, "result", "0")


def test_result_writes_each_format_asked_for(home: Path) -> None:
    kept = home / "runs" / "000001" / "result"
    csv = jubex(home, "result", "-f", "csv")
    assert csv.splitlines()[:3] == ["x,bw [MiB/s]", "1,1.5", "2,2.5"]
    assert (kept / "speed.csv").read_text() == csv
    jubex(home, "result", "-f", "json", "-o", str(home / "elsewhere.json"))
    assert (kept / "speed.json").read_text() == (home / "elsewhere.json").read_text()
    assert sorted(p.name for p in kept.iterdir()) == ["speed.csv", "speed.json", "speed.txt"]


def test_a_table_of_several_runs_is_kept_in_none(home: Path) -> None:
    before = sorted((home / "runs").rglob("result/*"))
    jubex(home, "result", "0", "1", "-f", "markdown")
    assert sorted((home / "runs").rglob("result/*")) == before


def test_a_run_that_cannot_take_the_table_still_shows_it(tmp_path: Path) -> None:
    (tmp_path / "kept.yaml").write_text(DEFINITION)
    jubex(tmp_path, "run", "kept.yaml", "-q", "--no-result")
    kept = tmp_path / "runs" / "000000" / "result"
    for path in kept.iterdir():
        path.unlink()
    kept.rmdir()
    kept.write_text("in the way\n")
    done = subprocess.run(
        [sys.executable, "-m", "jubex", "result", "-f", "csv"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.stdout == "x,bw [MiB/s]\n1,1.5\n2,2.5\n"  # RFC 4180: no notes in it
    assert f"not kept in {Path('runs/000000/result')}:" in done.stderr
