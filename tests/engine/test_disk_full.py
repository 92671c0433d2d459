"""A full disk stops a run with a clear error; the store stays consistent for continue."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from pathlib import Path

LIMIT = 200_000  # bytes any file of the run may grow to: the store hits it first


def _small_disk() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def test_a_full_disk_is_a_clear_error_and_continue_completes_the_run(tmp_path: Path) -> None:
    counter = tmp_path / "executions.txt"
    (tmp_path / "d.yaml").write_text(
        "name: full\nparameters:\n  x: {range: {start: 1, stop: 300, step: 1}}\n"
        f"steps:\n  s:\n    do: 'echo $x >> {counter}; echo \"bw: $x MiB/s\"'\n"
    )
    jubex = [sys.executable, "-m", "jubex"]
    full = subprocess.run(
        [*jubex, "run", "d.yaml", "-q", "--no-result"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        preexec_fn=_small_disk,
        timeout=300,
    )
    assert full.returncode == 1
    assert "Traceback" not in full.stderr
    assert "cannot write the run store" in full.stderr
    assert "jubex continue" in full.stderr
    done = subprocess.run(
        [*jubex, "continue", "runs/000000", "-q", "--no-result"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "300 done" in done.stdout
    assert sorted(map(int, counter.read_text().split())) == list(range(1, 301))
