import math
import random
import statistics
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from jubex.results.statistics.stats import (
    OUTLIER_MIN_N,
    SQUARES_BY_NUMPY,
    STATISTICS,
    cv_of,
    outliers,
    squared_deviations,
    squares,
    summarize,
    t_quantile,
)


def test_known_sample_hand_checked():
    s = summarize([1, 2, 3, 4, 5])
    assert (s.n, s.missing, s.cnt) == (5, 0, 5)
    assert s.mean == 3
    assert s.std == pytest.approx(math.sqrt(2.5))  # sample std: sum of squares 10 / (n-1)
    assert (s.min, s.max, s.median, s.sum, s.first, s.last) == (1, 5, 3, 15, 1, 5)
    # t(0.975, df=4) = 2.776445; half-width = t * std / sqrt(n)
    assert s.ci95 == pytest.approx(2.776445 * math.sqrt(2.5) / math.sqrt(5), rel=1e-6)


def test_missing_values_are_counted_not_used():
    s = summarize([4.0, None, 2.0, None])
    assert (s.n, s.missing, s.cnt) == (2, 2, 4)
    assert s.mean == 3.0
    assert s.std == pytest.approx(math.sqrt(2))
    assert s.median == 3.0
    assert s.ci95 == pytest.approx(12.706205, rel=1e-6)  # t(0.975, 1) * sqrt(2) / sqrt(2)
    assert (s.first, s.last) == (4.0, 2.0)


def test_single_value_has_no_spread():
    s = summarize([7.5])
    assert s.mean == 7.5 and s.median == 7.5
    assert s.std is None and s.ci95 is None


def test_no_values_give_no_statistics_not_zero():
    s = summarize([None, None])
    assert (s.n, s.missing, s.cnt) == (0, 2, 2)
    for stat in ("mean", "std", "min", "max", "median", "ci95", "sum", "first", "last"):
        assert s.get(stat) is None


def test_even_count_median_and_avg_alias():
    s = summarize([10, 1, 4, 3])
    assert s.median == 3.5
    assert s.get("avg") == s.get("mean") == 4.5
    assert [s.get(name) is not None for name in STATISTICS] == [True] * len(STATISTICS)


def test_integer_sum_stays_exact():
    big = 2**60
    s = summarize([big, 1, 1])
    assert s.sum == big + 2 and isinstance(s.sum, int)


def test_min_max_keep_the_values_own_type():
    class Written(int):
        def __str__(self) -> str:
            return "4KiB"

    s = summarize([Written(4096), 8192])
    assert str(s.min) == "4KiB"


def test_t_quantile_matches_table():
    assert t_quantile(1) == pytest.approx(12.7062, rel=1e-4)
    assert t_quantile(30) == pytest.approx(2.0423, rel=1e-4)


finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)


@given(st.lists(st.one_of(st.none(), finite), max_size=30))
def test_summary_agrees_with_numpy(values):
    s = summarize(values)
    present = [v for v in values if v is not None]
    assert s.n == len(present) and s.missing == len(values) - len(present)
    if not present:
        assert s.mean is None
        return
    assert s.mean == pytest.approx(np.mean(present), rel=1e-9, abs=1e-6)
    assert s.min <= s.median <= s.max
    assert s.median == pytest.approx(statistics.median(present), rel=1e-9, abs=1e-6)
    if len(present) > 1:
        assert s.std == pytest.approx(np.std(present, ddof=1), rel=1e-6, abs=1e-6)
        assert s.ci95 >= 0
    else:
        assert s.std is None


def test_spread_and_means_for_rates_and_ratios_hand_checked():
    s = summarize([100.0, 200.0, 400.0])
    assert s.cv == pytest.approx(s.std / (700 / 3))
    assert s.mad == 100.0  # |100-200|, 0, |400-200| -> median 100
    assert s.hmean == pytest.approx(3 / (1 / 100 + 1 / 200 + 1 / 400))
    assert s.gmean == pytest.approx(200.0)  # (100 * 200 * 400) ** (1/3)
    assert summarize([-1.0, 1.0]).gmean is None and summarize([0.0, 1.0]).hmean is None
    assert summarize([0.0, 0.0]).cv is None and summarize([5.0]).cv is None


@settings(deadline=None)
@given(st.lists(st.floats(1e-3, 1e6), min_size=1, max_size=20))
def test_hmean_gmean_and_mad_agree_with_scipy(values):
    s = summarize(values)
    assert s.hmean == pytest.approx(stats.hmean(values), rel=1e-9)
    assert s.gmean == pytest.approx(stats.gmean(values), rel=1e-9)
    assert s.mad == pytest.approx(stats.median_abs_deviation(values), rel=1e-9, abs=1e-9)
    assert s.hmean <= s.gmean * (1 + 1e-9) and s.gmean <= s.mean * (1 + 1e-9)


def test_outliers_by_the_generalized_esd_test():
    assert outliers([1000, 1001, 1002, 1003, 1004, 1503]) == [5]
    assert outliers([1000, 1100, 1200, 1300, 1400, 1500]) == []  # spread, but nothing apart
    assert outliers([5, 5, 5, 5, 5, 5, 9]) == [6]  # among ties, far for its size
    assert outliers([1, 100]) == []  # two values cannot outvote each other
    assert outliers([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50, 51]) == [10, 11]  # neither hides the other


@pytest.mark.parametrize("size", [3, 5, 10, 30])
def test_normal_noise_alone_is_marked_about_as_often_as_the_level_says(size):
    rng = random.Random(size)
    marked = sum(bool(outliers([rng.gauss(0, 1) for _ in range(size)])) for _ in range(4000))
    assert marked / 4000 < 0.03  # at 1 %; a rule of five MADs marks 10-28 % of these


@given(st.lists(st.floats(-1e6, 1e6), min_size=3, max_size=20), st.floats(1e8, 1e9))
def test_a_far_value_among_many_is_always_found(values, far):
    assert len(values) * 2 in outliers([*values, *values, far])


def _esd_by_the_book(values, alpha=0.01):
    """Rosner's steps as NIST's handbook writes them, recomputing everything each step."""
    left, removed, found = list(range(len(values))), [], 0
    for step in range(max(1, (len(values) - 1) // 2) if len(values) >= OUTLIER_MIN_N else 0):
        size = len(left)
        mean = statistics.fmean(values[i] for i in left)
        sd = statistics.stdev([values[i] for i in left])
        if sd == 0:
            break
        far = max(left, key=lambda i: abs(values[i] - mean))
        t = stats.t.ppf(1 - alpha / (2 * size), size - 2)
        if abs(values[far] - mean) / sd > (size - 1) * t / math.sqrt((size - 2 + t * t) * size):
            found = step + 1
        removed.append(far)
        left.remove(far)
    return sorted(removed[:found])


def test_few_values_have_no_outliers():
    assert outliers([878.6, 1516.2, 875.2]) == []  # three: only near ties could fire
    assert outliers([1000, 1001, 1002, 1003, 1503]) == []
    assert outliers([5, 5, 5, 9]) == []


def test_ties_alone_mark_nothing():
    # fio's bucketed percentiles, runtimes in whole milliseconds
    assert outliers([1105.92, 1155.072, 1155.072, 1155.072, 1155.072, 1155.072]) == []
    assert outliers([12, 12, 12, 13, 12, 12, 12, 12]) == []
    assert outliers([1155.072] * 6 + [1204.224] * 3 + [1105.92]) == []
    assert outliers([1155.072] * 6 + [2400.0]) == [6]  # far, not one bucket away


def test_outliers_agree_with_the_test_done_by_the_book():
    rng = random.Random(7)
    for _ in range(1000):
        values = [rng.gauss(100, 5) for _ in range(rng.randint(0, 30))]
        values += [rng.uniform(-1000, 1000) for _ in range(rng.randint(0, 3))]
        assert outliers(values) == _esd_by_the_book(values), values


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=30))
def test_any_finite_sample_is_summarized_without_overflow(values: list[float]) -> None:
    """Values near the largest float or the smallest positive one (whose reciprocals, sums
    and squares overflow) still give their statistics, the mean finite, and the spread
    too wherever the range is (the standard deviation is at most the range; of 1.8e308
    and -7.4e307 it is 2.5e308 / sqrt(2), beyond the largest float)."""
    summary = summarize(values)
    assert summary.mean is not None and math.isfinite(summary.mean)
    slack = 1e-9 * max(abs(v) for v in values)
    assert min(values) - slack <= summary.mean <= max(values) + slack
    if len(values) > 1:
        assert summary.std is not None
        assert math.isfinite(summary.std) or not math.isfinite(max(values) - min(values))
    if all(v > 0 for v in values):
        assert summary.hmean is not None and min(values) * (1 - 1e-9) <= summary.hmean


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=30))
def test_the_outlier_test_takes_any_finite_sample(values: list[float]) -> None:
    found = outliers(values)
    assert found == sorted(set(found)) and all(0 <= i < len(values) for i in found)
    assert len(found) <= max(0, (len(values) - 1) // 2)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-(10**6), 10**6),
            st.floats(allow_nan=False, allow_infinity=False),
            st.sampled_from([0.0, 1e308, -1e308, 5e-324]),
        ),
        max_size=30,
    )
)
def test_the_cv_alone_is_the_summarys(values: list[float]) -> None:
    assert cv_of(values) == summarize(values).cv


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.none(), st.integers(-5, 10**6), st.floats(-1e6, 1e6, allow_nan=False)),
        max_size=30,
    )
)
def test_a_summary_without_shapes_differs_only_in_them(values: list[float | None]) -> None:
    """A table that shows no mad, hmean or gmean skips them; every other statistic is the
    same number."""
    full, lean = summarize(values), summarize(values, shapes=False)
    assert (lean.mad, lean.hmean, lean.gmean) == (None, None, None)
    for stat in set(STATISTICS) - {"mad", "hmean", "gmean"}:
        assert repr(lean.get(stat)) == repr(full.get(stat)), stat


NUMBERS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-(2**60), 2**60),
    st.sampled_from([0.0, -0.0, 1e308, -1e308, 5e-324, 1020.09, 1011.75]),
)


def _outcome(compute: Callable[[], float]) -> str:
    """A float's exact text, or that it overflowed."""
    try:
        return compute().hex()
    except OverflowError:
        return "overflow"


@settings(max_examples=200, deadline=None)
@given(st.lists(NUMBERS, min_size=1, max_size=40), st.integers(0, 30))
def test_squared_deviations_of_many_values_are_the_generators(
    values: list[float], extra: int
) -> None:
    many = (values * SQUARES_BY_NUMPY)[: SQUARES_BY_NUMPY + extra]
    try:
        mean = math.fsum(many) / len(many)
    except OverflowError:
        return
    expected = _outcome(lambda: math.fsum((v - mean) ** 2 for v in many))
    assert _outcome(lambda: squared_deviations(many, mean)) == expected


_EDGES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5e-324, 1e-160, 1e154, 1e155, math.inf, -math.inf, math.nan]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_EDGES, max_size=20))
def test_squares_are_pythons_and_overflow_as_it_does(values: list[float]) -> None:
    try:
        expected = [float(v**2).hex() for v in values]
    except OverflowError:
        expected = None
    try:
        found = [float(v).hex() for v in squares(np.asarray(values, dtype=float)).tolist()]
    except OverflowError:
        found = None
    assert found == expected
