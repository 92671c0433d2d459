"""Rows of finite numbers written as repr writes them: with orjson where it is installed,
and without it, the same texts; None for a row of anything else."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.dashboard import floats

#: every float (subnormals, the largest, NaN, the infinities, -0.0), the numbers of a
#: benchmark's range, integers (a repetition count, one beyond 64 bits), and None
numbers = (
    st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(min_value=1e-4, max_value=1e7)
    | st.integers(-(2**70), 2**70)
    | st.none()
)
rows = st.lists(st.lists(numbers, max_size=6), max_size=8)


def reference(found: list[list[object]]) -> list[str | None]:
    return [
        ",".join(map(repr, row))
        if all(type(v) is int or (type(v) is float and math.isfinite(v)) for v in row)
        else None
        for row in found
    ]


@settings(max_examples=500, deadline=None)
@given(rows)
def test_the_texts_are_reprs(found: list[list[object]]) -> None:
    assert floats.finite_texts(found) == reference(found)


@settings(max_examples=100, deadline=None)
@given(rows)
def test_without_orjson_the_same_texts(found: list[list[object]]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(floats, "orjson", None)
        assert floats.finite_texts(found) == reference(found)


def test_orjson_writes_them_where_it_is_installed() -> None:
    """The CI installs the dashboard's extras: the fast path is the one tested above."""
    assert floats.orjson is not None


@pytest.mark.parametrize(
    "value",
    [1e-5, 1e-7, 0.0001, 0.00012, 5e-324, 1e16, 1e15, 123456789.125, -0.0, 1.5e300, 1e22],
)
def test_the_edges_of_orjson_s_notation(value: float) -> None:
    """Where orjson writes a number out that repr writes with an exponent, and back."""
    assert floats.finite_texts([[value, 1.0], [2.0]]) == [f"{value!r},1.0", "2.0"]


def test_a_row_of_anything_else_is_none() -> None:
    rows = [[1.0, None], [math.nan], [math.inf, 2.0], [-math.inf], [1.5, 2], [True], ["1.0"], []]
    assert floats.finite_texts(rows) == [None, None, None, None, "1.5,2", None, None, ""]
    # a list in a row is no number, whoever writes it
    assert floats.finite_texts([[[1.0]], [2.0]]) == [None, "2.0"]
    assert floats.finite_texts([[1.0, [2.0, 3.0]], [4.0]]) == [None, "4.0"]
