"""Moderated variances: the prior fitted to many points, and Welch's test on its posteriors."""

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.comparison.compare import compare
from jubex.results.statistics.moderated import Prior, fit_prior, moderated_welch
from jubex.results.statistics.significance import welch

#: five values of sample standard deviation exactly 1
PATTERN = [-math.sqrt(1.6), -math.sqrt(0.4), 0.0, math.sqrt(0.4), math.sqrt(1.6)]


def noisy(rng: random.Random, cv: float, n: int = 5) -> list[float]:
    return [1000 * (1 + rng.gauss(0, cv)) for _ in range(n)]


def test_a_prior_fitted_to_alike_noise_is_strong_and_finds_that_noise() -> None:
    rng = random.Random(3)
    prior = fit_prior([noisy(rng, 0.05) for _ in range(300)])
    assert prior is not None and prior.pooled == 300 * 4
    assert prior.df > 30  # sampling alone explains how the variances differ
    assert math.sqrt(prior.scale) == pytest.approx(0.05, rel=0.1)


def test_a_prior_fitted_to_unlike_noise_is_weak() -> None:
    rng = random.Random(4)
    prior = fit_prior([noisy(rng, cv) for cv in (0.002, 0.01, 0.05, 0.25) for _ in range(10)])
    assert prior is not None and prior.df < 2


def test_too_few_points_or_none_with_spread_give_no_prior() -> None:
    rng = random.Random(5)
    assert fit_prior([noisy(rng, 0.05) for _ in range(9)]) is None
    assert fit_prior([[1.0, 1.0]] * 20 + [[3.0]] * 20) is None


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(1, 1e6), min_size=2, max_size=8).filter(lambda v: len(set(v)) > 1),
    st.lists(st.floats(1, 1e6), min_size=2, max_size=8).filter(lambda v: len(set(v)) > 1),
    st.sampled_from(["less", "greater", "two-sided"]),
)
def test_a_prior_of_no_weight_leaves_welchs_test(baseline, candidate, alternative) -> None:
    none = Prior(df=1e-12, scale=1.0, pooled=math.inf)
    assert moderated_welch(baseline, candidate, alternative, (none, none)) == pytest.approx(
        welch(baseline, candidate, alternative), rel=1e-6, abs=1e-12
    )


def test_alike_noise_finds_a_10_percent_loss_far_more_often_than_welch() -> None:
    """5 repetitions, 5 % noise, 30 metrics, 24 trials: the loss is 3.2 standard errors. Welch's 8
    degrees of freedom need about 4.1 at alpha 0.05/30, a noise estimated from all 30
    metrics about 3.0 (the bound with the noise known: 2.9, found in 59 % of trials)."""
    metrics = [f"m{i:02d}" for i in range(30)]
    rng = random.Random(11)

    def side(drop: float) -> list[dict[str, object]]:
        level = {m: 1 - drop if m == "m00" else 1.0 for m in metrics}
        return [
            {"point": "p", **{m: level[m] * noisy(rng, 0.05, 1)[0] for m in metrics}}
            for _ in range(5)
        ]

    found = {"welch": 0, "moderated": 0}
    methods = set()
    for _ in range(24):
        baseline, candidate = side(0.0), side(0.10)
        for test in found:
            result = compare(
                baseline, candidate, keys=["point"], metrics=metrics,
                directions=dict.fromkeys(metrics, True), test=test,
            )  # fmt: skip
            found[test] += any(i.metric == "m00" and i.verdict == "worse" for i in result.items)
            methods.add(result.method().split(",")[0])
    assert found["moderated"] >= max(10, 2 * found["welch"]), found
    assert methods == {
        "one-sided Welch t-test",
        "one-sided Welch t-test with variances moderated over the points",
    }


def test_a_few_points_are_tested_by_welch_and_say_so() -> None:
    rows = [{"point": "p", "bw": 100.0 + z} for z in PATTERN]
    result = compare(rows, rows, keys=["point"], metrics=["bw"], directions={"bw": True})
    assert result.test == "welch" and "one-sided Welch t-test," in result.method()
