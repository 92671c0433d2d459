"""Many short sums at once are :func:`math.fsum`'s, bit for bit, and raise what it raises."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.results.statistics.fsums import row_fsums

FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(-1e3, 1e3),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1.0, 1e16, -1e16, 0.1, 0.2, 0.3]),
    st.sampled_from([1.7976931348623157e308, -1.7976931348623157e308, 2.0**1023, 2.0**-1022]),
)
ANY = st.one_of(FLOATS, st.sampled_from([math.inf, -math.inf, math.nan]))


def _fsum(row: list[float]) -> str:
    """The oracle's sum as text, or the exception it raises."""
    try:
        return math.fsum(row).hex()
    except (OverflowError, ValueError) as error:
        return type(error).__name__


def _sums(block: np.ndarray) -> list[str]:
    """Each row's sum as text, or the exception the first row that raises raises."""
    try:
        return [value.hex() for value in row_fsums(block).tolist()]
    except (OverflowError, ValueError) as error:
        return [type(error).__name__]


@settings(max_examples=500, deadline=None)
@given(
    st.integers(1, 7).flatmap(
        lambda size: st.lists(
            st.lists(FLOATS, min_size=size, max_size=size), min_size=1, max_size=12
        )
    )
)
def test_each_row_sums_as_fsum_does(rows: list[list[float]]) -> None:
    expected = [_fsum(row) for row in rows]
    raised = next((found for found in expected if not found.startswith(("0x", "-0x"))), None)
    assert _sums(np.asarray(rows, dtype=float)) == ([raised] if raised else expected)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda size: st.lists(st.lists(ANY, min_size=size, max_size=size), min_size=1, max_size=6)
    )
)
def test_infinities_and_nans_are_summed_by_fsum_itself(rows: list[list[float]]) -> None:
    expected = [_fsum(row) for row in rows]
    raised = next((found for found in expected if found in ("OverflowError", "ValueError")), None)
    assert _sums(np.asarray(rows, dtype=float)) == ([raised] if raised else expected)


def test_cancellation_and_zeros_as_fsum_gives_them() -> None:
    rows = [[1e16, 1.0, -1e16], [0.1, 0.2, 0.3], [-0.0, -0.0, -0.0], [1.0, 1e100, 1.0, -1e100]]
    block = np.asarray([row[:3] for row in rows])
    assert row_fsums(block).tolist() == [1.0, math.fsum([0.1, 0.2, 0.3]), 0.0, 1e100]
    assert math.copysign(1.0, row_fsums(block)[2]) == 1.0  # +0.0, as fsum gives it
    assert row_fsums(np.zeros((3, 0))).tolist() == [0.0, 0.0, 0.0]
