"""A platform template whose arithmetic fails on the values (a division by a number of 321
digits, by zero) is a clear error at the template's line, in the dry run and in validate
with that platform (the real CLI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEFINITION = (
    "name: d\nparameters:\n  n: [1]\nsteps:\n  s:\n    resources: {time: 10}\n    do: echo $n\n"
)


@pytest.mark.parametrize("expression", ["time // 1" + "0" * 320, "time // 0", "time / 1e400"])
@pytest.mark.parametrize("command", [["run", "--dry-run"], ["validate"]])
def test_failing_template_arithmetic_is_a_clear_error(
    expression: str, command: list[str], tmp_path: Path
) -> None:
    (tmp_path / "d.yaml").write_text(DEFINITION)
    (tmp_path / "p.yaml").write_text(
        "name: p\nextends: slurm\ntemplate: |\n  #!/bin/sh\n"
        f"  #SBATCH --time={{{{ {expression} }}}}\n  {{{{ body }}}}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *command, "-P", "./p.yaml", "d.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode not in (0, 3)
    said = done.stdout + done.stderr
    assert "p.yaml:4" in said and "cannot be rendered" in said, said
    assert "internal error" not in said and "Traceback" not in said
