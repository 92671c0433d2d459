"""``jubex platforms`` and ``jubex platform``: what a centre's staff see of their platform files."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import ModuleType

import pytest

from jubex.cli import platform as platform_cmd
from jubex.cli import platforms as platforms_cmd
from jubex.errors import DefinitionError, UsageError


def run(module: ModuleType, argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return module.handle(parser.parse_args(argv))


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("JUBEX_PLATFORM_PATH", raising=False)


def test_platforms_lists_shipped_files_and_marks_shadowed_and_broken_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "slurm.yaml").write_text("name: slurm\nextends: slurm\ndescription: Our Slurm.\n")
    (site / "broken.yaml").write_text("name: broken\nscheduler: lsff\ntemplate: x\n")
    assert run(platforms_cmd, ["--path", str(site)]) == 0
    out = capsys.readouterr().out
    assert "Our Slurm" in out and "(shadowed by the one above)" in out
    assert "broken" in out and "invalid:" in out and "juwels-booster" in out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["broken", "-", "?"]  # at the top of --path: no centre
    assert ["juwels-booster", "jsc", "slurm"] in [line.split()[:3] for line in lines]
    assert ["flux", "generic", "flux"] in [line.split()[:3] for line in lines]


def test_platform_shows_resolved_resources_launcher_and_script(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        run(platform_cmd, ["juwels-booster", "-r", "nodes=2", "-r", "time=3h", "-f", "json"]) == 0
    )
    out = capsys.readouterr().out
    assert '"launcher": "srun -N 2 -n 8 -c 12"' in out and "--time=03:00:00" in out


def test_platform_refuses_what_the_partition_cannot_run() -> None:
    with pytest.raises(DefinitionError, match="at most 4"):
        run(platform_cmd, ["juwels-booster", "-r", "nodes=8", "-r", "partition=develbooster"])
    with pytest.raises(UsageError, match="KEY=VALUE"):
        run(platform_cmd, ["juwels-booster", "-r", "nodes"])


def test_platform_keys_prints_the_help_of_every_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(platform_cmd, ["--keys"]) == 0
    out = capsys.readouterr().out
    assert "partitions.<partition>.max_nodes: Most nodes one job may use" in out
    assert "scheduler_options.flavour:" in out


def test_platform_prints_the_merged_platform_as_yaml(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(platform_cmd, ["polaris"]) == 0
    out = capsys.readouterr().out
    assert "extends: pbs" in out and "prod:" in out and "locs" not in out
