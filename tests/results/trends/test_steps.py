"""The moments of a history's steps, all at once, are those of the step-by-step
arithmetic (``math.fsum`` and Python's ``** 2``), bit for bit."""

from __future__ import annotations

from random import Random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.samples.rows import samples_of
from jubex.results.trends.history import _Steps
from jubex.results.trends.steps import _one_by_one, moments_of, samples_at

FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(900, 1100),
    st.sampled_from([0.0, -0.0, 5e-324, 1e-160, 1e154, 1e155, 1.7976931348623157e308]),
)


def _bits(array: np.ndarray) -> list[str]:
    return [float(v).hex() for v in array.tolist()]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(FLOATS, min_size=1, max_size=6), min_size=1, max_size=20))
def test_the_moments_of_all_steps_are_those_of_each(samples: list[list[float]]) -> None:
    found, oracle = moments_of(samples), _one_by_one(samples)
    assert found.n.tolist() == oracle.n.tolist()
    assert found.constant.tolist() == oracle.constant.tolist()
    # the least and the greatest: equal (of a zero, either sign)
    assert found.low.tolist() == oracle.low.tolist() == [min(v) for v in samples]
    assert found.high.tolist() == oracle.high.tolist() == [max(v) for v in samples]
    for got, expected in ((found.mean, oracle.mean), (found.std, oracle.std)):
        assert _bits(got) == _bits(expected)
    # the variance: the oracle has none where its arithmetic overflowed
    held = ~np.isnan(oracle.var)
    assert _bits(found.var[held]) == _bits(oracle.var[held])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.lists(FLOATS, max_size=4), max_size=8), min_size=1, max_size=3),
    st.randoms(use_true_random=False),
)
def test_the_steps_arrays_are_their_samples_in_the_steps_order(
    metrics: list[list[list[float]]], random: Random
) -> None:
    """Each metric's numbers, kept as one array, taken in the steps' order: each step's
    count and numbers are its samples', and so are the moments, bit for bit."""
    steps = _Steps()
    taken: list[list[float]] = []
    for samples in metrics:
        order = np.array(random.sample(range(len(samples)), len(samples)), dtype=np.int64)
        flat = np.array([v for found in samples for v in found], dtype=float)
        steps.keep(samples, flat, order)
        taken += [samples[i] for i in order.tolist()]
    count, numbers = steps.counts_and_numbers()
    assert count is not None and numbers is not None
    assert count.tolist() == [len(found) for found in taken]
    assert _bits(numbers) == [v.hex() for found in taken for v in found]
    held = [found for found in taken if found]
    if held:
        kept = count > 0
        found, oracle = moments_of(held, count[kept], numbers), moments_of(held)
        assert _bits(found.mean) == _bits(oracle.mean)
        assert _bits(found.std) == _bits(oracle.std)


def test_a_metric_without_an_array_keeps_none() -> None:
    steps = _Steps()
    steps.keep([[1.0]], np.array([1.0]), np.array([0]))
    steps.keep([[2.0]], None, np.array([0]))
    steps.keep([[3.0]], np.array([3.0]), np.array([0]))
    assert steps.counts_and_numbers() == (None, None)


def _samples_one_by_one(cells: list[list[dict[str, object]]], metric: str) -> list[object]:
    """Each cell's samples of ``metric`` as :func:`samples_of` reads each of its rows."""
    found: list[object] = []
    for rows in cells:
        if len(rows) == 1:
            samples = rows[0].get("samples")
            values = samples.get(metric) if isinstance(samples, dict) else None
            found.append(values if values else (rows[0].get(metric),))
        else:
            found.append([v for row in rows for v in samples_of(row, metric)])
    return found


_ROWS = st.fixed_dictionaries(
    {"bw": st.none() | st.floats(0, 9)},
    optional={
        "samples": st.none()
        | st.just("text")
        | st.dictionaries(
            st.sampled_from(["bw", "iops"]),
            st.none() | st.lists(st.none() | st.floats(0, 9), max_size=3),
        )
    },
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.lists(_ROWS, min_size=1, max_size=3), max_size=6),
    st.booleans(),
    st.lists(st.sampled_from(["bw", "iops"]), min_size=1, max_size=3),
)
def test_each_cells_samples_are_those_of_its_rows(
    cells: list[list[dict[str, object]]], plain: bool, metrics: list[str]
) -> None:
    """The samples of cells of one row each, every row's samples a list of each metric
    (the rule, taken by C calls), and of any other cells, as each row gives them."""
    if plain:  # the rule, or nearly: a metric's samples may still be missing or empty
        cells = [
            [{"bw": 1.0, "samples": {"bw": [float(i), 2.0], "iops": [3.0] if i % 3 else []}}]
            for i in range(len(cells))
        ]
    expected = [_samples_one_by_one(cells, metric) for metric in metrics]
    assert samples_at(cells, metrics) == expected  # type: ignore[arg-type]
