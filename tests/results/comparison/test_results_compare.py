"""Comparison of two result sets: verdicts, the tests behind them, their correction, and
bad data stated per row."""

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from jubex.errors import UsageError
from jubex.results.comparison.compare import CONSTANT, NO_SPREAD, compare
from jubex.results.tables.formats import render

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


def test_identical_sets_are_shown_equivalent_when_the_noise_is_small_enough():
    base = rows(100, 0.02) + rows(50, 0.02, point=("MPIIO", 8))
    result = compare(
        base, list(base), keys=("api", "nodes"), metrics=("bw",), directions={"bw": True}
    )
    assert [i.verdict for i in result.items] == ["equivalent", "equivalent"]
    assert all(i.ratio == 1 and i.change == 0 for i in result.items)
    assert not result.failed and result.status == 0
    # 1.2 % spread at n = 5: the 90 % interval of the ratio is about +-2 %, inside +-5 % but
    # not inside +-1 %, so a tighter tolerance leaves it inconclusive (no evidence either
    # way), and as nothing changed, the gate passes
    tight = compare(base, base, keys=("api",), metrics=("bw",), directions={}, tolerance=0.01)
    assert {i.verdict for i in tight.items} == {"inconclusive"} and tight.status == 0


def test_shift_far_beyond_noise_is_worse_or_better():
    result, item = one(rows(100, 0.01), rows(80, 0.01))
    assert item.verdict == "worse" and result.failed
    assert item.change == pytest.approx(-20.0)
    assert item.p_value < 1e-6 and item.beyond_noise
    _, item = one(rows(100, 0.01), rows(120, 0.01))
    assert item.verdict == "better"


def test_p_value_is_the_one_sided_welch_t_test_on_the_samples():
    base, cand = rows(100, 0.03), rows(97, 0.01)
    _, item = one(base, cand)
    b, c = [r["bw"] for r in base], [r["bw"] for r in cand]
    expected = stats.ttest_ind(c, b, equal_var=False, alternative="less")
    assert item.p_value == pytest.approx(expected.pvalue, rel=1e-9)
    _, item = one(base, cand, direction=False)  # lower is better: the drop is an improvement
    assert item.p_value == pytest.approx(expected.pvalue, rel=1e-9)
    assert item.verdict != "worse"
    _, item = one(base, cand, direction=None)  # unknown direction: two-sided
    two_sided = stats.ttest_ind(c, b, equal_var=False).pvalue
    assert item.p_value == pytest.approx(two_sided, rel=1e-9)


def test_mann_whitney_on_the_ranks():
    base, cand = rows(100, 0.03), rows(90, 0.01)
    b, c = [r["bw"] for r in base], [r["bw"] for r in cand]
    _, item = one(base, cand, test="mannwhitney")
    expected = stats.mannwhitneyu(c, b, alternative="less").pvalue
    assert item.p_value == pytest.approx(expected, rel=1e-9)
    assert item.verdict == "worse"  # 5 below 5: p = 1/252 < 0.05


def test_mann_whitney_says_when_the_repetitions_are_too_few_for_the_correction():
    points = [(f"api{i}", 4) for i in range(20)]
    base = [r for point in points for r in rows(100, 0.01, point=point)]
    cand = [r for point in points for r in rows(50, 0.01, point=point)]
    result = compare(
        base,
        cand,
        keys=("api", "nodes"),
        metrics=("bw",),
        directions={"bw": True},
        test="mannwhitney",
    )
    # a halving everywhere, yet 1/252 is not below 0.05/20: ranks cannot tell, and say so;
    # a loss of 50 % the test cannot judge leaves the gate inconclusive; ranks need 6
    # repetitions a side before their smallest p (1/924) falls below 0.0025
    assert {i.verdict for i in result.items} == {"inconclusive"} and result.status == 4
    assert "smallest p, 0.004, is not below alpha/20 = 0.0025" in result.notes[-1]
    assert "but 20 metric(s) could hide a loss beyond the tolerance" in result.verdict_line()
    assert min(i.needed or 0 for i in result.items) >= 6


def test_many_metrics_are_corrected_together():
    rng = random.Random(3)
    metrics = [f"m{i}" for i in range(30)]

    def noisy(drop):
        return [
            {"p": 1, **{m: 100 * (1 - drop * (m == "m0")) * rng.gauss(1, 0.02) for m in metrics}}
            for _ in range(5)
        ]

    result = compare(noisy(0), noisy(0.2), keys=["p"], metrics=metrics, directions={})
    p_values = [i.p_value for i in result.items]
    assert all(i.p_adjusted >= i.p_value for i in result.items)
    assert min(i.p_adjusted for i in result.items) == pytest.approx(30 * min(p_values))
    assert result.items[0].metric == "m0" and result.items[0].verdict == "changed"


def test_shift_within_noise_is_inconclusive():
    result, item = one(rows(100, 0.10), rows(98, 0.10))
    assert item.verdict == "inconclusive" and not item.beyond_noise
    assert item.p_value > 0.05 and not result.failed  # a loss within the tolerance
    # 12 % spread at n = 5: only a change of some 20 % would have been found
    assert 15 < item.detectable < 30


def test_a_test_without_power_is_inconclusive_and_exits_4_on_a_large_loss():
    """n = 3 against n = 3, 4894 -> 1886 MiB/s (-61.5 %): neither shown worse after the
    correction nor shown equivalent -- no power, not "the same", and not a regression
    either: exit status 4, 1 under strict, 0 when allowed; the verdict line says how many
    repetitions would decide."""
    base = [{"p": 1, "bw": v} for v in (8093.9, 1684.8, 4903.6)]
    cand = [{"p": 1, "bw": v} for v in (878.6, 2900.9, 1877.5)]
    args = {"keys": ["p"], "metrics": ["bw"], "directions": {"bw": True}, "tolerance": 0.05}
    result = compare(base, cand, **args)
    (item,) = result.items
    assert item.verdict == "inconclusive" and item.change == pytest.approx(-61.5, abs=0.1)
    assert item.detectable > 61.5  # the change it could have found is larger still
    assert not result.failed and result.inconclusive and result.status == 4
    assert item.needed is not None and item.needed > 3
    line = result.verdict_line()
    assert line.startswith("INCONCLUSIVE: no regression found, but 1 metric(s) could hide")
    assert f"{item.needed} repetitions a side would decide them" in line
    assert result.to_table().column("needed") == [item.needed]
    strict = dataclasses.replace(result, strict=True)
    assert strict.failed and strict.status == 1
    assert "1 inconclusive with a loss beyond the tolerance (--strict)" in strict.verdict_line()
    allowed = dataclasses.replace(result, allow_inconclusive=True)
    assert not allowed.failed and allowed.status == 0


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
    assert item.verdict == "inconclusive"


def test_single_repetition_cannot_tell_noise():
    _, item = one(rows(100, 0.01, n=1), rows(90, 0.01))
    assert item.note == NO_SPREAD and item.p_value is None and item.beyond_noise is None
    result, item = one(rows(100, 0.01, n=1), rows(90, 0.01))
    assert item.verdict == "inconclusive" and result.status == 4  # a loss of 10 %, unjudged
    assert item.needed is None  # no spread: no count of repetitions decides it
    result, item = one(rows(100, 0.01, n=1), rows(99, 0.01, n=1))
    assert item.verdict == "inconclusive" and item.note == NO_SPREAD and not result.failed


def test_constant_values_differ_for_real():
    _, item = one(rows(100, 0.0), rows(90, 0.0))
    assert item.beyond_noise and item.verdict == "worse" and item.p_value is None
    assert item.note == CONSTANT
    _, item = one(rows(100, 0.0), rows(100, 0.0))
    assert item.verdict == "same" and item.note == CONSTANT and not item.beyond_noise


def test_missing_points_and_values():
    base = rows(100, 0.01) + rows(50, 0.01, point=("MPIIO", 8))
    cand = rows(100, 0.01) + rows(70, 0.01, point=("HDF5", 2))
    cand[0]["extra"] = 1.0
    result = compare(base, cand, keys=("api", "nodes"), metrics=("bw", "extra"), directions={})
    verdicts = {(i.point, i.metric): (i.verdict, i.note) for i in result.items}
    assert verdicts[(("POSIX", 4), "bw")][0] == "equivalent"
    assert verdicts[(("POSIX", 4), "extra")] == ("missing", "no value in the baseline")
    assert verdicts[(("MPIIO", 8), "bw")] == ("missing", "no point in the candidate")
    assert verdicts[(("HDF5", 2), "bw")] == ("missing", "no point in the baseline")
    assert result.counts() == {"missing": 5, "equivalent": 1}
    assert not result.failed
    # a value the candidate lacks cannot be compared: exit status 2, not a pass
    assert result.status == 2 and [(i.point, i.metric) for i in result.unusable] == [
        (("MPIIO", 8), "bw")  # the baseline has it; a value neither side has is no error
    ]
    assert result.verdict_line().startswith("ERROR: 1 comparison(s) could not be made")
    only_new = compare(rows(100, 0.01), cand, keys=("api", "nodes"), metrics=("bw",), directions={})
    assert only_new.status == 0  # a point only the candidate has is no failure


def test_failed_rows_are_not_samples():
    cand = [*rows(100, 0.01), {"api": "POSIX", "nodes": 4, "bw": 1.0, "ok": False}]
    result, item = one(rows(100, 0.01), cand)
    assert item.candidate.n == 5 and item.verdict == "equivalent"
    assert result.notes == ["1 failed workpackage(s) of the candidate left out"]


def test_unknown_metric_and_bad_tolerance_are_usage_errors():
    with pytest.raises(UsageError, match="metric 'bww'") as raised:
        compare(rows(1, 0), rows(1, 0), keys=("api",), metrics=("bww",), directions={})
    assert "bw" in raised.value.hint
    with pytest.raises(UsageError, match="tolerance"):
        compare(rows(1, 0), rows(1, 0), keys=(), metrics=("bw",), directions={}, tolerance=5)


def test_bad_values_are_stated_per_row():
    base = [
        {"api": "POSIX", "bw": "fast"},
        {"api": "MPIIO", "bw": 1.0},
        {"api": "MPIIO", "bw": 2.0},
    ]
    cand = [*base, {"api": "HDF5", "bw": float("nan")}, {"api": "HDF5", "bw": 1.0}]
    result = compare(base + cand[-2:], cand, keys=("api",), metrics=("bw",), directions={})
    by_point = {i.point: (i.verdict, i.note) for i in result.items}
    assert by_point[("POSIX",)] == ("error", "holds 'fast', not a number to compare")
    assert by_point[("HDF5",)] == ("error", "holds nan, not a finite number")
    assert by_point[("MPIIO",)][0] == "inconclusive"
    assert result.status == 2 and [i.verdict for i in result.items][:2] == ["error", "error"]


def test_units_are_converted_or_the_row_says_why_not():
    base, cand = rows(1000, 0.01), rows(1000 * 1.048576, 0.01)  # the same bandwidth in MB/s
    result, item = one(base, cand, units={"bw": "MiB/s"}, candidate_units={"bw": "MB/s"})
    assert item.ratio == pytest.approx(1) and item.verdict == "equivalent"
    result, item = one(base, cand, units={"bw": "MiB/s"}, candidate_units={"bw": "s"})
    assert item.verdict == "error" and result.status == 2
    assert item.note == "the candidate's unit 's' does not convert into the baseline's 'MiB/s'"


def test_the_ratio_interval_is_welchs_on_the_log_scale():
    _, item = one(rows(100, 0.01), rows(80, 0.01))
    assert item.ratio_low < 0.8 < item.ratio_high
    assert item.ratio_high / 0.8 == pytest.approx(0.8 / item.ratio_low)
    _, single = one(rows(100, 0.01, n=1), rows(80, 0.01))
    assert single.ratio_low is None and single.ratio == pytest.approx(80 / 98.5)


def test_rows_are_listed_worst_first():
    base = rows(100, 0.01) + rows(100, 0.01, point=("MPIIO", 8)) + rows(100, 0.01, point=("X", 1))
    cand = rows(120, 0.01) + rows(70, 0.01, point=("MPIIO", 8)) + rows(90, 0.01, point=("X", 1))
    result = compare(base, cand, keys=("api", "nodes"), metrics=("bw",), directions={"bw": True})
    assert [(i.point[0], i.verdict) for i in result.items] == [
        ("MPIIO", "worse"),
        ("X", "worse"),
        ("POSIX", "better"),
    ]


def test_comparison_renders_as_table_and_json():
    result, _ = one(rows(100, 0.01), rows(80, 0.01))
    table = result.to_table({"bw": "MiB/s"})
    text = render(table, "aligned")
    assert "worse" in text and "-20.0" in text and "FAILED" in text
    assert text.rstrip().splitlines()[-1].startswith("FAILED: 1 regression(s)")
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
    assert same.items[0].verdict in ("same", "equivalent", "inconclusive")
    assert not same.failed
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
    if forward.verdict in ("same", "inconclusive"):
        assert backward.verdict == forward.verdict
    if forward.ratio_low is not None:
        assert forward.ratio_low <= forward.ratio <= forward.ratio_high
