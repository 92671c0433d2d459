"""Student's t distribution function without scipy: scipy's numbers, to 1e-12."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.special import stdtr

from jubex.results.statistics.student_t import LARGE_DF, _log_beta_half, cdf

#: degrees of freedom as Welch's test makes them (a fraction, from below 1 to thousands)
#: and beyond, up to where scipy takes over and past it
dfs = st.floats(0.1, 1e6)
ts = st.one_of(st.floats(-1e6, 1e6), st.floats(-5, 5), st.floats(-1e-6, 1e-6))


def close(found: float, expected: float) -> bool:
    if expected < 1e-300:  # beyond the doubles' normal range: only the size matters
        return found < 1e-290
    return abs(found - expected) <= 1e-12 * expected


def reference(df: float, t: float) -> float:
    """scipy's value; at one degree of freedom the Cauchy distribution's own, where scipy's
    shortcut is off by up to 6e-10 near 0 (0.5 for t = 1e-9, not 0.5 + 3.2e-10). Far
    below 0 that is written without a difference of near numbers: ``0.5 + atan(t) / pi``
    keeps only 11 digits at t = -11404."""
    if df != 1:
        return float(stdtr(df, t))
    return -math.atan(1 / t) / math.pi if t < -1 else 0.5 + math.atan(t) / math.pi


@settings(max_examples=400, deadline=None)
@given(dfs, ts)
@example(1.0, 1.18e-7)
@example(1.0, -11404.0)
def test_it_is_scipys_stdtr(df: float, t: float) -> None:
    assert close(float(cdf(np.array([df]), np.array([t]))[0]), reference(df, t))


def test_one_degree_of_freedom_is_the_cauchy_distribution() -> None:
    t = np.array([-1e-9, 1.18e-7, 3e-5, 0.01, 1.0, 40.0])
    expected = [0.5 + math.atan(x) / math.pi for x in t.tolist()]
    assert all(close(f, e) for f, e in zip(cdf(np.ones(6), t).tolist(), expected, strict=True))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(dfs, ts), min_size=1, max_size=60))
def test_a_whole_series_at_once_is_each_on_its_own(pairs: list[tuple[float, float]]) -> None:
    df, t = (np.array(column) for column in zip(*pairs, strict=True))
    assert cdf(df, t).tolist() == [cdf(np.array([d]), np.array([x]))[0] for d, x in pairs]


def test_the_extremes_are_scipys() -> None:
    df = np.array([1.0, 1.0, 3.5, 8.0, 0.5, 2.0, 2.0, LARGE_DF * 10, 7.0, 4.0])
    t = np.array([-1e300, 1e300, -1e-300, 0.0, -1e10, math.inf, -math.inf, -3.0, math.nan, -40])
    found, expected = cdf(df, t), stdtr(df, t)
    assert all(
        (math.isnan(e) and math.isnan(f)) or close(f, e) or f == e
        for f, e in zip(found.tolist(), expected.tolist(), strict=True)
    )


def test_no_degrees_of_freedom_is_no_number() -> None:
    assert np.isnan(cdf(np.array([0.0, -1.0, math.nan]), np.array([1.0, 1.0, 1.0]))).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.05, 19.99), min_size=1, max_size=50))
def test_the_small_log_betas_are_pythons_arithmetic_bit_for_bit(halves: list[float]) -> None:
    """``ln B(a, 1/2)`` below Stirling's range, all at once: each is the number Python's
    own ``lgamma(a) + lgamma(1/2) - lgamma(a + 1/2)`` gives."""
    found = _log_beta_half(np.array(halves)).tolist()
    expected = [math.lgamma(a) + math.lgamma(0.5) - math.lgamma(a + 0.5) for a in halves]
    assert [v.hex() for v in found] == [v.hex() for v in expected]
