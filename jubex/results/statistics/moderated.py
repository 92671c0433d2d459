"""Moderated variances: the noise of one metric estimated with help from the others.

With 5 repetitions a side, a sample variance has 4 degrees of freedom: Welch's t then needs
a change of some 4 standard errors to pass a Holm threshold over 30 metrics, where a known
noise would need 2.9. The metrics of one comparison are measured by the same runs on the
same machine, so their relative noise (the squared coefficient of variation) is alike.
Smyth's empirical Bayes (Smyth 2004, limma's moderated t) fits a scaled inverse-chi-square
prior to the variances of all points of a side, and replaces each variance by its
posterior, a weighted mean of its own and the prior's, with the prior's degrees of freedom
added. When the variances differ more than sampling explains, the fitted prior is weak (few
degrees of freedom) and the test is close to Welch's; when they are alike, it approaches a
test with the noise known.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from jubex.results.statistics.significance import welch_tail

#: fewer variances than this tell too little of their spread: no prior, Welch's test
SMALLEST_FAMILY = 10


@dataclass(frozen=True, slots=True)
class Prior:
    """The fitted prior of a side's squared coefficients of variation: ``df`` degrees of
    freedom (infinite: all alike) around ``scale``; ``pooled``, the degrees of freedom of
    all variances it was fitted to, which bounds a moderated variance's (as in limma: the
    prior is itself an estimate, and no better than all the data behind it)."""

    df: float
    scale: float
    pooled: float

    def moderate(self, values: Sequence[float]) -> tuple[float, float, float]:
        """Mean, moderated variance and its degrees of freedom of one point's values."""
        n = len(values)
        mean = math.fsum(values) / n
        variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
        if not mean:  # no relative noise: the point's own variance
            return mean, variance, n - 1
        if math.isinf(self.df):
            return mean, self.scale * mean**2, self.pooled
        cv2 = variance / mean**2
        posterior = (self.df * self.scale + (n - 1) * cv2) / (self.df + n - 1)
        return mean, posterior * mean**2, min(self.df + n - 1, self.pooled)


def fit_prior(sides: Sequence[Sequence[float]]) -> Prior | None:
    """Smyth's moment estimate of the prior from the values of each point of one side
    (points with fewer than two values, no spread or a zero mean do not count).

    The log of a variance on d degrees of freedom has mean log(s0²) + ψ(d/2) − log(d/2)
    and variance ψ'(d/2); what the logs vary beyond that is the prior's, ψ'(d0/2).
    """
    from scipy.special import digamma, polygamma

    logs: list[float] = []
    dfs: list[float] = []
    for values in sides:
        n = len(values)
        if n < 2:
            continue
        mean = math.fsum(values) / n
        variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
        if mean and variance > 0:
            logs.append(math.log(variance / mean**2))
            dfs.append(n - 1.0)
    if len(logs) < SMALLEST_FAMILY:
        return None
    import numpy as np

    half = np.asarray(dfs) / 2  # one call each over all points: thousands of them
    e = np.asarray(logs) - digamma(half) + np.log(half)
    centre = float(e.mean())
    spread = float(e.var(ddof=1) - polygamma(1, half).mean())
    if spread <= 0:
        return Prior(math.inf, math.exp(centre), math.fsum(dfs))
    df = 2 * _trigamma_inverse(spread)
    scale = math.exp(centre + float(digamma(df / 2)) - math.log(df / 2))
    return Prior(df, scale, math.fsum(dfs))


def _trigamma_inverse(x: float) -> float:
    """y with ψ'(y) = x, by Newton's method on 1/ψ' (as limma's trigammaInverse)."""
    from scipy.special import polygamma

    if x > 1e7:
        return 1 / math.sqrt(x)
    if x < 1e-6:
        return 1 / x
    y = 0.5 + 1 / x
    for _ in range(50):
        tri = float(polygamma(1, y))
        step = tri * (1 - tri / x) / float(polygamma(2, y))
        y += step
        if -step / y < 1e-8:
            break
    return y


def moderated_welch(
    baseline: Sequence[float],
    candidate: Sequence[float],
    alternative: str,
    priors: tuple[Prior, Prior],
) -> float:
    """Welch's t-test with each side's variance moderated by its prior."""
    mb, vb, db = priors[0].moderate(baseline)
    mc, vc, dc = priors[1].moderate(candidate)
    sb, sc = vb / len(baseline), vc / len(candidate)
    if sb + sc <= 0:
        return math.nan
    return welch_tail((mb, sb, db), (mc, sc, dc), alternative)
