"""JUBE's update_mode cycle and always, run for real on the local platform.

JUBE evaluates a parameter of update_mode ``cycle`` (or ``always``) again at the start of
every cycle of a workpackage, with ``$jube_wp_cycle`` set, before its commands run; what it
keeps for the workpackage (and shows in tables) is the value of the last cycle.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.store.rundir import open_run


def run_jube(tmp_path: Path, body: str) -> Path:
    """Run a JUBE file holding ``body`` in its benchmark; the run directory."""
    path = tmp_path / "bench.xml"
    path.write_text(f'<jube><benchmark name="b" outpath="runs">{body}</benchmark></jube>')
    runs = tmp_path / "runs"
    assert main(["run", str(path), "--outpath", str(runs), "-q", "--no-result"]) == 0
    return runs / "000000"


def lines(run_dir: Path, step: str, name: str) -> list[list[str]]:
    """The lines a file of each workpackage of a step holds, one list per workpackage."""
    run = open_run(run_dir)
    return [
        (run_dir / wp.dir_name / "work" / name).read_text().splitlines()
        for wp in run.store.workpackages()
        if wp.step == step
    ]


CYCLED = """
<parameterset name="p">
  <parameter name="x" mode="python" type="int" update_mode="cycle">${jube_wp_cycle} * 10</parameter>
</parameterset>
<patternset name="pats"><pattern name="last" type="int">^$jube_pat_int$</pattern></patternset>
<step name="loop" cycles="3">
  <use>p</use>
  <do>echo $x >> values</do>
</step>
<analyser name="a" reduce="false">
  <use>pats</use><analyse step="loop"><file>values</file></analyse>
</analyser>
<result><use>a</use><table name="t" style="csv"><column>x</column><column>last_max</column>
</table></result>
"""


def test_a_cycle_parameter_takes_each_cycles_value(tmp_path: Path) -> None:
    run_dir = run_jube(tmp_path, CYCLED)
    assert lines(run_dir, "loop", "values") == [["0", "10", "20"]]


def test_the_table_shows_the_last_cycles_value_as_jube_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = run_jube(tmp_path, CYCLED)
    (wp,) = open_run(run_dir).store.workpackages()
    assert str(wp.point["x"]) == "20"
    capsys.readouterr()
    assert main(["result", str(run_dir), "-T", "t", "-f", "csv"]) == 0
    (row,) = csv.DictReader(io.StringIO(capsys.readouterr().out.strip()))
    assert (row["x"], row["last_max"]) == ("20", "20")


def test_the_dry_run_shows_the_last_cycles_value_as_the_run_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(f'<jube><benchmark name="b" outpath="runs">{CYCLED}</benchmark></jube>')
    capsys.readouterr()
    assert main(["run", str(path), "--outpath", str(tmp_path / "runs"), "--dry-run"]) == 0
    assert "x=20" in capsys.readouterr().out
    argv = ["run", str(path), "--outpath", str(tmp_path / "runs"), "--dry-run", "-f", "json"]
    assert main(argv) == 0
    (wp,) = json.loads(capsys.readouterr().out)["workpackages"]
    assert wp["parameters"]["x"] == "20"
    assert wp["cycles"] == [["echo 0 >> values"], ["echo 10 >> values"], ["echo 20 >> values"]]


def test_dependents_follow_when_they_are_evaluated_per_cycle_too(tmp_path: Path) -> None:
    run_dir = run_jube(
        tmp_path,
        """
<parameterset name="p">
  <parameter name="n" type="int">1,2</parameter>
  <parameter name="x" mode="python" type="int" update_mode="cycle">${jube_wp_cycle} * 10</parameter>
  <parameter name="y" mode="python" type="int" update_mode="cycle">$x + $n</parameter>
  <parameter name="tag" update_mode="cycle">n$n-y$y</parameter>
  <parameter name="kept" mode="python" type="int">$x + 100</parameter>
</parameterset>
<step name="loop" cycles="3"><use>p</use><do>echo $y $tag $kept >> values</do></step>
""",
    )
    got = sorted(lines(run_dir, "loop", "values"))
    assert got == [
        ["1 n1-y1 100", "11 n1-y11 100", "21 n1-y21 100"],
        ["2 n2-y2 100", "12 n2-y12 100", "22 n2-y22 100"],
    ]
    params = sorted(
        (str(wp.point["y"]), str(wp.point["tag"]), str(wp.point["kept"]))
        for wp in open_run(run_dir).store.workpackages()
    )
    assert params == [("21", "n1-y21", "100"), ("22", "n2-y22", "100")]


def test_always_is_evaluated_per_cycle_in_every_step(tmp_path: Path) -> None:
    run_dir = run_jube(
        tmp_path,
        """
<parameterset name="p">
  <parameter name="step_cycle" update_mode="always">${jube_step_name}:${jube_wp_cycle}</parameter>
  <parameter name="twice" mode="python" update_mode="always">2 * $jube_wp_cycle</parameter>
</parameterset>
<step name="first" cycles="2"><use>p</use><do>echo $step_cycle $twice >> seen</do></step>
<step name="second" depend="first" cycles="3"><do>echo $step_cycle $twice >> seen</do></step>
""",
    )
    assert lines(run_dir, "first", "seen") == [["first:0 0", "first:1 2"]]
    assert lines(run_dir, "second", "seen") == [["second:0 0", "second:1 2", "second:2 4"]]
    kept = {
        wp.step: {k: str(v) for k, v in wp.point.items()}
        for wp in open_run(run_dir).store.workpackages()
    }
    assert kept["first"] == {"step_cycle": "first:1", "twice": "2"}
    assert kept["second"] == {"step_cycle": "second:2", "twice": "4"}


def test_files_are_substituted_with_the_first_cycles_values(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("x is #X#\n")
    run_dir = run_jube(
        tmp_path,
        """
<parameterset name="p">
  <parameter name="x" mode="python" type="int" update_mode="cycle">${jube_wp_cycle} + 5</parameter>
</parameterset>
<fileset name="f"><copy>in.txt</copy></fileset>
<substituteset name="s"><iofile in="in.txt" out="out.txt"/><sub source="#X#" dest="$x"/>
</substituteset>
<step name="loop" cycles="2"><use>p,f,s</use><do>echo $x >> values</do></step>
""",
    )
    assert lines(run_dir, "loop", "out.txt") == [["x is 5"]]
    assert lines(run_dir, "loop", "values") == [["5", "6"]]


def test_a_computed_list_evaluated_per_cycle_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bench.xml"
    path.write_text(
        '<jube><benchmark name="b" outpath="runs"><parameterset name="p">'
        '<parameter name="x" update_mode="cycle">a$jube_wp_cycle,b</parameter>'
        '</parameterset><step name="s" cycles="2"><use>p</use><do>echo $x</do></step>'
        "</benchmark></jube>"
    )
    assert main(["run", str(path), "--outpath", str(tmp_path / "runs"), "-q"]) != 0
    err = capsys.readouterr().err
    assert "bench.xml:1" in err and "several values computed from other values" in err
    assert not (tmp_path / "runs").exists()
