"""``jubex history`` of a selector reads the samples of 1,000 published runs and finds the
step planted in them; it gives what the history of the same runs as directories gives."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import sqlalchemy as sa

from jubex.cli.main import main
from jubex.resultsdb.connect import Database
from jubex.resultsdb.packs import pack_stored
from jubex.resultsdb.publish import publish
from jubex.store.rundir import open_run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from resultsdb_fill import fill, template_of


def test_a_step_in_a_thousand_published_runs_is_the_one_change_point(database, made, capsys):
    db = Database(database)
    publish(db, open_run(made / "000000"))
    fill(db, template_of(db), runs=1000, series=1, metrics=3, reps=5, step_at=600)
    main(
        [
            "history",
            "db:benchmark=bench,transfer=1MiB",
            "-m",
            "m00,m01",
            "--database",
            database,
            "-f",
            "json",
        ]
    )
    records = json.loads(capsys.readouterr().out)["rows"]
    assert len(records) == 2000
    marked = [(r["metric"], r["run"], r["change_point"]) for r in records if r["change_point"]]
    assert marked == [("m00", "000600", "worse")]


def test_history_of_a_selector_is_the_history_of_the_run_directories(database, made, capsys):
    main(["publish", str(made / "000000"), str(made / "000001"), "--database", database])
    capsys.readouterr()
    main(["history", str(made / "000000"), str(made / "000001"), "-m", "bw", "-f", "json"])
    from_directories = json.loads(capsys.readouterr().out)
    main(["history", "db:benchmark=dbstudy", "-m", "bw", "--database", database, "-f", "json"])
    from_database = json.loads(capsys.readouterr().out)
    assert from_database["rows"] == from_directories["rows"]


def test_a_repetition_that_measured_nothing_leaves_the_others_followed(database, made, capsys):
    """A point's repetitions are one row of the history: the first repetition's missing
    value neither hides the metric from the default choice nor counts as a sample."""
    main(["publish", str(made / "000000"), str(made / "000001"), "--database", database])
    engine = sa.create_engine(Database(database).url)
    with engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE samples SET value = NULL WHERE metric = 'bw' AND repetition = 0")
        )
        connection.execute(sa.text("DELETE FROM sample_packs"))  # packed again, as changed
        pack_stored(connection)
    engine.dispose()
    capsys.readouterr()
    main(["history", "db:benchmark=dbstudy", "--database", database, "-f", "json"])
    rows = json.loads(capsys.readouterr().out)["rows"]
    bw = [row for row in rows if row["metric"] == "bw"]
    assert [(row["point"], row["n"]) for row in bw] == [("a", 4), ("a", 4), ("b", 4), ("b", 4)]
    assert bw[0]["mean"] == 1025  # level 1000, repetitions 1-4: 1010, 1020, 1030, 1040
