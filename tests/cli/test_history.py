"""``jubex history`` on real runs of one definition, found from the definition itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jubex.cli.main import main

DEFINITION = r"""
name: hist
outpath: runs
parameters:
  level: 1000
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
steps:
  run:
    iterations: 3
    do: "echo bw: ${level * (1 + jube_wp_iteration / 1000)} MiB/s"
    analyse: [bw]
"""


@pytest.fixture(scope="module")
def definition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("history")
    path = base / "hist.yaml"
    path.write_text(DEFINITION)
    for level in ("1000", "1001", "800"):
        assert main(["run", str(path), "-q", "--no-result", "-p", f"level={level}"]) == 0
    return path


def test_a_definition_stands_for_its_runs(
    definition: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["history", str(definition), "-f", "json"]) == 0
    table = json.loads(capsys.readouterr().out)
    rows = [(r["run"], r["metric"], r["n"], r["change_point"]) for r in table["rows"]]
    assert rows == [
        ("000000", "bw", 3, None),
        ("000001", "bw", 3, None),
        ("000002", "bw", 3, "worse"),  # the unit says higher is better
    ]
    assert table["notes"][-1].startswith("1 change point(s)")


def test_runs_given_one_by_one(definition: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = definition.parent / "runs"
    capsys.readouterr()
    assert main(["history", str(runs / "000000"), str(runs / "000002")]) == 0
    out = capsys.readouterr().out
    assert "worse" in out and "000001" not in out
    assert main(["history", str(runs / "000000"), "--metric", "bww"]) == 2
    assert "metric 'bww' is in none of the runs (did you mean 'bw'?)" in capsys.readouterr().err
