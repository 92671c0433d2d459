"""Which runs a command without a run directory means: the current directory's, never
the latest run made from another directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

DEFINITION = """
name: lookup
parameters:
  x: [1]
steps:
  work:
    do: echo "x is $x"
"""


def jubex(cwd: Path, *args: str, check: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == check, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkout with two runs of a definition in examples/, made from its top."""
    top = tmp_path_factory.mktemp("checkout")
    (top / "examples").mkdir()
    (top / "examples" / "bench.yaml").write_text(DEFINITION)
    for _ in range(2):
        jubex(top, "run", "examples/bench.yaml", "-q", "--no-result")
    return top


def test_a_fresh_directory_does_not_use_runs_made_elsewhere(checkout: Path, tmp_path: Path) -> None:
    for args in (("compare", "0", "1"), ("result", "0", "1"), ("remove", "0", "-y"), ("status",)):
        err = jubex(tmp_path, *args, check=2).stderr
        assert f"no runs for this directory ({tmp_path})" in err
        assert "name the run" in err
    assert (checkout / "examples" / "runs" / "000000").is_dir()


def test_the_directory_a_run_was_made_from_finds_it(checkout: Path) -> None:
    runs = checkout / "examples" / "runs"
    assert "run examples/runs/000001" in jubex(checkout, "status").stdout
    assert "run runs/000001" in jubex(checkout / "examples", "status").stdout
    assert "run 000000" in jubex(runs, "status", "-2").stdout
    assert f"run {runs / '000000'} " in jubex(runs / "000000", "status").stdout
    listing = jubex(checkout, "runs").stdout
    assert "000000" in listing and "000001" in listing


def test_remove_prints_the_full_path_it_deletes(checkout: Path) -> None:
    jubex(checkout, "run", "examples/bench.yaml", "-q", "--no-result")
    target = (checkout / "examples" / "runs" / "000002").resolve()
    out = jubex(checkout, "remove", "last", "--yes").stdout
    assert f"removing {target}\nremoved {target}\n" == out
    assert not target.exists()
