"""Derived patterns the shell computes (JUBE's shell and perl modes) in the pattern engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.analysis.patterns import PatternEngine
from jubex.definition.model import Pattern
from jubex.errors import DefinitionError, Loc
from jubex.language.shell import perl_command

BW = Pattern("bw", r"bw=$jube_pat_fp", type="float")


def summary(patterns: list[Pattern], text: str, params: dict | None = None) -> dict:
    engine = PatternEngine([BW, *patterns])
    return engine.summary(engine.scan(text, params or {}), params or {})


def test_shell_and_perl_patterns_read_patterns_statistics_and_parameters() -> None:
    found = summary(
        [
            Pattern("per_node", perl_command("$bw_sum / $nodes"), mode="shell", type="float"),
            Pattern("twice", "echo $(( ${bw_cnt} * 2 ))", mode="shell", type="int"),
            Pattern("label", 'echo "$per_node on $nodes"', mode="shell"),
        ],
        "bw=3.0\nbw=5.0\n",
        {"nodes": 2},
    )
    assert (found["per_node"], found["twice"], found["label"]) == (4.0, 4, "4.0 on 2")


def test_a_missing_input_gives_the_default_without_running(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    found = summary(
        [
            Pattern("a", f"touch {marker}; echo 1 $bw", mode="shell"),
            Pattern("b", "echo $bw", mode="shell", type="int", default="-1"),
        ],
        "nothing here",
    )
    assert (found["a"], found["b"]) == (None, -1)
    assert not marker.exists()


def test_names_the_analysis_does_not_know_are_the_shells(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SITE", "juwels")
    found = summary([Pattern("where", "echo $SITE-$bw", mode="shell")], "bw=1.5")
    assert found["where"] == "juwels-1.5"


def test_output_of_the_wrong_type_gives_the_default() -> None:
    found = summary([Pattern("n", "echo many", mode="shell", type="int", default="0")], "")
    assert found["n"] == 0


def test_a_failing_snippet_gives_its_default_else_stops_with_its_message() -> None:
    failing = perl_command("$bw +")
    found = summary([Pattern("x", failing, mode="shell", default="none")], "bw=1")
    assert found["x"] == "none"
    loc = Loc("bench.xml", 12)
    with pytest.raises(DefinitionError) as caught:
        summary([Pattern("x", failing, mode="shell", loc=loc)], "bw=1")
    assert caught.value.loc == loc
    assert "pattern 'x': command 'perl -e \"print 1.0 +\"' failed" in caught.value.message
    assert "syntax error" in caught.value.message


def test_a_default_not_of_the_type_is_refused_at_once() -> None:
    with pytest.raises(DefinitionError, match="default 'x' of pattern 'n' is not a int"):
        PatternEngine([Pattern("n", "echo 1", mode="shell", type="int", default="x")])


def test_a_command_runs_once_per_distinct_text(tmp_path: Path) -> None:
    count = tmp_path / "count"
    engine = PatternEngine([BW, Pattern("c", f"echo x >> {count}; echo $bw", mode="shell")])
    for _ in range(3):
        assert engine.summary(engine.scan("bw=2", {}), {})["c"] == "2.0"
    assert count.read_text() == "x\n"
