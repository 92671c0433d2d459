"""The outlier search of :mod:`~jubex.results.statistics.farthest` over many values: one
sort, then a few Python operations per removal.

A value's score grows with its squared distance from its execution's mean over ``1 -
1/size`` (its *reach*), whatever the other values are: the order in which the executions
the search has not touched come up never changes, so numpy sorts them once. Only the
executions it takes a value from (at most a tenth of the values) are kept as Python lists,
in a heap. :class:`~jubex.results.statistics.farthest.Search` walks a heap of every
execution per removal and scores its candidates, 60 µs a removal: 0.4 s of a table of
10,000 IOR rows.

Where two candidates' reaches lie so close that rounding might tie their scores, the
scores decide, as they do in ``Search``. Where the order cannot be trusted at all -- the
score's special case of spreads made of ties may apply, or a crowd of candidates ties --
the sweep raises :class:`Undecided` and the caller runs ``Search``, so that the outcome is
``Search``'s in every case (a test compares them removal by removal).
"""

from __future__ import annotations

import heapq
from itertools import accumulate, pairwise
from math import fsum
from typing import TYPE_CHECKING

from jubex.results.statistics.farthest import _UNITS, MIN_DF, _exact, exact_sum, score
from jubex.results.statistics.fsums import row_fsums
from jubex.results.statistics.stats import Number

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]
    Ints = NDArray[np.int64]

#: reaches closer than this share of each other are decided by their scores: the order
#: cannot tell them apart through the score's rounding (below 1e-10 of it away from the
#: special case)
CLOSE = 1e-8
#: more close candidates than this are left to ``Search``, whose heaps of ties cost a
#: logarithm each, where the sweep's would cost a pass
CROWD = 8


class Undecided(Exception):
    """The sorted order cannot tell which value the search takes next."""


class Sweep:
    """:class:`~jubex.results.statistics.farthest.Search` of executions of three values or
    more, given flat (``values`` at ascending ``positions``, ``sizes`` of each execution),
    for many values and at most ``steps`` removals: the same ``farthest``, ``remove``,
    ``size`` and ``tested``.

    A removal takes the first execution of the order of reach not yet touched, or one of
    those touched (a heap): the first ``steps`` of the order are all it may take, and
    numpy works out at once their farthest values, and their means, farthest distances
    and exact sums of squares once these are gone."""

    def __init__(
        self, positions: list[int], values: list[Number], sizes: list[int], steps: int
    ) -> None:
        import numpy as np

        self._positions, self._values = positions, values
        ends = list(accumulate(sizes))
        begins = [0, *ends][:-1]
        self._bounds = list(zip(begins, ends, strict=True))
        counts = np.asarray(sizes, dtype=np.int64)
        array = np.asarray(values, dtype=float)
        self._array = array
        self._means = _means(values, array, sizes)
        self._mean_array = np.asarray(self._means)
        deviation = array - np.repeat(self._mean_array, counts)
        distance = np.abs(deviation)
        starts = np.asarray(begins, dtype=np.int64)
        far = np.maximum.reduceat(distance, starts)
        reach = far * far / (1 - 1 / counts)
        order = np.argsort(-reach, kind="stable")
        self._order = order.tolist()
        # runs of the order of one distance and size: the same score, the first goes first
        same = (far[order][1:] == far[order][:-1]) & (counts[order][1:] == counts[order][:-1])
        #: neighbours in the order that tie, or lie too far apart for rounding to tie them
        self._decided = same | (reach[order][1:] < reach[order][:-1] * (1 - CLOSE))
        self._runs = np.flatnonzero(np.concatenate(([True], ~same))).tolist()
        self._runs.append(len(order))
        #: per run, where its first untouched execution may be
        self._pointers = self._runs[:-1]
        self._fars = far.tolist()
        self._reaches = reach.tolist()
        self._sizes = list(sizes)
        squares = np.float_power(deviation, 2.0)
        self._squares = exact_sum(squares)
        self._largest = float(distance.max() + np.abs(array).max())
        if self._largest >= 2.0**53 and any(type(v) is int for v in values):
            raise Undecided  # integers a float cannot hold: summed as Search sums them
        self._count = self.size = self.tested = len(values)
        self._run = 0
        self._first = _first_removals(
            order[: steps + 2], values, array, distance, far, squares, counts, starts
        )
        #: executions a value was taken from: their values left, sorted, and their mean
        self._touched: dict[int, tuple[list[tuple[Number, int]], float]] = {}
        #: those of three values or more: (-reach, execution)
        self._heap: list[tuple[float, int]] = []
        self._chosen: tuple[int, int] | None = None

    def removals(self, steps: int) -> list[tuple[float, int, int, int]] | None:
        """(score, df, position, Bonferroni count) of up to ``steps`` removals worked out
        at once, where every execution holds three values (a removal leaves two, which no
        later one takes from: the removals follow the order) and the first reaches of the
        order lie apart or tie; None where not, or where the score's special case may
        apply."""
        import numpy as np

        taken = self._order[:steps]
        if self._touched or set(self._sizes) != {3} or not self._decided[:steps].all():
            return None
        if any(i not in self._first for i in taken):
            return None
        # the j-th removal leaves ``count - j - executions - 1`` degrees of freedom
        first_df = self._count - len(self._sizes) - 1
        taken = taken[: max(0, first_df - MIN_DF + 1)]
        firsts = [self._first[i] for i in taken]
        flats = [flat for flat, *_ in firsts]
        # the exact sum of squares before each removal, rounded once
        before = accumulate([change for *_, change in firsts], initial=self._squares)
        total = np.asarray([next(before) / (1 << _UNITS) for _ in taken], dtype=float)
        dfs = list(range(first_df, first_df - len(taken), -1))
        df_ = np.asarray(dfs, dtype=float)
        value, mean = self._array[flats], self._mean_array[taken]
        positions = [self._positions[flat] for flat in flats]
        gap = total - np.asarray([self._reaches[i] for i in taken], dtype=float)
        if not ((gap > 2e-6 * total) & (gap / df_ > 8 * (1e-12 * self._largest) ** 2)).all():
            return None
        # :func:`~jubex.results.statistics.farthest.score`, one operation at a time
        keep = 1 - 1 / 3
        e = value - mean
        rest = (total - e * e / keep) / df_
        scale = 1e-12 * np.maximum(np.abs(value), np.abs(mean))
        if (rest <= scale * scale).any():
            return None
        scores = (np.abs(e) / np.sqrt(rest * keep)).tolist()
        return [
            (s, df, p, self.size - 3 * j)
            for j, (s, df, p) in enumerate(zip(scores, dfs, positions, strict=True))
        ]

    def _close(self) -> list[int]:
        """The executions whose reach lies within :data:`CLOSE` of the largest: the
        largest first, each once."""
        reaches, heap = self._reaches, self._heap
        while heap and self._stale(heap[0]):
            heapq.heappop(heap)
        while self._run < len(self._pointers) and self._untouched(self._run) is None:
            self._run += 1
        run = self._run
        first = self._untouched(run) if run < len(self._pointers) else None
        tops = [] if first is None else [reaches[first]]
        if heap:
            tops.append(-heap[0][0])
        if not tops:
            return []
        floor = max(tops) * (1 - CLOSE)
        found = []
        while first is not None and reaches[first] >= floor:
            found.append(first)
            if len(found) > CROWD:
                raise Undecided
            run += 1
            while run < len(self._pointers) and (first := self._untouched(run)) is None:
                run += 1
            if run == len(self._pointers):
                break
        popped = []
        while heap and -heap[0][0] >= floor:
            entry = heapq.heappop(heap)
            if not self._stale(entry) and entry[1] not in found:
                found.append(entry[1])
                popped.append(entry)
            if len(found) > CROWD:
                raise Undecided  # many ties touched: Search files them by distance
        for entry in popped:
            heapq.heappush(heap, entry)
        return sorted(found, key=lambda i: (-reaches[i], i))

    def _untouched(self, run: int) -> int | None:
        """The first execution of a run of the order that no removal touched."""
        at, end = self._pointers[run], self._runs[run + 1]
        while at < end and self._order[at] in self._touched:
            at += 1
        self._pointers[run] = at
        return self._order[at] if at < end else None

    def _stale(self, entry: tuple[float, int]) -> bool:
        return -entry[0] != self._reaches[entry[1]] or self._sizes[entry[1]] < 3

    def farthest(self) -> tuple[float, int, int] | None:
        """The largest score, its degrees of freedom and the position of its value."""
        df = self._count - len(self._sizes) - 1
        if df < MIN_DF:
            return None
        close = self._close()
        if not close:
            return None
        errors = self._squares / (1 << _UNITS)
        gap = errors - self._reaches[close[0]]
        if not (gap > 2e-6 * errors and gap / df > 8 * (1e-12 * self._largest) ** 2):
            raise Undecided  # the score's special case may apply
        shape = {(self._fars[i], self._sizes[i]) for i in close}
        first = None if close[0] in self._touched else self._first.get(close[0])
        if len(shape) == 1 and first is not None and close[0] == min(close):
            # ties of the same distance in executions of one size: the same score, and
            # the first execution's value goes first
            index, position = close[0], self._positions[first[0]]
            found = score(
                self._values[first[0]], self._means[index], 1 - 1 / self._sizes[index], errors, df
            )
        else:
            found, position, index = max(
                ((*self._best(*self._items(i), errors, df), i) for i in close),
                key=lambda c: (c[0], -c[1]),
            )
        self._chosen = (position, index)
        return found, df, position

    def _items(self, index: int) -> tuple[list[tuple[Number, int]], float]:
        """An execution's values left, sorted with their positions, and their mean."""
        got = self._touched.get(index)
        if got is not None:
            return got
        a, b = self._bounds[index]
        items = sorted(zip(self._values[a:b], self._positions[a:b], strict=True))
        return items, self._means[index]

    def _best(
        self, items: list[tuple[Number, int]], mean: float, errors: float, df: int
    ) -> tuple[float, int]:
        """The largest score of an execution's values and the first position that has
        it, as :meth:`~jubex.results.statistics.farthest._Execution.best` finds them."""
        keep = 1 - 1 / len(items)
        top = max(
            score(items[0][0], mean, keep, errors, df), score(items[-1][0], mean, keep, errors, df)
        )
        tied = []
        for walk in (items, reversed(items)):
            for v, position in walk:
                if score(v, mean, keep, errors, df) != top:
                    break
                tied.append(position)
        return top, min(tied)

    def remove(self, position: int) -> None:
        """Take the value at ``position`` (the last one :meth:`farthest` found) out."""
        if self._chosen is None or self._chosen[0] != position:
            raise KeyError(position)
        index = self._chosen[1]
        self._chosen = None
        before = self._sizes[index]
        first = None if index in self._touched else self._first.get(index)
        if first is not None and self._positions[first[0]] == position:
            _, mean, far, change = first
            self._squares += change
            items = []
            if before > 3:
                items = [item for item in self._items(index)[0] if item[1] != position]
        else:
            items, mean = self._items(index)
            self._squares -= sum(_exact((v - mean) ** 2) for v, _ in items)
            items = [item for item in items if item[1] != position]
            mean = fsum(v for v, _ in items) / len(items)
            self._squares += sum(_exact((v - mean) ** 2) for v, _ in items)
            far = max(abs(items[0][0] - mean), abs(items[-1][0] - mean))
        self._touched[index] = (items, mean)
        self._count -= 1
        self.tested -= 3 if before == 3 else 1
        self._sizes[index] = before - 1
        self._fars[index] = far
        self._reaches[index] = far * far / (1 - 1 / (before - 1))
        if before > 3:
            heapq.heappush(self._heap, (-self._reaches[index], index))


#: what taking its farthest value out of an untouched execution does: which value (flat),
#: the execution's mean and farthest distance after, and the exact change of the sum of
#: squares
Removal = tuple[int, float, float, int]


def _first_removals(
    head: Ints,
    listed: list[Number],
    array: Floats,
    distance: Floats,
    far: Floats,
    squares: Floats,
    counts: Ints,
    starts: Ints,
) -> dict[int, Removal]:
    """The :data:`Removal` of each execution of ``head`` (indices into ``counts`` and
    ``starts``), over arrays of their values."""
    import numpy as np

    sizes = counts[head]
    begin = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    flat = np.repeat(starts[head] - begin, sizes) + np.arange(int(sizes.sum()))
    reached = distance[flat] == np.repeat(far[head], sizes)
    near = distance[flat] >= np.repeat(far[head] * (1 - CLOSE), sizes)
    # where a nearer value may score the same as the farthest, the scores decide
    sure = (np.add.reduceat(near, begin) == np.add.reduceat(reached, begin)).tolist()
    chosen = np.minimum.reduceat(np.where(reached, flat, len(array)), begin)
    left = flat != np.repeat(chosen, sizes)
    values = array[flat]
    taken = chosen.tolist()
    if (sizes == 3).all():
        # two values left: their fsum is their one rounded addition (a zero sum is +0.0)
        pairs = values[left].reshape(-1, 2)
        means = (((pairs[:, 0] + pairs[:, 1]) + 0.0) / 2).tolist()
    else:
        means = [
            fsum(listed[a:c] + listed[c + 1 : a + k]) / (k - 1)
            for a, c, k in zip(starts[head].tolist(), taken, sizes.tolist(), strict=True)
        ]
    after = np.where(left, values - np.repeat(np.asarray(means), sizes), 0.0)
    fars = np.maximum.reduceat(np.abs(after), begin).tolist()
    change = [
        a - b
        for a, b in zip(
            exact_sums(np.float_power(after, 2.0), begin),
            exact_sums(squares[flat], begin),
            strict=True,
        )
    ]
    return {
        i: (c, m, f, d)
        for i, c, m, f, d, ok in zip(head.tolist(), taken, means, fars, change, sure, strict=True)
        if ok
    }


def _means(values: list[Number], array: Floats, sizes: list[int]) -> list[float]:
    """Each execution's ``fsum`` of its values over their count (executions of ``sizes``
    values, one after another): executions of one size (most often) as the rows of one
    array, summed by :func:`row_fsums`."""
    kinds = set(sizes)
    if len(kinds) != 1:
        starts = accumulate(sizes, initial=0)
        return [fsum(values[a : a + n]) / n for a, n in zip(starts, sizes, strict=False)]
    (size,) = kinds
    sums: list[float] = (row_fsums(array.reshape(-1, size)) / size).tolist()
    return sums


def exact_sums(squares: Floats, begin: Ints) -> list[int]:
    """The exact sum of each run of finite, non-negative floats starting at ``begin``, in
    units of 2**-1074 (as :func:`~jubex.results.statistics.farthest.exact_sum` of each).

    Where the values' exponents lie within a few bits of each other (squared deviations of
    one sample mostly do), their significands, aligned on the smallest exponent, are summed
    in int64 (each run's sum stays below 2**63); else one Python integer a value."""
    import numpy as np

    bits = np.ascontiguousarray(squares, dtype=np.float64).view(np.uint64)
    exponent = (bits >> np.uint64(52)).astype(np.int64)
    significand = (bits & np.uint64((1 << 52) - 1)).astype(np.int64)
    significand[exponent > 0] += 1 << 52
    shift = np.maximum(exponent - 1, 0)
    lengths = np.diff(np.append(begin, len(bits)))
    used = significand != 0
    if len(bits) and used.any() and lengths.min() > 0:
        low = int(shift[used].min())
        reach = int(shift[used].max()) - low
        if 53 + reach + int(lengths.max()).bit_length() <= 62:
            aligned = np.where(used, significand << np.maximum(shift - low, 0), 0)
            totals: list[int] = np.add.reduceat(aligned, begin).tolist()
            return [total << low for total in totals] if low else totals
    return _exact_sums_plain(significand, shift, begin)


def _exact_sums_plain(significand: Ints, shift: Ints, begin: Ints) -> list[int]:
    """:func:`exact_sums` with one Python integer a value."""
    units = [s << k for s, k in zip(significand.tolist(), shift.tolist(), strict=True)]
    bounds = [*begin.tolist(), len(units)]
    return [sum(units[a:b]) for a, b in pairwise(bounds)]
