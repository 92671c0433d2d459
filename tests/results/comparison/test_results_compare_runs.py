"""Comparison of real runs: the repetitions behind merged rows, the points and metrics
chosen when none are given, and the better direction a unit implies."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jubex
from jubex.cli.main import main
from jubex.definition.model import Column, Table
from jubex.errors import UsageError
from jubex.results.comparison.compare import CONSTANT, compare
from jubex.results.comparison.compare_runs import (
    _numeric,
    applicable,
    compare_runs,
    default_metrics,
)
from jubex.results.samples.rows import META
from jubex.results.tables.keys import default_keys
from jubex.store.rundir import Run, open_run

#: a JUBE file: its analyser reduces (JUBE's default), its pattern declares no direction
JUBE = r"""
name: jb
outpath: runs
parameterset:
  name: p
  parameter:
    - {name: point, _: "a,b"}
    - {name: level, _: "1000"}
patternset:
  name: pat
  pattern:
    - {name: bw, type: float, unit: MiB/s, _: 'bw: $jube_pat_fp'}
    - {name: t, type: float, unit: s, _: 't: $jube_pat_fp'}
    - {name: files, type: int, _: 'files: $jube_pat_int'}
step:
  name: run
  iterations: 3
  use: p
  do: 'echo bw: $(($level + 2 * $jube_wp_iteration)); echo t: 2.$jube_wp_iteration; echo files: 7'
analyser:
  name: ana
  use: pat
  analyse: {step: run, file: stdout}
result:
  use: ana
  table: {name: t, style: pretty, column: [point, bw_avg]}
"""


@pytest.fixture(scope="module")
def jube_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Run]:
    base = tmp_path_factory.mktemp("jube_compare")
    (base / "bench.yaml").write_text(JUBE)
    out = base / "runs"
    for level in ("1000", "900"):
        argv = ["run", str(base / "bench.yaml"), "--outpath", str(out), "-q", "--no-result"]
        assert main([*argv, "-p", f"level={level}"]) == 0
    return open_run(out / "000000"), open_run(out / "000001")


def test_a_reducing_analyser_still_gives_every_repetition(jube_runs: tuple[Run, Run]) -> None:
    result = jubex.compare(*jube_runs, metrics=["bw"], analyse=False)
    assert [(i.point, i.verdict) for i in result.items] == [(("a",), "worse"), (("b",), "worse")]
    item = result.items[0]
    assert (item.baseline.n, item.candidate.n) == (3, 3)
    assert item.baseline.mean == pytest.approx(1002) and item.candidate.mean == pytest.approx(902)
    assert item.p_value is not None and item.p_value < 1e-4


def test_a_unit_gives_the_better_direction_no_pattern_declares(
    jube_runs: tuple[Run, Run],
) -> None:
    result = jubex.compare(*jube_runs, metrics=["bw", "t"], analyse=False)
    directions = {i.metric: (i.higher_is_better, i.direction_from) for i in result.items}
    assert directions == {"bw": (True, "unit"), "t": (False, "unit")}
    assert set(result.to_table().column("better")) == {"higher (from unit)", "lower (from unit)"}


def test_headline_metrics_are_the_tables_columns_and_all_adds_the_rest(
    jube_runs: tuple[Run, Run],
) -> None:
    headline = jubex.compare(*jube_runs, analyse=False)
    assert {i.metric for i in headline.items} == {"bw_avg"}
    every = jubex.compare(*jube_runs, all_metrics=True, analyse=False)
    assert {i.metric for i in every.items} >= {"bw", "t", "files"}
    files = next(i for i in every.items if i.metric == "files")
    assert (files.verdict, files.note, files.higher_is_better) == ("same", CONSTANT, None)


def test_runs_compare_by_the_parameters_that_vary_and_the_values_with_a_direction(
    synthetic: dict[str, Run],
) -> None:
    result = jubex.compare(synthetic["000000"], synthetic["000001"], analyse=False)
    assert result.keys == ("point",)
    assert [(i.point, i.metric, i.verdict) for i in result.items] == [
        (("a",), "bw", "worse"),
        (("b",), "bw", "worse"),
        (("a",), "t", "same"),
        (("b",), "t", "same"),
    ]
    assert result.failed and result.status == 1 and result.units["bw"] == "MiB/s"
    assert result.notes[0] == (
        f"baseline {synthetic['000000'].dir}, candidate {synthetic['000001'].dir}; points by "
        "point; what differs: level 1000 → 500"
    )
    assert result.to_table().column("unit") == ["MiB/s", "MiB/s", "s", "s"]


def test_a_table_gives_runs_their_keys_and_metrics(synthetic: dict[str, Run]) -> None:
    result = jubex.compare(synthetic["000000"], synthetic["000002"], table="per_run")
    assert (result.keys, {i.metric for i in result.items}) == (("run", "point"), {"bw"})
    assert "2 failed workpackage(s) of the candidate left out" in result.notes


def test_default_keys_leave_out_what_differs_only_between_the_sides(make_row) -> None:  # type: ignore[no-untyped-def]
    base = [make_row(0, "POSIX", 4, 2, 1.0), make_row(1, "MPIIO", 4, 2, 1.0)]
    cand = [make_row(0, "POSIX", 4, 8, 1.0), make_row(1, "MPIIO", 4, 8, 1.0)]
    parameters = {"api", "transfer", "nodes"}
    assert default_keys([base, cand], parameters) == ["api"]
    table = Table("t", group_by=("transfer",))
    assert default_keys([base, cand], parameters, table=table) == ["transfer"]


def test_default_metrics_are_the_tables_or_measured_values_of_known_direction(make_row) -> None:  # type: ignore[no-untyped-def]
    rows = [[make_row(0, "POSIX", 4, 2, 1.0, 2.0)]]
    parameters = {"api", "transfer", "nodes"}
    assert default_metrics(rows, parameters, {"write_bw": True}) == ["write_bw"]
    table = Table("t", columns=[Column("api"), Column("read_bw_avg"), Column("x", expr="1")])
    assert default_metrics(rows, parameters, {}, [table]) == ["read_bw"]
    assert default_metrics(rows, parameters, {}, [table], all_metrics=True) == [
        "write_bw",
        "read_bw",
    ]
    with pytest.raises(UsageError, match="nothing to compare: the runs hold no measured value"):
        default_metrics(rows, parameters, {})
    reduced = [[{**rows[0][0], "write_bw_max": 3.0, "write_bw_cnt": 1}]]
    directions = {"write_bw": True, "write_bw_max": True}  # the unit gives both a direction
    assert default_metrics(reduced, parameters, directions) == ["write_bw"]


def test_metrics_measured_at_a_point_by_neither_side_are_dropped(make_row) -> None:  # type: ignore[no-untyped-def]
    rows = [make_row(0, "POSIX", 4, 2, 1.0)]
    result = compare(rows, rows, keys=["api"], metrics=["write_bw", "read_bw"], directions={})
    assert [i.metric for i in applicable(result).items] == ["write_bw"]


def test_compare_runs_is_what_the_library_calls(synthetic: dict[str, Run]) -> None:
    direct = compare_runs(synthetic["000000"], synthetic["000001"], correction="bh")
    assert direct.correction == "bh" and direct.counts() == {"worse": 2, "same": 2}


def _numeric_row_by_row(rows: list[list[dict[str, object]]]) -> list[str]:
    """Each row's names in turn, the first time they hold a number (meta keys left out)."""
    found: dict[str, None] = {}
    for side in rows:
        for row in side:
            for name, value in row.items():
                if (
                    name not in META
                    and isinstance(value, int | float)
                    and not isinstance(value, bool)
                ):
                    found.setdefault(name)
    return list(found)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.dictionaries(
                st.sampled_from(["bw", "iops", "size", "jube_step_name", "ok", "samples"]),
                st.none() | st.booleans() | st.integers(-2, 2) | st.floats() | st.text(max_size=2),
            ),
            max_size=4,
        ),
        max_size=4,
    )
)
def test_the_measured_names_are_those_of_each_row_in_turn(
    rows: list[list[dict[str, object]]],
) -> None:
    assert _numeric(rows) == _numeric_row_by_row(rows)
