"""A run that asks a node for more processes than it has cores is warned about once, and
the MPI settings the local platform adds are said, in the run's output and by info."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CORES = os.cpu_count() or 1

DEFINITION = f"""\
name: crowded
parameters:
  x: [1, 2, 3]
steps:
  run:
    resources: {{tasks_per_node: {2 * CORES}}}
    do: echo $x
"""


def jubex(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done


def test_more_processes_per_node_than_cores_is_warned_about_once(tmp_path: Path) -> None:
    (tmp_path / "crowded.yaml").write_text(DEFINITION)
    done = jubex(tmp_path, "run", "crowded.yaml", "-q", "--outpath", "runs", "-P", "local")
    warning = (
        f"warning: {2 * CORES} task(s) per node on platform 'local', "
        f"whose nodes have {CORES} core(s)"
    )
    assert done.stderr.count(warning) == 1, done.stderr
    for form in ("pretty", "json"):  # the dry run warns as the run does
        dry = jubex(tmp_path, "run", "crowded.yaml", "--dry-run", "-f", form, "-P", "local")
        assert dry.stderr.count(warning) == 1, dry.stderr
    (tmp_path / "fits.yaml").write_text(DEFINITION.replace(f"{2 * CORES}}}", "1}"))
    done = jubex(tmp_path, "run", "fits.yaml", "-q", "--outpath", "runs", "-P", "local")
    assert "warning" not in done.stderr


def test_the_local_platform_says_the_mpi_settings_it_adds(tmp_path: Path) -> None:
    (tmp_path / "crowded.yaml").write_text(DEFINITION)
    said = (
        "platform 'local' sets MPI settings in every job: OMPI_ALLOW_RUN_AS_ROOT=1, "
        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, OMPI_MCA_rmaps_base_oversubscribe=1"
    )
    done = jubex(tmp_path, "run", "crowded.yaml", "-q", "--outpath", "runs", "-P", "local")
    assert done.stderr.count(said) == 1
    assert said in jubex(tmp_path, "info", "crowded.yaml", "-P", "local").stdout
