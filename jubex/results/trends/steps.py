"""Each run of a series against the run before it, all of the series' tests in one call.

A history of thousands of runs holds thousands of consecutive pairs; testing them one by
one spends its time in calls, not in arithmetic. Here each run's moments are computed once
(a run is the candidate of one pair and the baseline of the next) and the t distribution
is evaluated for the whole series at once, with the same arithmetic as
:func:`jubex.results.statistics.significance.welch`, so the p-values are the same numbers
(to 1e-12: the t distribution is :mod:`jubex.results.statistics.student_t`'s, which spares a
history the half second of importing scipy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from jubex.results.statistics import student_t
from jubex.results.statistics.significance import moments


def stepwise_p(samples: Sequence[Sequence[float]]) -> list[float | None]:
    """The two-sided Welch p of each sample against the one before it: None for the first,
    and where the test cannot tell (fewer than two values on a side, or no spread on
    either), as :func:`~jubex.results.statistics.significance.p_value` says."""
    found: list[float | None] = [None] * len(samples)
    if len(samples) < 2:
        return found
    counts = [len(values) for values in samples]
    mean_var = [moments(values) if n >= 2 else (math.nan, math.nan) for values, n in
                zip(samples, counts, strict=True)]  # fmt: skip
    constant = [n >= 1 and min(values) == max(values) for values, n in
                zip(samples, counts, strict=True)]  # fmt: skip
    tested = [
        i
        for i in range(1, len(samples))
        if counts[i - 1] >= 2 and counts[i] >= 2 and not (constant[i - 1] and constant[i])
    ]
    if not tested:
        return found
    index = np.array(tested)
    n = np.array(counts, dtype=float)
    mean, var = (np.array(column, dtype=float) for column in zip(*mean_var, strict=True))
    nb, nc = n[index - 1], n[index]
    sb, sc = var[index - 1] / nb, var[index] / nc
    df = (sb + sc) ** 2 / (sb**2 / (nb - 1) + sc**2 / (nc - 1))
    t = (mean[index] - mean[index - 1]) / np.sqrt(sb + sc)
    p = 2 * student_t.cdf(df, -np.abs(t))
    for i, value in zip(tested, p.tolist(), strict=True):
        found[i] = None if math.isnan(value) else value
    return found
