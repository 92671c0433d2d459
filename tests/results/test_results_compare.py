import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import jubex
from jubex.definition.model import Column, Table
from jubex.errors import UsageError
from jubex.results.compare import NO_SPREAD, applicable, compare, default_keys, default_metrics
from jubex.results.formats import render
from jubex.store.rundir import Run

#: five repetitions with a relative spread of about 1.2 % (sample std of these offsets)
OFFSETS = (-1.5, -0.5, 0.0, 0.5, 1.5)


def rows(mean, spread, *, point=("POSIX", 4), metric="bw", n=5):
    api, nodes = point
    offsets = OFFSETS[:n] if n <= len(OFFSETS) else [0.0] * n
    return [
        {"api": api, "nodes": nodes, metric: mean * (1 + spread * o), "ok": True} for o in offsets
    ]


def one(baseline, candidate, direction=True, **options):
    result = compare(
        baseline,
        candidate,
        keys=("api", "nodes"),
        metrics=("bw",),
        directions={"bw": direction},
        **options,
    )
    (item,) = result.items
    return result, item


def test_identical_sets_are_all_same():
    base = rows(100, 0.02) + rows(50, 0.02, point=("MPIIO", 8))
    result = compare(
        base, list(base), keys=("api", "nodes"), metrics=("bw",), directions={"bw": True}
    )
    assert [i.verdict for i in result.items] == ["same", "same"]
    assert all(i.ratio == 1 and i.change == 0 for i in result.items)
    assert not result.failed


def test_shift_far_beyond_noise_is_worse_or_better():
    result, item = one(rows(100, 0.01), rows(80, 0.01))
    assert item.verdict == "worse" and result.failed
    assert item.change == pytest.approx(-20.0)
    assert item.p_value < 1e-6 and item.beyond_noise
    _, item = one(rows(100, 0.01), rows(120, 0.01))
    assert item.verdict == "better"


def test_p_value_is_welchs_t_test_on_the_samples():
    base, cand = rows(100, 0.03), rows(97, 0.01)
    _, item = one(base, cand)
    expected = stats.ttest_ind([r["bw"] for r in cand], [r["bw"] for r in base], equal_var=False)
    assert item.p_value == pytest.approx(expected.pvalue, rel=1e-9)


def test_shift_within_noise_is_same():
    result, item = one(rows(100, 0.10), rows(98, 0.10))
    assert item.verdict == "same" and not item.beyond_noise
    assert item.p_value > 0.05 and not result.failed


def test_small_significant_drop_is_within_tolerance():
    result, item = one(rows(100, 0.005), rows(97, 0.005), tolerance=0.05)
    assert item.beyond_noise and item.verdict == "within tolerance"
    assert not result.failed
    _, strict = one(rows(100, 0.005), rows(97, 0.005), tolerance=0.02)
    assert strict.verdict == "worse"


def test_lower_is_better_reverses_the_verdict():
    _, item = one(rows(10, 0.01), rows(12, 0.01), direction=False)
    assert item.verdict == "worse"
    _, item = one(rows(10, 0.01), rows(8, 0.01), direction=False)
    assert item.verdict == "better"


def test_unknown_direction_reports_change_only():
    _, item = one(rows(100, 0.01), rows(80, 0.01), direction=None)
    assert item.verdict == "changed"
    _, item = one(rows(100, 0.10), rows(99, 0.10), direction=None)
    assert item.verdict == "same"


def test_single_repetition_cannot_tell_noise():
    _, item = one(rows(100, 0.01, n=1), rows(90, 0.01))
    assert item.note == NO_SPREAD and item.p_value is None and item.beyond_noise is None
    assert item.verdict == "worse"  # taken at face value: 10 % beyond the 5 % tolerance
    _, item = one(rows(100, 0.01, n=1), rows(99, 0.01, n=1))
    assert item.verdict == "within tolerance" and item.note == NO_SPREAD


def test_constant_values_differ_for_real():
    _, item = one(rows(100, 0.0), rows(90, 0.0))
    assert item.beyond_noise and item.verdict == "worse" and item.p_value is None


def test_missing_points_and_values():
    base = rows(100, 0.01) + rows(50, 0.01, point=("MPIIO", 8))
    cand = rows(100, 0.01) + rows(70, 0.01, point=("HDF5", 2))
    cand[0]["extra"] = 1.0
    result = compare(base, cand, keys=("api", "nodes"), metrics=("bw", "extra"), directions={})
    verdicts = {(i.point, i.metric): (i.verdict, i.note) for i in result.items}
    assert verdicts[(("POSIX", 4), "bw")][0] == "same"
    assert verdicts[(("POSIX", 4), "extra")] == ("missing", "no value in the baseline")
    assert verdicts[(("MPIIO", 8), "bw")] == ("missing", "no point in the candidate")
    assert verdicts[(("HDF5", 2), "bw")] == ("missing", "no point in the baseline")
    assert result.counts() == {"same": 1, "missing": 5}
    assert not result.failed


def test_failed_rows_are_not_samples():
    cand = [*rows(100, 0.01), {"api": "POSIX", "nodes": 4, "bw": 1.0, "ok": False}]
    result, item = one(rows(100, 0.01), cand)
    assert item.candidate.n == 5 and item.verdict == "same"
    assert result.notes == ["1 failed workpackage(s) of the candidate left out"]


def test_unknown_metric_and_bad_tolerance_are_usage_errors():
    with pytest.raises(UsageError, match="metric 'bww'") as raised:
        compare(rows(1, 0), rows(1, 0), keys=("api",), metrics=("bww",), directions={})
    assert "bw" in raised.value.hint
    with pytest.raises(UsageError, match="tolerance"):
        compare(rows(1, 0), rows(1, 0), keys=(), metrics=("bw",), directions={}, tolerance=5)


def test_text_metric_is_refused():
    base = [{"api": "POSIX", "bw": "fast"}]
    with pytest.raises(UsageError, match="not a number"):
        compare(base, base, keys=("api",), metrics=("bw",), directions={})


def test_comparison_renders_as_table_and_json():
    result, _ = one(rows(100, 0.01), rows(80, 0.01))
    table = result.to_table({"bw": "MiB/s"})
    text = render(table, "aligned")
    assert "worse" in text and "-20.0" in text and "FAILED" in text
    document = json.loads(render(table, "json"))
    (row,) = document["rows"]
    assert row["verdict"] == "worse" and row["unit"] == "MiB/s" and row["baseline_n"] == 5
    assert render(table, "markdown").startswith("### comparison\n\n| api | nodes | metric")


def test_exactly_the_tolerance_is_accepted():
    _, item = one(rows(100, 0.0), rows(95, 0.0), tolerance=0.05)
    assert item.verdict == "within tolerance"


samples = st.lists(st.floats(1, 1e6), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(samples, samples, st.sampled_from([True, False]))
def test_identity_and_symmetry(base_values, cand_values, direction):
    def as_rows(values):
        return [{"p": 1, "bw": v} for v in values]

    same = compare(
        as_rows(base_values),
        as_rows(base_values),
        keys=["p"],
        metrics=["bw"],
        directions={"bw": direction},
    )
    assert same.items[0].verdict == "same"
    forward = compare(
        as_rows(base_values),
        as_rows(cand_values),
        keys=["p"],
        metrics=["bw"],
        directions={"bw": direction},
    ).items[0]
    backward = compare(
        as_rows(cand_values),
        as_rows(base_values),
        keys=["p"],
        metrics=["bw"],
        directions={"bw": direction},
    ).items[0]
    assert forward.beyond_noise == backward.beyond_noise
    if forward.verdict == "better":
        assert backward.verdict in ("worse", "within tolerance")
    if forward.verdict == "same":
        assert backward.verdict == "same"


def test_runs_compare_by_the_parameters_that_vary_and_the_values_with_a_direction(
    synthetic: dict[str, Run],
) -> None:
    result = jubex.compare(synthetic["000000"], synthetic["000001"], analyse=False)
    assert result.keys == ("point",)
    assert [(i.point, i.metric, i.verdict) for i in result.items] == [
        (("a",), "bw", "worse"),
        (("a",), "t", "same"),
        (("b",), "bw", "worse"),
        (("b",), "t", "same"),
    ]
    assert result.failed and result.units["bw"] == "MiB/s"
    assert result.notes[0] == (
        f"baseline {synthetic['000000'].dir}, candidate {synthetic['000001'].dir}; points by point"
    )
    assert result.to_table().column("unit") == ["MiB/s", "s", "MiB/s", "s"]


def test_a_table_gives_runs_their_keys_and_metrics(synthetic: dict[str, Run]) -> None:
    result = jubex.compare(synthetic["000000"], synthetic["000002"], table="per_run")
    assert (result.keys, {i.metric for i in result.items}) == (("run", "point"), {"bw"})
    assert "2 failed workpackage(s) of the candidate left out" in result.notes


def test_default_keys_leave_out_what_differs_only_between_the_sides(make_row) -> None:  # type: ignore[no-untyped-def]
    base = [make_row(0, "POSIX", 4, 2, 1.0), make_row(1, "MPIIO", 4, 2, 1.0)]
    cand = [make_row(0, "POSIX", 4, 8, 1.0), make_row(1, "MPIIO", 4, 8, 1.0)]
    parameters = {"api", "transfer", "nodes"}
    assert default_keys([base, cand], parameters, None) == ["api"]
    table = Table("t", group_by=("transfer",))
    assert default_keys([base, cand], parameters, table) == ["transfer"]


def test_default_metrics_are_measured_values_of_known_direction_or_the_tables(make_row) -> None:  # type: ignore[no-untyped-def]
    rows = [[make_row(0, "POSIX", 4, 2, 1.0, 2.0)]]
    parameters = {"api", "transfer", "nodes"}
    assert default_metrics(rows, parameters, {"write_bw": True}, None) == ["write_bw"]
    table = Table("t", columns=[Column("api"), Column("read_bw_avg"), Column("x", expr="1")])
    assert default_metrics(rows, parameters, {}, table) == ["read_bw"]
    with pytest.raises(UsageError, match="nothing to compare: the runs hold no measured value"):
        default_metrics(rows, parameters, {}, None)


def test_metrics_measured_at_a_point_by_neither_side_are_dropped(make_row) -> None:  # type: ignore[no-untyped-def]
    rows = [make_row(0, "POSIX", 4, 2, 1.0)]
    result = compare(rows, rows, keys=["api"], metrics=["write_bw", "read_bw"], directions={})
    assert [i.metric for i in applicable(result).items] == ["write_bw"]
