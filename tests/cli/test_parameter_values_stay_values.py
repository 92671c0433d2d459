"""A ``-p`` value never becomes a command: one holding shell syntax is refused by run, the
dry run, validate and info, unless the user asks for it (the real CLI, a real shell)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEFINITION = 'name: d\nparameters:\n  p: [plain]\nsteps:\n  s:\n    do: echo "$p"\n'

HOSTILE = ["$(touch PWNED)", "`touch PWNED`", "x; touch PWNED", "x | touch PWNED",
           "x & touch PWNED", "x\ntouch PWNED", "x > PWNED"]  # fmt: skip


def jubex(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("command", [["run", "-q"], ["run", "--dry-run"], ["validate"], ["info"]])
def test_a_value_holding_shell_syntax_is_refused(
    value: str, command: list[str], tmp_path: Path
) -> None:
    (tmp_path / "d.yaml").write_text(DEFINITION)
    done = jubex(tmp_path, *command, "d.yaml", "-p", f"p={value}")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "-p p: the value holds" in done.stderr and "--allow-shell-syntax" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.rglob("PWNED")) and not (tmp_path / "runs").exists()


def test_plain_values_run_and_shell_syntax_runs_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "d.yaml").write_text(DEFINITION)
    done = jubex(tmp_path, "run", "-q", "d.yaml", "-p", "p=4KiB,a-b_c.d/e:f=g")
    assert done.returncode == 0, done.stderr
    assert not list(tmp_path.rglob("PWNED"))
    done = jubex(tmp_path, "run", "-q", "d.yaml", "-p", "p=$(touch PWNED)", "--allow-shell-syntax")
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.rglob("PWNED"))  # asked for: the value is shell text in the command
