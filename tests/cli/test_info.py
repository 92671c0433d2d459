"""``jubex info FILE`` answers in bounded time for a space of any size, and says what it
did not look at; it lists the space of a definition whose values are per step."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jubex.cli.info import WALK, step_own
from jubex.cli.main import main
from jubex.definition.model import Parameter, ParameterSet

HUGE = "".join(f"  {n}: {{range: {{start: 0, stop: 999, step: 1}}}}\n" for n in "abcd")


def info(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *args: str) -> str:
    path = tmp_path / "d.yaml"
    path.write_text(f"name: b\nparameters:\n{text}steps:\n  run: {{do: x}}\n")
    assert main(["info", str(path), "--max-workpackages", str(10**13), *args]) == 0
    return capsys.readouterr().out


def test_all_on_a_space_of_10_to_the_12_lists_a_bounded_part_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = info(tmp_path, capsys, HUGE, "--all")
    assert "parameter space: 1,000,000,000,000 point(s)" in out
    # as many as info walks in about a second, up to WALK: fewer on a loaded machine
    listed = re.search(r"points listed from the first ([0-9,]+) of 1,000,000,000,000 ", out)
    assert listed, out
    tried = int(listed.group(1).replace(",", ""))
    assert 0 < tried <= WALK
    assert len([line for line in out.splitlines() if line[:1].isdigit()]) == tried


def test_all_on_a_sparse_constrained_space_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = info(tmp_path, capsys, HUGE + "where: ['a > 998 and b > 998']\n", "--all")
    assert "parameter space: at most 1,000,000,000,000 point(s)" in out
    assert "points listed from the first" in out


def test_a_slow_constraint_makes_info_look_at_fewer_combinations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = info(tmp_path, capsys, HUGE + "where: ['sum(range(3000)) > a']\n")
    assert "parameter space: at most 1,000,000,000,000 point(s)" in out
    looked = out.split("points listed from the first ")[1].split(" of ")[0]
    assert int(looked.replace(",", "")) < WALK


def test_a_small_constrained_space_is_counted_and_listed_exactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "  a: [1, 2, 3, 4]\n  b: [1, 2, 3]\nwhere: ['a > b']\n"
    out = info(tmp_path, capsys, text, "--all")
    assert "parameter space: 6 point(s) of 12 before constraints" in out
    assert "step run: 6 workpackage(s)" in out
    assert "points listed" not in out and "more" not in out
    data = json.loads(info(tmp_path, capsys, text, "--all", "-f", "json"))
    assert data["points"] == 6 and data["points_exact"] and data["rows_complete"]
    assert sorted(data["rows"]) == [
        ["2", "1"],
        ["3", "1"],
        ["3", "2"],
        ["4", "1"],
        ["4", "2"],
        ["4", "3"],
    ]


def test_json_says_when_the_rows_are_not_every_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(info(tmp_path, capsys, "  a: [1, 2, 3]\n  b: [1, 2, 3, 4]\n", "-f", "json"))
    assert data["points"] == 12 and not data["rows_complete"] and len(data["rows"]) == 10


def test_constraints_that_leave_nothing_are_still_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.yaml"
    path.write_text("name: b\nparameters: {a: [1, 2]}\nwhere: ['a > 5']\nsteps:\n  run: {do: x}\n")
    assert main(["info", str(path)]) == 2
    assert "the constraints leave none of the 2 points" in capsys.readouterr().err


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
