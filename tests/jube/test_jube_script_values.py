"""Shell, perl and env parameters whose result holds the separator are several values.

JUBE runs the command (or reads the variable), and a result holding the parameter's
separator becomes a template: one workpackage per piece, each stripped. The expected points
are what JUBE 2.7.1 plans for the same file (``jube run`` then ``jube info -i last -s run -c
,``: 24 workpackages, 3 x 2 x 2 x 2).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from jubex.api import load
from jubex.definition.jube.convert import convert_file
from jubex.space.plan import plan

SCRIPTS = """<jube><benchmark name="s" outpath="runs">
  <parameterset name="p">
    <parameter name="n" mode="shell" type="int">echo "1,2,4"</parameter>
    <parameter name="pl" mode="perl">join(',',7,8)</parameter>
    <parameter name="semi" mode="shell" separator=";">echo "x;y"</parameter>
    <parameter name="ev" mode="env">JUBEX_TEST_LIST</parameter>
    <parameter name="one" mode="shell">echo "a b"</parameter>
  </parameterset>
  <step name="run"><use>p</use><do>echo $n $pl $semi $ev $one</do></step>
</benchmark></jube>"""

NAMES = ("n", "pl", "semi", "ev", "one")


def points(path: Path) -> list[tuple[object, ...]]:
    return sorted(tuple(wp.point[n] for n in NAMES) for wp in plan(load(path)))


@pytest.fixture
def scripts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file, with the variable its env parameter reads set to two values."""
    monkeypatch.setenv("JUBEX_TEST_LIST", "u, v")
    path = tmp_path / "s.xml"
    path.write_text(SCRIPTS)
    return path


def test_a_result_holding_the_separator_is_one_point_per_piece_as_in_jube(scripts: Path) -> None:
    expected = sorted(
        (n, pl, semi, ev, "a b")
        for n in (1, 2, 4)
        for pl in (7, 8)
        for semi in ("x", "y")
        for ev in ("u", "v")
    )
    assert points(scripts) == expected


def test_the_converted_file_keeps_the_separators_and_plans_the_same_points(scripts: Path) -> None:
    out = scripts.with_suffix(".yaml")
    out.write_text(convert_file(scripts, out))
    written = yaml.safe_load(out.read_text())["parametersets"]["p"]
    assert written["semi"] == {"shell": 'echo "x;y"', "separator": ";"}
    assert written["ev"] == {"env": "JUBEX_TEST_LIST", "separator": ","}
    assert points(out) == points(scripts)


def test_in_jubexs_own_format_a_shell_value_splits_only_when_given_a_separator(
    tmp_path: Path,
) -> None:
    path = tmp_path / "own.yaml"
    path.write_text(
        "name: own\nparameters:\n"
        "  kept: {shell: 'echo 1,2'}\n"
        "  split: {shell: 'echo 1,2', separator: ',', type: int}\n"
        "steps:\n  run: {do: echo $kept $split}\n"
    )
    assert [(wp.point["kept"], wp.point["split"]) for wp in plan(load(path))] == [
        ("1,2", 1),
        ("1,2", 2),
    ]


def test_a_jube_files_shell_parameter_runs_where_jube_runs_it_the_directory_started_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "here").mkdir()
    path = tmp_path / "suite" / "where.xml"
    path.write_text(
        '<jube><benchmark name="w" outpath="runs"><parameterset name="p">'
        '<parameter name="dir" mode="shell">pwd</parameter></parameterset>'
        '<step name="run"><use>p</use><do>echo $dir</do></step></benchmark></jube>'
    )
    monkeypatch.chdir(tmp_path / "here")
    (wp,) = plan(load(path))
    assert wp.point["dir"] == str((tmp_path / "here").resolve())
