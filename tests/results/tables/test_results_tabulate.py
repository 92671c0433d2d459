"""The tables of runs: from real runs through ``jubex.result``, and the choices on the way."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

import jubex
from jubex.definition.model import Benchmark, Column, Table
from jubex.errors import UsageError
from jubex.results.tables.tabulate import (
    default_table,
    directions_of,
    names_used,
    rows_for,
    tables_of,
    units_of,
)
from jubex.store.rundir import Run


def test_a_run_gives_its_tables_with_rows_units_and_directions(synthetic: dict[str, Run]) -> None:
    bandwidth, per_run = jubex.result(synthetic["000000"])
    assert (bandwidth.name, per_run.name) == ("bandwidth", "per_run")
    assert bandwidth.columns == ["point", "bw_n", "bw_mean", "t_mean"]
    assert bandwidth.units == {"bw_mean": "GiB/s", "t_mean": "s"}
    assert bandwidth.directions == {"bw_mean": True, "t_mean": False}
    assert bandwidth.records() == [
        {"point": "a", "bw_n": 2, "bw_mean": 1005 / 1024, "t_mean": 2.0},
        {"point": "b", "bw_n": 2, "bw_mean": 1005 / 1024, "t_mean": 2.0},
    ]
    assert bandwidth.style == "pretty"
    assert all(note.startswith("concurrent:") for note in bandwidth.notes)


def test_tables_are_chosen_by_name(synthetic: dict[str, Run]) -> None:
    (table,) = jubex.result([synthetic["000000"]], ["per_run"], analyse=False)
    assert table.columns == ["run", "point", "bw_mean"]


def test_several_runs_make_one_table_their_rows_told_apart_by_what_differs(
    synthetic: dict[str, Run],
) -> None:
    """The runs differ in ``level`` (-p level=500): a column of every table, never pooled."""
    runs = [synthetic["000000"], synthetic["000001"]]
    bandwidth, per_run = jubex.result(runs)
    assert bandwidth.column("level") == [1000, 1000, 500, 500]
    assert bandwidth.column("bw_n") == [2, 2, 2, 2]
    assert per_run.column("run") == ["000000", "000000", "000001", "000001"]
    assert per_run.column("bw_mean") == [1005.0, 1005.0, 502.5, 502.5]
    assert per_run.units == {"bw_mean": "MiB/s"}


def test_failed_workpackages_are_left_out_unless_asked_for(synthetic: dict[str, Run]) -> None:
    (left_out,) = jubex.result(synthetic["000002"], ["bandwidth"])
    assert left_out.column("point") == ["a"]
    assert _unshared(left_out.notes) == ["2 failed workpackage(s) left out"]
    (included,) = jubex.result(synthetic["000002"], ["bandwidth"], include_failed=True)
    assert included.column("point") == ["a", "b"]
    assert _unshared(included.notes) == ["2 failed workpackage(s) included"]


def _unshared(notes: list[str]) -> list[str]:
    """The notes but the one saying that workpackages overlapped: on a loaded machine the
    fixture's run may have had them overlap, or not."""
    return [note for note in notes if not note.startswith("concurrent:")]


def test_an_unknown_table_is_named_with_a_suggestion(synthetic: dict[str, Run]) -> None:
    with pytest.raises(UsageError, match="no result table 'bandwith'") as caught:
        jubex.result(synthetic["000000"], ["bandwith"], analyse=False)
    assert "bandwidth" in str(caught.value.hint)
    assert tables_of(synthetic["000000"].benchmark, None) == list(
        synthetic["000000"].benchmark.tables.values()
    )


def test_the_default_table_shows_varying_parameters_then_values(make_row) -> None:  # type: ignore[no-untyped-def]
    rows = [make_row(0, "POSIX", 4, 2, 1.0), make_row(1, "MPIIO", 4, 2, 2.0)]
    rows[1]["extra"] = 3.0
    table = default_table(rows)
    assert table.name == "values"
    assert [(c.name, c.title) for c in table.columns] == [
        ("jube_wp_id", "wp"),
        ("api", None),
        ("write_bw", None),
        ("extra", None),
    ]


def test_a_table_is_about_the_steps_that_produce_its_values(make_row) -> None:  # type: ignore[no-untyped-def]
    build = {"jube_step_name": "build", "jube_wp_id": 9, "api": "POSIX"}
    run, empty = make_row(0, "POSIX", 4, 2, 1.0), make_row(1, "POSIX", 4, 2, None)
    del empty["write_bw"]  # its analysers found nothing: the step still counts
    table = Table("t", columns=[Column("api"), Column("write_bw")], group_by=("api",))
    assert rows_for(table, [build, run, empty], Benchmark("b")) == [run, empty]
    used = Table("t", columns=[Column("api")], use=("build",))
    assert rows_for(used, [build, run], Benchmark("b")) == [build]


def test_the_names_a_table_reads_include_expressions_and_jube_statistics() -> None:
    table = Table(
        "t",
        columns=[Column("write_avg"), Column("ratio", expr="read / write")],
        group_by=("api",),
        sort=("-nodes",),
        filter="size > 1",
    )
    assert names_used([table]) >= {"api", "nodes", "size", "read", "write", "write_avg"}


def test_where_runs_disagree_on_units_and_directions_the_first_decides() -> None:
    def run(better: bool, unit: str) -> SimpleNamespace:
        benchmark = SimpleNamespace(
            dialect="jubex",
            steps={},
            patternsets={
                "p": SimpleNamespace(
                    patterns={"bw": SimpleNamespace(name="bw", higher_is_better=better)}
                )
            },
        )
        return SimpleNamespace(
            benchmark=benchmark, store=SimpleNamespace(units=lambda: {"bw": unit})
        )

    runs = [run(True, "MiB/s"), run(False, "GB/s")]
    assert directions_of(runs) == {"bw": True}  # type: ignore[arg-type]
    assert units_of(runs) == {"bw": "MiB/s"}  # type: ignore[arg-type]


def test_the_library_names_are_there_without_importing_the_stages() -> None:
    code = (
        "import sys, jubex; print(sorted(m for m in sys.modules if m.startswith('jubex.')));"
        "print(jubex.result.__module__, jubex.compare.__module__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    imported, where = done.stdout.splitlines()
    assert "jubex.api" not in imported and "jubex.results" not in imported, imported
    assert where == "jubex.api jubex.api"
