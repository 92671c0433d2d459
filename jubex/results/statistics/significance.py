"""The tests behind ``jubex compare``: one-sided tests, corrections for many, ratio intervals.

Each function takes the repetitions of one point on each side (or their summaries) and
answers one question, so that the comparison reads as a sequence of decisions and each can
be checked on its own against scipy. scipy is imported on first use: importing
``scipy.stats`` takes longer than building a large table, and only comparisons need it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Literal

from jubex.results.statistics.stats import Summary, t_quantile

#: the tests a comparison may use: Welch's t-test on the means (its variances moderated
#: across the comparison's points, see :mod:`.moderated`, or not), or Mann–Whitney's U on ranks
TESTS = ("moderated", "welch", "mannwhitney")
#: the corrections for testing many points and metrics at once
CORRECTIONS = ("holm", "bh")

Alternative = Literal["less", "greater", "two-sided"]


def p_value(
    baseline: Sequence[float],
    candidate: Sequence[float],
    alternative: Alternative,
    test: str = "welch",
) -> float | None:
    """p-value of "candidate is ``alternative`` than baseline" (``less``: smaller values).

    None when the test cannot tell: fewer than two values on a side, or no spread at all
    (Welch's t is undefined then; with ranks, ties everywhere say nothing either).
    """
    if len(baseline) < 2 or len(candidate) < 2:
        return None
    if len(set(baseline)) == 1 and len(set(candidate)) == 1:
        return None
    if test == "mannwhitney":
        from scipy.stats import mannwhitneyu

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = float(mannwhitneyu(candidate, baseline, alternative=alternative).pvalue)
    else:
        value = welch(baseline, candidate, alternative)
    return None if math.isnan(value) else value


def welch(baseline: Sequence[float], candidate: Sequence[float], alternative: Alternative) -> float:
    """Welch's t-test from the moments, through the t distribution function itself.

    The same p-value as ``scipy.stats.ttest_ind(equal_var=False)``, some 50 times cheaper:
    a comparison of thousands of points runs thousands of them.
    """
    (mb, vb), (mc, vc) = moments(baseline), moments(candidate)
    sb, sc = vb / len(baseline), vc / len(candidate)
    return welch_tail((mb, sb, len(baseline) - 1), (mc, sc, len(candidate) - 1), alternative)


def welch_tail(
    baseline: tuple[float, float, float], candidate: tuple[float, float, float], alternative: str
) -> float:
    """The p-value of Welch's statistic from each side's mean, squared standard error and
    degrees of freedom (the plain test's or a moderated one's), by Welch–Satterthwaite."""
    from scipy.special import stdtr

    (mb, sb, db), (mc, sc, dc) = baseline, candidate
    df = (sb + sc) ** 2 / (sb**2 / db + sc**2 / dc)
    t = (mc - mb) / math.sqrt(sb + sc)
    if alternative == "less":
        return float(stdtr(df, t))
    if alternative == "greater":
        return float(stdtr(df, -t))
    return float(2 * stdtr(df, -abs(t)))


def moments(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample variance: what Welch's test runs from."""
    mean = math.fsum(values) / len(values)
    return mean, math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)


def smallest_rank_p(n_baseline: int, n_candidate: int) -> float:
    """The smallest one-sided p-value Mann–Whitney's U can give for these sample sizes:
    one ordering of all values out of C(n_b + n_c, n_b)."""
    return 1 / math.comb(n_baseline + n_candidate, n_baseline)


def adjust(p_values: Sequence[float | None], method: str = "holm") -> list[float | None]:
    """p-values adjusted for testing them all at once; None (no test) stays None.

    ``holm`` (Holm–Bonferroni, step-down) bounds the chance of *any* false alarm among the
    tests by alpha, whatever their dependence: the right guarantee for a gate that fails on
    one alarm. ``bh`` (Benjamini–Hochberg) bounds the expected share of false alarms among
    the alarms instead: more power with many true changes, and the same guarantee when
    nothing changed, but not the guarantee for a gate over a partly changed set.
    """
    present = [(i, p) for i, p in enumerate(p_values) if p is not None]
    adjusted: list[float | None] = [None] * len(p_values)
    if not present:
        return adjusted
    if method == "bh":
        from scipy.stats import false_discovery_control

        values = false_discovery_control([p for _, p in present], method="bh")
        for (index, _), value in zip(present, values, strict=True):
            adjusted[index] = float(value)
        return adjusted
    m = len(present)
    running = 0.0
    for rank, (index, p) in enumerate(sorted(present, key=lambda item: item[1])):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[index] = running
    return adjusted


def ratio_interval(
    baseline: Summary, candidate: Summary, level: float = 0.95
) -> tuple[float, float] | None:
    """Confidence interval of the ratio of the means, candidate / baseline.

    Taken on the log scale (the delta method: the variance of log mean is about
    var / (n mean²)) with Welch–Satterthwaite degrees of freedom, so that it is asymmetric
    as a ratio is and never includes a negative ratio. None without a spread on a side or
    without positive means; both sides constant give the ratio itself.
    """
    b, c = baseline, candidate
    if b.std is None or c.std is None or b.mean is None or c.mean is None:
        return None
    if b.mean <= 0 or c.mean <= 0:
        return None
    ratio = c.mean / b.mean
    vb = (b.std / b.mean) ** 2 / b.n
    vc = (c.std / c.mean) ** 2 / c.n
    if vb + vc == 0:
        return ratio, ratio
    df = (vb + vc) ** 2 / (vb**2 / (b.n - 1) + vc**2 / (c.n - 1))
    half = t_quantile_real(df, level) * math.sqrt(vb + vc)
    return ratio * math.exp(-half), ratio * math.exp(half)


def t_quantile_real(df: float, level: float) -> float:
    """Two-sided Student t critical value for non-integer degrees of freedom."""
    if df == int(df):
        return t_quantile(int(df), level)
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + level / 2))


def detectable(
    baseline: Summary, candidate: Summary, alpha: float, power: float = 0.8
) -> float | None:
    """The smallest change of the mean, in percent of the baseline's, that a one-sided
    Welch test at level ``alpha`` finds with probability ``power`` at these sizes and this
    noise: (t(1 − alpha) + t(power)) standard errors of the difference. None without a
    spread on a side or a baseline mean of 0."""
    b, c = baseline, candidate
    if b.std is None or c.std is None or not b.mean or c.mean is None:
        return None
    return _detectable((b.std**2, b.n), (c.std**2, c.n), abs(b.mean), alpha, power)


def _detectable(
    base: tuple[float, int], cand: tuple[float, int], mean: float, alpha: float, power: float
) -> float:
    """:func:`detectable` of the sides' (variance, n) and the baseline's |mean|."""
    sb, sc = base[0] / base[1], cand[0] / cand[1]
    if sb + sc == 0:
        return 0.0
    df = (sb + sc) ** 2 / (sb**2 / (base[1] - 1) + sc**2 / (cand[1] - 1))
    # a two-sided level 2q - 1 has its upper critical value at the one-sided quantile q
    t = t_quantile_real(df, 1 - 2 * alpha) + t_quantile_real(df, 2 * power - 1)
    return 100 * t * math.sqrt(sb + sc) / mean


#: the most repetitions a side is told it needs; beyond, the answer is "more"
MOST_REPETITIONS = 10_000


def repetitions_needed(
    baseline: Summary,
    candidate: Summary,
    alpha: float,
    tolerance: float,
    power: float = 0.8,
    ranks: bool = False,
) -> int | None:
    """The repetitions per side at which the smallest detectable change (:func:`detectable`,
    each side's spread per value as seen) falls to the tolerance: enough for a loss of the
    tolerance to be found with probability ``power``. None without a spread, a baseline
    mean of 0 or a tolerance of 0; ``MOST_REPETITIONS + 1`` when even that many are too few.
    ``ranks``: Mann–Whitney's U is the test, whose smallest p must also fall below alpha.
    """
    b, c = baseline, candidate
    if b.std is None or c.std is None or not b.mean or c.mean is None or tolerance <= 0:
        return None
    vb, vc, mean = b.std**2, c.std**2, abs(b.mean)

    def decides(n: int) -> bool:
        if ranks and smallest_rank_p(n, n) >= alpha:
            return False
        return _detectable((vb, n), (vc, n), mean, alpha, power) <= 100 * tolerance

    low, high = 2, MOST_REPETITIONS + 1
    if decides(low):
        return low
    while high - low > 1:  # detectable() falls as n grows: the first n that decides
        middle = (low + high) // 2
        low, high = (low, middle) if decides(middle) else (middle, high)
    return high


def equivalent(
    baseline: Summary, candidate: Summary, tolerance: float, alpha: float
) -> bool | None:
    """Two one-sided tests (TOST): is the ratio shown to lie within 1 ± tolerance?

    Both one-sided tests at level alpha reject exactly when the (1 − 2·alpha) interval of
    the ratio lies inside the bounds. None when there is no interval to tell.
    """
    interval = ratio_interval(baseline, candidate, 1 - 2 * alpha)
    if interval is None:
        return None
    low, high = interval
    return 1 - tolerance <= low and high <= 1 + tolerance
