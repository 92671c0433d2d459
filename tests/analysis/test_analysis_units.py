"""Unit spellings benchmarks print, and conversion between them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.analysis import units


@pytest.mark.parametrize(
    ("spelling", "canonical", "quantity", "factor"),
    [
        ("MiB/sec", "MiB/s", "bandwidth", 2**20),
        ("MB/s", "MB/s", "bandwidth", 1e6),
        ("kB/s", "kB/s", "bandwidth", 1e3),
        ("bytes", "B", "size", 1),
        ("GiB", "GiB", "size", 2**30),
        ("kiops", "kIOPS", "rate", 1e3),
        ("IOPS", "IOPS", "rate", 1),
        ("ops/sec", "ops/s", "rate", 1),
        ("usec", "us", "time", 1e-6),
        ("µs", "us", "time", 1e-6),
        ("msec", "ms", "time", 1e-3),
        ("seconds", "s", "time", 1),
    ],
)
def test_spellings(spelling, canonical, quantity, factor):
    assert units.parse_unit(spelling) == (canonical, quantity, pytest.approx(factor))


@pytest.mark.parametrize("unknown", ["MiB per s", "kiB", "furlongs", ""])
def test_unknown_units(unknown):
    with pytest.raises(ValueError, match="unknown unit"):
        units.parse_unit(unknown)
    assert units.canonical(unknown) == unknown


def test_conversions_are_exact_where_the_decimal_is():
    assert units.convert(255, "usec", "us") == 255.0
    assert units.convert(214976, "ns", "us") == 214.976
    assert units.convert(1, "GiB/s", "MiB/s") == 1024.0
    assert units.convert(3, "kIOPS", "ops/s") == 3000.0


def test_no_conversion_across_quantities():
    with pytest.raises(ValueError, match="cannot convert MiB/s"):
        units.convert(1.0, "MiB/s", "ops/s")


@given(
    st.floats(min_value=1e-6, max_value=1e12),
    st.sampled_from(["B/s", "KiB/s", "MiB/s", "GiB/s", "kB/s", "MB/s", "GB/s"]),
    st.sampled_from(["B/s", "KiB/s", "MiB/s", "GiB/s", "kB/s", "MB/s", "GB/s"]),
)
def test_round_trip(value, a, b):
    assert units.convert(units.convert(value, a, b), b, a) == pytest.approx(value, rel=1e-12)
