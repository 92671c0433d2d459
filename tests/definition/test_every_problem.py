"""``jubex validate`` lists every problem of a file, each at the line of the key or value
at fault: a key that breaks the schema is taken out and the rest is checked on, without
the problems only its absence causes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.api import validate
from jubex.errors import ExpressionError
from jubex.language.expr import compile_expr

BAD = """\
name: bad
parameters:
  tasks: [1, 2]
  x: {expr: 'a *'}
steps:
  run:
    do: echo $tasks
    iterations: many
    analyse: [iorr]
results:
  t:
    group_by: [taks]
    columns: [tasks, {name: bw, stats: [mean]}]
    filter: 'tasks *'
"""


def _found(tmp_path: Path, text: str) -> list[tuple[int, str]]:
    path = tmp_path / "study.yaml"
    path.write_text(text)
    return [(p.loc.line if p.loc else 0, p.message) for p in validate([path]) if p.exit_code]


def test_every_problem_is_listed_each_at_its_own_line(tmp_path: Path) -> None:
    found = _found(tmp_path, BAD)
    assert [line for line, _ in found] == [4, 8, 9, 12, 13, 14], found
    messages = dict(found)
    assert "'a *' is not a valid expression: it ends after '*', where a value was" in messages[4]
    assert messages[8].startswith("steps.run.iterations: expected a positive integer")
    assert "unknown analyser or patternset 'iorr'" in messages[9]
    assert "'taks' is neither a parameter nor a pattern" in messages[12]
    assert "'bw' is neither" in messages[13]
    assert messages[14].startswith("table 't' filter: 'tasks *' is not a valid expression")


def test_what_only_a_key_taken_out_causes_is_not_reported(tmp_path: Path) -> None:
    found = _found(
        tmp_path,
        "name: b\nparameters:\n  tasks: [1, 2]\n  x: {values: {a: 1}}\nsteps:\n  run:\n"
        "    do: echo $tasks $x ${x * 2}\n    procs: lots\nresults:\n  t:\n"
        "    group_by: [x]\n    columns: [tasks]\n",
    )
    assert [line for line, _ in found] == [4, 8], found


def test_a_missing_key_still_stops_the_checks_that_need_it(tmp_path: Path) -> None:
    found = _found(tmp_path, "parameters: {a: 1}\nsteps: {run: {do: echo $zzz}}\n")
    assert [message for _, message in found] == ["the file: missing key 'name'"]


@settings(max_examples=25, deadline=None)
@given(
    bad_iterations=st.sets(st.integers(0, 4)),
    bad_groups=st.sets(st.integers(0, 3)),
)
def test_each_fault_of_any_mix_is_reported_at_its_line(
    tmp_path_factory: object, bad_iterations: set[int], bad_groups: set[int]
) -> None:
    lines = ["name: mix", "parameters:", "  n: [1, 2]", "steps:"]
    expected = []
    for i in range(5):
        lines += [f"  s{i}:", "    do: echo $n"]
        lines.append("    iterations: many" if i in bad_iterations else "    iterations: 2")
        expected += [len(lines)] if i in bad_iterations else []
    lines.append("results:")
    for i in range(4):
        lines += [f"  t{i}:", "    columns: [n]"]
        lines.append("    group_by: [nn]" if i in bad_groups else "    group_by: [n]")
        expected += [len(lines)] if i in bad_groups else []
    folder = tmp_path_factory.mktemp("mix")  # type: ignore[attr-defined]
    found = _found(folder, "\n".join(lines) + "\n")
    assert [line for line, _ in found] == expected


def test_a_syntax_error_says_where_and_what_was_expected() -> None:
    cases = {
        "a *": "it ends after '*', where a value was expected",
        "a b": "unexpected 'b' at column 3",
        "a = 1": "'=' at column 3 assigns; expected a comparison, '=='",
        "(a": "'(' was never closed",
        " ": "it is empty",
    }
    for text, said in cases.items():
        with pytest.raises(ExpressionError) as caught:
            compile_expr(text)
        assert said in str(caught.value) and "column 0" not in str(caught.value)


def test_a_step_s_unknown_names_are_reported_at_their_own_items(tmp_path: Path) -> None:
    found = _found(
        tmp_path,
        "name: refs\nparameters:\n  n: [1]\nsteps:\n  a:\n    do: echo $n\n  b:\n"
        "    use: [parameters, nope]\n    depend: [a, zz]\n    files: [fff]\n    do: echo $n\n",
    )
    assert [(line, message.split(" names ")[1]) for line, message in found] == [
        (8, "unknown parameterset 'nope'"),
        (9, "unknown step 'zz'"),
        (10, "unknown fileset or substituteset 'fff'"),
    ]
