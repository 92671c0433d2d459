"""Tests marked ``waits`` start first, in :data:`conftest.WAIT_LANES` lanes of one xdist
worker each, while the other workers run the rest (tests/conftest.py; tox runs the suite with
``-n 4 --dist loadgroup``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import WAIT_LANES

HERE = Path(__file__).resolve().parent

CASES = """
import os
import time

import pytest


def note(name):
    with open("order", "a") as out:
        out.write(f"{os.environ['PYTEST_XDIST_WORKER']} {name}\\n")


@pytest.mark.parametrize("n", range(12))
def test_quick(n):
    note(f"quick{n}")
    time.sleep(0.05)


@pytest.mark.waits
@pytest.mark.parametrize("n", range(4))
def test_waits(n):
    note(f"waits{n}")
    time.sleep(0.5)
"""


def test_the_waiting_tests_start_first_in_their_lanes_beside_the_rest(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text((HERE / "conftest.py").read_text())
    (tmp_path / "test_cases.py").write_text(CASES)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "3",
         "--dist", "loadgroup", "-o", "markers=waits: x", "test_cases.py"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    order = [line.split() for line in (tmp_path / "order").read_text().splitlines()]
    by_worker: dict[str, list[str]] = {}
    for worker, name in order:
        by_worker.setdefault(worker, []).append(name)
    lanes = {w: names for w, names in by_worker.items() if any("waits" in n for n in names)}
    assert len(lanes) == WAIT_LANES, by_worker
    # a lane runs its waiting tests one after the other, before anything else
    for names in lanes.values():
        waiting = [n for n in names if n.startswith("waits")]
        assert names[: len(waiting)] == waiting, by_worker
    # the other workers started on the rest at once
    others = [names for w, names in by_worker.items() if w not in lanes]
    assert others and all(names[0].startswith("quick") for names in others), by_worker
