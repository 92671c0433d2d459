"""Tables written where their definition sends them, and the text ``jubex result`` prints."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from jubex.results.deliver import deliver, report
from jubex.results.tabulate import tabulate
from jubex.store.rundir import Run


def built(run: Run, name: str = "bandwidth"):  # type: ignore[no-untyped-def]
    table = run.benchmark.tables[name]
    (result,) = tabulate([run], [name])
    return table, result


def test_a_database_is_written_even_without_targets(
    synthetic: dict[str, Run], tmp_path: Path
) -> None:
    table, result = built(synthetic["000000"])
    target = tmp_path / "results.db"
    table = replace(table, database=str(target), primekeys=("point",))
    assert deliver(table, result, synthetic["000000"], targets=False) is None
    assert result.notes == [f"written to the database {target}"]
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT point, bw_n FROM bandwidth").fetchall() == [("a", 2), ("b", 2)]


def test_a_result_dir_is_written_only_for_targets(
    synthetic: dict[str, Run], tmp_path: Path
) -> None:
    run = synthetic["000000"]
    table, result = built(run)
    table = replace(table, result_dir=str(tmp_path / "out"))
    assert deliver(table, result, run, targets=False) is None
    assert not (tmp_path / "out").exists() and result.notes == []
    assert deliver(table, result, run) is None
    path = tmp_path / "out" / run.id / "bandwidth.dat"
    assert result.notes == [f"written to {path}"]
    assert "bw_mean [GiB/s]" in path.read_text()


def test_the_report_renders_each_table_in_its_style_or_the_format_asked(
    synthetic: dict[str, Run],
) -> None:
    text = report([synthetic["000000"]], ["bandwidth", "per_run"], "csv")
    assert text.splitlines()[0] == "point,bw_n,bw_mean [GiB/s],t_mean [s]"
    assert "\nrun,point,bw_mean [MiB/s]\n" in text
    assert "bw_mean [GiB/s]" in report([synthetic["000000"]], ["bandwidth"])
