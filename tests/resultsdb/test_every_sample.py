"""The database is the run, losslessly: every sample of every execution, and the commands
that read samples give what the run directories give."""

from __future__ import annotations

import json
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

import jubex.resultsdb.migrations
from jubex.cli.main import main
from jubex.resultsdb.connect import Database


def json_of(capsys, *argv: str) -> dict:
    assert main(list(argv)) in (0, 1), capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_every_iteration_of_every_execution_is_a_sample(database, repeated, capsys):
    runs = [str(repeated / "000000"), str(repeated / "000001")]
    main(["publish", *runs, "--database", database])
    capsys.readouterr()
    rows = json_of(
        capsys, "query", "write_bw", "db:id=000000", "--database", database, "-f", "json"
    )["rows"]
    assert len(rows) == 15  # 3 executions of ior -i 5
    assert [(r["repetition"], r["iteration"]) for r in rows] == [
        (r, i) for r in range(3) for i in range(5)
    ]
    assert [r["write_bw"] for r in rows[:5]] == [8364, 4870, 2749.63, 2798.94, 2807.26]


def test_history_from_the_database_is_the_history_of_the_directories(database, repeated, capsys):
    runs = [str(repeated / "000000"), str(repeated / "000001")]
    main(["publish", *runs, "--database", database])
    capsys.readouterr()
    metrics = ["-m", "write_bw,read_bw", "-f", "json"]
    from_directories = json_of(capsys, "history", *runs, *metrics)
    from_database = json_of(
        capsys, "history", "db:benchmark=iorrep", "--database", database, *metrics
    )
    assert from_database["rows"] == from_directories["rows"]
    assert {row["n"] for row in from_database["rows"]} == {15}


def _at(url: str, revision: str, step: str) -> None:
    """Move the database's schema to ``revision`` (``upgrade`` or ``downgrade``)."""
    config = Config()
    config.set_main_option("script_location", str(Path(jubex.resultsdb.migrations.__file__).parent))
    engine = sa.create_engine(Database(url).url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        getattr(command, step)(config, revision)
    engine.dispose()


def test_a_run_published_with_its_first_iterations_only_is_read_whole_and_said(
    database, repeated, capsys
):
    main(["publish", str(repeated / "000000"), "--database", database])
    capsys.readouterr()
    _at(database, "0002", "downgrade")  # as the first schema held it: a sample per execution
    Database(database).ensure_schema()  # migrated again: the run is marked
    engine = sa.create_engine(Database(database).url)
    with engine.connect() as connection:
        assert connection.execute(sa.text("SELECT every_sample FROM runs")).all() == [(False,)]
        assert (
            connection.execute(
                sa.text("SELECT count(*) FROM samples WHERE metric = 'write_bw'")
            ).scalar()
            == 3
        )
    engine.dispose()
    query = json_of(capsys, "query", "write_bw", "db:", "--database", database, "-f", "json")
    assert len(query["rows"]) == 15
    assert any("published before the database kept every sample" in n for n in query["notes"])
    history = json_of(
        capsys, "history", "db:", "-m", "write_bw", "--database", database, "-f", "json"
    )
    assert [row["n"] for row in history["rows"]] == [15]
    assert any("000000" in n and "every sample" in n for n in history["notes"])
