"""The shipped platform files: each loads, renders, and its scripts are accepted where a
real scheduler (or shell) is at hand."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from jubex.errors import DefinitionError
from jubex.platform.load import SHIPPED, load_platform
from jubex.schedulers.base import Scheduler
from jubex.schedulers.registry import scheduler_for

SHIPPED_NAMES = sorted(p.stem for p in SHIPPED.rglob("*.yaml"))


def render(name: str, tmp_path: Path, **resources: str) -> str:
    platform = load_platform(name)
    resolved = platform.resolve(resources)
    return platform.job_script(
        name="jubex-check",
        body="echo body-ran",
        resolved=resolved,
        workdir=tmp_path,
        stdout=tmp_path / "out",
        stderr=tmp_path / "err",
    )


def test_the_shipped_platforms() -> None:
    assert set(SHIPPED_NAMES) >= {"flux", "local", "lsf", "pbs", "sge", "slurm"}
    assert {"juwels-booster", "polaris", "frontier", "lumi"} <= set(SHIPPED_NAMES)


@pytest.mark.parametrize("name", SHIPPED_NAMES)
def test_each_shipped_platform_loads_renders_and_names_its_backend(
    name: str, tmp_path: Path
) -> None:
    platform = load_platform(name)
    assert platform.description and platform.parameters.keys() >= {"ior", "mdtest", "fio"}
    script = render(name, tmp_path, nodes="1", time="10m")
    assert script.startswith("#!/bin/") and script.rstrip().endswith("echo body-ran")
    assert "{{" not in script and "{%" not in script
    backend = scheduler_for(platform) if name != "local" else None
    assert backend is None or (
        isinstance(backend, Scheduler) and backend.name == platform.scheduler
    )


def test_the_local_script_runs_in_a_real_shell(tmp_path: Path) -> None:
    script = tmp_path / "job.sh"
    script.write_text(
        render("local", tmp_path, threads="3").replace(
            "echo body-ran", 'echo "threads=$OMP_NUM_THREADS"'
        )
    )
    result = subprocess.run(["/bin/sh", str(script)], capture_output=True, text=True, check=True)
    assert result.stdout == "threads=3\n"


@pytest.mark.parametrize("name", ["pbs", "polaris"])
def test_pbs_scripts_carry_well_formed_directives(name: str, tmp_path: Path) -> None:
    script = render(name, tmp_path, nodes="2", time="50m", account="proj")
    directives = [line for line in script.splitlines() if line.startswith("#PBS")]
    assert "#PBS -l walltime=00:50:00" in directives and "#PBS -A proj" in directives
    assert all(re.fullmatch(r"#PBS -[A-Za-z] \S+", line) for line in directives), directives
    assert any(re.fullmatch(r"#PBS -l select=2:\S+", line) for line in directives)


@pytest.mark.slurm
@pytest.mark.usefixtures("slurm")
def test_the_generic_slurm_script_passes_sbatch_test_only(tmp_path: Path) -> None:
    script = tmp_path / "job.sh"
    script.write_text(
        render("slurm", tmp_path, nodes="2", tasks_per_node="2", time="5m", memory="1GiB")
    )
    result = subprocess.run(
        ["sbatch", "--test-only", str(script)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "to start at" in result.stderr


def test_a_scheduler_no_backend_runs_is_refused_at_its_line(tmp_path: Path) -> None:
    from jubex.api import validate

    path = tmp_path / "site.yaml"
    path.write_text("name: site\nextends: slurm\nscheduler: sgee\n")
    (problem,) = validate([path])
    assert str(problem).startswith(f"{path}:3:1: error: platform 'site': no scheduler 'sgee'")
    assert "jubex knows flux, local, lsf, pbs, sge, slurm" in str(problem)
    assert "'sge'" in str(problem.hint)
    with pytest.raises(DefinitionError, match="no scheduler 'sgee'"):
        scheduler_for(load_platform(str(path)))
