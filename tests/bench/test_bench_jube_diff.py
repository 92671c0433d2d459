"""The JUBE differential harness: what it counts as alike, and that it skips without a JUBE.

The harness itself runs JUBE; these tests check its judgement on hand-made tables and
databases, so that a difference it reports is a difference of the tools.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from jube_diff import endtoend  # noqa: E402
from jube_diff.endtoend import Tables  # noqa: E402


def grid(text: str) -> list[list[str]]:
    return endtoend._grid(text, {"/tmp/r/000003": "<RUN>", "/tmp/home": "<HOME>"})


def test_cells_lose_run_paths_and_time_stamps_and_tables_lose_notes() -> None:
    text = "n,where,when\n1,/tmp/r/000003/a,2024-05-01 10:11:12\n# written to x\n\n"
    assert grid(text) == [["n", "where", "when"], ["1", "<RUN>/a", "<TIME>"]]


def test_tables_alike_only_with_the_same_columns_rows_and_order() -> None:
    jube = {"t": grid("a,b\n1,2\n3,4\n")}
    assert endtoend._compare_tables(jube, {"t": grid("a,b\n1,2\n3,4\n")}) == "alike"
    assert "another order" in endtoend._compare_tables(jube, {"t": grid("a,b\n3,4\n1,2\n")})
    assert "columns" in endtoend._compare_tables(jube, {"t": grid("a,c\n1,2\n3,4\n")})
    assert "row 2" in endtoend._compare_tables(jube, {"t": grid("a,b\n1,2\n3,5\n")})
    assert "nothing" in endtoend._compare_tables(jube, {})
    assert endtoend._compare_tables({}, {}) == "none"


def database(path: Path, create: str, rows: list[tuple[object, ...]]) -> Path:
    with sqlite3.connect(path) as db:
        db.execute(create)
        db.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(rows[0]))})", rows)
    return path


def test_databases_compare_typed_columns_and_rows_in_any_order(tmp_path: Path) -> None:
    def read(name: str, create: str, rows: list[tuple[object, ...]]) -> Tables:
        return endtoend._read_databases([database(tmp_path / name, create, rows)], {})

    jube = read("a", "CREATE TABLE t (n int, x text)", [(1, "a"), (2, "b")])
    same = read("b", 'CREATE TABLE "t" ("n" INT, "x" TEXT)', [(2, "b"), (1, "a")])
    untyped = read("c", "CREATE TABLE t (n, x)", [(1, "a"), (2, "b")])
    other = read("d", "CREATE TABLE t (n int, x text)", [(1, "a"), (3, "b")])
    assert endtoend._compare_databases(jube, same) == "alike"
    assert "columns" in endtoend._compare_databases(jube, untyped)
    assert "rows" in endtoend._compare_databases(jube, other)
    assert endtoend._compare_databases({}, {}) == "none"


def test_without_a_jube_the_harness_says_so_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "jube_differential.py"), "--sources", str(tmp_path)],
        env={"PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("skipped: no JUBE") and done.stdout.count("\n") == 1


def test_ids_are_masked_only_in_the_values_that_hold_them() -> None:
    from jube_diff.plans import compare, without_ids

    jube = {"run": [{"job": "b_1", "n": "1"}, {"job": "b_2", "n": "2"}]}
    swapped = {"run": [{"job": "b_2", "n": "1"}, {"job": "b_3", "n": "2"}]}
    assert compare(jube, swapped)[1]
    assert not compare(without_ids(jube, {"job"}), without_ids(swapped, {"job"}))[1]
    other = {"run": [{"job": "b_2", "n": "1"}, {"job": "b_3", "n": "3"}]}
    assert compare(without_ids(jube, {"job"}), without_ids(other, {"job"}))[1]
    renamed = {"run": [{"job": "c_2", "n": "1"}, {"job": "c_3", "n": "2"}]}
    assert compare(without_ids(jube, {"job"}), without_ids(renamed, {"job"}))[1]


def test_jubex_values_compare_without_white_space_at_their_ends() -> None:
    from jube_diff.jubex import _jubex_plan

    data = {"workpackages": [{"step": "s", "parameters": {"x": "a \n", "y": " b c"}}]}
    plan = _jubex_plan(data, Path("/nowhere"))
    assert plan == {"s": [{"x": "a", "y": "b c", "jube_wp_iteration": "0"}]}


DATABASE = """<jube><benchmark name="db" outpath="bench_run">
  <parameterset name="p"><parameter name="number" type="int">1,2</parameter></parameterset>
  <patternset name="pats">
    <pattern name="got" type="int">Number: $jube_pat_int</pattern>
  </patternset>
  <step name="write"><use>p</use><do>echo "Number: $number"</do></step>
  <analyser name="a"><use>pats</use><analyse step="write"><file>stdout</file></analyse></analyser>
  <result><use>a</use><database name="results" primekeys="number">
    <key>number</key><key>got</key>
  </database></result>
</benchmark></jube>"""


def test_the_database_jubex_result_names_is_read(tmp_path: Path) -> None:
    from jube_diff.cases import Case
    from jube_diff.env import Namespace
    from jube_diff.jubex import Jubex

    sources, scratch = tmp_path / "src", tmp_path / "scratch"
    (sources / "db").mkdir(parents=True)
    (sources / "db" / "db.xml").write_text(DATABASE)
    scratch.mkdir()
    jubex = Jubex(sys.executable, Namespace(scratch))
    results = endtoend._jubex_results(Case("db", "db/db.xml"), sources, jubex, scratch, [])
    assert results.error == ""
    columns, rows = results.databases["results"]
    assert columns == ["number int", "got int"]
    assert rows == [("1", "1"), ("2", "2")]
