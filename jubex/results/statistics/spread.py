"""How the repetitions of one point spread: one population with a few strays, two groups,
or executions that differ from each other.

Rosner's generalized ESD test (:func:`~jubex.results.statistics.stats.outliers`) assumes that the
values are one normal population with at most a few outliers (NIST/SEMATECH e-Handbook,
1.3.5.17.3). Five executions of ``ior -i 5`` are rarely that: a read served by the page
cache or by the disk gives two populations, and the iterations of one execution share its
node, its file and its moment, so that executions differ more than iterations do. Fed such
a sample, the test calls two fifths of it "outliers" (10 of 25 on a real point). This module
says what the spread is instead, and marks an outlier only where the test's premise holds:

* **Executions differ** when the Kruskal–Wallis test on the executions' values rejects
  "one population" at the outlier level (the coefficients of variation between their
  means and within them say by how much).
* Whether they differ or not, the repetitions of one execution are not independent of each
  other: where a program repeats its measurement, an outlier is a value far from the
  others of its *own* execution (measured against them, left out: the externally
  studentized residual), never a value of an execution that as a whole lies apart.
* **Two groups** when executions do not differ, the best split of the sorted values
  explains more of their variance than the same split of a normal sample does at half
  the level (the outlier test takes the other half; the critical value is drawn once per
  size, and kept in a table at the default level), and the gap between the groups is
  wider than any gap inside them.
* **Too many to be outliers** when the test would mark more than a few values (a tenth,
  at least two): the sample is not one population with strays, and nothing is marked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate, chain, pairwise
from statistics import NormalDist, median
from typing import TYPE_CHECKING

from jubex.plain import dataclass
from jubex.results.statistics.stats import (
    ARRAYS,
    OUTLIER_MIN_N,
    OUTLIER_TIE_DISTANCE,
    Number,
    outliers,
    t_quantile,
)

if TYPE_CHECKING:
    from jubex.results.statistics.farthest import Search
    from jubex.results.statistics.sweep import Sweep

#: the share of a sample that may be called outliers (at least :data:`FEWEST` values)
FEW = 0.1
FEWEST = 2
#: samples drawn to find the critical value of the two-group split, per size
DRAWS = 4000
#: the largest size the two-group split is calibrated at (a larger sample uses its value,
#: which is higher than its own: the test only grows more cautious)
CALIBRATED = 500


@dataclass(frozen=True, slots=True)
class Groups:
    """Two groups of values: how many each holds and its median."""

    low: tuple[int, float]
    high: tuple[int, float]


@dataclass(frozen=True, slots=True)
class Spread:
    """What the values of one point show: outlying positions (in the flat order), or two
    groups, or executions that differ (``runs``: the coefficients of variation between
    their means and within them), and ``many`` values the test would have marked when they
    are too many to be outliers."""

    outliers: tuple[int, ...] = ()
    groups: Groups | None = None
    runs: tuple[float, float] | None = None
    many: int = 0


def few(n: int) -> int:
    """How many values of ``n`` may be outliers: a tenth, at least two."""
    return max(FEWEST, int(n * FEW))


def examine(executions: Sequence[Sequence[Number]], alpha: float = 0.01) -> Spread:
    """What the values of a point, given per execution, show at level ``alpha`` (that of
    the runs test; the two-group and the outlier test take half of it each)."""
    values = list(chain.from_iterable(executions))
    if not all(map(math.isfinite, values)):
        return Spread(outliers=tuple(outliers(values, alpha)))
    largest = max(map(abs, values), default=0)
    if largest > 1e100:  # squares would overflow; which values are far does not change
        scaled = examine([[v / largest for v in e] for e in executions], alpha)
        if scaled.groups is None:
            return scaled
        (low, at_low), (high, at_high) = scaled.groups.low, scaled.groups.high
        return Spread(groups=Groups((low, at_low * largest), (high, at_high * largest)))
    runs = runs_differ(executions, alpha)
    # the two-group test and the outlier test share the level: noise alone gets a mark of
    # either in about ``alpha`` of points, not twice as often
    groups = None if runs else two_groups(values, alpha / 2)
    if groups is not None:
        return Spread(groups=groups)
    if len(executions) > 1 and any(len(e) > 1 for e in executions):
        found = _within(executions, alpha / 2)
        tested = sum([n for n in map(len, executions) if n > 2])
    else:
        found, tested = outliers(values, alpha / 2), len(values)
    if len(found) > few(tested):
        return Spread(runs=runs, many=len(found))
    return Spread(outliers=tuple(found), runs=runs)


def _within(executions: Sequence[Sequence[Number]], alpha: float) -> list[int]:
    """Positions of values far from the others of their execution (executions of three
    values or more: of two, each is as far from the other).

    Each value is measured against the mean and the spread of the others, left out (the
    externally studentized residual of the one-way model, execution by execution), so that
    one far value drags neither its own yardstick nor its neighbours' after it; the
    largest is tested at ``alpha`` with Bonferroni's correction over the values, the
    farthest first, removing each before the next (an execution left with two values still
    lends its spread), until more than :func:`few` are found: beyond that the sample is no
    population with strays, whatever the later steps find. The search is
    :class:`~jubex.results.statistics.farthest.Search`'s: each removal costs the size of its
    execution and a logarithm, not a pass over every value; of many values,
    :class:`~jubex.results.statistics.sweep.Sweep`'s, which sorts them once.
    """
    sizes = list(map(len, executions))
    if min(sizes, default=0) >= 3:
        values = list(chain.from_iterable(executions))
        positions = list(range(len(values)))
    else:
        values = [v for e in executions if len(e) >= 3 for v in e]
        starts = accumulate(sizes[:-1], initial=0)
        positions = [a + k for a, n in zip(starts, sizes, strict=True) if n >= 3 for k in range(n)]
        sizes = [n for n in sizes if n >= 3]
    steps = few(len(values)) + 1 if len(values) >= OUTLIER_MIN_N else 0
    from jubex.results.statistics.farthest import Search

    if len(values) >= ARRAYS:
        from jubex.results.statistics.sweep import Sweep, Undecided

        try:
            sweep = Sweep(positions, values, sizes, steps)
            found = sweep.removals(steps)
            return _marked(_walk(sweep, steps) if found is None else found, alpha)
        except Undecided:
            pass
    return _marked(_walk(Search.of(positions, values, sizes), steps), alpha)


def _walk(search: Search | Sweep, steps: int) -> list[tuple[float, int, int, int]]:
    """(score, df, position, Bonferroni count) of up to ``steps`` removals, the farthest
    value first."""
    found = []
    for _ in range(steps):
        far = search.farthest()
        if far is None:
            break
        found.append((*far, search.tested))
        search.remove(far[2])
    return found


def _marked(removals: Sequence[tuple[float, int, int, int]], alpha: float) -> list[int]:
    """The positions of the removals up to the last whose score is beyond the critical
    value, Bonferroni-corrected at ``alpha`` (the normal quantile of the smallest count, a
    bound below each removal's, tells most scores without a quantile of their own)."""
    if not removals:
        return []
    floor = _normal(1 - alpha / min(tested for *_, tested in removals)) * (1 - 1e-9)
    found = 0
    for step, (score, df, _, tested) in enumerate(removals):
        if score >= floor and _beyond(score, df, 1 - alpha / tested):
            found = step + 1
    return sorted(position for _, _, position, _ in removals[:found])


def _beyond(score: float, df: int, level: float) -> bool:
    """Whether ``score`` exceeds the two-sided Student t quantile of ``df`` at ``level``.

    The t quantile is never below the normal one: a score under the normal quantile (most
    removals of the search) is decided without SciPy, whose import costs more than a
    table of 10,000 rows; the rest ask SciPy's exact quantile."""
    if score < _normal(level) * (1 - 1e-9):
        return False
    return score > t_quantile(df, level)


def _normal(level: float) -> float:
    """The two-sided normal quantile at ``level``."""
    return NormalDist().inv_cdf(0.5 + level / 2)


def runs_differ(executions: Sequence[Sequence[Number]], alpha: float) -> tuple[float, float] | None:
    """The coefficients of variation between the executions' means and within them, when
    executions of two values or more differ by the Kruskal–Wallis test at ``alpha``."""
    repeated = [e for e in executions if len(e) >= 2]
    if len(repeated) < 2 or _kruskal_at_least(repeated, alpha):
        return None
    values = list(chain.from_iterable(repeated))
    centre = abs(math.fsum(values) / len(values))
    if not centre:
        return None
    means = [math.fsum(e) / len(e) for e in repeated]
    grand = math.fsum(means) / len(means)
    between = math.sqrt(math.fsum((m - grand) ** 2 for m in means) / (len(means) - 1))
    squares = math.fsum((v - m) ** 2 for e, m in zip(repeated, means, strict=True) for v in e)
    within = math.sqrt(squares / (len(values) - len(repeated)))
    return between / centre, within / centre


def _kruskal_at_least(samples: Sequence[Sequence[Number]], alpha: float) -> bool:
    """Whether the Kruskal–Wallis p-value of ``samples`` is ``alpha`` or more: from a
    series for the chi-squared tail (about 13 digits) where it lies clearly on one side,
    else from SciPy's exact :func:`kruskal_p`."""
    h = _kruskal_h(samples)
    if h is None:
        return True
    p = chi2_sf(h, len(samples) - 1)
    if abs(p - alpha) > 1e-9 * alpha:
        return p >= alpha
    return kruskal_p(samples) >= alpha


def kruskal_p(samples: Sequence[Sequence[Number]]) -> float:
    """The p-value of the Kruskal–Wallis H test (ties corrected, chi-squared), as
    ``scipy.stats.kruskal`` gives it, without the second that importing scipy.stats takes."""
    from scipy.special import chdtrc

    h = _kruskal_h(samples)
    if h is None:
        return 1.0  # every value is the same
    return float(chdtrc(len(samples) - 1, h))


def _kruskal_h(samples: Sequence[Sequence[Number]]) -> float | None:
    """The tie-corrected H statistic, None when every value is the same. The ranks are
    half-integers, whose sums are exact: numpy's sort and sums give the same H as plain
    Python, which small samples take (importing numpy costs more than a small table)."""
    sizes = list(map(len, samples))
    n = sum(sizes)
    ranks, ties = _rank_sums(samples, sizes) if n >= ARRAYS else _rank_sums_plain(samples)
    correction = 1 - ties / (n**3 - n)
    if correction <= 0:
        return None
    h = 12 / (n * (n + 1)) * sum([r * r / k for r, k in zip(ranks, sizes, strict=True)])
    return (h - 3 * (n + 1)) / correction


def _rank_sums(
    samples: Sequence[Sequence[Number]], sizes: Sequence[int]
) -> tuple[list[float], float]:
    """Each sample's sum of ranks in the pooled values (ties share the mean rank), and
    the sum of t**3 - t over the ties' sizes t (``sizes``: each sample's), by numpy."""
    import numpy as np

    pooled = np.array(list(chain.from_iterable(samples)), dtype=float)
    owner = np.repeat(np.arange(len(samples)), sizes)
    order = np.argsort(pooled, kind="stable")
    ordered = pooled[order]
    n = len(ordered)
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(starts, n))
    rank = np.repeat((2 * starts + counts - 1) / 2 + 1, counts)
    ranks = np.bincount(owner[order], weights=rank, minlength=len(samples)).tolist()
    return ranks, float(int((counts**3 - counts).sum()))


def _rank_sums_plain(samples: Sequence[Sequence[Number]]) -> tuple[list[float], float]:
    """:func:`_rank_sums` in plain Python."""
    pooled = sorted((float(v), i) for i, sample in enumerate(samples) for v in sample)
    ranks = [0.0] * len(samples)
    ties = 0
    start = 0
    while start < len(pooled):
        end = start + 1
        while end < len(pooled) and pooled[end][0] == pooled[start][0]:
            end += 1
        count = end - start
        rank = (2 * start + count - 1) / 2 + 1
        for _, owner in pooled[start:end]:
            ranks[owner] += rank
        ties += count**3 - count
        start = end
    return ranks, float(ties)


def chi2_sf(x: float, df: int) -> float:
    """The chi-squared upper tail P(X > x) for ``df`` degrees of freedom: the regularized
    upper incomplete gamma function Q(df/2, x/2), by its series below the mean and its
    continued fraction above (Numerical Recipes, 6.2), to about 13 digits."""
    a, half = df / 2, x / 2
    if half <= 0:
        return 1.0
    front = math.exp(a * math.log(half) - half - math.lgamma(a))
    if half < a + 1:
        term = total = 1 / a
        k = a
        while abs(term) > abs(total) * 1e-16:
            k += 1
            term *= half / k
            total += term
        return max(0.0, 1 - total * front)
    tiny = 1e-300
    b = half + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return front * h


def two_groups(values: Sequence[Number], alpha: float) -> Groups | None:
    """Two groups, each of more values than :func:`few`, when the best split of the sorted
    values explains a share of their variance that a normal sample's best split reaches
    only with probability ``alpha``, and the gap between the groups is wider than any gap
    inside either. A group of ties (one value repeated: a bucket, a whole millisecond)
    has no gaps inside; its centre must lie farther from the other's than
    :data:`~jubex.results.statistics.stats.OUTLIER_TIE_DISTANCE` of its size."""
    n = len(values)
    smallest = few(n) + 1
    if n < max(2 * smallest, OUTLIER_MIN_N):
        return None
    ordered = sorted(values)
    share, cut = _best_split(ordered, smallest)
    if cut is None or share <= _split_critical(min(n, CALIBRATED), alpha):
        return None
    low, high = ordered[:cut], ordered[cut:]
    if not _apart(low, high):
        return None
    return Groups((len(low), median(low)), (len(high), median(high)))


def _apart(low: Sequence[Number], high: Sequence[Number]) -> bool:
    """Whether a gap separates two sorted groups (see :func:`two_groups`)."""
    if low[0] == low[-1] or high[0] == high[-1]:
        size = max(abs(low[0]), abs(high[-1]))
        return median(high) - median(low) > OUTLIER_TIE_DISTANCE * size
    inside = max(b - a for part in (low, high) for a, b in pairwise(part))
    return high[0] - low[-1] > inside


def _best_split(ordered: Sequence[Number], smallest: int) -> tuple[float, int | None]:
    """The largest share of the variance of sorted values that a split into a lower and an
    upper group (each of at least ``smallest``) explains, and where it cuts.

    The sum below the cut runs as one addition after another (numpy's ``cumsum``), and the
    squares round as Python's ``**`` does, so that the share is the same float as a loop
    over the cuts gives (a test keeps that loop)."""
    if len(ordered) < ARRAYS:
        return _best_split_plain(ordered, smallest)
    import numpy as np

    n = len(ordered)
    mean = math.fsum(ordered) / n
    deviation = np.asarray(ordered, dtype=float) - mean
    total = math.fsum(np.float_power(deviation, 2.0).tolist())
    if total <= 0:
        return 0.0, None
    cuts = np.arange(smallest, n - smallest + 1)
    if not len(cuts):
        return 0.0, None
    first = math.fsum(deviation[: smallest - 1].tolist())
    below = np.cumsum(np.concatenate(([first], deviation[smallest - 1 : n - smallest])))[1:]
    between = below * below * n / (cuts * (n - cuts))
    best = int(between.argmax())
    if not between[best] > 0.0:
        return 0.0, None
    return float(between[best]) / total, int(cuts[best])


def _best_split_plain(ordered: Sequence[Number], smallest: int) -> tuple[float, int | None]:
    """:func:`_best_split` as a loop over the cuts, in plain Python."""
    n = len(ordered)
    mean = math.fsum(ordered) / n
    total = math.fsum((v - mean) ** 2 for v in ordered)
    if total <= 0:
        return 0.0, None
    best, cut = 0.0, None
    below = math.fsum(v - mean for v in ordered[: smallest - 1])
    for k in range(smallest, n - smallest + 1):
        below += ordered[k - 1] - mean
        between = below * below * n / (k * (n - k))
        if between > best:
            best, cut = between, k
    return best / total, cut


def _split_critical(n: int, alpha: float) -> float:
    """The share of variance above which the best split of ``n`` normal values, with a gap
    between its groups wider than any inside them, falls with probability ``alpha``: from
    the table of the default level, else drawn."""
    from jubex.results.statistics.split_critical import CRITICAL, FIRST, LEVEL

    if alpha == LEVEL and FIRST <= n < FIRST + len(CRITICAL):
        return CRITICAL[n - FIRST]
    return drawn_split_critical(n, alpha)


@lru_cache(maxsize=64)
def drawn_split_critical(n: int, alpha: float) -> float:
    """:func:`_split_critical` drawn: once per size, seeded, so that a table reads the same
    every time."""
    import numpy as np

    smallest = few(n) + 1
    draws = np.sort(np.random.default_rng(n).standard_normal((DRAWS, n)), axis=1)
    draws -= draws.mean(axis=1, keepdims=True)
    k = np.arange(smallest, n - smallest + 1)
    between = np.cumsum(draws, axis=1)[:, k - 1] ** 2 * n / (k * (n - k))
    best = between.argmax(axis=1)
    share = between[np.arange(DRAWS), best] / (draws**2).sum(axis=1)
    gaps = np.diff(draws, axis=1)
    gap = gaps[np.arange(DRAWS), k[best] - 1].copy()
    gaps[np.arange(DRAWS), k[best] - 1] = -np.inf
    passing = np.sort(share[gap > gaps.max(axis=1)])
    allowed = int(alpha * DRAWS)
    return float(passing[-allowed - 1]) if len(passing) > allowed else 0.0
