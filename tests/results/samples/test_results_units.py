import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.errors import JubexError
from jubex.results.samples.units import (
    COMMON_UNITS,
    UnitError,
    convert,
    direction_of_unit,
    factor,
    parse_unit,
)


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (1, "GiB/s", "MiB/s", 1024),
        (1000, "MB/s", "GB/s", 1),
        (1, "MiB/s", "MB/s", 1.048576),
        (2048, "KiB", "MiB", 2),
        (1, "TiB", "B", 2**40),
        (3, "kIOPS", "ops/s", 3000),
        (2.5, "Mops/s", "kops/s", 2500),
        (1500, "ms", "s", 1.5),
        (90, "min", "h", 1.5),
        (1, "s", "us", 1e6),
        (1, "us", "ns", 1000),
        (1, "MiB/sec", "MiB/s", 1),
    ],
)
def test_conversions(value, source, target, expected):
    assert convert(value, source, target) == pytest.approx(expected)


def test_decimal_and_binary_prefixes_differ():
    assert convert(1, "GB", "GiB") == pytest.approx(0.931323, rel=1e-6)


def test_incompatible_units_name_both():
    with pytest.raises(UnitError) as raised:
        convert(1, "MiB/s", "s")
    assert "MiB/s" in str(raised.value) and "'s'" in str(raised.value)
    assert isinstance(raised.value, JubexError)


def test_unknown_unit_suggests_a_spelling():
    with pytest.raises(UnitError, match="unknown unit 'MiBs'") as raised:
        factor("MiBs", "MB/s")
    assert "MiB/s" in raised.value.hint


def test_same_text_needs_no_known_unit():
    assert convert(3.0, "widgets", "widgets") == 3.0


def test_every_offered_spelling_parses():
    for unit in COMMON_UNITS:
        assert parse_unit(unit).factor > 0


@given(
    st.sampled_from(["B/s", "KiB/s", "MiB/s", "GiB/s", "kB/s", "MB/s", "GB/s", "TB/s"]),
    st.sampled_from(["B/s", "KiB/s", "MiB/s", "GiB/s", "kB/s", "MB/s", "GB/s", "TB/s"]),
    st.floats(min_value=1e-6, max_value=1e12),
)
def test_round_trip(source, target, value):
    assert convert(convert(value, source, target), target, source) == pytest.approx(value)


@pytest.mark.parametrize(
    ("unit", "higher_is_better"),
    [
        ("MiB/s", True),
        ("GB/s", True),
        ("MiB/sec", True),
        ("ops/s", True),
        ("IOPS", True),
        ("kIOPS", True),
        ("GFlop/s", True),
        ("items/second", True),
        ("s", False),
        ("ms", False),
        ("us", False),
        ("usec", False),
        ("min", False),
        ("MiB", None),
        ("B", None),
        ("", None),
        ("flops", None),
    ],
)
def test_a_unit_says_which_way_is_better(unit, higher_is_better):
    assert direction_of_unit(unit) is higher_is_better
