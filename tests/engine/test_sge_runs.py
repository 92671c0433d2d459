"""Whole benchmarks through ``jubex run -P <sge platform>`` on the real Grid Engine that
``ci/start-local-sge.sh`` starts: results, failures, a chain, an array, and kill -9 of jubex
with jobs queued. Executions are counted by the jobs themselves, outside jubex."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.sge]


def platform(tmp_path: Path, bin_dir: Path) -> None:
    clients = ", ".join(f"{c}: {bin_dir / c}" for c in ("qsub", "qstat", "qdel", "qacct"))
    (tmp_path / "sge-test.yaml").write_text(
        "name: sge-test\nextends: sge\n"
        f"scheduler_options: {{poll_interval: 0.5, poll_max_interval: 2, {clients}}}\n"
    )


def jubex(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def run_args(*extra: str) -> list[str]:
    return ["run", "def.yaml", "-P", "sge-test.yaml", "--outpath", "runs", "-q", *extra]


def executions(tmp_path: Path) -> list[str]:
    path = tmp_path / "executions"
    return sorted(path.read_text().split()) if path.exists() else []


def states(tmp_path: Path) -> dict[str, dict[str, int]]:
    out = jubex(tmp_path, "status", "runs/000000", "--format", "json")
    return {step: dict(counts) for step, counts in json.loads(out.stdout)["steps"].items()}


def test_a_sweep_runs_as_grid_engine_jobs_and_gives_its_table(sge: Path, tmp_path: Path) -> None:
    platform(tmp_path, sge)
    (tmp_path / "def.yaml").write_text(
        f"""
name: sweep
parameters:
  n: [1, 2, 3]
steps:
  build:
    use: []
    do: echo built >> {tmp_path}/executions
  work:
    depend: [build]
    do: |
      echo "work$n job $JOB_ID" >> {tmp_path}/executions
      echo "value: $(($n * 10)) MiB/s"
      [ $n != 3 ]
    analyse: [v]
patterns:
  v:
    value: {{regex: 'value: $jube_pat_int', type: int, unit: MiB/s}}
results:
  t:
    columns: [n, value]
    sort: [n]
"""
    )
    done = jubex(tmp_path, *run_args())
    assert done.returncode == 1, done.stderr  # one workpackage failed, as it should
    ran = executions(tmp_path)
    assert [line for line in ran if not line.isdigit()] == [
        "built",
        "job",
        "job",
        "job",
        "work1",
        "work2",
        "work3",
    ]
    assert states(tmp_path) == {"build": {"done": 1}, "work": {"done": 2, "failed": 1}}
    assert "exit status 1" in done.stdout
    table = jubex(tmp_path, "result", "runs/000000", "-f", "csv").stdout
    assert "\n1,10\n2,20\n" in table


def test_an_array_step_is_one_qsub(sge: Path, tmp_path: Path) -> None:
    platform(tmp_path, sge)
    (tmp_path / "def.yaml").write_text(
        f"name: arr\nparameters:\n  n: [0, 1, 2, 3]\nsteps:\n  s:\n    array: true\n"
        f'    do: echo "s$n task $SGE_TASK_ID" >> {tmp_path}/executions\n'
    )
    done = jubex(tmp_path, *run_args())
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "executions").read_text().splitlines()
    assert sorted(line.split()[0] for line in lines) == ["s0", "s1", "s2", "s3"]
    assert sorted(line.split()[2] for line in lines) == ["1", "2", "3", "4"]
    assert states(tmp_path) == {"s": {"done": 4}}


@pytest.mark.slow
def test_kill_minus_nine_with_jobs_queued_then_continue_runs_each_once(
    sge: Path, tmp_path: Path
) -> None:
    platform(tmp_path, sge)
    go = tmp_path / "go"
    (tmp_path / "def.yaml").write_text(
        f"name: k\nparameters:\n  n: [0, 1, 2, 3, 4, 5]\nsteps:\n  s:\n"
        f"    do: while [ ! -e {go} ]; do sleep 0.2; done; echo s$n >> {tmp_path}/executions\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "jubex", *run_args()],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if states_or_none(tmp_path).get("submitted", 0) >= 4:
            break
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    go.touch()
    done = jubex(tmp_path, "continue", "runs/000000", "-q")
    assert done.returncode == 0, done.stderr
    assert executions(tmp_path) == [f"s{n}" for n in range(6)]
    assert states(tmp_path) == {"s": {"done": 6}}


def states_or_none(tmp_path: Path) -> dict[str, int]:
    """The run's counts by state while it is driven (empty before it exists)."""
    if not (tmp_path / "runs" / "000000" / "jubex.sqlite").exists():
        return {}
    out = jubex(tmp_path, "status", "runs/000000", "--format", "json")
    try:
        return json.loads(out.stdout)["steps"].get("s", {})
    except (json.JSONDecodeError, KeyError):
        return {}
