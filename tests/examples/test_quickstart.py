"""The README's main job, as written, from a fresh clone of the repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quickstart_from_a_fresh_clone_prints_both_tables(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the repository's git history to clone it")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    done = subprocess.run(
        [sys.executable, "-m", "jubex", "run", "examples/quickstart.yaml"],
        cwd=clone,
        env={**os.environ, "COLUMNS": "200"},  # a terminal wide enough for the tables as tables
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = done.stdout
    assert "run examples/runs/000000: 28 done" in out
    assert "bandwidth" in out and "metadata" in out
    rows = [line.split() for line in out.splitlines()]
    bandwidth = [r for r in rows if len(r) > 3 and r[1] in ("4KiB", "64KiB", "1MiB")]
    metadata = [r for r in rows if len(r) > 2 and r[0] in ("0", "1", "2") and r[1] == "3"]
    assert len(bandwidth) == 6 and all(r[2] == "3" for r in bandwidth)
    assert len(metadata) == 3
    # every value is there ("—" in the last column, flags, only says nothing is flagged)
    assert not any("—" in r[:9] for r in bandwidth), out  # 2 keys, n, 2 × mean ± std
    assert not any("—" in r[:11] for r in metadata), out  # depth, n, 3 × mean ± std
    assert "missing" not in out
    # the measuring steps are exclusive: their repetitions ran one at a time, not side by side
    assert "concurrent" not in out
