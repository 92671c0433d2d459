"""The read queries of a selector: one SQL text for both back ends, run on a SQLite file
by SQLite's own driver, so that ``history db:`` and ``query`` never import SQLAlchemy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL

from jubex.cli.main import main
from jubex.resultsdb import schema
from jubex.resultsdb.connect import HEAD, Database, masked_url
from jubex.resultsdb.samples import read_samples
from jubex.resultsdb.sql import RunRow

#: run a jubex command, then print its output's last line and whether SQLAlchemy was imported
PROBE = """
import contextlib, io, json, sys
from jubex.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps([code, out.getvalue(), sorted({m.split('.')[0] for m in sys.modules}
                                                & {'sqlalchemy', 'alembic', 'scipy'})]))
"""


@pytest.fixture
def filled(made: Path, tmp_path: Path) -> str:
    path = str(tmp_path / "results.sqlite")
    assert main(["publish", "-i", "all", "--outpath", str(made), "--database", path]) == 0
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["history", "db:benchmark=dbstudy,point=a", "-m", "bw"],
        ["query", "bw", "db:benchmark=dbstudy,last=1"],
    ],
)
def test_reading_a_sqlite_file_imports_neither_sqlalchemy_nor_scipy(filled, command):
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *command, "--database", filled],
        capture_output=True,
        text=True,
        check=True,
    )
    code, out, imported = json.loads(done.stdout.splitlines()[-1])
    assert code == 0 and "bw" in out
    assert imported == []


def test_the_same_selection_reads_the_same_samples_from_a_file_by_either_driver(filled, made):
    """The SQL text run by SQLite's driver and by SQLAlchemy's (PostgreSQL's way)."""
    by_path = read_samples("db:benchmark=dbstudy,point=b", ["bw", "t"], Database(filled))
    by_url = read_samples(
        "db:benchmark=dbstudy,point=b", ["bw", "t"], Database(f"sqlite:///{filled}")
    )
    assert by_path.items == by_url.items and by_path.points == by_url.points
    assert len(by_path.items) == 2 * 2 * 5  # two runs, two metrics, five repetitions
    assert all(s.higher_is_better is (s.metric == "bw") for s in by_path.items)


def test_a_run_row_is_the_runs_table_and_head_is_alembics():
    assert RunRow._fields == tuple(schema.runs.c.keys())
    config = Config()
    config.set_main_option("script_location", str(Path(schema.__file__).parent / "migrations"))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD


@pytest.mark.parametrize("name", ["a b.sqlite", "a@b:c.sqlite", "%41?x#y+z.sqlite", "é.sqlite"])
def test_a_file_is_named_as_sqlalchemy_names_it(tmp_path, name):
    path = tmp_path / name
    expected = URL.create("sqlite", database=str(path)).render_as_string(hide_password=True)
    assert Database(str(path)).name == masked_url(expected)


@pytest.mark.parametrize(
    ("selector", "sorted_in_order"),
    [
        ("db:", True),
        ("db:benchmark=dbstudy,site=local", True),  # a group of a site: a history's runs
        ("db:site=local", True),
        ("db:benchmark=dbstudy,point=a", False),
        ("db:last=1", False),
    ],
)
def test_the_samples_are_found_by_their_point_run_by_run(
    filled: str, selector: str, sorted_in_order: bool
) -> None:
    """SQLite's plan for a selection's samples starts from its runs and finds each point's
    pack by its key: never a scan of every run's packs. Where the runs come from an index
    in time order (all of them, a benchmark at a site, a site), the packs come in the
    order asked for, with no sort."""
    import sqlite3

    from jubex.resultsdb.select import parse
    from jubex.resultsdb.sql import packs_query

    query = packs_query(parse(selector))
    with sqlite3.connect(filled) as db:
        plan = [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {query.text}", query.params)]
    assert not any(step.startswith("SCAN sample_packs") for step in plan), plan
    by_key = "SEARCH sample_packs USING INTEGER PRIMARY KEY"
    assert any(step.startswith(by_key) for step in plan), plan
    if sorted_in_order:
        assert not any("TEMP B-TREE" in step for step in plan), plan
