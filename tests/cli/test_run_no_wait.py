"""``jubex run --no-wait`` on the local platform returns while its workpackages still run:
a process of its own drives the run to the end."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

GATED = """
name: gated
parameters:
  x: [1, 2]
steps:
  work:
    do: |
      while [ ! -e "$jube_benchmark_home/go" ]; do sleep 0.05; done
      echo "x=$x"
"""


def test_no_wait_returns_before_the_work_and_a_driver_finishes_it(
    tmp_path: Path, jubex: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    (tmp_path / "gated.yaml").write_text(GATED)
    done = jubex(tmp_path, "run", "gated.yaml", "--no-wait", "-q")
    assert done.returncode == 0, done.stderr
    # the workpackages wait for a file nobody made yet: returning means not waiting for them
    assert "run runs/000000: driven by process " in done.stdout
    assert "runs/000000/driver.log" in done.stdout
    status = jubex(tmp_path, "status", "runs/000000")
    assert "done" not in status.stdout and "work: " in status.stdout
    (tmp_path / "go").touch()
    work = tmp_path / "runs/000000"
    for _ in range(1200):  # the driver's end, polled (a bound against a hang, not a timing)
        status = jubex(tmp_path, "status", "runs/000000")
        if "work: 2 done" in status.stdout:
            break
        time.sleep(0.1)
    assert "work: 2 done" in status.stdout, status.stdout
    assert sorted(p.read_text() for p in work.glob("*_work/work/stdout")) == ["x=1\n", "x=2\n"]


def test_cancel_stops_the_driver_of_a_run_left_to_run(
    tmp_path: Path, jubex: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    (tmp_path / "gated.yaml").write_text(GATED)
    assert jubex(tmp_path, "run", "gated.yaml", "--no-wait", "-q").returncode == 0
    done = jubex(tmp_path, "cancel", "runs/000000")
    assert (done.returncode, done.stdout) == (0, "run runs/000000: 2 workpackage(s) cancelled\n")
    assert "work: 2 cancelled" in jubex(tmp_path, "status", "runs/000000").stdout
