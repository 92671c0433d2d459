"""Repetitions until the numbers are tight, in batch: further jobs for the points that need
them, on the real test Slurm, submitted by a waiting run and by ``continue`` alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slurm, pytest.mark.usefixtures("slurm")]

PLATFORM = """\
name: slurm-test
extends: slurm
scheduler_options: {poll_interval: 0.5, poll_max_interval: 2}
"""


def setup(tmp_path: Path) -> None:
    """Two points: one without spread (two repetitions do), one far too noisy (all four)."""
    log = tmp_path / "executions"
    (tmp_path / "slurm-test.yaml").write_text(PLATFORM)
    (tmp_path / "def.yaml").write_text(
        f"""
name: tight
parametersets:
  p:
    spread: [0, 40]
steps:
  measure:
    use: [p]
    iterations: {{min: 2, max: 4, until: "ci95 <= 1%"}}
    do: |
      echo "$spread $jube_wp_iteration $SLURM_JOB_ID" >> {log}
      echo "bw $((100 + $spread * ($jube_wp_iteration % 2)))"
    analyse: [bw]
patterns:
  bw:
    bw: {{regex: 'bw $jube_pat_fp', type: float, unit: MiB/s}}
results:
  bandwidth:
    group_by: [spread]
    columns: [spread, {{name: bw, stats: [mean]}}]
"""
    )


def jubex(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=os.environ,
    )


def check_outcome(tmp_path: Path) -> None:
    lines = [line.split() for line in (tmp_path / "executions").read_text().splitlines()]
    ran: dict[str, list[int]] = {}
    for spread, iteration, _job in lines:
        ran.setdefault(spread, []).append(int(iteration))
    assert {k: sorted(v) for k, v in ran.items()} == {"0": [0, 1], "40": [0, 1, 2, 3]}
    assert len({job for *_, job in lines}) == 6, "each repetition is a Slurm job of its own"
    status = json.loads(jubex(tmp_path, "status", "runs/000000", "--format", "json").stdout)
    assert status["steps"]["measure"] == {"done": 6}
    table = jubex(tmp_path, "result", "runs/000000", "-f", "csv").stdout
    assert "spread,bw_mean [MiB/s],repetitions,flags" in table
    assert "\n0,100.0,2," in table  # CSV keeps a float a float
    assert "target ci95 <= 1% not reached: bw ci95" in table


def test_a_waiting_run_submits_further_jobs_for_the_points_that_need_them(
    tmp_path: Path,
) -> None:
    setup(tmp_path)
    done = jubex(tmp_path, "run", "def.yaml", "-P", "slurm-test.yaml", "--outpath", "runs", "-q")
    assert done.returncode == 0, done.stderr
    check_outcome(tmp_path)


def test_no_wait_submits_the_first_round_and_continue_the_rest(tmp_path: Path) -> None:
    setup(tmp_path)
    args = ["run", "def.yaml", "-P", "slurm-test.yaml", "--outpath", "runs", "-q", "--no-wait"]
    first = jubex(tmp_path, *args)
    assert first.returncode == 0, first.stderr
    assert "4 held" in first.stdout and "still to finish" in first.stdout
    done = jubex(tmp_path, "continue", "runs/000000", "-q")
    assert done.returncode == 0, done.stderr
    check_outcome(tmp_path)
