"""``jubex history`` on real runs of one definition, found from the definition itself."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.store import catalogue
from jubex.store.rundir import open_run

DEFINITION = r"""
name: hist
outpath: runs
parameters:
  level_file: LEVEL
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
steps:
  run:
    iterations: 3
    do: "echo bw: $(( $(cat $level_file) + $jube_wp_iteration )) MiB/s"
    analyse: [bw]
"""


@pytest.fixture(scope="module")
def definition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three runs of one setting; the system got slower for the third (its level file,
    not a parameter: another parameter would be another setting, no change point)."""
    base = tmp_path_factory.mktemp("history")
    path = base / "hist.yaml"
    level = base / "level.txt"
    path.write_text(DEFINITION.replace("LEVEL", str(level)))
    for value in ("1000", "1001", "800"):
        level.write_text(value)
        assert main(["run", str(path), "-q", "--no-result"]) == 0
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
    assert main(["history", str(runs / "000000"), str(runs / "000002"), "-f", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["run"], r["change_point"]) for r in rows] == [("000000", None), ("000002", "worse")]
    assert main(["history", str(runs / "000000"), "--metric", "bww"]) == 2
    assert "metric 'bww' is in none of the runs (did you mean 'bw'?)" in capsys.readouterr().err


def test_a_history_of_named_metrics_reads_only_them(definition: Path) -> None:
    from jubex.results.tables.tabulate import rows_of
    from jubex.store.rundir import open_run

    run = open_run(definition.parent / "runs" / "000000")
    every = rows_of([run], per_iteration=True)
    assert {"bw", "bw_avg"} <= set(every[0])
    named = rows_of([run], per_iteration=True, names=["bw"])
    assert "bw" in named[0] and "bw_avg" not in named[0]
    assert [r["bw"] for r in named] == [r["bw"] for r in every]


def test_each_run_of_a_definition_is_opened_once(
    definition: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jubex.cli import history

    opened: list[Path] = []

    def counted(run_dir: Path, *, follow: bool = True) -> object:
        assert not follow  # read once: meta as at opening, one query
        opened.append(run_dir)
        return open_run(run_dir, follow=follow)

    monkeypatch.setattr(history, "open_run", counted)
    runs = history.runs_of([str(definition)], None)
    assert [run.id for run in runs] == ["000000", "000001", "000002"]
    assert sorted(path.name for path in opened) == ["000000", "000001", "000002"]


def test_a_history_read_from_the_catalogue_is_the_same(
    definition: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(catalogue, "RACY", 0)  # the copies' stores are as old as wanted
    monkeypatch.setattr(catalogue, "_catalogues", {})
    runs = tmp_path / "runs"
    shutil.copytree(definition.parent / "runs", runs)
    sources = [str(runs / name) for name in ("000000", "000001", "000002")]
    first = shown(sources, capsys)  # read from the stores, then catalogued
    assert catalogue.entries(runs) == ["000000", "000001", "000002"]
    assert shown(sources, capsys) == first  # read from the catalogue
    looked = looked_at(monkeypatch)
    assert shown(sources, capsys) == first and looked == []  # its exit files known as read


RETRIED = r"""
name: retried
outpath: runs
parameters:
  x: [1, 2]
  ready: READY
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
steps:
  run:
    do: 'if [ $x = 1 ] || [ -e $ready ]; then echo "bw: $((100 * $x)) MiB/s"; else exit 1; fi'
    analyse: [bw]
"""


def test_a_workpackage_run_again_is_read_again_after_its_exit_files_were_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not looking at exit files the catalogue found as read holds for real runs: running
    a failed workpackage again changes its store, and its new outputs are read."""
    monkeypatch.setattr(catalogue, "RACY", 0)
    monkeypatch.setattr(catalogue, "_catalogues", {})
    path = tmp_path / "retried.yaml"
    path.write_text(RETRIED.replace("READY", str(tmp_path / "ready")))
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(path), "-q", "--no-result"]) == 1
    sources = [str(path), "-f", "json"]
    for _ in range(3):  # stores, then the catalogue, then the catalogue's exit files
        assert [r["mean"] for r in json.loads(shown(sources, capsys))["rows"]] == [100]
    looked = looked_at(monkeypatch)
    shown(sources, capsys)
    assert looked == []
    (tmp_path / "ready").touch()
    assert main(["continue", "runs/000000", "--retry-failed", "-q", "--no-result"]) == 0
    rows = json.loads(shown(sources, capsys))["rows"]
    assert [r["mean"] for r in rows] == [100, 200] and looked


def shown(sources: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The history of ``sources`` as a command of its own prints it."""
    catalogue._catalogues.clear()  # each command a process of its own
    capsys.readouterr()
    assert main(["history", *sources]) == 0
    return capsys.readouterr().out


def looked_at(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The workpackage directories whose exit files are looked at from now on."""
    from jubex.analysis import run

    looked: list[str] = []
    signature_of = run._signature_of

    def counted(run_dir: Path, wp_id: int, name: str, *args: object, **kwargs: object) -> str:
        looked.append(name)
        return signature_of(run_dir, wp_id, name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(run, "_signature_of", counted)
    return looked
