"""JUBE files of hostile sizes are refused or read in bounded time, with the count and
the limit (the real CLI, timed as a user sees it)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

BENCHMARK = """<?xml version="1.0"?>
<jube>
  <benchmark name="b" outpath="runs" {attrs}>
    <parameterset name="p"><parameter name="n">1</parameter></parameterset>
    <step name="s"><use>p</use><do>echo $n</do></step>
  </benchmark>
</jube>
"""


def jubex(cwd: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    return done, time.monotonic() - began


def test_100000_attributes_are_refused_with_the_count_and_the_limit(tmp_path: Path) -> None:
    attrs = " ".join(f'a{i}="x"' for i in range(100_000))
    (tmp_path / "b.xml").write_text(BENCHMARK.format(attrs=attrs))
    for command in (["validate"], ["info"], ["run", "--dry-run"]):
        done, took = jubex(tmp_path, *command, "b.xml")
        assert done.returncode != 0 and "Traceback" not in done.stderr
        assert "has 100,002 attributes, more than the 1,000" in done.stdout + done.stderr
        assert took < 15  # 80 s and more before, with 100,000 warnings


def test_many_unknown_attributes_are_said_ten_at_a_time(tmp_path: Path) -> None:
    attrs = " ".join(f'a{i}="x"' for i in range(500))
    (tmp_path / "b.xml").write_text(BENCHMARK.format(attrs=attrs))
    done, _ = jubex(tmp_path, "validate", "b.xml")
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert said.count("is not one JUBE reads") == 10
    assert "has 490 more attributes JUBE does not read" in said
