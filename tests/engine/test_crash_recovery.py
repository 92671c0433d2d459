"""Nothing lost, nothing twice: kill -9 of jubex at random moments, then continue."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

N = 200


def jubex(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def write_definition(tmp_path: Path) -> Path:
    counter = tmp_path / "executions.txt"
    definition = tmp_path / "count.yaml"
    definition.write_text(
        f"""
name: count
parameters:
  n: {{range: {{start: 0, stop: {N - 1}, step: 1}}}}
steps:
  work:
    do: |
      echo $n >> {counter}
      sleep 0.02
      echo "bw: $n.5 MiB/s"
"""
    )
    return definition


@pytest.mark.slow
def test_kill_minus_nine_then_continue_runs_everything_exactly_once(tmp_path: Path) -> None:
    rng = random.Random(1234)
    definition = write_definition(tmp_path)
    proc = jubex("run", str(definition), "--outpath", "runs", "-j", "4", "-q", cwd=tmp_path)
    store = tmp_path / "runs" / "000000" / "jubex.sqlite"
    deadline = time.monotonic() + 30
    while not store.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    kills = 0
    while True:
        try:
            proc.wait(timeout=rng.uniform(0.2, 1.2))
            break
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            kills += 1
            if kills >= 5:
                break
        proc = jubex("continue", "runs/000000", "-j", "4", "-q", cwd=tmp_path)
    final = jubex("continue", "runs/000000", "-j", "4", "-q", "--no-result", cwd=tmp_path)
    out, err = final.communicate(timeout=120)
    assert final.returncode == 0, err
    assert kills >= 1, "the run finished before it could be killed; make it longer"
    lines = (tmp_path / "executions.txt").read_text().split()
    assert sorted(map(int, lines)) == list(range(N)), "a workpackage ran twice or never"
    status = jubex("status", "runs/000000", "--format", "json", cwd=tmp_path)
    out, _ = status.communicate(timeout=60)
    assert json.loads(out)["steps"]["work"]["done"] == N


def test_two_continues_at_once_the_second_refuses(tmp_path: Path) -> None:
    release = tmp_path / "go"
    definition = tmp_path / "wait.yaml"
    definition.write_text(
        "name: wait\nparameters:\n  n: [1, 2]\nsteps:\n  s:\n"
        f"    do: while [ ! -e {release} ]; do sleep 0.05; done\n"
    )
    first = jubex("run", str(definition), "--outpath", "runs", "-q", cwd=tmp_path)
    # the first workpackage's claim: the first jubex is driving the run
    claimed = tmp_path / "runs/000000/000000_s/claim"
    deadline = time.monotonic() + 60
    while not claimed.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert claimed.exists(), "the first jubex never started its workpackage"
    second = jubex("continue", "runs/000000", "-q", cwd=tmp_path)
    _, err = second.communicate(timeout=60)
    release.touch()
    assert second.returncode == 1
    assert "being driven by another jubex" in err
    assert "Traceback" not in err
    first.communicate(timeout=60)
    assert first.returncode == 0


def gated_definition(tmp_path: Path, n: int) -> tuple[Path, Path]:
    """n workpackages that each log their start and wait for the gate file (at most 300 s:
    a test that fails before opening the gate leaves no job behind it for long)."""
    gate = tmp_path / "gate"
    definition = tmp_path / "gated.yaml"
    definition.write_text(
        f"""
name: gated
parameters:
  n: {{range: {{start: 0, stop: {n - 1}, step: 1}}}}
steps:
  work:
    do: |
      echo $n >> {tmp_path / "executions.txt"}
      for _ in $(seq 6000); do [ -e {gate} ] && break; sleep 0.05; done
"""
    )
    return definition, gate


def queued_events(store: Path) -> list[tuple[int, float]]:
    with sqlite3.connect(store) as db:
        return list(db.execute("SELECT wp, time FROM event WHERE state = 'queued'"))


def test_the_intent_is_recorded_for_many_workpackages_with_one_transaction(
    tmp_path: Path,
) -> None:
    definition, gate = gated_definition(tmp_path, 40)
    gate.touch()
    done = jubex("run", str(definition), "--outpath", "runs", "-j", "2", "-q", cwd=tmp_path)
    assert done.wait(timeout=120) == 0, done.communicate()[1]
    events = queued_events(tmp_path / "runs" / "000000" / "jubex.sqlite")
    assert sorted(wp for wp, _ in events) == list(range(40))
    # one transaction per 16 or so (a refill may take a few more), not one per job
    assert len({when for _, when in events}) <= 8


def test_workpackages_queued_ahead_and_never_started_run_once_after_a_kill(
    tmp_path: Path,
) -> None:
    definition, gate = gated_definition(tmp_path, 20)
    proc = jubex("run", str(definition), "--outpath", "runs", "-j", "2", "-q", cwd=tmp_path)
    log = tmp_path / "executions.txt"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().split()) < 2):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = tmp_path / "runs" / "000000" / "jubex.sqlite"
    try:
        with sqlite3.connect(store) as db:
            states = dict(db.execute("SELECT state, COUNT(*) FROM workpackage GROUP BY state"))
        assert states.get("queued", 0) > 2, states  # queued ahead of the two that started
    finally:
        gate.touch()  # the two jobs the kill left running end either way
    final = jubex("continue", "runs/000000", "-j", "2", "-q", "--no-result", cwd=tmp_path)
    _, err = final.communicate(timeout=120)
    assert final.returncode == 0, err
    assert sorted(map(int, log.read_text().split())) == list(range(20))
