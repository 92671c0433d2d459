import contextlib
import keyword

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.errors import ExpressionError, Loc
from jubex.language.builtins import FUNCTIONS
from jubex.language.expr import compile_expr
from jubex.language.values import Size, parse_value

ENV = {
    "nodes": 4,
    "ppn": parse_value("8"),
    "block": parse_value("4MiB"),
    "transfer": parse_value("1m"),
    "time": parse_value("30m", "duration"),
    "api": "POSIX",
    "xs": [3, 1, 2],
    "flag": parse_value("false"),
    "none": None,
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nodes * ppn", 32),
        ("block % transfer == 0", True),
        ("block // transfer", 4),
        ("2 ** 10 - 1", 1023),
        ("-nodes + +1", -3),
        ("~0", -1),
        ("1 << 4 | 1", 17),
        ("7 / 2", 3.5),
        ("7 // 2, 7 % 2", (3, 1)),
        ("1 < nodes <= 4 < 5", True),
        ("1 < nodes > 9", False),
        ("nodes in [1, 4] and api not in ('MPIIO',)", True),
        ("none is None and api is not None", True),
        ("not flag", True),
        ("flag or 'fallback'", "fallback"),
        ("nodes and 0", 0),
        ("'big' if nodes > 2 else 'small'", "big"),
        ("xs[0], xs[-1], xs[1:], xs[::-1]", (3, 2, [1, 2], [2, 1, 3])),
        ("{'a': 1, **{'b': 2}}", {"a": 1, "b": 2}),
        ("{1, 2, 2}", {1, 2}),
        ("[*xs, *range(2)]", [3, 1, 2, 0, 1]),
        ("[x * y for x in xs for y in range(2) if x > 1]", [0, 3, 0, 2]),
        ("{k: v for k, v in zip('ab', xs)}", {"a": 3, "b": 1}),
        ("{x % 2 for x in xs}", {0, 1}),
        ("sum(x for x in xs if x > 1)", 5),
        ("[[y for y in range(x)] for x in range(3)]", [[], [0], [0, 1]]),
        ("sorted(xs), list(reversed(xs)), min(xs), max(xs, key=abs)", ([1, 2, 3], [2, 1, 3], 1, 3)),
        ("len(api), abs(-2), round(2.567, 2), divmod(7, 2)", (5, 2, 2.57, (3, 1))),
        ("any(x > 2 for x in xs), all(xs)", (True, True)),
        (
            "list(enumerate('ab')), dict(a=1), tuple(set([1]))",
            ([(0, "a"), (1, "b")], {"a": 1}, (1,)),
        ),
        ("int('12') + float('0.5'), str(ppn), bool(0)", (12.5, "8", False)),
        ("pow(2, 10), pow(2, 10, 1000)", (1024, 24)),
        ("sqrt(16), log2(8), log10(100), ceil(1.2), floor(1.8)", (4.0, 3.0, 2.0, 2, 1)),
        ("exp(0), log(1), prod([2, 3]), isqrt(17), gcd(12, 18)", (1.0, 0.0, 6, 4, 6)),
        ("math.sqrt(nodes), math.ceil(2.1), math.pi > 3", (2.0, 3, True)),
        ("','.join(str(x) for x in xs)", "3,1,2"),
        (
            "api.lower(), api.title(), ' x '.strip(), 'a-b'.split('-')",
            ("posix", "Posix", "x", ["a", "b"]),
        ),
        (
            "'7'.zfill(3), 'a'.rjust(3, '.'), 'x'.center(3), 'aXa'.replace('X', '-')",
            ("007", "..a", " x ", "a-a"),
        ),
        ("'{0}-{1}'.format(nodes, api), '{n:03d}'.format(n=nodes)", ("4-POSIX", "004")),
        ("f'{nodes:03d}-{api!r}-{transfer}'", "004-'POSIX'-1m"),
        ("'%03d-%s' % (nodes, api)", "004-POSIX"),
        ("size('4KiB') // 1024, duration('1h') / 60", (4, 60.0)),
        ("format_size(block * 2), format_size(block, 'ior')", ("8MiB", "4m")),
        ("time / 60", 30.0),
        ("str(block)", "4MiB"),
    ],
)
def test_evaluates_like_python(text: str, expected: object) -> None:
    assert compile_expr(text).evaluate(ENV) == expected


def test_a_generator_result_is_materialised() -> None:
    assert compile_expr("(x for x in xs)").evaluate(ENV) == [3, 1, 2]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("nodes * ppn", {"nodes", "ppn"}),
        ("[x for x in xs if x > limit]", {"xs", "limit"}),
        ("max(a, b) + len(c)", {"a", "b", "c"}),
        ("sum(x for x, y in pairs)", {"pairs"}),
        ("math.sqrt(n) + math.pi", {"n"}),
        ("f'{a:>{w}}'", {"a", "w"}),
        ("[x for x in range(3)] + [x]", {"x"}),
        ("1 + 2", set()),
    ],
)
def test_names_are_the_free_names(text: str, names: set[str]) -> None:
    assert compile_expr(text).names == frozenset(names)


def test_a_parameter_named_like_a_builtin_wins_as_a_value() -> None:
    expr = compile_expr("size * 2 + min(size, 3)")
    assert "size" in expr.names
    assert expr.evaluate({"size": 5}) == 13
    assert compile_expr("sorted(xs, key=len)").evaluate({"xs": ["aa", "b"]}) == ["b", "aa"]


def test_unknown_names_are_named_with_a_suggestion() -> None:
    expr = compile_expr("nodse * 2", Loc("bench.yaml", 4, 9))
    with pytest.raises(ExpressionError) as caught:
        expr.evaluate(ENV)
    assert "unknown name 'nodse'" in caught.value.message
    assert caught.value.hint == "did you mean 'nodes'?"
    assert caught.value.loc == Loc("bench.yaml", 4, 9)


def test_failures_name_the_expression_and_the_values() -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expr("nodes / (ppn - 8)").evaluate(ENV)
    message = caught.value.message
    assert "'nodes / (ppn - 8)'" in message and "division by zero" in message
    assert "nodes=4" in message and "ppn=8" in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{'a': 1}[api]", "no key 'POSIX'"),
        ("xs[10]", "index out of range"),
        ("int('x')", "invalid literal"),
        ("nodes + api", "unsupported operand"),
        ("transfer.lower()", "method of str values"),
        ("api.get(1)", "method of dict values"),
        ("size('4KB')", "ambiguous"),
        ("dict(**xs)", "needs a dict"),
        ("[a for a, b in ['xyz']]", "cannot unpack 3 values into 2"),
    ],
)
def test_runtime_errors_become_expression_errors(text: str, expected: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expr(text).evaluate(ENV)
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    ("text", "construct"),
    [
        ("x.real", "attribute access"),
        ("import os", "imports"),
        ("from os import path", "imports"),
        ("lambda: 1", "lambda"),
        ("(y := 1)", "assignment"),
        ("__import__('os')", "dunder"),
        ("open('f')", "calling 'open'"),
        ("eval('1')", "calling 'eval'"),
        ("(yield)", "yield"),
        ("x is 1", "'is'"),
        ("a @ b", "@"),
        ("[1][0](2)", "computed value"),
        ("math.frobnicate(5)", "math.frobnicate"),
        ("x = 1", "not a valid expression"),
        ("f(**x)", "calling 'f'"),
        ("x.upper", "attribute access"),
    ],
)
def test_refusals_name_the_construct_and_a_rewrite(text: str, construct: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expr(text, Loc("b.yaml", 2))
    assert construct in str(caught.value)
    assert caught.value.hint
    assert caught.value.loc == Loc("b.yaml", 2)


SANDBOX_ESCAPES = [
    "().__class__.__bases__[0].__subclasses__()",
    "''.__class__.__mro__[1].__subclasses__()",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "__builtins__",
    "__import__('os').system('true')",
    "globals()",
    "locals()",
    "vars()",
    "dir()",
    "type(1)",
    "getattr(1, '__class__')",
    "compile('1', '', 'eval')",
    "exec('x = 1')",
    "breakpoint()",
    "input()",
    "object()",
    "memoryview(b'')",
    "(x for x in ()).gi_frame",
    "f'{().__class__}'",
    "math.__dict__",
    "math.__loader__",
    "math.sqrt.__self__",
    "sum.__globals__",
    "size.__globals__",
    "range(3).__class__",
    "'{0.__class__}'.format(1)",
    "'{.__class__}'.format(1)",
    "'{0[0]}'.format([1])",
    "'{__class__}'.format(__class__=1)",
    "str.format('{0.__class__}', 1)",
    "'{0.__globals__}'.format(size)",
    "'{0!r:{1}}'.format(1, 2)",
    "''.join.__self__",
    "''.format_map({})",
    "''.encode()",
    "'x'.__class__",
    "[].append(1)",
    "{}.setdefault('a')",
    "{1: 2}.pop(1)",
    "[1].sort()",
    "dict.fromkeys('ab')",
    "sorted(xs, key=str.upper)",
    "sum([[1]] * 3, [])",
]


@pytest.mark.parametrize("text", SANDBOX_ESCAPES)
def test_known_sandbox_escapes_are_refused(text: str) -> None:
    with pytest.raises(ExpressionError):
        compile_expr(text).evaluate({"xs": ["a"]})


RESOURCE_BOMBS = [
    "10 ** 10 ** 10",
    "pow(10, 10 ** 6)",
    "9 ** 99999",
    "1 << 10 ** 9",
    "'a' * 10 ** 7",
    "[0] * 10 ** 7",
    "10 ** 5000 * 10 ** 5000 * 10 ** 5000",
    "range(10 ** 9)",
    "list(range(10 ** 7))",
    "[0 for i in range(10 ** 6) for j in range(10)]",
    "sum(1 for i in range(10 ** 6) for j in range(10))",
    "[[0 for i in range(1000)] for j in range(1001)]",
    "math.prod(range(1, 10 ** 5))",
    "'x'.ljust(10 ** 9)",
    "'{:>1000000000}'.format(1)",
    "f'{1:.{10 ** 9}f}'",
    "'%1000000000d' % 1",
    "'%*d' % (10 ** 9, 1)",
    "('a' * 10 ** 6).replace('a', 'aa')",
    "'x'.join(['y' * 10 ** 6] * 10 ** 6)",
    "'a' * 10 ** 6 + 'b'",
]


@pytest.mark.parametrize("text", RESOURCE_BOMBS)
def test_resource_bombs_are_refused_before_the_work(text: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expr(text).evaluate({})
    assert "refused" in caught.value.message or "range" in caught.value.message


DUNDERS = ["__class__", "__globals__", "__dict__", "__subclasses__", "__builtins__", "__code__"]
BASES = ["x", "()", "''", "[]", "math", "size", "sum", "(1).real", "f(x)", "xs[0]", "math.sqrt"]
CALLEES = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda n: n not in FUNCTIONS and not keyword.iskeyword(n)
)


@given(st.sampled_from(BASES), st.sampled_from(DUNDERS), st.booleans())
def test_attribute_access_is_refused_whatever_the_receiver(
    base: str, attr: str, call: bool
) -> None:
    with pytest.raises(ExpressionError):
        compile_expr(f"{base}.{attr}{'()' if call else ''}")


@given(st.from_regex(r"__[a-z]{1,8}__?", fullmatch=True))
def test_dunder_names_are_refused(name: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expr(f"{name} + 1")
    assert "dunder" in caught.value.message


@given(CALLEES, st.sampled_from(["", "1", "x", "'a', b=2"]))
def test_unlisted_calls_are_refused(name: str, args: str) -> None:
    with pytest.raises(ExpressionError) as caught:
        compile_expr(f"{name}({args})")
    assert f"calling '{name}'" in caught.value.message or "dunder" in caught.value.message


@given(st.sampled_from(["os", "sys", "subprocess", "builtins", "math"]), st.booleans())
def test_imports_are_refused(module: str, from_form: bool) -> None:
    text = f"from {module} import path" if from_form else f"import {module}"
    with pytest.raises(ExpressionError) as caught:
        compile_expr(text)
    assert "imports" in caught.value.message


TOKENS = [
    "x", "xs", "api", "1", "2", "0", "'a'", "(", ")", "[", "]", "{", "}", ",", ":", ".", "+", "-",
    "*", "**", "/", "//", "%", "<", "==", " and ", " or ", " not ", " if ", " else ", " for ",
    " in ", "lambda", "__class__", "upper", "join", "format", "len", "sum", "range", "math",
    "sqrt", "f'{x}'", "'{0}'", "=", ":=", "!", "@", "import", "__import__", "str", " is ",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=12))
def test_any_text_compiles_or_is_refused_and_never_escapes(tokens: list[str]) -> None:
    text = "".join(tokens)
    try:
        expr = compile_expr(text)
    except ExpressionError:
        return
    assert ".__" not in text.replace(" ", "")
    with contextlib.suppress(ExpressionError):
        expr.evaluate({"x": 3, "xs": [1, 2], "api": "POSIX"})


def test_a_size_compares_with_the_size_a_text_writes() -> None:
    """``transfer == '1m'`` (as a filter is written) is true for 1 MiB however the size
    was written, not false for every row because a size is no text."""
    mib = Size(1 << 20, "1MiB")
    assert compile_expr("transfer == '1m'", None).evaluate({"transfer": mib}) is True
    assert compile_expr("transfer != '1m'", None).evaluate({"transfer": mib}) is False
    assert compile_expr("transfer < '2m'", None).evaluate({"transfer": mib}) is True
    assert compile_expr("transfer in ['1m', '4m']", None).evaluate({"transfer": mib}) is True
    assert compile_expr("transfer == '4k'", None).evaluate({"transfer": mib}) is False
    assert compile_expr("transfer == 'fast'", None).evaluate({"transfer": mib}) is False
    assert compile_expr("name == '1m'", None).evaluate({"name": "1m"}) is True
