"""The numbers of a history's steps (a run at a point), computed for all steps at once.

A history of 1,000 runs of 40 workpackages has 40,000 steps, each set against the step
before it in its series. Done step by step, the time goes to calls, not arithmetic. Here
the steps are columns: their counts, means, deviations and the Welch p of every
consecutive pair in a few numpy calls. The numbers are those of the step-by-step
arithmetic, bit for bit: sums are :func:`math.fsum`'s (correctly rounded: the steps of one
count as one array, :func:`~jubex.results.statistics.fsums.row_fsums`), squares are
Python's own ``** 2`` (the C library's ``pow``, which numpy's ``float_power`` calls too),
and the rest is IEEE arithmetic that numpy does as Python does. The t distribution is
:mod:`jubex.results.statistics.student_t`'s, which spares a history the half second of
importing scipy.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter, methodcaller

import numpy as np

from jubex.results.comparison.compare import numbers_of
from jubex.results.samples.rows import samples_of
from jubex.results.statistics import student_t
from jubex.results.statistics.fsums import row_fsums
from jubex.results.statistics.stats import squares, summarize
from jubex.results.tables.columns import Row


@dataclass(frozen=True, slots=True)
class Moments:
    """Of each step: its count, mean, standard deviation and variance (NaN for fewer than
    two values), its least and greatest value, and whether all its values are the same."""

    n: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    var: np.ndarray
    low: np.ndarray
    high: np.ndarray

    @property
    def constant(self) -> np.ndarray:
        return self.low == self.high


def samples_at(
    cells: Sequence[Sequence[Row]], metrics: Sequence[str]
) -> list[list[Sequence[object]]]:
    """Of each metric, the samples each cell's rows give (:func:`samples_of`), unchecked.

    The rule, each cell one row whose samples hold a list of every metric, is read in one
    pass of C calls over the rows: a history of 10,000 points and 50 metrics looks into
    each row's samples once, not once a metric (rows spread over a large heap are read at
    the speed of memory)."""
    if metrics and set(map(len, cells)) == {1}:
        held = list(map(_SAMPLES, map(_FIRST, cells)))
        if set(map(type, held)) == {dict}:
            try:
                taken = list(map(itemgetter(*metrics), held))
            except KeyError:  # a row without some metric: each metric on its own
                pass
            else:
                columns = list(map(list, zip(*taken, strict=True))) if len(metrics) > 1 else [taken]
                return [
                    found if None not in found and all(found) else _samples_of_cells(cells, m)
                    for found, m in zip(columns, metrics, strict=True)
                ]
    return [_samples_of_cells(cells, metric) for metric in metrics]


_FIRST, _SAMPLES = itemgetter(0), methodcaller("get", "samples")


def _samples_of_cells(cells: Sequence[Sequence[Row]], metric: str) -> list[Sequence[object]]:
    """The samples of ``metric`` each cell's rows give, a cell at a time."""
    found: list[Sequence[object]] = []
    for rows in cells:
        if len(rows) == 1:  # most cells: one row, its samples a sequence
            row = rows[0]
            samples = row.get("samples")
            values = (
                samples.get(metric)
                if type(samples) is dict or isinstance(samples, Mapping)
                else None
            )
            found.append(values if values else (row.get(metric),))
        else:
            found.append([value for row in rows for value in samples_of(row, metric)])
    return found


#: of a metric: the cells that hold numbers of it, those numbers, the cells whose values
#: are no finite numbers with the error, and the numbers one after another where they
#: were checked as one array (None: not)
Numbers = tuple[list[int], list[Sequence[float]], list[tuple[int, str]], "np.ndarray | None"]


def numbers_at(cells: Sequence[Sequence[Row]], metrics: Sequence[str]) -> list[Numbers]:
    """Of each metric, the cells that hold numbers of it and those numbers, as
    :func:`numbers_of` reads them (missing values left out), and the cells whose values
    are no finite numbers with the error :func:`numbers_of` gives (:data:`Numbers`)."""
    return [
        _numbers(cells, metric, found)
        for metric, found in zip(metrics, samples_at(cells, metrics), strict=True)
    ]


def _numbers(cells: Sequence[Sequence[Row]], metric: str, found: list[Sequence[object]]) -> Numbers:
    """:func:`numbers_at` of one metric, its samples ``found``. Finite floats everywhere
    (the rule) are checked in two C calls, and the array of the second is kept: a
    history's moments are worked out from it, not from another pass over millions of
    floats spread over the heap. Any other value sends its cell through
    :func:`numbers_of`."""
    if set(map(type, chain.from_iterable(found))) <= {float}:
        flat = np.fromiter(chain.from_iterable(found), dtype=float)
        if np.isfinite(flat).all():
            return list(range(len(found))), found, [], flat  # type: ignore[return-value]
    kept: list[int] = []
    numbers: list[Sequence[float]] = []
    errors: list[tuple[int, str]] = []
    for index, values in enumerate(found):
        if all(type(v) is float and math.isfinite(v) for v in values):
            kept.append(index)
            numbers.append(values)  # type: ignore[arg-type]
            continue
        try:
            present = numbers_of(list(cells[index]), metric, 1.0)
        except ValueError as error:
            errors.append((index, str(error)))
            continue
        if present:
            kept.append(index)
            numbers.append(present)
    return kept, numbers, errors, None


def moments_of(
    samples: Sequence[Sequence[float]],
    count: np.ndarray | None = None,
    flat: np.ndarray | None = None,
) -> Moments:
    """The moments of each sample (none empty), as ``math.fsum(values) / n`` and
    ``math.fsum((v - mean) ** 2 for v in values) / (n - 1)`` give them; where those
    overflow, the mean and deviation :func:`summarize` scales down, and no variance.
    ``count`` and ``flat``: each sample's size and all samples one after another, where
    the caller has them already."""
    if count is None or flat is None:
        count = np.fromiter(map(len, samples), dtype=np.int64, count=len(samples))
        flat = np.fromiter(chain.from_iterable(samples), dtype=float, count=int(count.sum()))
    start = np.cumsum(count) - count
    try:
        mean = _fsums(flat, start, count) / count
        spread = _fsums(squares(flat - np.repeat(mean, count)), start, count)
    except OverflowError:  # values near the largest float: step by step
        return _one_by_one(samples)
    var = np.full(len(samples), np.nan)
    np.divide(spread, count - 1, out=var, where=count > 1)
    low = high = np.zeros(0)
    if len(samples):
        low, high = np.minimum.reduceat(flat, start), np.maximum.reduceat(flat, start)
    return Moments(count, mean, np.sqrt(var), var, low, high)


def _fsums(values: np.ndarray, start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The correctly rounded sum of each step's values, as ``math.fsum`` gives it: the
    steps of one count are one two-dimensional array."""
    sums = np.empty(len(count))
    for size in sorted(set(count.tolist())):  # np.unique would import numpy.ma (20 ms)
        steps = np.flatnonzero(count == size)
        sums[steps] = row_fsums(values[start[steps, None] + np.arange(size)])
    return sums


def _one_by_one(samples: Sequence[Sequence[float]]) -> Moments:
    n, mean, std, var, low, high = [], [], [], [], [], []
    for values in samples:
        n.append(len(values))
        low.append(min(values))
        high.append(max(values))
        try:
            m = math.fsum(values) / len(values)
            v = math.fsum((x - m) ** 2 for x in values) / (len(values) - 1)
        except OverflowError:
            summary = summarize(values)
            mean.append(summary.mean)
            std.append(math.nan if summary.std is None else summary.std)
            var.append(math.nan)
            continue
        except ZeroDivisionError:  # one value
            v = math.nan
        mean.append(m)
        var.append(v)
        std.append(math.sqrt(v) if len(values) > 1 else math.nan)
    return Moments(
        np.array(n, dtype=np.int64),
        np.array(mean, dtype=float),
        np.array(std, dtype=float),
        np.array(var, dtype=float),
        np.array(low, dtype=float),
        np.array(high, dtype=float),
    )


def welch_p(moments: Moments, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The two-sided Welch p of each step ``after[i]`` against ``before[i]``: NaN where the
    test cannot tell (fewer than two values on a side, or no spread on either), as
    :func:`~jubex.results.statistics.significance.p_value` says, and where a variance
    overflowed."""
    found = np.full(len(after), np.nan)
    n = moments.n
    tested = (n[before] >= 2) & (n[after] >= 2)
    tested &= ~(moments.constant[before] & moments.constant[after])
    b, c = before[tested], after[tested]
    if not b.size:
        return found
    nb, nc = n[b].astype(float), n[c].astype(float)
    sb, sc = moments.var[b] / nb, moments.var[c] / nc
    df = (sb + sc) ** 2 / (sb**2 / (nb - 1) + sc**2 / (nc - 1))
    t = (moments.mean[c] - moments.mean[b]) / np.sqrt(sb + sc)
    found[tested] = 2 * student_t.cdf(df, -np.abs(t))
    return found


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of the p-values (NaN: no test, stays NaN), the numbers
    of :func:`~jubex.results.statistics.significance.adjust` without a Python loop."""
    adjusted = np.full(len(p), np.nan)
    present = np.flatnonzero(~np.isnan(p))
    if not present.size:
        return adjusted
    values = p[present]
    order = np.argsort(values, kind="stable")
    scaled = np.minimum(1.0, (len(values) - np.arange(len(values))) * values[order])
    adjusted[present[order]] = np.maximum.accumulate(np.maximum(scaled, 0.0))
    return adjusted
