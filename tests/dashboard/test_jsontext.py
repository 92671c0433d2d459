"""JSON written and read as the standard library writes and reads it: with orjson where it is
installed and without it, the same texts and the same values, whatever they hold."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2.utils import htmlsafe_json_dumps

from jubex.dashboard import jsontext

#: any character, lone surrogates and controls among them
texts = st.text(st.characters(blacklist_categories=()), max_size=12) | st.sampled_from(
    ["<script>", "&amp;", "it's", "\x7f", "é", "\u2028", "1e-7", "null", "0.00001"]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(min_value=1e-9, max_value=1e-3)
    | texts
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(texts, inner, max_size=5)
    ),
    max_leaves=25,
)


def standard(value: object, default: Any = None) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=default)


@settings(max_examples=700, deadline=None)
@given(values)
def test_the_text_is_the_standard_library_s(value: object) -> None:
    assert jsontext.dumps(value) == standard(value)


@settings(max_examples=200, deadline=None)
@given(values)
def test_without_orjson_the_same_text(value: object) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsontext, "orjson", None)
        assert jsontext.dumps(value) == standard(value)


@settings(max_examples=500, deadline=None)
@given(values)
def test_the_indented_text_is_the_standard_library_s(value: object) -> None:
    expected = json.dumps(value, indent=2, sort_keys=True)
    assert jsontext.indented(value) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsontext, "orjson", None)
        assert jsontext.indented(value) == expected


@settings(max_examples=300, deadline=None)
@given(values)
def test_the_script_text_is_jinja_s(value: object) -> None:
    assert jsontext.script_json(value) == str(
        htmlsafe_json_dumps(value, sort_keys=True, separators=(",", ":"))
    )


@dataclasses.dataclass
class _Kept:
    name: str


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", 10: "b", 2: "c"},  # keys that are not texts: sorted as numbers
        [float("nan"), None],  # NaN beside a None: not both null
        [2**64, -(2**63) - 1],
        [1e-5, 1e-7, 1e16, 5e-324, -0.0],
        {"b": [True, False], "a": {"é": "\u2028"}},
        ["\ud800"],
    ],
)
def test_the_edges(value: object) -> None:
    assert jsontext.dumps(value) == standard(value)


def test_a_default_is_asked_for_what_neither_writes() -> None:
    value = {"kept": _Kept("x"), "set": {1}}
    assert jsontext.dumps(value, default=str) == standard(value, default=str)
    with pytest.raises(TypeError):
        jsontext.dumps(value)


@settings(max_examples=700, deadline=None)
@given(values)
def test_read_as_the_standard_library_reads(value: object) -> None:
    text = json.dumps(value)
    assert repr(jsontext.loads(text)) == repr(json.loads(text))


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from('[]{}",:0123456789.eE+-tnufalsNI \\u'), max_size=30))
def test_what_is_not_json_is_refused_as_the_standard_library_refuses_it(text: str) -> None:
    try:
        expected: object = repr(json.loads(text))
    except ValueError as error:
        expected = type(error)
    try:
        found: object = repr(jsontext.loads(text))
    except ValueError as error:
        found = type(error)
    assert found == expected


@pytest.mark.parametrize(
    "text",
    ["18446744073709551616", "-9223372036854775809", "[1e400, NaN]", '"\\ud800"', '{"a":1,"a":2}'],
)
def test_the_edges_read(text: str) -> None:
    assert repr(jsontext.loads(text)) == repr(json.loads(text))


def test_orjson_writes_and_reads_where_it_is_installed() -> None:
    """The CI installs the dashboard's extras: the fast path is the one tested above."""
    assert jsontext.orjson is not None
