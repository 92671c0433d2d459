"""Snippets run by the shell (JUBE's shell and perl modes): output, and failures with
the snippet and the interpreter's words."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.definition.model import Parameter, ParameterSet
from jubex.errors import DefinitionError, Loc
from jubex.language.expr import compile_expr
from jubex.language.shell import perl_command, run_snippet
from jubex.space.expand import Space


def test_perl_runs_as_jube_runs_it() -> None:
    assert perl_command("$n * 2") == 'perl -e "print $n * 2"'
    assert run_snippet(perl_command("3 * 7"), "p", None) == "21"
    assert run_snippet(perl_command("join(',', 1..3)"), "p", None) == "1,2,3"


def test_shell_output_is_kept_as_printed(tmp_path: Path) -> None:
    assert run_snippet("echo a; echo b", "p", None) == "a\nb\n"
    assert run_snippet("pwd", "p", None, tmp_path).strip() == str(tmp_path)


def test_a_failure_names_owner_place_command_status_and_message() -> None:
    loc = Loc("bench.xml", 7)
    with pytest.raises(DefinitionError) as caught:
        run_snippet("echo first >&2; echo second >&2; exit 4", "parameter 'x'", loc)
    error = caught.value
    assert error.loc == loc
    assert error.message == (
        "parameter 'x': command 'echo first >&2; echo second >&2; exit 4' failed with exit "
        "status 4: first; second"
    )
    with pytest.raises(DefinitionError, match="syntax error at -e line 1"):
        run_snippet(perl_command("1 +"), "pattern 'y'", loc)


@settings(max_examples=25, deadline=None)
@given(st.integers(-(10**6), 10**6), st.integers(-1000, 1000))
def test_a_perl_parameter_computes_from_other_parameters(a: int, b: int) -> None:
    sets = [
        ParameterSet(
            "p",
            {
                "a": Parameter("a", (str(a),), type="int"),
                "b": Parameter("b", (str(b),), type="int"),
                "c": Parameter("c", (perl_command("$a * $b + 1"),), type="int", mode="shell"),
            },
        )
    ]
    (point,) = list(Space(sets))
    assert point["c"] == a * b + 1


QUOTE_ENV = {"PATH": "/usr/bin:/bin", "SCRATCH": "/scr atch", "USER": "u"}


def _as_the_shell_reads(value: str, tmp_path: Path) -> list[str]:
    """The words a shell makes of ``${quote(value)}`` in a command (a real /bin/sh)."""
    word = compile_expr("quote(v)").evaluate({"v": value})
    done = subprocess.run(["/bin/sh", "-c", f"printf '%s\\0' {word}"], cwd=tmp_path,
                          env=QUOTE_ENV, capture_output=True, check=True)  # fmt: skip
    return done.stdout.decode().split("\0")[:-1]


@settings(max_examples=60, deadline=None)
@given(value=st.text(st.characters(blacklist_characters="\0", codec="utf-8"), max_size=30))
def test_quote_makes_any_text_one_word_that_runs_nothing(value: str) -> None:
    value = value.replace("$", "$(")  # no environment references: the text comes back as is
    with tempfile.TemporaryDirectory() as scratch:
        assert _as_the_shell_reads(value, Path(scratch)) == [value]
        assert not list(Path(scratch).iterdir())


def test_quote_keeps_plain_words_and_leaves_environment_references_to_the_shell(
    tmp_path: Path,
) -> None:
    assert compile_expr("quote(v)").evaluate({"v": "4KiB"}) == "4KiB"
    assert _as_the_shell_reads("$SCRATCH/${USER}/$(touch PWNED)`touch PWNED`", tmp_path) == [
        "/scr atch/u/$(touch PWNED)`touch PWNED`"
    ]
    assert not list(tmp_path.iterdir())
