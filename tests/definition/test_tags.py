"""Tag expressions: JUBE's operators, and a clean error for any text, however deep or long."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.cli.main import main
from jubex.definition.tags import MAX_DEPTH, tag_matches
from jubex.errors import DefinitionError, Loc


@pytest.mark.parametrize(
    ("expr", "tags", "holds"),
    [
        ("a", {"a"}, True),
        ("!a", {"a"}, False),
        ("a+b", {"a"}, False),
        ("a|b", {"b"}, True),
        ("a,b", set(), False),
        ("a^b^c", {"a", "b", "c"}, True),  # (a xor b) xor c
        ("a^b^c", {"a", "b"}, False),
        ("!(a+b)|c", {"a", "b"}, False),
    ],
)
def test_operators(expr: str, tags: set[str], holds: bool) -> None:
    assert tag_matches(expr, tags) is holds


@given(st.lists(st.booleans(), min_size=1, max_size=30))
def test_a_chain_of_xor_is_the_parity_of_its_terms(terms: list[bool]) -> None:
    names = [f"t{i}" for i in range(len(terms))]
    given_tags = {n for n, on in zip(names, terms, strict=True) if on}
    assert tag_matches("^".join(names), given_tags) is (sum(terms) % 2 == 1)


@pytest.mark.parametrize(
    "expr", ["(" * 100_000 + "a" + ")" * 100_000, "!" * 100_000 + "a"], ids=["parens", "nots"]
)
def test_deep_nesting_is_an_error_at_the_tag(expr: str) -> None:
    with pytest.raises(DefinitionError, match=f"nests deeper than {MAX_DEPTH} levels") as raised:
        tag_matches(expr, {"a"}, Loc("d.yaml", 7))
    assert raised.value.loc == Loc("d.yaml", 7)
    assert len(str(raised.value)) < 300  # the expression is shown cut short


def test_a_long_chain_is_read_and_evaluated_without_nesting() -> None:
    assert tag_matches("+".join(["a"] * 100_000), {"a"})
    assert not tag_matches("|".join(["a"] * 100_000), {"b"})


def test_a_bad_step_tag_is_one_error_at_the_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.yaml"
    path.write_text("name: t\nsteps:\n  s:\n    tag: 'a+('\n    do: echo hi\n")
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr()
    shown = out.out + out.err
    assert shown.count("error: tag expression") == 1
    assert f"{path}:3:3: error: tag expression 'a+(': ends too early" in shown


def test_a_bad_parameter_tag_is_one_error_at_the_parameter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(
        "name: t\nparameters:\n  p: {values: [1], tag: 'a+('}\nsteps:\n  s: {do: echo}\n"
    )
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr()
    shown = out.out + out.err
    assert shown.count("error: tag expression") == 1
    assert f"{path}:3:3: error: tag expression 'a+(': ends too early" in shown


def test_a_tag_expression_of_700_kilobytes_wrong_near_its_start_is_refused_at_once() -> None:
    with pytest.raises(DefinitionError, match="unexpected '<'"):
        tag_matches("a|" + "<a>" * 100_000 + "1" + "</a>" * 100_000, {"a"})
