"""Any text given to the expression language is evaluated or refused with an ExpressionError
(or another JubexError), never an unexpected exception, in bounded time."""

from __future__ import annotations

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.errors import JubexError
from jubex.language.expr import compile_expr

PIECES = st.sampled_from(
    [
        "1",
        "9" * 60,
        "1e400",
        "a",
        "b",
        "x",
        "'s'",
        "(",
        ")",
        "[",
        "]",
        "+",
        "-",
        "*",
        "**",
        "//",
        "%",
        " if ",
        " else ",
        " not ",
        " and ",
        "<",
        "==",
        ",",
        ".",
        "len(",
        "str(",
        "int(",
        "max(",
        "range(",
        "for",
        " in ",
        ":",
        "lambda",
        "__class__",
        "\\0",
        "nan",
    ]
)


@st.composite
def texts(draw: st.DrawFn) -> str:
    text = "".join(draw(st.lists(PIECES, max_size=30)))
    depth = draw(st.sampled_from([0, 0, 100, 3000]))
    return draw(st.sampled_from(["(", "-", "not ", "["])) * depth + text if depth else text


@given(
    a=st.integers(-(10**6), 10**6),
    b=st.integers(1, 10**6),
    op=st.sampled_from(["+", "-", "*", "//", "%", "<", "==", "max", "min"]),
)
def test_valid_expressions_are_accepted_and_right(a: int, b: int, op: str) -> None:
    """Refusing everything would pass the property below: valid ones must evaluate, right."""
    text = f"{op}({a}, {b})" if op in ("max", "min") else f"{a} {op} {b}"
    assert compile_expr(text).evaluate({}) == eval(text)
    named = compile_expr(f"a * {b} + len(x) - len(b)").evaluate({"a": a, "b": "xy", "x": [1]})
    assert named == a * b + 1 - 2


@settings(max_examples=50, deadline=None)
@given(text=texts())
def test_expressions_evaluate_or_are_refused(text: str) -> None:
    with contextlib.suppress(JubexError):
        compile_expr(text).evaluate({"a": 3, "b": "x", "x": [1, 2]})
