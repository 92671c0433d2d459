"""The report's failures quote what the program said (real runs, real CLI): stderr's error
line, whole, with causes that differ only in a path or a number counted as one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

#: three workpackages fail alike, each on its own file; the launcher's warning that it ignores
#: something comes first, IOR's assertion after the real cause
DEFINITION = """\
name: full
parameters:
  rank: [1, 2, 3]
steps:
  run:
    do: |
      ENOSPC="No space left on device" W="write(24, 0x7f00, 1048576)"
      echo 'srun: error: SLURMD_DEBUG=verbose invalid. ignoring...' >&2
      echo "ior ERROR: $W failed, errno 28, $ENOSPC (aiori-POSIX.c:$rank)" >&2
      echo "ior: aiori-POSIX.c:$rank: POSIX_Xfer: Assertion 'rc >= 0' failed." >&2
      exit 134
"""


def test_failures_quote_stderr_grouped_by_masked_cause(tmp_path: Path) -> None:
    (tmp_path / "study.yaml").write_text(DEFINITION)
    jubex = [sys.executable, "-m", "jubex"]
    done = subprocess.run(
        [*jubex, "run", "study.yaml", "-q", "--outpath", "runs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    done = subprocess.run(
        [*jubex, "report", "runs/000000", "-o", "r.html"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "r.html").read_text()
    cause = (
        '<td class="reason">exit status 134: ior ERROR: write(24, 0x7f00, 1048576) failed, '
        "errno 28, No space left on device (aiori-POSIX.c:1)</td>"
        '<td class="num">3</td>'
    )
    assert cause in html
    assert "SLURMD_DEBUG" not in html and "Assertion" not in html
