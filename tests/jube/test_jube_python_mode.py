"""Python-mode snippets read as jubex expressions give what JUBE's text-then-eval gives."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.definition.jube.python_mode import (
    compile_snippet,
    mode_of,
    rewrite,
    text_expression,
)
from jubex.errors import DefinitionError, Loc
from jubex.language.expr import compile_expr
from jubex.language.python import PythonExpr
from jubex.language.values import parse_value

KNOWN = {"a", "b", "name", "jube_wp_id"}.__contains__

#: snippets as JUBE users write them; $a and $b are parameters
SNIPPETS = [
    "$a + $b",
    "${a} * ${b} - 1",
    "$a // ($b or 1)",
    '"$a" + "-" + "${b}"',
    "[$a, $b][0]",
    '"{}x{}".format($a, $b)',
    '"$a$b".upper()',
    '"big" if $a > $b else "small"',
    "max($a, $b) % 7",
    "int(str($a) + str(abs($b)))",
    '",".join(str($a + k) for k in range(3))',
    '{0: "zero", 1: "one"}[$a % 2]',
]


def jube(snippet: str, values: dict[str, int]) -> str:
    """JUBE's reading: the values substituted as text, then Python's eval of the result."""
    text = snippet
    for name, value in values.items():
        text = text.replace("${" + name + "}", str(value)).replace("$" + name, str(value))
    return str(
        eval(
            text, {"__builtins__": {"str": str, "int": int, "abs": abs, "max": max, "range": range}}
        )
    )


@given(a=st.integers(-1000, 1000), b=st.integers(-1000, 1000), snippet=st.sampled_from(SNIPPETS))
def test_rewritten_snippet_evaluates_like_jube(a: int, b: int, snippet: str) -> None:
    expression, expr = compile_snippet(snippet, KNOWN, None, "test")
    assert "$" not in expression
    typed = {"a": parse_value(str(a), "auto"), "b": parse_value(str(b), "auto")}
    assert str(expr.evaluate(typed)) == jube(snippet, {"a": a, "b": b})


@given(st.text(alphabet=string.printable.replace("$", ""), max_size=40))
def test_text_without_references_is_unchanged(text: str) -> None:
    assert rewrite(text, KNOWN) == text
    assert compile_expr(text_expression(text, KNOWN)).evaluate({}) == text


@given(
    st.lists(
        st.one_of(
            st.text(alphabet=string.ascii_letters + " -:/.#{}'\"\\", max_size=8),
            st.sampled_from(["$a", "${b}", "$$", "$other", "$name"]),
        ),
        max_size=8,
    )
)
def test_text_mode_reads_references_as_jube_substitutes_them(parts: list[str]) -> None:
    text = "".join(parts)
    values = {"a": "1", "b": "two", "name": "x y"}
    got = compile_expr(text_expression(text, KNOWN)).evaluate(values)
    assert got == _substitute(text, values)


def _substitute(text: str, values: dict[str, str]) -> str:
    """JUBE's substitution, written plainly: $$ is $, known $name and ${name} replaced."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
            continue
        if text[i] == "$":
            rest = text[i + 1 :]
            braced = rest.startswith("{") and "}" in rest
            name = rest[1 : rest.index("}")] if braced else ""
            if not braced:
                while len(name) < len(rest) and (
                    rest[len(name)].isalnum() or rest[len(name)] == "_"
                ):
                    name += rest[len(name)]
            if name in values and (not braced or name.isidentifier()):
                out.append(values[name])
                i += 1 + len(name) + (2 if braced else 0)
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def test_references_in_strings_stay_strings_and_unknown_names_stay_literal() -> None:
    assert rewrite('"$a".lower()', KNOWN) == "(str(a)).lower()"
    assert rewrite('"$HOME/$a"', KNOWN) == "('$HOME/' + str(a))"
    assert rewrite("f'{$a}-$b'", KNOWN) == "f'{a}-{b}'"
    assert rewrite('b"$a"', KNOWN) == 'b"$a"'
    assert rewrite("$jube_wp_id * 2", KNOWN) == "jube_wp_id * 2"
    assert rewrite('"$$a"', KNOWN) == "'$a'"


@pytest.mark.parametrize(
    ("snippet", "refused", "hint"),
    [
        ('__import__("os").getcwd()', "'.getcwd()'", "str(x)"),
        ("lambda: 1", "a lambda", "comprehension"),
        ('open("/etc/passwd").read()', "'.read()'", 'mode="env"'),
        ("(x := 3)", "assignment", "another parameter"),
    ],
)
def test_refused_constructs_are_named_with_the_rewrite(
    snippet: str, refused: str, hint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUBEX_NO_PYTHON", "1")
    with pytest.raises(DefinitionError) as caught:
        compile_snippet(snippet, KNOWN, None, "parameter 'p'")
    assert refused in caught.value.message
    assert "parameter 'p'" in caught.value.message
    assert hint in caught.value.hint
    assert "and JUBEX_NO_PYTHON refuses real Python" in caught.value.message


@pytest.mark.parametrize("snippet", ["lambda: 1", '__import__("os").getcwd()', "(x := 3)"])
def test_constructs_outside_the_safe_language_go_to_python_when_allowed(
    snippet: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("JUBEX_NO_PYTHON", raising=False)
    expression, compiled = compile_snippet(snippet, KNOWN, Loc("b.xml", 3), "parameter 'p'")
    assert isinstance(compiled, PythonExpr) and mode_of(compiled) == "python"
    assert expression == snippet
    assert "b.xml:3: warning: parameter 'p'" in capsys.readouterr().err


def test_a_subscripted_reference_is_read_as_a_literal_and_others_as_names() -> None:
    assert rewrite("${a}[0] + $b", KNOWN) == "literal(a)[0] + b"
    assert rewrite('{"x": 1}[$a]', KNOWN) == '{"x": 1}[a]'
    assert compile_expr(rewrite("${a}[1]", KNOWN)).evaluate({"a": "(2,3)"}) == 3
