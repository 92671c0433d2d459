"""Typed values as programs print them: sizes, durations, numbers, booleans."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.analysis import typed
from jubex.errors import DefinitionError


@given(st.integers(min_value=0, max_value=2**50), st.sampled_from(["B", " bytes", "byte"]))
def test_byte_counts(n, unit):
    assert typed.convert(f"{n}{unit}", "size") == n


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("16 MiB", 16 * 2**20),
        ("4k", 4096),  # IOR's one-letter units are binary
        ("2 kB", 2000),
        ("8.76 GiB", round(8.76 * 2**30)),  # printed rounded: the nearest byte
        ("1.5 KiB", 1536),
    ],
)
def test_sizes(text, expected):
    assert typed.convert(text, "size") == expected


def test_ambiguous_size_is_refused():
    with pytest.raises(DefinitionError, match="ambiguous"):
        typed.convert("4 KB", "size")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("218 msec", 0.218), ("5 us", 5e-6), ("90", 90.0), ("1:30", 90.0), ("2h", 7200.0)],
)
def test_durations_in_seconds(text, expected):
    assert typed.convert(text, "duration") == pytest.approx(expected)


def test_numbers_and_booleans():
    assert typed.convert("3.0", "int") == 3
    assert typed.convert("12", "float") == 12.0
    assert typed.convert("Yes", "bool") is True
    assert typed.convert(False, "bool") is False
    with pytest.raises(ValueError):
        typed.convert("maybe", "bool")
    with pytest.raises(ValueError):
        typed.convert("fast", "float")


@pytest.mark.parametrize("value", [None, [2, 2], {"a": 1}])
def test_a_float_from_no_number_is_a_value_error(value):
    # an expr pattern may evaluate to a list or None: that is no float, not a crash
    with pytest.raises(ValueError, match="is not a float"):
        typed.convert(value, "float")
