"""The farthest value from the others of its execution, found again after each removal
without a pass over every value.

The outlier test of :mod:`jubex.results.statistics.spread` removes up to a tenth of a point's
values, the farthest first. Scoring every value at every removal made it quadratic: 10,000 rows in
20 groups took 14 s. Here each execution keeps its values sorted, its mean and the exact
sum of its squared deviations; a removal recomputes only its own execution.

The scores are the same floating-point numbers as a pass over every value gives, and the
same value wins a tie (the first execution, then the first value). Two facts make that so:
the externally studentized residual of a value grows with its distance from its
execution's mean, and every operation that computes it rounds monotonically, so that
within an execution the farthest values are its smallest and largest, and among
executions of one size the one farthest from its mean. The sum of squares is kept as an
exact integer, rounded once, as ``math.fsum`` rounds. Only where a value's spread may be
made of ties (the score's special case, of no practical sample) is every value scored.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, repeat
from math import fsum
from typing import TYPE_CHECKING

from jubex.results.statistics.stats import ARRAYS, OUTLIER_TIE_DISTANCE, Number

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: the fewest degrees of freedom the spread a value is measured against may have: with one
#: or two, two values that nearly tie make any third look far
MIN_DF = 3
#: a float's exact value in units of the smallest subnormal, 2**-1074
_UNITS = 1074


def score(value: Number, mean: float, keep: float, errors: float, df: int) -> float:
    """The externally studentized residual of ``value`` in an execution of mean ``mean``
    (``keep``: 1 - 1/its size), the squared deviations of every value summing to
    ``errors`` over ``df`` degrees of freedom left. A value among equal others (no spread
    left to measure against) is far only beyond a quarter of its size, as in
    :func:`~jubex.results.statistics.stats.outliers`."""
    e = value - mean
    rest = (errors - e * e / keep) / df
    scale = 1e-12 * max(abs(value), abs(mean))
    if rest <= scale * scale:
        return math.inf if abs(e) / keep > OUTLIER_TIE_DISTANCE * abs(value) else 0.0
    return abs(e) / math.sqrt(rest * keep)


def _exact(x: float) -> int:
    """``x`` (finite, not negative) as an integer count of 2**-1074."""
    numerator, denominator = x.as_integer_ratio()
    return numerator << (_UNITS + 1 - denominator.bit_length())


@dataclass(slots=True)
class _Execution:
    """The values one execution has left: in their order (for the mean, summed as before)
    and sorted (for the farthest), its mean, how far its farthest value lies, and the exact
    sum of its squared deviations (worked out when a removal first needs it)."""

    index: int
    items: list[tuple[int, Number]]
    mean: float
    far: float
    ordered: list[tuple[Number, int]] = field(init=False)
    squares: int | None = None

    def __post_init__(self) -> None:
        self.ordered = sorted((v, position) for position, v in self.items)

    def exact_squares(self) -> int:
        """The sum of squared deviations from the mean, in units of 2**-1074."""
        if self.squares is None:
            mean = self.mean
            self.squares = sum(_exact((v - mean) ** 2) for _, v in self.items)
        return self.squares

    def measure(self) -> None:
        """The mean, the sum of squares and the farthest distance of the values left."""
        values = [v for _, v in self.items]
        self.mean = math.fsum(values) / len(values)
        self.squares = None
        low, high = self.ordered[0][0], self.ordered[-1][0]
        self.far = max(abs(low - self.mean), abs(high - self.mean))

    def best(self, errors: float, df: int) -> tuple[float, int]:
        """The largest score of the values left and the first position that has it, from
        the sorted ends inward (the scores fall monotonically towards the mean)."""
        keep = 1 - 1 / len(self.items)
        ordered = self.ordered
        top = max(
            score(ordered[0][0], self.mean, keep, errors, df),
            score(ordered[-1][0], self.mean, keep, errors, df),
        )
        tied = []
        for walk in (ordered, reversed(ordered)):
            for v, position in walk:
                if score(v, self.mean, keep, errors, df) != top:
                    break
                tied.append(position)
        return top, min(tied)

    def scan(self, errors: float, df: int) -> tuple[float, int]:
        """:meth:`best` by scoring every value: where a score may be the special case."""
        keep = 1 - 1 / len(self.items)
        scored = [(score(v, self.mean, keep, errors, df), -p) for p, v in self.items]
        top, position = max(scored)
        return top, -position


class Search:
    """Executions of three values or more, the farthest of their values found and removed
    in turn (:func:`~jubex.results.statistics.spread._within`).

    The executions start as arrays: their means, sizes and farthest distances worked out
    for all of them at once. An execution becomes an :class:`_Execution` (its values sorted,
    its sum of squares exact) only when the search scores its values or removes one: a
    search over 500 executions touches a few dozen of them.
    """

    def __init__(self, executions: Sequence[list[tuple[int, Number]]]) -> None:
        sizes = [len(e) for e in executions]
        self._build(
            [p for e in executions for p, _ in e], [v for e in executions for _, v in e], sizes
        )

    @classmethod
    def of(cls, positions: Sequence[int], values: Sequence[Number], sizes: Sequence[int]) -> Search:
        """The search over executions given flat: ``values`` at ``positions`` (ascending),
        the first ``sizes[0]`` of them the first execution's, and so on."""
        search = cls.__new__(cls)
        search._build(positions, values, sizes)
        return search

    def _build(
        self, positions: Sequence[int], values: Sequence[Number], sizes: Sequence[int]
    ) -> None:
        self._positions = list(positions)
        self._values = list(values)
        ends = list(accumulate(sizes))
        self._bounds = list(zip([0, *ends][:-1], ends, strict=True))
        means = [fsum(self._values[a:b]) / (b - a) if b > a else 0.0 for a, b in self._bounds]
        self._means = means  # as each execution started
        #: each execution's size and farthest distance, kept current on removal
        self._sizes = list(sizes)
        self._live: dict[int, _Execution] = {}
        self._owner = list(chain.from_iterable(repeat(i, k) for i, k in enumerate(sizes)))
        if len(self._values) < ARRAYS or not self._values:
            self._plain(means)
        else:
            import numpy as np

            array = np.asarray(self._values, dtype=float)
            counts = np.asarray(sizes, dtype=np.int64)
            centre = np.repeat(np.asarray(means), counts)
            firsts = np.flatnonzero(counts)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))[firsts]
            low = np.full(len(sizes), np.inf)
            high = np.full(len(sizes), -np.inf)
            low[firsts] = np.minimum.reduceat(array, starts)
            high[firsts] = np.maximum.reduceat(array, starts)
            mean = np.asarray(means)
            far = np.maximum(np.abs(low - mean), np.abs(high - mean))
            self._fars = far.tolist()
            # ``x ** 2`` as Python's float power rounds it (C ``pow``), not ``x * x``
            self._squares = exact_sum(np.float_power(array - centre, 2.0))
            self._largest = float(np.abs(array).max())
        self._count = len(self._values)
        self.size = self._count
        #: the values of executions of three or more (the Bonferroni count)
        self.tested = self.size
        self._gone: set[int] = set()
        # per size: a heap of distances (negated), and per distance a heap of executions
        self._distances: dict[int, list[float]] = {}
        self._holders: dict[tuple[int, float], list[int]] = {}
        for index in sorted(range(len(sizes)), key=lambda i: (sizes[i], -self._fars[i], i)):
            size = sizes[index]
            if size < 3:
                continue
            holders = self._holders.setdefault((size, self._fars[index]), [])
            if not holders:
                self._distances.setdefault(size, []).append(-self._fars[index])
            holders.append(index)

    def _plain(self, means: Sequence[float]) -> None:
        """The farthest distances, the exact sum of squares and the largest value of a few
        values, in plain Python."""
        self._fars = [
            max(abs(min(self._values[a:b]) - m), abs(max(self._values[a:b]) - m)) if b > a else 0.0
            for (a, b), m in zip(self._bounds, means, strict=True)
        ]
        self._squares = sum(
            _exact((v - m) ** 2)
            for (a, b), m in zip(self._bounds, means, strict=True)
            for v in self._values[a:b]
        )
        self._largest = max(map(abs, self._values), default=0.0)

    def _execution(self, index: int) -> _Execution:
        """Execution ``index`` with its values sorted and its sum of squares exact."""
        ex = self._live.get(index)
        if ex is None:
            a, b = self._bounds[index]
            items = list(zip(self._positions[a:b], self._values[a:b], strict=True))
            ex = _Execution(index, items, self._means[index], self._fars[index])
            self._live[index] = ex
        return ex

    def _file(self, index: int) -> None:
        size, far = self._sizes[index], self._fars[index]
        if size < 3:
            return
        holders = self._holders.setdefault((size, far), [])
        if not holders:
            heapq.heappush(self._distances.setdefault(size, []), -far)
        heapq.heappush(holders, index)

    def _first(self, size: int, far: float) -> int | None:
        """The first execution of ``size`` values whose farthest lies ``far`` away."""
        holders = self._holders.get((size, far), [])
        while holders:
            index = holders[0]
            if self._sizes[index] == size and self._fars[index] == far:
                return index
            heapq.heappop(holders)
        self._holders.pop((size, far), None)
        return None

    def _top(self, size: int) -> int | None:
        """The first of the executions of ``size`` values farthest from their means."""
        heap = self._distances.get(size, [])
        while heap:
            first = self._first(size, -heap[0])
            if first is not None:
                return first
            heapq.heappop(heap)
        return None

    def _candidates(self, size: int, errors: float, df: int) -> list[tuple[float, int, int]]:
        """(score, execution, position) of the executions of ``size`` values that share the
        largest score: the farthest, and nearer ones that round to the same score."""
        heap = self._distances.get(size, [])
        popped: list[float] = []
        found: list[tuple[float, int, int]] = []
        top = None
        while heap:
            far = -heap[0]
            first = self._first(size, far)
            heapq.heappop(heap)
            if first is None:
                continue
            popped.append(-far)
            s, position = self._execution(first).best(errors, df)
            if top is None:
                top = s
            elif s != top:
                break
            found.append((s, first, position))
        for d in popped:
            heapq.heappush(heap, d)
        return found

    def farthest(self) -> tuple[float, int, int] | None:
        """The largest score, its degrees of freedom and the position of its value; None
        when the values left have too few degrees of freedom or no execution of three."""
        df = self._count - len(self._sizes) - 1
        if df < MIN_DF:
            return None
        errors = self._squares / (1 << _UNITS)
        tops = {size: top for size in self._distances if (top := self._top(size)) is not None}
        if not tops:
            return None
        reach = max(self._fars[top] ** 2 / (1 - 1 / size) for size, top in tops.items())
        gap = errors - reach
        if gap > 1e-6 * errors and gap / df > 4 * (1e-12 * self._largest) ** 2:
            found = [c for size in tops for c in self._candidates(size, errors, df)]
        else:
            found = [
                (s, index, position)
                for index, size in enumerate(self._sizes)
                if size >= 3
                for s, position in [self._execution(index).scan(errors, df)]
            ]
        best, _, position = max(found, key=lambda c: (c[0], -c[1]))
        return best, df, position

    def remove(self, position: int) -> None:
        """Take the value at ``position`` out of its execution."""
        flat = bisect_left(self._positions, position)
        if flat == len(self._positions) or self._positions[flat] != position or flat in self._gone:
            raise KeyError(position)
        self._gone.add(flat)
        index = self._owner[flat]
        ex = self._execution(index)
        before = len(ex.items)
        self._squares -= ex.exact_squares()  # of the values before this removal
        ex.items = [item for item in ex.items if item[0] != position]
        ex.ordered = [item for item in ex.ordered if item[1] != position]
        ex.measure()
        self._squares += ex.exact_squares()
        self._count -= 1
        self._sizes[index], self._fars[index] = len(ex.items), ex.far
        self.tested -= 3 if before == 3 else 1
        self._file(index)


def exact_sum(squares: NDArray[np.float64]) -> int:
    """The exact sum of finite, non-negative floats in units of 2**-1074 (as the sum of
    :func:`_exact` of each): the significands summed per exponent, in two halves of 26
    bits so that int64 cannot overflow below 2**37 values."""
    import numpy as np

    if not len(squares):
        return 0
    bits = np.ascontiguousarray(squares, dtype=np.float64).view(np.uint64)
    exponent = (bits >> np.uint64(52)).astype(np.int64)
    significand = (bits & np.uint64((1 << 52) - 1)).astype(np.int64)
    significand[exponent > 0] += 1 << 52
    shift = np.maximum(exponent - 1, 0)
    order = np.argsort(shift, kind="stable")
    shift, significand = shift[order], significand[order]
    firsts = np.flatnonzero(np.concatenate(([True], shift[1:] != shift[:-1])))
    high = np.add.reduceat(significand >> 26, firsts).tolist()
    low = np.add.reduceat(significand & ((1 << 26) - 1), firsts).tolist()
    return sum(
        ((h << 26) + lo) << s for h, lo, s in zip(high, low, shift[firsts].tolist(), strict=True)
    )
