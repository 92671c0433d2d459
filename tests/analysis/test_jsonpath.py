"""Dotted paths into JSON output."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.analysis import jsonpath


def test_parse_path():
    assert jsonpath.parse_path('a.b[0]["x.y"][*][-1]') == ["a", "b", 0, "x.y", None, -1]
    with pytest.raises(ValueError, match="position 2"):
        jsonpath.parse_path("a[x]")


@given(st.lists(st.integers() | st.floats(allow_nan=False) | st.text(), max_size=10))
def test_every_element_of_a_list(values):
    document = {"results": [{"v": v} for v in values]}
    assert jsonpath.pick(document, jsonpath.parse_path("results[*].v")) == values


def test_load_skips_a_banner_and_ignores_what_follows():
    assert jsonpath.load('fio-3.33\n{"a": 1}\ntrailing noise') == {"a": 1}
    assert jsonpath.load("no json here") is None
    assert jsonpath.load('{"cut": [1, 2') is None
