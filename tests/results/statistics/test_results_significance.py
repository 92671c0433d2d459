"""The tests behind a comparison, each against scipy or against its definition."""

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from jubex.results.statistics.significance import (
    adjust,
    equivalent,
    p_value,
    ratio_interval,
    smallest_rank_p,
    welch,
)
from jubex.results.statistics.stats import summarize

values = st.lists(st.floats(1, 1e6), min_size=2, max_size=8).filter(lambda v: len(set(v)) > 1)
alternatives = st.sampled_from(["less", "greater", "two-sided"])


@settings(max_examples=80, deadline=None)
@given(values, values, alternatives)
def test_welch_is_scipys_welch_t_test(baseline, candidate, alternative):
    expected = stats.ttest_ind(candidate, baseline, equal_var=False, alternative=alternative)
    assert welch(baseline, candidate, alternative) == pytest.approx(expected.pvalue, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(values, values, alternatives)
def test_mann_whitney_is_scipys(baseline, candidate, alternative):
    expected = stats.mannwhitneyu(candidate, baseline, alternative=alternative).pvalue
    assert p_value(baseline, candidate, alternative, "mannwhitney") == pytest.approx(expected)


def test_no_test_without_two_values_or_without_any_spread():
    assert p_value([1.0], [1.0, 2.0], "less") is None
    assert p_value([3.0, 3.0], [2.0, 2.0], "less") is None
    assert p_value([3.0, 3.0], [2.0, 2.1], "less") is not None  # one side's spread is enough


def test_smallest_rank_p():
    assert smallest_rank_p(5, 5) == pytest.approx(1 / 252)
    assert stats.mannwhitneyu([1, 2, 3, 4, 5], [6, 7, 8, 9, 10], alternative="less").pvalue == (
        pytest.approx(smallest_rank_p(5, 5))
    )


p_values = st.lists(st.one_of(st.none(), st.floats(0, 1)), max_size=30)


@given(p_values)
def test_holm_adjusts_by_rank_and_never_below_the_raw_p(ps):
    adjusted = adjust(ps, "holm")
    assert [a is None for a in adjusted] == [p is None for p in ps]
    present = sorted((p, a) for p, a in zip(ps, adjusted, strict=True) if p is not None)
    m = len(present)
    for rank, (p, a) in enumerate(present):
        assert p <= a <= 1
        assert a >= min(1, (m - rank) * p) - 1e-12  # step-down: at least the rank's Bonferroni
    assert [a for _, a in present] == sorted(a for _, a in present)  # order kept
    if present:
        assert present[0][1] == pytest.approx(min(1, m * present[0][0]))


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_bh_is_scipys(ps):
    assert adjust(ps, "bh") == pytest.approx(list(stats.false_discovery_control(ps)))


def test_holm_bounds_the_chance_of_any_false_alarm():
    """30 true null hypotheses, 2,000 times: the share of families with any adjusted p below
    0.05 stays below 0.05 (uniform p-values are what a true null gives)."""
    rng = random.Random(7)
    alarms = sum(
        any(a < 0.05 for a in adjust([rng.random() for _ in range(30)], "holm"))
        for _ in range(2000)
    )
    assert alarms / 2000 < 0.06  # 0.05 in expectation; the binomial sd of 2,000 is 0.005


@settings(max_examples=60, deadline=None)
@given(values, values)
def test_the_ratio_interval_holds_the_ratio_and_is_symmetric_on_the_log_scale(base, cand):
    b, c = summarize(base), summarize(cand)
    low, high = ratio_interval(b, c)
    ratio = c.mean / b.mean
    assert low <= ratio * (1 + 1e-12) and ratio <= high * (1 + 1e-12)
    assert math.log(ratio) - math.log(low) == pytest.approx(math.log(high) - math.log(ratio))
    narrow = ratio_interval(b, c, 0.5)
    assert low <= narrow[0] * (1 + 1e-12) and narrow[1] <= high * (1 + 1e-12)


def test_the_ratio_interval_covers_the_true_ratio_about_95_times_in_100():
    rng = random.Random(11)
    covered = 0
    for _ in range(2000):
        b = summarize([rng.gauss(100, 5) for _ in range(5)])
        c = summarize([rng.gauss(90, 5) for _ in range(5)])
        low, high = ratio_interval(b, c)
        covered += low <= 0.9 <= high
    assert 0.93 <= covered / 2000 <= 0.97


def test_no_ratio_interval_without_spread_or_with_a_non_positive_mean():
    assert ratio_interval(summarize([1.0]), summarize([1.0, 2.0])) is None
    assert ratio_interval(summarize([-1.0, 1.0]), summarize([1.0, 2.0])) is None
    assert ratio_interval(summarize([2.0, 2.0]), summarize([3.0, 3.0])) == (1.5, 1.5)


def test_equivalence_needs_the_interval_inside_the_tolerance():
    base = summarize([100.0, 101.0, 99.0, 100.5, 99.5])
    assert equivalent(base, base, 0.05, 0.05)
    assert not equivalent(base, summarize([95.0, 96.0, 94.0, 95.5, 94.5]), 0.05, 0.05)
    noisy = summarize([80.0, 120.0, 100.0])
    assert not equivalent(noisy, noisy, 0.05, 0.05)  # the same mean, but too noisy to show it
    assert equivalent(summarize([1.0]), base, 0.05, 0.05) is None
