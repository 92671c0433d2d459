import tracemalloc
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.errors import DefinitionError, Loc
from jubex.language.ranges import MAX_VALUES, geometric, linear
from jubex.language.values import parse_value


def test_geometric_sizes_keep_the_unit_family_of_the_start() -> None:
    assert geometric("4KiB", "4MiB") == [
        "4KiB",
        "8KiB",
        "16KiB",
        "32KiB",
        "64KiB",
        "128KiB",
        "256KiB",
        "512KiB",
        "1MiB",
        "2MiB",
        "4MiB",
    ]
    assert geometric("4k", "64k", "4") == ["4k", "16k", "64k"]
    assert geometric("4K", "16K") == ["4K", "8K", "16K"]
    assert geometric("1kB", "1MB", "10") == ["1kB", "10kB", "100kB", "1MB"]


def test_linear_ints_floats_and_sizes() -> None:
    assert linear("1", "10", "3") == ["1", "4", "7", "10"]
    assert linear("1", "9", "3") == ["1", "4", "7"]
    assert linear("10", "1", "-3") == ["10", "7", "4", "1"]
    assert linear("001", "010", "3") == ["001", "004", "007", "010"]
    assert linear("0.1", "0.5", "0.1") == ["0.1", "0.2", "0.3", "0.4", "0.5"]
    assert linear("1MiB", "2MiB", "512KiB") == ["1MiB", "1536KiB", "2MiB"]
    assert linear("1", "3") == ["1", "2", "3"]


def test_geometric_with_a_fractional_factor() -> None:
    assert geometric("4", "20", "1.5") == ["4", "6", "9", "13.5"]
    assert geometric("0.5", "4") == ["0.5", "1.0", "2.0", "4.0"]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: linear("1", "5", "0"), "step is 0"),
        (lambda: linear("5", "1"), "is empty"),
        (lambda: linear("1", "5", "-1"), "is empty"),
        (lambda: linear("1", str(MAX_VALUES + 1)), "more than"),
        (lambda: linear("a", "5"), "not a number or size"),
        (lambda: linear("false", "true"), "not a number or size"),
        (lambda: geometric("1", "8", "true"), "not a number or size"),
        (lambda: geometric("1", "8", "1"), "greater than 1"),
        (lambda: geometric("1", "8", "0.5"), "greater than 1"),
        (lambda: geometric("0", "8"), "starts above 0"),
        (lambda: geometric("8", "1"), "is empty"),
        (lambda: geometric("1", "2", "1.0000001"), "more than"),
        (lambda: linear("1k", "2k", "0.5"), "whole number"),
    ],
)
def test_empty_or_endless_ranges_are_errors(call, expected: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DefinitionError) as caught:
        call()
    assert expected in caught.value.message


def test_range_errors_carry_the_texts_and_location() -> None:
    with pytest.raises(DefinitionError) as caught:
        linear("5", "1", "2", loc=Loc("b.yaml", 7))
    assert "5..1 step 2" in caught.value.message
    assert caught.value.loc == Loc("b.yaml", 7)


@given(st.integers(-500, 500), st.integers(-500, 500), st.integers(1, 50))
def test_linear_ints_match_python_range(start: int, stop: int, step: int) -> None:
    if start > stop:
        with pytest.raises(DefinitionError):
            linear(str(start), str(stop), str(step))
        return
    expected = [str(v) for v in range(start, stop + 1, step)]
    assert linear(str(start), str(stop), str(step)) == expected
    assert linear(str(stop), str(start), str(-step)) == [
        str(v) for v in range(stop, start - 1, -step)
    ]


@given(st.integers(1, 2**20), st.integers(1, 2**30), st.sampled_from(["2", "3", "4", "1.5"]))
def test_geometric_stops_before_passing_the_stop(start: int, stop: int, factor: str) -> None:
    if start > stop:
        return
    values = [Fraction(t) for t in geometric(str(start), str(stop), factor)]
    assert values[0] == start
    assert all(v <= stop for v in values)
    assert values[-1] * Fraction(factor) > stop
    assert all(b == a * Fraction(factor) for a, b in pairwise(values))


@given(st.integers(0, 40), st.integers(0, 40))
def test_size_ranges_parse_back_to_the_right_bytes(low: int, high: int) -> None:
    low, high = sorted((low, high))
    texts = linear(f"{low}MiB", f"{high}MiB", "1MiB")
    assert [parse_value(t, "size") for t in texts] == [n * 1024**2 for n in range(low, high + 1)]


def test_a_linear_range_is_counted_not_made() -> None:
    """A million values were a list of a million texts (60 MB) before anything read them."""
    tracemalloc.start()
    values = linear("0.5", "500000", "0.5")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1_000_000, peak
    assert len(values) == MAX_VALUES
    assert (values[0], values[1], values[-1]) == ("0.5", "1.0", "500000.0")
    assert values[2:4] == ("1.5", "2.0")


@given(
    st.integers(0, 64),
    st.integers(1, 40),
    st.sampled_from(["", "KiB", "MiB"]),
    st.sampled_from(["1", "0.25", "3"]),
)
def test_each_value_read_by_index_is_the_value_listed(
    start: int, count: int, unit: str, step: str
) -> None:
    low = f"{start}{unit}" if unit else f"{start}.0"
    high = f"{start + count}{unit}" if unit else f"{start + count}.0"
    try:
        values = linear(low, high, f"{step}{unit}" if unit and step != "0.25" else step)
    except DefinitionError:
        assert unit  # a quarter of a unit of bytes: no whole number
        return
    listed = list(values)
    assert [values[i] for i in range(len(values))] == listed
    assert [values[-i] for i in range(1, len(values) + 1)] == listed[::-1]
    assert values == listed and values == tuple(listed) and values != listed[:-1]
