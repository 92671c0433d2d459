"""``jubex info FILE``: the space of a definition, including one whose values are per step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jubex.cli.info import step_own
from jubex.cli.main import main
from jubex.definition.model import Parameter, ParameterSet

# A JUBE file whose parameter is each step's own: a python-mode dict indexed by the step's
# name (the way a suite picks each step's executable).
PER_STEP = """<jube><benchmark name="b" outpath="runs">
  <parameterset name="p">
    <parameter name="n">1,2</parameter>
    <parameter name="exe" mode="python">{"run": "./a", "post": "./b"}["$jube_step_name"]</parameter>
    <parameter name="line">$exe -n $n</parameter>
  </parameterset>
  <step name="run"><use>p</use><do>$line</do></step>
  <step name="post" depend="run"><use>p</use><do>$line</do></step>
</benchmark></jube>"""


def test_info_lists_the_space_without_the_values_each_step_has_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "b.xml"
    path.write_text(PER_STEP)
    assert main(["info", str(path)]) == 0
    text = capsys.readouterr().out
    assert "parameter space: 2 point(s)" in text
    assert "each step's own (they read $jube_step_name): exe, line" in text
    assert "step post: 2 workpackage(s)" in text
    assert main(["info", str(path), "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["per_step"] == ["exe", "line"]


def test_step_own_follows_what_reads_what_by_whole_names() -> None:
    pset = ParameterSet("p")
    for name, value in [
        ("a", "x_${jube_step_name}"),
        ("b", "$a/1"),
        ("ab", "2"),
        ("c", "$ab"),
        ("d", "jube_step_names"),
    ]:
        pset.parameters[name] = Parameter(name, (value,))
    assert step_own([pset]) == {"a", "b"}
