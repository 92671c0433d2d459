"""Arguments that are not text are bad input: exit 2 in one paragraph, nothing made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DEFINITION = """\
name: bytes
parameters:
  n: [1]
steps:
  work:
    do: echo "n $n"
"""


@pytest.mark.parametrize(
    "args",
    [
        [b"run", b"b.yaml", b"-p", b"n=\xff\xfe"],
        [b"run", b"b.yaml", b"-p", b"\xc3=1"],
        [b"run", b"b.yaml", b"-t", b"\xff"],
    ],
    ids=["value", "name", "tag"],
)
def test_an_argument_that_is_not_utf8_is_exit_2_and_makes_no_run(
    tmp_path: Path, args: list[bytes]
) -> None:
    (tmp_path / "b.yaml").write_text(DEFINITION)
    done = subprocess.run(
        [os.fsencode(sys.executable), b"-m", b"jubex", *args],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        env={**os.environ, "LC_ALL": "C.UTF-8"},
    )
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 2, err
    assert "is not UTF-8 text" in err and err.count("\n") == 1, err
    assert not (tmp_path / "runs").exists()
