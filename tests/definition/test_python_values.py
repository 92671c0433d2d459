"""``python:`` in jubex's own format: JUBE's python mode, spelt as in a converted file.

The expression runs in the separate interpreter, reads other values by name, splits at its
separator, and is refused with file and line wherever real Python is refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.api import load, run
from jubex.cli.main import main
from jubex.engine.driver import Options
from jubex.errors import DefinitionError
from jubex.language import python
from jubex.platform.load import load_platform
from jubex.results.samples.rows import result_rows
from jubex.space.plan import plan
from jubex.space.spec import resolve_spec

OWN = """name: own
parameters:
  tasks: [4, 6]
  half: {python: 'exec("from fractions import Fraction") or str(Fraction(tasks, 8))'}
  sizes: {python: '",".join(str(tasks * k) for k in (1, 2))', separator: ","}
patterns:
  p:
    seen: 'seen (\\d+)'
    twice: {python: 'int(seen) * 2 if seen else -1', type: int}
analysers:
  a: {step: run, use: [p], files: [stdout]}
steps:
  run: {do: echo seen $sizes, analyse: [a]}
"""

XML = """<jubex name="own">
  <parameters>
    <parameter name="tasks">4,6</parameter>
    <parameter name="half" mode="python">str(tasks / 8)</parameter>
  </parameters>
  <step name="run"><do>echo $half</do></step>
</jubex>
"""


def _points(path: Path) -> list[dict[str, str]]:
    return [{k: str(v) for k, v in wp.point.items()} for wp in plan(load(path))]


def test_a_python_value_runs_in_the_interpreter_and_splits_at_its_separator(
    tmp_path: Path,
) -> None:
    path = tmp_path / "own.yaml"
    path.write_text(OWN)
    got = [(p["tasks"], p["half"], p["sizes"]) for p in _points(path)]
    assert got == [("4", "1/2", "4"), ("4", "1/2", "8"), ("6", "3/4", "6"), ("6", "3/4", "12")]


def test_a_python_pattern_is_worked_out_from_the_matches_of_a_real_run(tmp_path: Path) -> None:
    path = tmp_path / "own.yaml"
    path.write_text(OWN)
    spec = resolve_spec(load(path), load_platform("local"), outpath=tmp_path / "runs")
    made, _ = run(spec, Options(progress="quiet"))
    rows = sorted((int(r["sizes"]), r["twice"]) for r in result_rows(made))
    assert rows == [(4, 8), (6, 12), (8, 16), (12, 24)]


def test_the_xml_spelling_takes_mode_python(tmp_path: Path) -> None:
    path = tmp_path / "own.xml"
    path.write_text(XML)
    assert [p["half"] for p in _points(path)] == ["0.5", "0.75"]


def test_what_is_not_python_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "own.yaml"
    path.write_text(OWN.replace("int(seen) * 2 if seen else -1", "int(seen) *"))
    with pytest.raises(DefinitionError) as caught:
        load(path)
    error = caught.value
    assert error.loc is not None and error.loc.line == 9
    assert "pattern 'twice'" in error.message and "not a valid Python expression" in error.message


@pytest.mark.parametrize("where", ["flag", "platform"])
def test_where_real_python_is_refused_a_python_value_is_refused_naming_file_and_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    python.config_allows.cache_clear()
    (tmp_path / "strict.yaml").write_text("extends: local\npython: false\n")
    (tmp_path / "own.yaml").write_text(OWN)
    switch = ["--no-python"] if where == "flag" else ["--platform", "strict.yaml"]
    try:
        assert main(["run", "--dry-run", *switch, "own.yaml"]) != 0
    finally:
        python.refuse_for_platform(None)
        python.set_allowed(None)
    error = "".join(capsys.readouterr())
    assert "own.yaml:4:" in error and "parameter 'half'" in error
    assert "refuses" in error and "Traceback" not in error
    assert not (tmp_path / "runs").exists()
