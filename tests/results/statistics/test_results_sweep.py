"""The sweep of many values removes, removal after removal, the same value with the same
score as :class:`Search` (which small samples take), or says it cannot tell and leaves the
choice to it."""

from __future__ import annotations

from itertools import accumulate
from math import fsum

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.statistics.farthest import Search, _exact
from jubex.results.statistics.spread import _marked, _walk, _within, few
from jubex.results.statistics.sweep import Sweep, Undecided, _means, exact_sums

Removals = list[tuple[float, int, int, int]]


def _flat(executions: list[list[float]]) -> tuple[list[int], list[float], list[int]]:
    positions, values, sizes, start = [], [], [], 0
    for e in executions:
        if len(e) >= 3:
            positions += range(start, start + len(e))
            values += e
            sizes.append(len(e))
        start += len(e)
    return positions, values, sizes


def _both(executions: list[list[float]]) -> tuple[Removals | None, Removals | None, Removals]:
    """The sweep's removals one by one and all at once (None: undecided, or not all at
    once), and the search's."""
    positions, values, sizes = _flat(executions)
    steps = few(len(values)) + 1
    expected = _walk(Search.of(positions, values, sizes), steps)
    try:
        at_once = Sweep(positions, values, sizes, steps).removals(steps)
        return _walk(Sweep(positions, values, sizes, steps), steps), at_once, expected
    except Undecided:
        return None, None, expected


VALUES = st.one_of(
    st.integers(-5, 5).map(float),  # ties everywhere
    st.floats(-1e6, 1e6, allow_nan=False),
    st.sampled_from([1000.0, 1000.0000001, 1e-300, 0.0, 7.0]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(VALUES, min_size=3, max_size=8), min_size=2, max_size=40))
def test_each_removal_is_the_searchs(executions: list[list[float]]) -> None:
    found, at_once, expected = _both(executions)
    assert found is None or found == expected
    assert at_once is None or at_once == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(20, 200), st.integers(3, 6), st.integers(0, 5))
def test_measured_values_are_decided_by_the_sweep(seed: int, n: int, k: int, far: int) -> None:
    """Bandwidths as IOR prints them (two decimals), ``far`` of them strays: no near ties,
    so the sweep decides every removal itself, as the search does."""
    rng = np.random.default_rng(seed)
    values = rng.normal(1000, 20, (n, k)).round(2)
    values[rng.integers(0, n, far), 0] *= 3
    found, at_once, expected = _both(values.tolist())
    assert found == expected
    assert at_once in (None, expected)


def test_identical_executions_give_up_the_first_farthest_first() -> None:
    executions = [[1012.0, 1020.0, 1030.0]] * 200 + [[1020.0, 1021.0, 5000.0]]
    found, at_once, expected = _both(executions)
    assert found == at_once == expected
    assert _within(executions, 0.01) == [602]


def test_a_crowd_of_ties_is_left_to_the_search() -> None:
    """Identical executions of twelve values, touched one after the other, tie in a crowd
    the sweep would walk at every removal: it hands over, and the marks are the search's."""
    executions = [[1000.5 + 2.75 * k for k in range(12)]] * 60 + [[1020.0] * 11 + [5000.0]]
    positions, values, sizes = _flat(executions)
    steps = few(len(values)) + 1
    with pytest.raises(Undecided):
        _walk(Sweep(positions, values, sizes, steps), steps)
    expected = _marked(_walk(Search.of(positions, values, sizes), steps), 0.01)
    assert _within(executions, 0.01) == expected == [len(values) - 1]


FLOATS = st.one_of(
    st.floats(-1e100, 1e100, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1.0, 1e16, -1e16, 0.1, 0.2, 0.3]),
)


@settings(max_examples=400, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda size: st.lists(
            st.lists(FLOATS, min_size=size, max_size=size), min_size=1, max_size=30
        )
    )
    | st.lists(st.lists(FLOATS, min_size=1, max_size=5), min_size=1, max_size=30)
)
def test_the_means_of_executions_are_their_fsums(executions: list[list[float]]) -> None:
    values = [v for execution in executions for v in execution]
    sizes = [len(execution) for execution in executions]
    found = _means(values, np.asarray(values, dtype=float), sizes)
    assert [m.hex() for m in found] == [(fsum(e) / len(e)).hex() for e in executions]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.floats(0, 1e300, allow_nan=False, allow_infinity=False),
                st.floats(1e3, 1e4),  # exponents close together: summed in int64
                st.sampled_from([0.0, 5e-324, 2.2250738585072014e-308]),
            ),
            min_size=1,
            max_size=6,
        ),
        min_size=1,
        max_size=20,
    )
)
def test_exact_sums_are_the_sums_of_each_values_exact_units(runs: list[list[float]]) -> None:
    flat = np.asarray([v for run in runs for v in run], dtype=float)
    begin = np.asarray(list(accumulate(map(len, runs[:-1]), initial=0)), dtype=np.int64)
    assert exact_sums(flat, begin) == [sum(_exact(v) for v in run) for run in runs]
