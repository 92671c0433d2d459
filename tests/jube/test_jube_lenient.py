"""What JUBE 2.7.1 passes over, jubex reports as a warning and runs as JUBE does.

The files are in ``corpus/lenient/``; the tables below were produced by ``jube run`` and
``jube result`` of JUBE 2.7.1 on the same files.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from jubex.api import validate
from jubex.cli.main import main
from jubex.errors import DefinitionError, DefinitionWarning
from jubex.store.rundir import open_run

LENIENT = Path(__file__).resolve().parent / "corpus" / "lenient"


def test_validate_lists_what_jube_ignores_with_file_and_line() -> None:
    problems = validate([LENIENT / "ignored.xml"])
    assert all(isinstance(p, DefinitionWarning) for p in problems)
    assert [(p.loc.line if p.loc else 0, p.message.split(";")[0]) for p in problems] == [
        (5, "<parameter> attribute 'default' is not one JUBE reads"),
        (6, "<parameter> attribute 'seperator' is not one JUBE reads"),
        (7, "parameter 'flag': type \"bool\" is not one JUBE knows"),
        (9, "<step> attribute 'comment' is not one JUBE reads"),
    ]
    assert problems[1].hint == "did you mean 'separator'?"


def test_validate_exits_zero_and_prints_the_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(LENIENT / "ignored.xml")]) == 0
    out = capsys.readouterr().out
    assert "ignored.xml:6: warning: <parameter> attribute 'seperator'" in out
    assert "0 error(s), 4 warning(s)" in out


def test_run_prints_each_warning_once_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    assert main(["run", str(LENIENT / "ignored.xml"), "--outpath", str(runs), "-q"]) == 1
    err = capsys.readouterr().err  # wp a;b fails as in JUBE: `echo 1 a;b yes` runs `b`
    assert err.count("attribute 'default' is not one JUBE reads") == 1
    assert err.count("warning:") == 4


def test_an_unused_tag_is_a_warning_and_tags_of_loaded_files_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(LENIENT / "tags_from.xml")
    assert main(["run", "--dry-run", path, "-t", "large"]) == 0
    captured = capsys.readouterr()
    assert "size=100" in captured.out and "warning" not in captured.err
    assert main(["run", "--dry-run", path, "-t", "nosuch"]) == 0
    assert "tag 'nosuch' is not known" in capsys.readouterr().err
    assert main(["validate", path, "-t", "nosuch"]) == 0


@pytest.mark.parametrize("name", ["two_benchmarks.xml", "benchmark_list.yaml"])
def test_several_benchmarks_run_one_after_another_as_jube_runs_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    runs = tmp_path / "runs"
    assert main(["run", str(LENIENT / name), "--outpath", str(runs), "--dry-run"]) == 0
    planned = capsys.readouterr().out.split("benchmark 'second' (2 of 2):")
    assert f"in {runs}/000000/" in planned[0] and f"in {runs}/000001/" in planned[1]
    assert f"{runs}/000001/" not in planned[0] and not runs.exists()
    assert main(["run", str(LENIENT / name), "--outpath", str(runs), "-q"]) == 0
    out = capsys.readouterr().out
    assert "benchmark 'first' (1 of 2):" in out and "benchmark 'second' (2 of 2):" in out
    made = [open_run(runs / f"00000{i}").benchmark.name for i in range(2)]
    assert made == ["first", "second"] and not (runs / "000002").exists()
    assert main(["run", str(LENIENT / name), "--outpath", str(runs), "-q", "-b", "second"]) == 0
    assert open_run(runs / "000002").benchmark.name == "second"
    assert not (runs / "000003").exists()


def test_validate_checks_each_benchmark_and_the_others_read_one_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "two.xml"
    broken = (
        (LENIENT / "two_benchmarks.xml")
        .read_text()
        .replace(
            '<benchmark name="second" outpath="runs"><step name="s">',
            '<benchmark name="second" outpath="runs"><step name="s"><use>nosuch</use>',
        )
    )
    path.write_text(broken)
    problems = validate([path])
    assert [type(p) for p in problems] == [DefinitionWarning, DefinitionError]
    assert "jubex run and validate take each in turn" in problems[0].message
    assert "nosuch" in problems[1].message and problems[1].loc and problems[1].loc.line == 3
    capsys.readouterr()
    assert main(["run", str(path), "--dry-run", "-f", "json"]) == 2
    assert "--format json plans one" in capsys.readouterr().err
    assert main(["convert", str(LENIENT / "two_benchmarks.xml")]) == 2
    assert "convert each with --benchmark NAME" in capsys.readouterr().err
    assert main(["convert", str(LENIENT / "two_benchmarks.xml"), "-b", "second"]) == 0
    assert "name: second" in capsys.readouterr().out
    assert main(["info", str(path), "-b", "third"]) == 2
    assert "the file holds no benchmark 'third' (it holds first, second)" in (
        capsys.readouterr().err
    )


def test_reducing_and_keeping_analysers_of_one_step_give_jube_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    run = ["run", str(LENIENT / "mixed_reduce.xml"), "--outpath", str(runs), "-q", "-j", "1"]
    assert main(run) == 0  # one at a time: no note on shared machines among the rows
    capsys.readouterr()
    assert main(["result", str(runs / "000000"), "-f", "csv"]) == 0
    assert capsys.readouterr().out.split() == [
        "jube_res_analyser,foo,val_min,val_max,val_cnt",
        "each,1,10,10,1",
        "each,1,11,11,1",
        "each,2,20,20,1",
        "each,2,21,21,1",
        "merged,1,10,11,2",
        "merged,2,20,21,2",
    ]


def test_analyzer_spelling_and_a_primekey_named_by_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "analyzer.xml"
    shutil.copy(LENIENT / "analyzer.xml", source)
    assert validate([source]) == []
    assert main(["run", str(source), "--outpath", str(tmp_path / "runs"), "-q"]) == 0
    assert "1,1" in capsys.readouterr().out.split()
    (database,) = tmp_path.rglob("numbers.db")
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT * FROM results ORDER BY number").fetchall() == [(1, 1), (2, 2)]
        (sql,) = db.execute("SELECT sql FROM sqlite_master").fetchone()
    assert sql.endswith('PRIMARY KEY ("NUM"))')  # the key's column: its title, as in JUBE


YAML = """\
name: y
outpath: runs
parameterset: {name: p, parameter: {name: flag, type: str, _: "--on"}}
step: {name: a, comment: "not read", use: p, do: echo $flag}
analyzer: {name: an, analyse: {step: a, file: stdout}}
"""


def test_jube_yaml_keys_jube_does_not_read_are_warnings(tmp_path: Path) -> None:
    """JUBE's YAML knows no analyzer key: it becomes an attribute, which JUBE ignores."""
    path = tmp_path / "y.yaml"
    path.write_text(YAML)
    problems = validate([path])
    assert all(isinstance(p, DefinitionWarning) for p in problems)
    assert sorted((p.loc.line if p.loc else 0, p.message.split(";")[0]) for p in problems) == [
        (3, "parameter 'flag': type \"str\" is not one JUBE knows"),
        (4, "<step> attribute 'comment' is not one JUBE reads"),
        (5, "<benchmark> attribute 'analyzer' is not one JUBE reads"),
    ]
