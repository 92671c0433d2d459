"""Resolving resources (defaults, types, limits) and rendering launcher and job script."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.definition.frozen import from_json, to_json
from jubex.errors import DefinitionError
from jubex.platform.load import load_platform
from jubex.platform.model import Platform
from jubex.schedulers.registry import scheduler_for

BOOSTER = load_platform("juwels-booster")


def test_defaults_merge_with_requested_texts_into_typed_values() -> None:
    resolved = BOOSTER.resolve({"nodes": "2", "time": "1:30:00", "memory": "4GiB", "qos": "x"})
    assert resolved["nodes"] == 2 and resolved["tasks_per_node"] == 4 and resolved["tasks"] == 8
    assert resolved["threads"] == 12 and resolved["partition"] == "booster"
    assert float(resolved["time"]) == 5400 and resolved["walltime"] == "01:30:00"
    assert resolved["memory_mb"] == 4096 and resolved["qos"] == "x"
    assert resolved["gpus_per_node"] == 4 and resolved["account"] is None


def test_tasks_alone_spread_over_the_nodes() -> None:
    resolved = BOOSTER.resolve({"nodes": "3", "tasks": "10"})
    assert (resolved["tasks"], resolved["tasks_per_node"]) == (10, 4)
    with pytest.raises(DefinitionError, match="do not fit"):
        BOOSTER.resolve({"nodes": "2", "tasks_per_node": "2", "tasks": "5"})


@given(st.integers(1, 384), st.integers(1, 96), st.integers(1, 48))
def test_tasks_are_nodes_times_tasks_per_node_unless_given(
    nodes: int, per_node: int, threads: int
) -> None:
    resolved = BOOSTER.resolve(
        {"nodes": str(nodes), "tasks_per_node": str(per_node), "threads": threads}
    )
    assert resolved["tasks"] == nodes * per_node
    assert (
        BOOSTER.launcher_command(resolved) == f"srun -N {nodes} -n {nodes * per_node} -c {threads}"
    )


@given(st.integers(1, 10), st.integers(1, 4 * 3600))
def test_limits_are_checked_before_submission(nodes: int, seconds: int) -> None:
    request = {"nodes": str(nodes), "time": str(seconds), "partition": "develbooster"}
    if nodes <= 4 and seconds <= 7200:
        assert BOOSTER.resolve(request)["partition"] == "develbooster"
        return
    with pytest.raises(DefinitionError) as caught:
        BOOSTER.resolve(request)
    message = str(caught.value)
    assert "develbooster" in message and "juwels-booster.yaml" in message
    assert ("at most 4 (max_nodes)" in message) if nodes > 4 else ("02:00:00" in message)


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        ({"nodes": "0"}, "whole number of at least 1"),
        ({"threads": "two"}, "whole number"),
        ({"time": "soon"}, "not a duration"),
        ({"memory": "lots"}, "memory"),
        ({"partition": "boster"}, "did you mean 'booster'"),
    ],
)
def test_bad_requests_are_refused_with_what_was_expected(request_: dict, expected: str) -> None:
    with pytest.raises(DefinitionError, match=expected):
        BOOSTER.resolve(request_)


def test_a_bad_platform_default_points_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("name: x\nextends: slurm\nresources:\n  nodes: 1\n  threads: none\n")
    with pytest.raises(DefinitionError) as caught:
        load_platform(str(path)).resolve({})
    assert caught.value.loc is not None and caught.value.loc.line == 5


def test_the_job_script_holds_directives_modules_environment_and_body() -> None:
    resolved = BOOSTER.resolve({"nodes": "2", "time": "2h", "account": "cjsc", "gpus": "4"})
    script = BOOSTER.job_script(
        name="wp-7",
        body="exec /bin/sh run.sh",
        resolved=resolved,
        workdir=Path("/w"),
        stdout=Path("/w/out"),
        stderr=Path("/w/err"),
    )
    lines = script.splitlines()
    assert lines[0] == "#!/bin/bash" and lines[-1] == "exec /bin/sh run.sh"
    for expected in (
        "#SBATCH --job-name=wp-7",
        "#SBATCH --nodes=2",
        "#SBATCH --time=02:00:00",
        "#SBATCH --partition=booster",
        "#SBATCH --account=cjsc",
        "#SBATCH --gres=gpu:4",
        "module load ParaStationMPI",
        "export OMP_NUM_THREADS=12",
        "#SBATCH --output=/w/out",
    ):
        assert expected in lines, expected
    assert not any("--mem" in line for line in lines)


def test_an_undefined_name_in_a_template_is_an_error_naming_the_platform_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "x.yaml"
    path.write_text('name: x\nextends: slurm\nlauncher: "srun -n {{ task }}"\n')
    platform = load_platform(str(path))
    with pytest.raises(DefinitionError) as caught:
        platform.launcher_command(platform.resolve({}))
    assert caught.value.loc is not None and caught.value.loc.line == 3
    assert "'task' is undefined" in str(caught.value) and "tasks" in str(caught.value)


def test_a_platform_survives_freezing_to_json_and_back() -> None:
    again = from_json(Platform, to_json(BOOSTER))
    assert again == BOOSTER
    resolved = again.resolve({"nodes": "2"})
    assert again.launcher_command(resolved) == BOOSTER.launcher_command(resolved)


def test_backend_options_reach_the_backend_and_engine_options_do_not(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("name: x\nextends: slurm\nscheduler_options: {sbatch: /opt/sbatch, qsub: q}\n")
    platform = load_platform(str(path))
    with pytest.raises(DefinitionError, match="does not take"):
        scheduler_for(platform)
    platform.scheduler_options.pop("qsub")
    backend = scheduler_for(platform)
    assert backend.name == "slurm" and backend.commands["sbatch"] == "/opt/sbatch"  # type: ignore[attr-defined]
