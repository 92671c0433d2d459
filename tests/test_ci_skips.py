"""Under CI every skip fails but one: a test marked ``requires_darshan_runtime`` skipped
because darshan-runtime is not there (tests/conftest.py), said in the summary."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CASES = """
import pytest

from conftest import DARSHAN_ABSENT


@pytest.mark.requires_darshan_runtime
def test_kept(darshan_library):
    pass


@pytest.mark.requires_darshan_runtime
def test_marked_but_skipped_for_another_reason():
    pytest.skip("PyDarshan is not installed")


def test_the_reason_without_the_mark():
    pytest.skip(DARSHAN_ABSENT)
"""


def test_under_ci_only_the_darshan_runtime_skip_is_kept(tmp_path: Path) -> None:
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_cases.py").write_text(CASES)
    env = {k: v for k, v in os.environ.items() if k != "JUBEX_DARSHAN_LIB"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-rA",
         "-o", "markers=requires_darshan_runtime: x", "test_cases.py"],
        capture_output=True, text=True, cwd=tmp_path, env={**env, "CI": "1"}, check=False,
    )  # fmt: skip
    out = done.stdout
    assert "SKIPPED" in out and "test_kept" not in _lines(out, "FAILED"), out
    assert "test_marked_but_skipped_for_another_reason" in _lines(out, "FAILED"), out
    assert "test_the_reason_without_the_mark" in _lines(out, "FAILED"), out
    assert "1 test(s) did not run: darshan-runtime is not here" in out, out


def _lines(out: str, start: str) -> str:
    return "\n".join(line for line in out.splitlines() if line.startswith(start))
