"""The methods and built-ins of the safe language give what Python gives, or a clear error."""

import math
from collections.abc import ItemsView, Iterable, KeysView, ValuesView

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.errors import ExpressionError
from jubex.language.builtins import MathNamespace
from jubex.language.expr import compile_expr
from jubex.language.methods import METHOD_NAMES, METHODS

TEXT = st.text(alphabet="ab ,:\n\t1-_xY", max_size=12)
SMALL = st.integers(min_value=-3, max_value=12)
ARGUMENTS = st.lists(st.one_of(TEXT, SMALL), max_size=3)
RECEIVERS = st.one_of(
    TEXT,
    st.lists(st.one_of(SMALL, TEXT), max_size=4),
    st.lists(SMALL, max_size=4).map(tuple),
    st.dictionaries(TEXT, SMALL, max_size=3),
    st.sets(SMALL, max_size=4),
    st.frozensets(SMALL, max_size=4),
    SMALL,
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)


def _python(receiver: object, name: str, args: list[object]) -> tuple[bool, object]:
    try:
        return True, getattr(receiver, name)(*args)
    except Exception:
        return False, None


def _same(ours: object, theirs: object) -> bool:
    if isinstance(theirs, (KeysView, ValuesView, ItemsView)):
        return isinstance(ours, Iterable) and list(ours) == list(theirs)
    return type(ours) is type(theirs) and ours == theirs


@settings(max_examples=300, deadline=None)
@given(receiver=RECEIVERS, name=st.sampled_from(sorted(METHOD_NAMES)), args=ARGUMENTS)
def test_an_allowed_method_gives_what_python_gives(
    receiver: object, name: str, args: list[object]
) -> None:
    text = f"r.{name}({', '.join(f'a{i}' for i in range(len(args)))})"
    env = {"r": receiver, **{f"a{i}": a for i, a in enumerate(args)}}
    expr = compile_expr(text)
    ok, expected = _python(receiver, name, args)
    offered = any(isinstance(receiver, kind) and name in t for kind, t in METHODS.items())
    if ok and offered:
        assert _same(expr.evaluate(env), expected)
    else:
        with pytest.raises(ExpressionError):
            expr.evaluate(env)


REFUSED_METHODS = [
    "append",
    "pop",
    "setdefault",
    "update",
    "clear",
    "sort",
    "encode",
    "format_map",
    "translate",
    "maketrans",
    "fromkeys",
    "mro",
    "add",
    "discard",
]


@pytest.mark.parametrize("name", REFUSED_METHODS)
def test_a_method_outside_the_list_is_refused_when_compiled(name: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expr(f"x.{name}(1)")
    assert f".{name}()" in caught.value.message
    assert "jubex help expressions" in caught.value.hint


@given(name=st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=10))
def test_any_other_method_name_is_an_expression_error_never_a_traceback(name: str) -> None:
    try:
        value = compile_expr(f"'a b'.{name}()").evaluate({})
    except ExpressionError:
        return
    assert name in METHOD_NAMES
    assert value == getattr("a b", name)()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{'a': '1'}.get(s, '2')", "2"),
        ("{'x': 3}.get('x')", 3),
        ("'a\\nb\\n'.strip().splitlines()", ["a", "b"]),
        ("list(map(float, '1 2'.split()))", [1.0, 2.0]),
        ("list(filter(None, [0, 1, 2]))", [1, 2]),
        ("[i for i, c in enumerate('ab')]", [0, 1]),
        ("'{:>4}'.format(7)", "   7"),
        ("format(3.14159, '.2f')", "3.14"),
        ("sorted({'b': 1, 'a': 2}.items())", [("a", 2), ("b", 1)]),
        ("hex(255) + oct(8) + bin(2)", "0xff0o100b10"),
        ("chr(ord('a') + 1)", "b"),
        ("isinstance(s, str)", True),
        ("math.comb(5, 2) + math.factorial(4) + math.lcm(4, 6)", 46),
        ("round(math.sin(math.pi / 2) + math.degrees(math.pi), 6)", 181.0),
        ("(7).bit_length()", 3),
        ("2.0.is_integer()", True),
        ("{1, 2}.union([3]) == {1, 2, 3}", True),
        ("'a-b'.removeprefix('a-')", "b"),
        ("literal('(2, 3)')[1] + literal(4)", 7),
        ("literal('not a literal')", "not a literal"),
    ],
)
def test_common_idioms_of_benchmark_files(text: str, expected: object) -> None:
    assert compile_expr(text).evaluate({"s": "z"}) == expected


@pytest.mark.parametrize(
    "text",
    [
        "math.factorial(10 ** 6)",
        "math.comb(10 ** 9, 5 * 10 ** 8)",
        "math.perm(10 ** 9)",
        "'a\\t' .expandtabs(10 ** 8)",
        "('\\t' * 1000).expandtabs(9999)",
        "format(1, '>999999999')",
        "'x'.center(10 ** 9)",
        "list(map(str, range(10 ** 9)))",
    ],
)
def test_growing_methods_and_functions_are_bounded(text: str) -> None:
    with pytest.raises(ExpressionError):
        compile_expr(text).evaluate({})


def test_every_math_name_is_a_function_or_constant_of_math() -> None:
    names = [name for name in dir(MathNamespace) if not name.startswith("_")]
    assert {"sqrt", "log", "log2"} <= set(names)
    for name in names:
        ours, theirs = getattr(MathNamespace, name), getattr(math, name)
        if not callable(theirs):
            assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), name
            continue
        answers = []
        for args in ((0.5,), (2.0,), (5, 2), (2,), ((0, 0), (3, 4)), ([1.5, 2.5],)):
            try:
                answers.append((theirs(*args), ours(*args)))
            except (TypeError, ValueError):
                continue
        assert answers and all(a == b for a, b in answers), (name, answers)
