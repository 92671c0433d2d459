"""Definitions of hostile sizes are looked at in bounded time and memory, or refused with the
count and the limit: the real CLI, its peak memory read as the system counts it."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

RANGE = "name: d\nparameters:\n  p: {range: {start: 1, stop: 1000000, step: 1}}\n"
STEPS = "steps:\n  s:\n    do: echo $p\n"


#: jubex run as ``python -m jubex``, writing its peak resident memory (kB) to a file as it
#: ends: the kernel's count for a child (``wait4``) also holds what the process it was
#: forked from had resident (pytest's 160 MB), the process's own high-water mark does not
MEASURED = """
import atexit, runpy, sys
def peak(path=sys.argv[1]):
    status = open("/proc/self/status").read()
    open(path, "w").write(status.split("VmHWM:")[1].split()[0])
atexit.register(peak)
sys.argv = ["jubex", *sys.argv[2:]]
runpy.run_module("jubex", run_name="__main__", alter_sys=True)
"""


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str
    peak_mb: float


def jubex(cwd: Path, *args: str, timeout: float = 60) -> Done:
    """A jubex command and its peak resident memory (-1 when it was killed at the timeout)."""
    peak = cwd / "peak.txt"
    peak.unlink(missing_ok=True)
    command = [sys.executable, "-c", MEASURED, str(peak), *args]
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return Done(-9, str(exc.stdout), str(exc.stderr), -1)
    return Done(done.returncode, done.stdout, done.stderr, int(peak.read_text()) / 1024)


@pytest.mark.parametrize("command", [["validate"], ["info"], ["run", "--dry-run"]])
def test_a_range_of_a_million_values_is_counted_not_made(
    tmp_path: Path, command: list[str]
) -> None:
    """validate took 348 MB and 8 s, info 4 s, the dry run 516 MB and minutes (each value
    made, typed and, in the dry run, rendered)."""
    (tmp_path / "d.yaml").write_text(RANGE + STEPS)
    done = jubex(tmp_path, *command, "d.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.peak_mb < 150, done.peak_mb  # 40 to 50 MB
    if command == ["info"]:
        assert "step s: 1,000,000 workpackage(s)" in done.stdout
    if command == ["run", "--dry-run"]:
        lines = done.stdout.splitlines()
        assert lines[-2:] == [
            "... 999,000 more workpackage(s) not shown: the dry run shows the first 1,000 "
            "(--all shows every one)",
            "1,000,000 workpackage(s) would run on platform 'local'; nothing was written",
        ]
        assert sum(line.startswith("wp ") for line in lines) == 1_000
        assert "wp 999 s iteration 0  p=1000" in lines


def test_the_json_dry_run_says_how_many_it_left_out(tmp_path: Path) -> None:
    (tmp_path / "d.yaml").write_text(RANGE + STEPS)
    done = jubex(tmp_path, "run", "--dry-run", "-f", "json", "d.yaml")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert len(document["workpackages"]) == 1_000
    assert document["workpackages"][-1]["parameters"] == {"p": "1000"}
    assert (document["not_shown"], document["not_shown_exact"]) == (999_000, True)


def test_left_out_under_constraints_is_an_upper_bound_and_all_shows_every_one(
    tmp_path: Path,
) -> None:
    small = "name: d\nparameters:\n  p: {range: {start: 1, stop: 3000, step: 1}}\n"
    (tmp_path / "d.yaml").write_text(small + "where: ['p % 2 == 0']\n" + STEPS)
    done = jubex(tmp_path, "run", "--dry-run", "d.yaml")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == [
        "... up to 2,000 more workpackage(s) not shown: the dry run shows the first 1,000 "
        "(--all shows every one)",
        "up to 3,000 workpackage(s) would run on platform 'local'; nothing was written",
    ]
    every = jubex(tmp_path, "run", "--dry-run", "--all", "-f", "json", "d.yaml")
    document = json.loads(every.stdout)
    assert [len(document["workpackages"]), document["not_shown"]] == [1_500, 0]
    refused = jubex(tmp_path, "run", "--all", "d.yaml")
    assert refused.returncode == 2
    assert "--all is for --dry-run" in refused.stderr


def test_a_run_of_a_range_still_runs_and_the_limit_still_holds(tmp_path: Path) -> None:
    small = "name: d\nparameters:\n  p: {range: {start: 0.5, stop: 1.5, step: 0.25}}\n"
    (tmp_path / "d.yaml").write_text(small + STEPS)
    done = jubex(tmp_path, "run", "d.yaml", "--no-result")
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = sorted((tmp_path / "runs").glob("000000/*_s/work/stdout"))
    assert [path.read_text() for path in outputs] == [
        "0.50\n",
        "0.75\n",
        "1.00\n",
        "1.25\n",
        "1.50\n",
    ]
    (tmp_path / "d.yaml").write_text(RANGE + "steps:\n  s:\n    iterations: 2\n    do: echo $p\n")
    for command in (["run"], ["run", "--dry-run"], ["validate"]):
        refused = jubex(tmp_path, *command, "d.yaml")
        assert refused.returncode == 2, refused.stdout
        assert "the run would make 2,000,000 workpackage cycles" in refused.stdout + refused.stderr


@pytest.mark.parametrize("command", [["validate"], ["info"], ["run", "--dry-run"]])
def test_a_list_of_a_million_values_is_refused_before_it_is_read(
    tmp_path: Path, command: list[str]
) -> None:
    """Each command took more than 30 s and 640 to 740 MB (the YAML composer, and the schema
    check visiting each value twice)."""
    values = ", ".join(map(str, range(10**6)))
    (tmp_path / "d.yaml").write_text(f"name: d\nparameters:\n  p: [{values}]\n" + STEPS)
    done = jubex(tmp_path, *command, "d.yaml")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.peak_mb < 150, done.peak_mb  # 60 to 70 MB
    assert (
        "d.yaml:3:6: error: a list of more than 10,000 values, the most a list written out may "
        "hold" in done.stdout + done.stderr
    )
