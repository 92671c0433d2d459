"""What the command-line benchmarks share: timing a jubex command in a fresh process."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

JUBEX = [sys.executable, "-m", "jubex"]


def timed(cmd: list[str], cwd: Path) -> float:
    """Wall seconds of one command, its output discarded."""
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start
