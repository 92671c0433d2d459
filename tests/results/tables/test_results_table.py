import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.definition.model import Column, Table
from jubex.errors import DefinitionError, Loc
from jubex.language.values import Size
from jubex.results.samples.rows import GroupSamples
from jubex.results.samples.units import UnitError
from jubex.results.tables.columns import Sample
from jubex.results.tables.table import PlusMinus, build_table

LOC = Loc("bench.yaml", 12, 3)


def table(*columns, **options):
    return Table("t", columns=list(columns), loc=LOC, **options)


def test_without_group_by_one_row_per_input_row(ior_rows, units, directions):
    result = build_table(ior_rows, table(Column("api"), Column("write_bw")), units, directions)
    assert [h.name for h in result.headers] == ["api", "write_bw"]
    assert result.column("write_bw") == [1000.0, 1100.0, 1200.0, 3000.0, 3100.0]
    assert "1 failed workpackage(s) left out" in result.notes


def test_failed_rows_on_request(ior_rows, units, directions):
    t = table(Column("jube_wp_id"), Column("ok"))
    result = build_table(ior_rows, t, units, directions, include_failed=True)
    assert result.column("jube_wp_id") == [0, 1, 2, 3, 4, 5]
    assert result.column("ok")[-1] is False
    assert "1 failed workpackage(s) included" in result.notes


def test_group_statistics_hand_checked(ior_rows, units, directions):
    t = table(
        Column("write_bw", stats=("n", "mean", "std", "min", "max", "median")),
        group_by=("api",),
    )
    result = build_table(ior_rows, t, units, directions)
    assert [h.name for h in result.headers] == [
        "api",
        "write_bw_n",
        "write_bw_mean",
        "write_bw_std",
        "write_bw_min",
        "write_bw_max",
        "write_bw_median",
        "flags",
    ]
    posix, mpiio = result.records()
    assert posix == {
        "api": "POSIX",
        "write_bw_n": 3,
        "write_bw_mean": pytest.approx(1100.0),
        "write_bw_std": pytest.approx(100.0),
        "write_bw_min": 1000.0,
        "write_bw_max": 1200.0,
        "write_bw_median": 1100.0,
        "flags": "noisy: write_bw cv 9.1%",  # 100 / 1100
    }
    assert mpiio["flags"] is None  # 70.7 / 3050: 2.3 %
    assert mpiio["write_bw_n"] == 2 and mpiio["write_bw_std"] == pytest.approx(math.sqrt(5000))
    assert result.headers[1].unit == "" and result.headers[2].unit == "MiB/s"
    assert result.headers[2].higher_is_better is True


def test_single_repetition_has_missing_std_not_zero(ior_rows, units, directions):
    t = table(Column("write_bw", stats=("std", "ci95")), group_by=("jube_wp_id",))
    result = build_table(ior_rows, t, units, directions)
    assert result.column("write_bw_std") == [None] * 5
    assert "write_bw_std: 5 of 5 value(s) missing" in result.notes
    assert result.headers[1].missing == 5


def test_missing_measurements_counted_per_column(ior_rows, units, directions):
    t = table(Column("read_bw", stats=("n", "missing", "cnt", "mean")), group_by=("api",))
    result = build_table(ior_rows, t, units, directions, include_failed=True)
    posix, mpiio = result.records()
    assert (posix["read_bw_n"], posix["read_bw_missing"], posix["read_bw_cnt"]) == (2, 1, 3)
    assert posix["read_bw_mean"] == pytest.approx(925.0)
    assert (mpiio["read_bw_n"], mpiio["read_bw_missing"]) == (2, 1)


def test_all_missing_group_gives_missing_cell_and_note(make_row, units, directions):
    rows = [make_row(0, "A", 1, 1, 5.0), make_row(1, "B", 1, 1, None)]
    result = build_table(
        rows, table(Column("write_bw", stats=("mean",)), group_by=("api",)), units, directions
    )
    assert result.column("write_bw_mean") == [5.0, None]
    assert "write_bw_mean: 1 of 2 value(s) missing" in result.notes


def test_unit_conversion_and_header(ior_rows, units, directions):
    t = table(Column("write_bw", stats=("mean", "n"), unit="GiB/s"), group_by=("api",))
    result = build_table(ior_rows, t, units, directions)
    header = result.headers[1]
    assert header.label == "write_bw_mean [GiB/s]"
    assert result.column("write_bw_mean")[0] == pytest.approx(1100 / 1024)
    assert result.column("write_bw_n") == [3, 2]  # counts are not converted


def test_incompatible_unit_names_both(ior_rows, units, directions):
    column = Column("write_bw", unit="s", loc=Loc("bench.yaml", 20))
    with pytest.raises(UnitError, match=r"'MiB/s'.*'s'") as raised:
        build_table(ior_rows, table(column), units, directions)
    assert raised.value.loc.line == 20


def test_unit_asked_for_a_value_without_unit(ior_rows, units, directions):
    with pytest.raises(UnitError, match="no unit is known for 'nodes'"):
        build_table(ior_rows, table(Column("nodes", unit="GiB")), units, directions)


def test_group_level_derived_column_uses_statistics(ior_rows, units, directions):
    t = table(
        Column("write_bw", stats=("mean",)),
        Column("per_node", expr="write_bw_mean / nodes", unit="MiB/s", format=".1f"),
        group_by=("api", "nodes"),
    )
    result = build_table(ior_rows, t, units, directions)
    assert result.column("per_node") == [pytest.approx(550.0), pytest.approx(305.0)]
    assert result.headers[result.columns.index("per_node")].unit == "MiB/s"


def test_per_row_derived_column_then_statistics(ior_rows, units, directions):
    t = table(
        Column("ratio", expr="read_bw / write_bw", stats=("mean", "n")),
        group_by=("api",),
    )
    posix, _ = build_table(ior_rows, t, units, directions).records()
    assert posix["ratio_n"] == 2  # the row without read_bw gives a missing ratio
    assert posix["ratio_mean"] == pytest.approx((0.9 + 950 / 1100) / 2)


def test_derived_column_with_unknown_name(ior_rows, units, directions):
    column = Column("x", expr="write_bandwidth * 2", loc=Loc("bench.yaml", 30))
    with pytest.raises(DefinitionError, match="'write_bandwidth'") as raised:
        build_table(ior_rows, table(column), units, directions)
    assert raised.value.loc.line == 30


def test_jube_spelling_of_a_statistic_column(ior_rows, units, directions):
    t = table(Column("write_bw_avg"), Column("write_bw_cnt"), group_by=("api",))
    result = build_table(ior_rows, t, units, directions)
    assert result.column("write_bw_avg") == [pytest.approx(1100.0), pytest.approx(3050.0)]
    assert result.column("write_bw_cnt") == [3, 2]
    assert result.headers[1].unit == "MiB/s" and result.headers[2].unit == ""


def test_mean_plus_minus_std_in_one_cell(ior_rows, units, directions):
    t = table(Column("write_bw", stats=("mean±std",)), group_by=("api",))
    cell = build_table(ior_rows, t, units, directions).column("write_bw_mean±std")[0]
    assert isinstance(cell, PlusMinus)
    assert (cell.value, cell.spread) == (pytest.approx(1100.0), pytest.approx(100.0))


def test_unknown_column_names_table_location_and_suggests(ior_rows, units, directions):
    with pytest.raises(DefinitionError) as raised:
        build_table(ior_rows, table(Column("write_bwx")), units, directions)
    assert raised.value.loc == LOC
    assert "write_bw" in raised.value.hint


def test_unknown_statistic(ior_rows, units, directions):
    with pytest.raises(DefinitionError, match="unknown statistic 'avrg'"):
        build_table(ior_rows, table(Column("write_bw", stats=("avrg",))), units, directions)


def test_numeric_statistic_of_text_is_refused(ior_rows, units, directions):
    t = table(Column("api", stats=("mean",)), group_by=("nodes",))
    with pytest.raises(DefinitionError, match=r"needs numbers.*'POSIX'"):
        build_table(ior_rows, t, units, directions)


def test_text_column_in_group_lists_distinct_values(ior_rows, units, directions):
    t = table(Column("api"), Column("write_bw", stats=("n",)), group_by=("jube_step_name",))
    result = build_table(ior_rows, t, units, directions)
    assert result.column("api") == ["POSIX, MPIIO"]


def test_filter_keeps_matching_rows(ior_rows, units, directions):
    t = table(Column("jube_wp_id"), filter="api == 'POSIX' and write_bw > 1050")
    result = build_table(ior_rows, t, units, directions)
    assert result.column("jube_wp_id") == [1, 2]
    assert any("left out by the filter" in note for note in result.notes)


def test_filter_over_missing_value_leaves_row_out_with_note(ior_rows, units, directions):
    t = table(Column("jube_wp_id"), filter="read_bw > 0")
    result = build_table(ior_rows, t, units, directions)
    assert result.column("jube_wp_id") == [0, 1, 3, 4]
    assert "1 row(s) left out: a value the filter needs is missing" in result.notes


def test_filter_with_unknown_name_is_an_error_at_the_table(ior_rows, units, directions):
    with pytest.raises(DefinitionError, match="'apy'") as raised:
        build_table(ior_rows, table(Column("api"), filter="apy == 'POSIX'"), units, directions)
    assert raised.value.loc == LOC and "api" in raised.value.hint


def test_numeric_sort_sizes_by_bytes_missing_last(make_row, units, directions):
    rows = [
        make_row(0, "a", Size(1 << 20, "1MiB"), 10, None),
        make_row(1, "b", Size(4096, "4KiB"), 2, 5.0),
        make_row(2, "c", Size(65536, "64KiB"), 1, 7.0),
    ]
    by_nodes = build_table(rows, table(Column("nodes"), sort=("nodes",)), units, directions)
    assert by_nodes.column("nodes") == [1, 2, 10]  # not "1", "10", "2"
    by_size = build_table(rows, table(Column("transfer"), sort=("-transfer",)), units, directions)
    assert [str(v) for v in by_size.column("transfer")] == ["1MiB", "64KiB", "4KiB"]
    for order in ("write_bw", "-write_bw"):
        cells = build_table(rows, table(Column("write_bw"), sort=(order,)), units, directions)
        assert cells.column("write_bw")[-1] is None


def test_sort_by_several_keys(ior_rows, units, directions):
    t = table(Column("api"), Column("write_bw"), sort=("api", "-write_bw"))
    result = build_table(ior_rows, t, units, directions)
    assert result.column("write_bw") == [3100.0, 3000.0, 1200.0, 1100.0, 1000.0]


def test_sort_by_unknown_column(ior_rows, units, directions):
    with pytest.raises(DefinitionError, match="sorts by 'speed'"):
        build_table(ior_rows, table(Column("api"), sort=("speed",)), units, directions)


def test_group_by_run_across_runs(make_row, units, directions):
    rows = [make_row(i, "A", 1, 1, 100.0 + i, run=f"run{i % 2}") for i in range(6)]
    t = table(Column("write_bw", stats=("n", "mean")), group_by=("run",))
    result = build_table(rows, t, units, directions)
    assert result.records() == [
        {"run": "run0", "write_bw_n": 3, "write_bw_mean": pytest.approx(102.0)},
        {"run": "run1", "write_bw_n": 3, "write_bw_mean": pytest.approx(103.0)},
    ]


def test_group_keys_shown_even_when_not_listed(ior_rows, units, directions):
    t = table(Column("write_bw", stats=("max",)), group_by=("api", "transfer"))
    result = build_table(ior_rows, t, units, directions)
    assert [h.name for h in result.headers] == ["api", "transfer", "write_bw_max", "flags"]
    assert str(result.column("transfer")[1]) == "1MiB"


def test_invalid_column_format(ior_rows, units, directions):
    with pytest.raises(DefinitionError, match="format 'q'"):
        build_table(ior_rows, table(Column("write_bw", format="q")), units, directions)


def test_jube_percent_format_accepted(ior_rows, units, directions):
    result = build_table(ior_rows, table(Column("write_bw", format="%.1f")), units, directions)
    assert result.headers[0].format == ".1f"


def test_separator_must_be_one_character(ior_rows, units, directions):
    with pytest.raises(DefinitionError, match="separator ', '"):
        build_table(ior_rows, table(Column("api"), separator=", "), units, directions)


def test_no_rows_gives_empty_table(units, directions):
    result = build_table([], table(Column("write_bw", stats=("mean",))), units, directions)
    assert [h.name for h in result.headers] == ["write_bw_mean"] and result.rows == []


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["A", "B", "C"]),
            st.integers(1, 4),
            st.one_of(st.none(), st.floats(0, 1e6)),
            st.booleans(),
        ),
        max_size=40,
    )
)
def test_grouping_keeps_every_ok_row_once_and_sorts(points):
    rows = [
        {"api": a, "nodes": n, "write_bw": bw, "ok": ok, "jube_wp_id": i}
        for i, (a, n, bw, ok) in enumerate(points)
    ]
    t = table(
        Column("write_bw", stats=("cnt", "mean")),
        group_by=("api", "nodes"),
        sort=("-write_bw_mean",),
    )
    result = build_table(rows, t, {"write_bw": "MiB/s"}, {"write_bw": True})
    assert sum(result.column("write_bw_cnt")) == sum(1 for *_, ok in points if ok)
    keys = list(zip(result.column("api"), result.column("nodes"), strict=True))
    assert len(keys) == len(set(keys))
    means = result.column("write_bw_mean")
    present = [m for m in means if m is not None]
    assert present == sorted(present, reverse=True)
    assert means[: len(present)] == present


def test_failed_arithmetic_gives_missing_cell_and_note(make_row, units, directions):
    rows = [make_row(0, "A", 1, 0, 5.0), make_row(1, "B", 1, 2, 6.0)]
    t = table(
        Column("per_node", expr="write_bw / nodes"),
        Column("twice", expr="per_node * 2"),
    )
    result = build_table(rows, t, units, directions)
    assert result.column("per_node") == [None, 3.0]
    assert result.column("twice") == [None, 6.0]
    assert "per_node: 1 value(s) could not be computed from their expression" in result.notes


def test_a_shape_asked_after_the_mean_is_computed() -> None:
    """A column's statistics are worked out without mad, hmean and gmean until one asks."""
    sample = Sample("bw", GroupSamples([{"bw": 1.0}, {"bw": 2.0}, {"bw": 4.0}]))
    assert sample.get("mean", None) == 7 / 3
    assert sample.get("mad", None) == 1.0
    assert sample.get("hmean", None) == pytest.approx(12 / 7)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "concurrent": st.one_of(
                    st.integers(-3, 10),
                    st.booleans(),
                    st.none(),
                    st.text(max_size=2),
                    st.floats(allow_nan=False),
                    st.builds(Size, st.integers(0, 9)),
                )
            },
        ),
        max_size=8,
    )
)
def test_a_groups_concurrent_count_sums_its_integers(rows) -> None:
    from jubex.results.tables.table import _concurrent

    expected = sum(c for row in rows if isinstance(c := row.get("concurrent"), int))
    found = _concurrent(rows)
    assert found == expected and type(found) is type(expected)
