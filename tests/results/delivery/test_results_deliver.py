"""Tables written where their definition sends them, and the text ``jubex result`` prints."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from jubex.cli.main import main
from jubex.results.delivery.deliver import deliver, report
from jubex.results.tables.tabulate import tabulate
from jubex.store.rundir import Run


def built(run: Run, name: str = "bandwidth"):  # type: ignore[no-untyped-def]
    """A table and its result, without the note that its repetitions ran side by side."""
    table = run.benchmark.tables[name]
    (result,) = tabulate([run], [name])
    result.notes = [note for note in result.notes if not note.startswith("concurrent:")]
    return table, result


def test_a_database_is_written_even_without_targets(
    synthetic: dict[str, Run], tmp_path: Path
) -> None:
    table, result = built(synthetic["000000"])
    target = tmp_path / "results.db"
    table = replace(table, database=str(target), primekeys=("point",))
    assert deliver(table, result, synthetic["000000"], targets=False) is None
    assert result.notes == [f"written to the database {target}"]
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT point, bw_n FROM bandwidth").fetchall() == [("a", 2), ("b", 2)]


def test_a_result_dir_is_written_only_for_targets(
    synthetic: dict[str, Run], tmp_path: Path
) -> None:
    run = synthetic["000000"]
    table, result = built(run)
    table = replace(table, result_dir=str(tmp_path / "out"))
    assert deliver(table, result, run, targets=False) is None
    assert not (tmp_path / "out").exists() and result.notes == []
    assert deliver(table, result, run) is None
    path = tmp_path / "out" / run.id / "bandwidth.dat"
    assert result.notes == [f"written to {path}"]
    assert "bw_mean [GiB/s]" in path.read_text()


def test_the_report_renders_each_table_in_its_style_or_the_format_asked(
    synthetic: dict[str, Run],
) -> None:
    text = report([synthetic["000000"]], ["bandwidth", "per_run"], "csv")
    assert text.splitlines()[0] == "point,bw_n,bw_mean [GiB/s],t_mean [s]"
    assert "\nrun,point,bw_mean [MiB/s]\r\n" in text
    assert "bw_mean [GiB/s]" in report([synthetic["000000"]], ["bandwidth"])


JUBE_DATABASE = """<?xml version="1.0" encoding="UTF-8"?>
<jube>
  <benchmark name="db" outpath="runs">
    <parameterset name="p">
      <parameter name="n" type="int">3,1</parameter>
      <parameter name="label">x</parameter>
    </parameterset>
    <patternset name="pat">
      <pattern name="twice" type="int">twice=$jube_pat_int</pattern>
    </patternset>
    <step name="s">
      <use>p</use>
      <do>echo "twice=$(( $n * 2 ))"</do>
    </step>
    <analyser name="a">
      <use>pat</use>
      <analyse step="s"><file>stdout</file></analyse>
    </analyser>
    <result>
      <use>a</use>
      <database name="numbers" primekeys="DOUBLE">
        <key primekey="true">n</key>
        <key title="DOUBLE">twice</key>
        <key title="what">label</key>
      </database>
    </result>
  </benchmark>
</jube>
"""


def test_a_jube_database_is_the_one_jube_writes(tmp_path: Path) -> None:
    """JUBE 2.7.1 writes, for this file, ``runs/000000/result/numbers.dat`` holding
    ``CREATE TABLE numbers (n int, DOUBLE int, what text, PRIMARY KEY ('DOUBLE', 'n'))`` and
    the rows (3, 6, 'x'), (1, 2, 'x'): columns named by title, a primekey naming a title."""
    (tmp_path / "db.xml").write_text(JUBE_DATABASE)
    assert main(["run", str(tmp_path / "db.xml"), "--outpath", str(tmp_path / "runs"), "-q"]) == 0
    with sqlite3.connect(tmp_path / "runs" / "000000" / "result" / "numbers.dat") as db:
        info = db.execute("PRAGMA table_info(numbers)").fetchall()
        rows = db.execute("SELECT * FROM numbers").fetchall()
    assert [(c[1], c[2].lower()) for c in info] == [
        ("n", "int"),
        ("DOUBLE", "int"),
        ("what", "text"),
    ]
    assert {c[1] for c in info if c[5]} == {"n", "DOUBLE"}
    assert rows == [(3, 6, "x"), (1, 2, "x")]
