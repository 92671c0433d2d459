"""The run commands as a user types them: run, status, runs, log, info, result, remove."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DEFINITION = """
name: cli
comment: the commands of a run
parameters:
  x: [1, 2, 3]
patterns:
  bw:
    bw: {regex: "bw: $jube_pat_fp MiB/s", type: float, unit: MiB/s, better: higher}
steps:
  work:
    iterations: 2
    do: |
      [ "$x" != 3 ] || { echo "no luck" >&2; exit 4; }
      echo "bw: $x.5 MiB/s"
    analyse: [bw]
results:
  speed:
    group_by: [x]
    columns: [x, {name: bw, stats: [n, mean, std]}]
"""


def jubex(*args: str, cwd: Path, check: int | None = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert "Traceback" not in done.stderr
    if check is not None:
        assert done.returncode == check, done.stderr
    return done


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    home = tmp_path_factory.mktemp("cli")
    (home / "cli.yaml").write_text(DEFINITION)
    return home, jubex("run", "cli.yaml", cwd=home, check=1)


def test_run_reports_failures_and_prints_the_table(ran) -> None:  # type: ignore[no-untyped-def]
    _, done = ran
    assert "run runs/000000: 4 done, 2 failed" in done.stdout
    assert "2 workpackage(s) failed, 1 cause(s):\n  2 x work: exit status 4: no luck" in done.stdout
    assert "more: jubex status runs/000000" in done.stdout
    lines = [line.split() for line in done.stdout.splitlines()]
    assert ["1", "2", "1.5", "0"] in lines
    assert ["2", "2", "2.5", "0"] in lines
    assert "2 failed workpackage(s) left out" in done.stdout


def test_status_names_the_failure_and_its_stderr(ran) -> None:  # type: ignore[no-untyped-def]
    home, _ = ran
    text = jubex("status", "runs/000000", cwd=home, check=1).stdout
    assert "work: 4 done, 2 failed" in text
    assert "  2 failed, 1 cause(s):\n    2 x work: exit status 4: no luck\n" in text
    assert "workpackage 4, 5; outputs in runs/000000/000004_work/work" in text
    data = json.loads(jubex("status", "runs", "-f", "json", cwd=home, check=1).stdout)
    assert data["steps"]["work"] == {"done": 4, "failed": 2}
    assert {f["params"]["x"] for f in data["failed"]} == {"3"}


def test_runs_log_and_info(ran) -> None:  # type: ignore[no-untyped-def]
    home, _ = ran
    listing = jubex("runs", "runs", cwd=home).stdout
    assert "000000" in listing and "cli" in listing and "2 failed" in listing
    log = jubex("log", "runs/000000", "-w", "0", cwd=home).stdout.split("\n")
    assert [line.split()[4] for line in log if line] == ["queued", "submitted", "done"]
    info = jubex("info", "runs/000000", "--parametrisation", "-f", "json", cwd=home).stdout
    parsed = json.loads(info)
    assert parsed["name"] == "cli" and len(parsed["rows"]) == 6


def test_result_formats_and_several_runs(ran) -> None:  # type: ignore[no-untyped-def]
    home, _ = ran
    csv = jubex("result", "runs/000000", "-f", "csv", cwd=home).stdout.splitlines()
    assert csv[0].startswith("x,bw_n,bw_mean")
    data = json.loads(jubex("result", "runs/000000", "-f", "json", cwd=home).stdout)
    assert data
    out = home / "table.md"
    jubex("result", "runs/000000", "-f", "markdown", "-o", str(out), cwd=home)
    assert out.read_text().startswith("|") or "| x" in out.read_text()


def test_info_of_a_definition_shows_the_space(ran) -> None:  # type: ignore[no-untyped-def]
    home, _ = ran
    text = jubex("info", "cli.yaml", cwd=home).stdout
    assert "parameter space: 3 point(s)" in text
    assert "step work: 6 workpackage(s)" in text
    dry = jubex("run", "cli.yaml", "--dry-run", "-p", "x=7", cwd=home).stdout
    assert 'echo "bw: 7.5 MiB/s"' in dry
    assert "2 workpackage(s) would run" in dry


def test_retry_failed_runs_only_the_failed_again(ran, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home, _ = ran
    done = jubex("continue", "runs/000000", "--retry-failed", "-q", cwd=home, check=1)
    assert "4 done, 2 failed" in done.stdout
    events = jubex("log", "runs/000000", cwd=home).stdout
    assert events.count(" retry") == 2


def test_bad_usage_is_exit_two_without_traceback(ran) -> None:  # type: ignore[no-untyped-def]
    home, _ = ran
    assert jubex("run", "cli.yaml", "-p", "x", cwd=home, check=2).stderr.count("NAME=VALUE") == 1
    wrong = jubex("run", "cli.yaml", "-p", "y=1", cwd=home, check=2).stderr
    assert "no parameter 'y'" in wrong
    assert "no runs found" in jubex("status", "--outpath", "nowhere", cwd=home, check=2).stderr
    assert jubex("run", "missing.yaml", cwd=home, check=None).returncode in (1, 2)


def test_unwritable_outpath_is_a_clear_error(ran, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home, _ = ran
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    err = jubex("run", "cli.yaml", "--outpath", str(blocker / "runs"), cwd=home, check=1).stderr
    assert "cannot create a run directory" in err


def test_remove_a_workpackage_then_the_run(ran) -> None:  # type: ignore[no-untyped-def]
    home, _ = ran
    unanswered = subprocess.run(
        [sys.executable, "-m", "jubex", "remove", "runs/000000", "-w", "5"],
        cwd=home,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert unanswered.returncode == 2 and "Traceback" not in unanswered.stderr
    assert "no terminal" in unanswered.stderr and "--yes" in unanswered.stderr
    assert (home / "runs/000000/000005_work").exists()
    jubex("remove", "runs/000000", "-w", "5", "-y", cwd=home)
    assert not (home / "runs/000000/000005_work").exists()
    data = json.loads(jubex("info", "runs/000000", "-f", "json", cwd=home).stdout)
    assert len(data["rows"]) == 5
    jubex("remove", "runs/000000", "-y", cwd=home)
    assert not (home / "runs/000000").exists()
