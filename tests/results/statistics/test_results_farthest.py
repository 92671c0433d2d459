"""The outlier search within executions finds, removal after removal, the same value with
the same score as scoring every value at every removal does (the straightforward search
below, as it stood before), in far less time."""

from __future__ import annotations

import math
from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.statistics import farthest
from jubex.results.statistics.farthest import MIN_DF, Search, _exact, exact_sum, score
from jubex.results.statistics.spread import _within, examine

Active = list[list[tuple[int, float]]]


def _reference_farthest(active: Active) -> tuple[float, int, int, int] | None:
    """Every value of every execution scored: (score, df, execution, place)."""
    means = [math.fsum(v for _, v in e) / len(e) for e in active]
    errors = math.fsum((v - m) ** 2 for e, m in zip(active, means, strict=True) for _, v in e)
    df = sum(map(len, active)) - len(active) - 1
    if df < MIN_DF:
        return None
    best: tuple[float, int, int, int] | None = None
    for i, (execution, mean) in enumerate(zip(active, means, strict=True)):
        if len(execution) < 3:
            continue
        keep = 1 - 1 / len(execution)
        for k, (_, v) in enumerate(execution):
            s = score(v, mean, keep, errors, df)
            if best is None or s > best[0]:
                best = (s, df, i, k)
    return best


def _reference(active: Active, steps: int) -> list[tuple[float, int, int]]:
    """(score, df, position) of each removal, the farthest first."""
    found = []
    for _ in range(steps):
        far = _reference_farthest(active)
        if far is None:
            break
        s, df, i, k = far
        found.append((s, df, active[i].pop(k)[0]))
    return found


def _fast(active: Active, steps: int) -> list[tuple[float, int, int]]:
    """The search's removals; it starts from plain Python and from numpy's arrays alike."""
    found: list[list[tuple[float, int, int]]] = [[], []]
    for removals, arrays in zip(found, (0, 10**9), strict=True):
        with patch.object(farthest, "ARRAYS", arrays):
            search = Search([list(e) for e in active])
        for _ in range(steps):
            far = search.farthest()
            if far is None:
                break
            removals.append(far)
            search.remove(far[2])
    assert found[0] == found[1]
    return found[0]


def _flat(executions: list[list[float]]) -> Active:
    active, start = [], 0
    for e in executions:
        if len(e) >= 3:
            active.append([(start + k, v) for k, v in enumerate(e)])
        start += len(e)
    return active


VALUES = st.one_of(
    st.integers(-5, 5).map(float),  # ties everywhere
    st.floats(-1e6, 1e6, allow_nan=False),
    st.sampled_from([1000.0, 1000.0000001, 1e-300, 0.0, 7.0]),
)
EXECUTIONS = st.lists(st.lists(VALUES, min_size=1, max_size=8), min_size=2, max_size=12)


@settings(max_examples=100, deadline=None)
@given(EXECUTIONS)
def test_each_removal_is_the_straightforward_search(executions: list[list[float]]) -> None:
    steps = sum(map(len, executions))
    assert _fast(_flat(executions), steps) == _reference(_flat(executions), steps)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.lists(st.floats(0, 100, allow_nan=False), min_size=3, max_size=6),
        min_size=2,
        max_size=30,
    ),
    st.floats(0.001, 0.5),
)
def test_the_marks_of_a_noisy_sample_are_the_straightforward_ones(
    executions: list[list[float]], alpha: float
) -> None:
    """Whole marks: what :func:`examine` says, on values that often have strays."""
    steps = sum(map(len, executions))
    assert _fast(_flat(executions), steps) == _reference(_flat(executions), steps)
    examine(executions, alpha)  # never raises


def test_equal_executions_remove_the_first_farthest_first() -> None:
    """Identical executions (a bench's copies of one output) tie at every removal: the
    first execution gives up its value first, as the straightforward search did."""
    executions = [[1012.0, 1020.0, 1030.0]] * 40
    steps = 12
    assert _fast(_flat(executions), steps) == _reference(_flat(executions), steps)
    assert _within([*executions, [1020.0, 1021.0, 5000.0]], 0.01) == [122]


FINITE = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(FINITE, st.sampled_from([0.0, 5e-324, 2.2250738585072014e-308])), max_size=40
    )
)
def test_the_exact_sum_of_squares_is_the_sum_of_each_exact_value(values: list[float]) -> None:
    squares = [abs(v) for v in values]
    assert exact_sum(np.asarray(squares)) == sum(_exact(v) for v in squares)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e150, 1e150, allow_nan=False), min_size=1, max_size=40), FINITE)
def test_squares_round_as_pythons_power(values: list[float], mean: float) -> None:
    """numpy's ``x * x`` rounds differently from Python's ``x ** 2`` (C ``pow``) in about
    one square of a thousand; the search squares as Python does."""
    deviations = [v - mean for v in values if math.isfinite(v - mean) and abs(v - mean) < 1e150]
    found = np.float_power(np.asarray(deviations, dtype=float), 2.0).tolist()
    assert found == [d**2 for d in deviations]


def test_executions_given_flat_search_as_given_in_pairs() -> None:
    executions = [[1.0, 2.0, 9.0], [4.0, 4.5], [3.0, 3.1, 3.2, 30.0]]
    active = _flat(executions)
    flat = Search.of([p for e in active for p, _ in e], [v for e in active for _, v in e], [3, 4])
    pairs = Search(active)
    for _ in range(2):  # then too few degrees of freedom are left
        far = flat.farthest()
        assert far == pairs.farthest()
        assert far is not None
        flat.remove(far[2])
        pairs.remove(far[2])
    assert flat.farthest() is None
