"""The moments of a history's steps, all at once, are those of the step-by-step
arithmetic (``math.fsum`` and Python's ``** 2``), bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.trends.steps import _one_by_one, moments_of

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
    for got, expected in ((found.mean, oracle.mean), (found.std, oracle.std)):
        assert _bits(got) == _bits(expected)
    # the variance: the oracle has none where its arithmetic overflowed
    held = ~np.isnan(oracle.var)
    assert _bits(found.var[held]) == _bits(oracle.var[held])
