"""The arithmetic of repetition targets: spreads relative to the mean, how many more
repetitions a point needs, and what its table says."""

from __future__ import annotations

import math
import statistics

from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from jubex.definition.model import Until
from jubex.results.statistics.targets import (
    Outcome,
    outcome,
    relative,
    repetitions_needed,
    target_flag,
    target_note,
)

CI = Until("ci95", 0.02, 3, (), "ci95 <= 2%")
CV = Until("cv", 0.05, 3, ("bw",), "cv(bw) <= 5%")
samples = st.lists(st.floats(1.0, 1e6, allow_nan=False), min_size=2, max_size=40)


@given(samples)
def test_relative_spreads_are_scipys_over_the_mean(values: list[float]) -> None:
    mean = statistics.fmean(values)
    sem = statistics.stdev(values) / math.sqrt(len(values))
    half = scipy_stats.t.ppf(0.975, len(values) - 1) * sem
    assert math.isclose(relative("ci95", values) or 0, half / mean, rel_tol=1e-6, abs_tol=1e-12)
    cv = statistics.stdev(values) / mean
    assert math.isclose(relative("cv", values) or 0, cv, rel_tol=1e-6, abs_tol=1e-12)


def test_one_value_or_a_zero_mean_says_nothing() -> None:
    assert relative("ci95", [3.0]) is None
    assert relative("cv", [-1.0, 1.0]) is None


@given(
    st.integers(2, 50),
    st.integers(2, 100),
    st.floats(0.0001, 2.0),
    st.sampled_from([CI, CV]),
)
def test_a_point_gets_at_least_one_more_and_never_beyond_the_cap(
    have: int, most: int, share: float, until: Until
) -> None:
    most = max(most, have + 1)
    need = repetitions_needed(until, Outcome(have, ("bw", share), False), most)
    assert have + 1 <= need <= min(most, 2 * have)
    if until.stat == "cv":
        assert need == have + 1, "a cv does not shrink with more values: one at a time"


@given(st.integers(3, 20), st.floats(0.001, 0.2))
def test_the_ci95_estimate_is_the_smallest_count_predicted_to_meet_the_target(
    have: int, cv: float
) -> None:
    """With the spread seen so far, the count asked for is the first that meets the target
    (unless the cap of twice as many comes first)."""
    share = scipy_stats.t.ppf(0.975, have - 1) * cv / math.sqrt(have)
    need = repetitions_needed(CI, Outcome(have, ("bw", share), False), 1000)

    def predicted(n: int) -> float:
        return float(scipy_stats.t.ppf(0.975, n - 1) * cv / math.sqrt(n))

    if need < 2 * have:
        assert predicted(need) <= CI.limit * (1 + 1e-9)
    for n in range(have + 1, need):
        assert predicted(n) > CI.limit * (1 - 1e-9)


def test_every_metric_must_meet_the_target() -> None:
    rows = [{"bw": 100.0, "iops": 10.0}, {"bw": 100.5, "iops": 20.0}, {"bw": 99.5, "iops": 15.0}]
    tight = outcome(CV, rows, ["bw"])
    assert tight.reached and tight.repetitions == 3
    both = outcome(CV, rows, ["bw", "iops"])
    assert not both.reached and both.worst is not None and both.worst[0] == "iops"
    absent = outcome(CV, rows, ["lat"])
    assert not absent.reached and absent.worst is None
    assert outcome(CV, rows, []).reached is False


def test_what_a_table_says_of_its_points() -> None:
    short = Outcome(12, ("bw", 0.031), False)
    assert target_flag(CI, short, 12) == (
        "target ci95 <= 2% not reached: bw ci95 3.1% after 12 repetition(s) (the most allowed)"
    )
    assert target_flag(CI, Outcome(5, ("bw", 0.01), True), 12) is None
    assert target_flag(CI, Outcome(3, None, False), 12) == (
        "target ci95 <= 2% not measurable after 3 repetition(s)"
    )
    note = target_note(CI, 12, [Outcome(3, None, True), Outcome(7, None, True), short])
    assert note == (
        "repetitions until ci95 <= 2% (3 to 12 per point): 2 point(s) reached it with 3–7 "
        "repetition(s), 1 did not (flagged)"
    )
    assert target_note(CI, 12, [short]).endswith("0 point(s) reached it, 1 did not (flagged)")
