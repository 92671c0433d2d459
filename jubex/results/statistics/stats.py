"""Statistics over the repetitions of one parameter point.

Groups are small (a handful of iterations) and there are thousands of them, so the
arithmetic is plain Python on the values themselves: per-call numpy overhead would dominate,
and ``min``/``max``/``first``/``last`` keep the values' own types (a size stays a size).
Only the Student t quantile comes from scipy, cached per degree of freedom and imported
on first use, from ``scipy.special`` (the function ``scipy.stats.t.ppf`` calls): importing
``scipy.stats`` takes twice as long and longer than building a large table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from statistics import NormalDist
from typing import TYPE_CHECKING

from jubex.plain import dataclass

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: statistics a table column may ask for, in the order they are documented
STATISTICS = (
    "n",
    "missing",
    "cnt",
    "mean",
    "std",
    "min",
    "max",
    "median",
    "ci95",
    "sum",
    "first",
    "last",
    "cv",
    "mad",
    "hmean",
    "gmean",
)
#: JUBE's names for the same statistics
ALIASES = {"avg": "mean"}
#: statistics that count values and therefore carry no unit
COUNTS = frozenset({"n", "missing", "cnt"})
#: statistics without a unit that are no counts: shown as they are, never converted
RATIOS = frozenset({"cv"})
#: statistics of a sample's shape, worked out only when asked for (a third of the time)
SHAPES = frozenset({"mad", "hmean", "gmean"})
#: statistics that pick one of the values, as it was measured (no arithmetic on it)
PICKED = frozenset({"first", "last", "min", "max"})
#: statistics that need numbers; the others apply to any value
NUMERIC = frozenset(
    {"mean", "std", "min", "max", "median", "ci95", "sum", "cv", "mad", "hmean", "gmean"}
)

Number = float | int
#: the fewest values the outlier and spread tests work out over numpy arrays (fewer: plain
#: Python, without numpy's import, which costs more than a small table)
ARRAYS = 500
#: the fewest values whose squared deviations numpy works out (fewer: plain Python, without
#: numpy's import, which costs more than a small table)
SQUARES_BY_NUMPY = 500


@dataclass(frozen=True, slots=True)
class Summary:
    """The statistics of one sample; ``None`` marks a statistic the sample cannot give.

    ``std`` is the sample standard deviation (ddof=1), ``ci95`` the half-width of the 95 %
    confidence interval of the mean (Student t): the mean lies in ``mean ± ci95``. Both need
    at least two values. ``cnt`` counts every value given, ``n`` only those present.
    ``cv`` is std / |mean| (a fraction), ``mad`` the median absolute deviation from the
    median; ``hmean`` (for rates) and ``gmean`` (for ratios) need positive values.
    """

    n: int
    missing: int
    mean: float | None
    std: float | None
    min: Number | None
    max: Number | None
    median: Number | None
    sum: Number | None
    first: Number | None
    last: Number | None
    mad: float | None = None
    hmean: float | None = None
    gmean: float | None = None

    @property
    def cnt(self) -> int:
        return self.n + self.missing

    @property
    def cv(self) -> float | None:
        """The coefficient of variation: the spread relative to the mean's size."""
        if self.std is None or not self.mean:
            return None
        return self.std / abs(self.mean)

    @property
    def ci95(self) -> float | None:
        """Computed when asked: the t quantile needs scipy, which takes long to import."""
        if self.std is None:
            return None
        return t_quantile(self.n - 1) * self.std / math.sqrt(self.n)

    def get(self, stat: str) -> Number | None:
        """One statistic by name (JUBE's ``avg`` included)."""
        return getattr(self, ALIASES.get(stat, stat))


@lru_cache(maxsize=256)
def t_quantile(df: int, level: float = 0.95) -> float:
    """Two-sided Student t critical value, cached per degree of freedom."""
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + level / 2))


def summarize(values: Sequence[Number | None], *, shapes: bool = True) -> Summary:
    """Summarize a sample; ``None`` entries are missing values, counted but not used.
    ``shapes`` false: without the statistics of :data:`SHAPES` (None), which a table
    works out only for a column that asks for one."""
    present = [v for v in values if v is not None]
    n = len(present)
    missing = len(values) - n
    if n == 0:
        return Summary(0, missing, None, None, None, None, None, None, None, None)
    try:
        total = math.fsum(present)
        mean = total / n
        std = math.sqrt(squared_deviations(present, mean) / (n - 1)) if n > 1 else None
    except OverflowError:  # values near the largest float: the same, scaled down
        total, mean, std = _scaled(present)
    ordered = sorted(present)
    middle = n // 2
    median = ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    if all(isinstance(v, int) for v in present):
        total = sum(present)
    positive = ordered[0] > 0 and shapes
    return Summary(
        n=n,
        missing=missing,
        mean=mean,
        std=std,
        min=ordered[0],
        max=ordered[-1],
        median=median,
        sum=total,
        first=present[0],
        last=present[-1],
        mad=_median([abs(v - median) for v in present]) if shapes else None,
        hmean=ordered[0] * n / math.fsum(ordered[0] / v for v in present) if positive else None,
        gmean=math.exp(math.fsum(math.log(v) for v in present) / n) if positive else None,
    )


def squared_deviations(values: Sequence[Number], mean: float) -> float:
    """``math.fsum((v - mean) ** 2 for v in values)``, OverflowError included; of many
    values, the deviations and squares by numpy, each the float Python's ``-`` and ``**``
    give (one IEEE subtraction, C's ``pow``), a third of the time of the generator."""
    if len(values) < SQUARES_BY_NUMPY:
        return math.fsum((v - mean) ** 2 for v in values)
    import numpy as np

    with np.errstate(over="ignore", invalid="ignore"):
        deviation = np.asarray(values, dtype=float) - mean
    return math.fsum(squares(deviation).tolist())


def squares(deviations: NDArray[np.float64]) -> NDArray[np.float64]:
    """Each deviation's ``d ** 2`` as Python gives it (C's ``pow``, which numpy's
    ``float_power`` calls too); OverflowError where Python raises it (a finite deviation
    whose square is beyond the largest float)."""
    import numpy as np

    with np.errstate(over="ignore", invalid="ignore"):
        found = np.float_power(deviations, 2.0)
    infinite = np.isinf(found)
    if infinite.any() and np.isfinite(deviations[infinite]).any():
        raise OverflowError("a squared deviation is beyond the largest float")
    return found


def cv_of(values: Sequence[Number]) -> float | None:
    """``summarize(values).cv`` of numbers, without the median, its deviation and the
    means of rates and ratios that a flag does not read (a third of the flags' time over
    100,000 rows)."""
    n = len(values)
    if n < 2:
        return None
    try:
        mean = math.fsum(values) / n
        std = math.sqrt(squared_deviations(values, mean) / (n - 1))
    except OverflowError:
        _, mean, scaled = _scaled(values)
        std = scaled if scaled is not None else 0.0
    return std / abs(mean) if mean else None


def _scaled(values: Sequence[Number]) -> tuple[float, float, float | None]:
    """Sum, mean and standard deviation of values whose sum or squares overflow a float,
    computed on the values divided by the largest magnitude (the sum may still be
    infinite; the mean and spread are not)."""
    scale = max(abs(v) for v in values)
    small = [v / scale for v in values]
    n = len(small)
    mean = math.fsum(small) / n
    std = None
    if n > 1:
        std = scale * math.sqrt(math.fsum((v - mean) ** 2 for v in small) / (n - 1))
    return scale * math.fsum(small), scale * mean, std


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


#: fewer values than this have no outliers: with three, the test can only fire where two
#: values (nearly) tie -- 878.6 marked beside 875.2 and 1516.2 is no finding
OUTLIER_MIN_N = 6
#: the values kept must differ this often, so that ties (bucketed percentiles, times in
#: whole milliseconds) do not shrink the spread the farthest value is measured against
OUTLIER_MIN_DISTINCT = 3
#: among ties, how far a value must lie from the nearest other, as a share of its size
OUTLIER_TIE_DISTANCE = 0.25


def outliers(values: Sequence[Number], alpha: float = 0.01) -> list[int]:
    """Positions of outlying values by Rosner's generalized ESD test at level ``alpha``.

    Of a sample drawn from one normal distribution, the test marks any value at all with
    probability about ``alpha`` whatever the sample's size, where a fixed distance rule
    (five median absolute deviations, say) marks one in four samples of three and one in
    ten of twenty. Up to half the values less one are tested in turn, the farthest first,
    so that two far values do not hide each other. Fewer than :data:`OUTLIER_MIN_N`
    values have no outlier. Where the values left unmarked take fewer than
    :data:`OUTLIER_MIN_DISTINCT` distinct values, their spread is made of ties and says
    nothing about how far a value may fall by chance (the test's score is then the same
    for 13 among twelves as for 10^8 among zeros): a value is marked only when it lies
    farther from the nearest of them than :data:`OUTLIER_TIE_DISTANCE` of its size.
    """
    found = _esd(values, alpha)
    if not found:
        return []
    marked = set(found)
    kept = sorted({values[i] for i in range(len(values)) if i not in marked})
    if len(kept) >= OUTLIER_MIN_DISTINCT:
        return found
    return [i for i in found if _apart(values[i], kept)]


def _apart(value: Number, kept: Sequence[Number]) -> bool:
    """Whether ``value`` lies far from every one of a few tied ``kept`` values."""
    nearest = min(kept, key=lambda k: abs(k - value))
    size = max(abs(value), abs(nearest))
    return abs(value - nearest) > OUTLIER_TIE_DISTANCE * size


def _esd(values: Sequence[Number], alpha: float) -> list[int]:
    """The generalized ESD test itself (see :func:`outliers`)."""
    n = len(values)
    if n < OUTLIER_MIN_N:
        return []
    largest = max(abs(v) for v in values)
    if largest > 1e100:  # squares would overflow; which values are far does not change
        values = [v / largest for v in values]
    order = sorted(range(n), key=values.__getitem__)
    centre = math.fsum(values) / n  # sums of values less it keep their digits
    total = math.fsum(values[i] - centre for i in order)
    squares = math.fsum((values[i] - centre) ** 2 for i in order)
    low, high = 0, n - 1  # the farthest from the mean is always the smallest or the largest
    removed: list[int] = []
    found = 0
    for step in range(max(1, (n - 1) // 2)):
        size = high - low + 1
        mean = total / size
        sd = math.sqrt(max(squares - size * mean * mean, 0.0) / (size - 1))
        if sd <= 1e-12 * (abs(values[order[low]]) + abs(values[order[high]])):
            break  # the rest are equal, but for rounding
        below, above = values[order[low]] - centre, values[order[high]] - centre
        if mean - below >= above - mean:
            far, deviation, low = order[low], below, low + 1
        else:
            far, deviation, high = order[high], above, high - 1
        score = abs(deviation - mean) / sd
        if score > _esd_critical(size, alpha, exact=False) and score > _esd_critical(size, alpha):
            found = step + 1
        removed.append(far)
        total -= deviation
        squares -= deviation * deviation
    return sorted(removed[:found])


@lru_cache(maxsize=256)
def _esd_critical(size: int, alpha: float, *, exact: bool = True) -> float:
    """Rosner's critical value for the farthest of ``size`` values at level ``alpha``.

    ``exact=False`` puts the normal quantile where the t quantile belongs: a lower bound
    (the value grows with the quantile), computed without SciPy, so that a sample with
    nothing far from its mean never pays for SciPy's import in ``jubex result``.
    """
    level = 1 - alpha / (2 * size)
    t = t_quantile(size - 2, 1 - alpha / size) if exact else NormalDist().inv_cdf(level)
    return (size - 1) * t / math.sqrt((size - 2 + t * t) * size)
