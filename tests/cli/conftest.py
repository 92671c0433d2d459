"""The CLI as a user runs it: ``python -m jubex`` in a real process, from a directory."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_jubex(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """One jubex command in ``cwd``; never a traceback, whatever its exit status."""
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="session")
def jubex() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_jubex
