"""What the command-line benchmarks share: timing a jubex command in a fresh process."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

JUBEX = [sys.executable, "-m", "jubex"]
#: the commands run as an installed jubex does: from compiled bytecode (an environment that
#: forbids writing it would have every command compile jubex's sources first, ~0.1 s)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], cwd: Path) -> float:
    """Wall seconds of one command, its output discarded."""
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


def timed_cpu(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one command, output discarded.

    On a shared machine the CPU time is the steadier number: waiting for a core inflates
    the wall time, hardly the CPU time.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed(cmd, cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu
