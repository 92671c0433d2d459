"""A results database file someone else made is read only as far as it is jubex's: a
trigger, a view or a computed column refuses it (none ever runs), a published run that
names a place outside the cache or holds a hostile store is refused, and whatever is
damaged, ``result db:`` and ``publish`` end with exit 0 or 2 (real published SQLite files)."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.cli.main import main

#: seconds one command may take before the test calls it a hang (a guard, not a timing)
HANG = 120


@pytest.fixture(scope="module")
def published(made: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results database file holding the first run of the study, as publish made it."""
    folder = tmp_path_factory.mktemp("published")
    assert main(["publish", str(made / "000000"), "--database", str(folder / "live.sqlite")]) == 0
    source, path = sqlite3.connect(folder / "live.sqlite"), folder / "results.sqlite"
    copy = sqlite3.connect(path)
    source.backup(copy)
    copy.execute("PRAGMA journal_mode=DELETE")
    copy.close()
    source.close()
    return path


def changed(published: Path, tmp_path: Path, *sql: str) -> Path:
    path = tmp_path / "results.sqlite"
    shutil.copy(published, path)
    db = sqlite3.connect(path)
    for statement in sql:
        with suppress(sqlite3.OperationalError):  # one SQLite refuses after another
            db.executescript(statement)
    db.commit()
    db.close()
    return path


def _named(root: Path, name: str) -> list[str]:
    """The paths under ``root`` named ``name``. The other test processes' directories are
    under it too, and theirs come and go while it is walked (a run's work tree that mdtest
    empties): a directory gone meanwhile is passed over, as ``os.walk`` does."""
    return [
        os.path.join(folder, entry)
        for folder, folders, files in os.walk(root)
        for entry in (*folders, *files)
        if entry == name
    ]


@contextmanager
def bounded() -> Iterator[None]:
    def hung(*_: object) -> None:
        raise AssertionError(f"a command on a hostile results database ran over {HANG} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def runs_in(path: Path) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        db.close()


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        (
            "CREATE TRIGGER gone AFTER INSERT ON runs BEGIN DELETE FROM runs; END;",
            "holds the trigger 'gone'",
        ),
        (
            "CREATE VIEW endless AS WITH RECURSIVE c(x) AS "
            "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c;",
            "holds the view 'endless'",
        ),
        (
            "CREATE TRIGGER slow BEFORE UPDATE ON runs BEGIN SELECT 1; END;",
            "holds the trigger 'slow'",
        ),
        ("ALTER TABLE runs ADD COLUMN twice AS (id * 2);", "computed column"),
    ],
    ids=["deleting trigger", "recursive view", "trigger", "computed column"],
)
def test_a_database_with_schema_objects_jubex_never_makes_is_refused(
    published, made, tmp_path, capsys, sql, said
):
    path = changed(published, tmp_path, sql)
    with bounded():
        assert main(["publish", str(made / "000001"), "--database", str(path)]) == 2
        assert main(["result", "db:benchmark=dbstudy", "--database", str(path)]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err, err
    assert runs_in(path) == 1  # the trigger never ran, nothing was published


@pytest.mark.parametrize("column", ["site", "run_id", "run_key"])
def test_a_published_run_naming_a_place_outside_the_cache_is_refused(
    published, tmp_path, capsys, column
):
    path = changed(published, tmp_path, f"UPDATE runs SET {column} = '../../../../escaped';")
    with bounded():
        assert main(["result", "db:benchmark=dbstudy", "--database", str(path)]) == 2
    assert "names no place in the cache" in capsys.readouterr().err
    assert not _named(tmp_path.parent.parent, "escaped")


def test_a_published_store_with_a_trigger_is_refused_and_the_trigger_never_runs(
    published, tmp_path, capsys
):
    store = tmp_path / "sent.sqlite"
    db = sqlite3.connect(published)
    store.write_bytes(zlib.decompress(db.execute("SELECT body FROM stores").fetchone()[0]))
    db.close()
    hostile = sqlite3.connect(store)
    hostile.executescript(
        "CREATE TABLE touched (x); CREATE TRIGGER t AFTER INSERT ON meta "
        "BEGIN INSERT INTO touched VALUES (1); END;"
    )
    hostile.close()
    body = zlib.compress(store.read_bytes())
    path = changed(published, tmp_path, "SELECT 1;")
    db = sqlite3.connect(path)
    db.execute("UPDATE stores SET body = ?", (body,))
    db.execute("UPDATE runs SET run_key = 'f' || substr(run_key, 2)")
    db.commit()
    db.close()
    with bounded():
        assert main(["result", "db:benchmark=dbstudy", "--database", str(path)]) == 2
    assert "holds the trigger 't'" in capsys.readouterr().err


def test_a_published_store_that_unpacks_past_the_bound_is_refused(
    published, tmp_path, capsys, monkeypatch
):
    from jubex.resultsdb import select

    monkeypatch.setattr(select, "MAX_STORE", 1 << 20)
    bomb = zlib.compress(b"\0" * (8 << 20), 9)
    path = changed(published, tmp_path, "UPDATE runs SET run_key = 'e' || substr(run_key, 2);")
    db = sqlite3.connect(path)
    db.execute("UPDATE stores SET body = ?", (bomb,))
    db.commit()
    db.close()
    with bounded():
        assert main(["result", "db:benchmark=dbstudy", "--database", str(path)]) == 2
    assert "unpacks to more than 1,048,576 bytes" in capsys.readouterr().err


#: what a sender could do to a results database file
DAMAGE = [
    "CREATE TRIGGER t AFTER INSERT ON samples BEGIN DELETE FROM runs; END;",
    "CREATE TRIGGER t2 BEFORE DELETE ON runs BEGIN SELECT RAISE(ABORT, 'no'); END;",
    "CREATE VIEW v AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
    "SELECT x FROM c;",
    "DROP TABLE samples;",
    "DROP TABLE stores;",
    "DROP TABLE specs;",
    "DELETE FROM specs;",
    "DELETE FROM stores;",
    "UPDATE alembic_version SET version_num = '9999';",
    "DELETE FROM alembic_version;",
    "UPDATE runs SET created = 'yesterday';",
    "UPDATE runs SET provenance = '{[';",
    "UPDATE runs SET site = '';",
    "UPDATE runs SET benchmark = x'ff00';",
    "UPDATE specs SET body = '{\"benchmark\": 1}';",
    "UPDATE specs SET body = 'not json';",
    "UPDATE stores SET body = x'789c0000';",
    "UPDATE stores SET body = zeroblob(100);",
    "UPDATE samples SET value = 'NaN';",
    "UPDATE samples SET value = 1e999;",
    "UPDATE sample_packs SET numbers = x'00';",
    "UPDATE sample_layouts SET body = '[[1]]';",
    "UPDATE sample_packs SET layout = 99;",
    "UPDATE sample_packs SET repetitions = zeroblob(8), missing = 'x';",
    "DROP TABLE sample_packs;",
    "CREATE INDEX odd ON samples(value);",
    "CREATE TABLE extra (x);",
    "ALTER TABLE samples ADD COLUMN g AS (run * 2);",
]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    damage=st.lists(st.sampled_from(DAMAGE), max_size=3, unique=True),
    flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=3),
)
def test_a_damaged_results_database_is_read_or_refused_never_a_bug(
    published, made, tmp_path_factory, capsys, damage, flips
):
    """Schema objects added, tables dropped, values of the wrong type, bytes flipped: each
    command ends with 0 or 2 in one paragraph (each example with a cache of its own)."""
    home = tmp_path_factory.mktemp("damaged")
    path = changed(published, home, *damage)
    data = bytearray(path.read_bytes())
    for at, byte in flips:
        data[min(int(at * len(data)), len(data) - 1)] = byte
    path.write_bytes(bytes(data))
    cache = os.environ["XDG_CACHE_HOME"]
    os.environ["XDG_CACHE_HOME"] = str(home / "cache")
    try:
        with bounded():
            codes = [
                main(["result", "db:benchmark=dbstudy", "--database", str(path)]),
                main(["history", "db:benchmark=dbstudy", "-m", "bw", "--database", str(path)]),
                main(["publish", str(made / "000001"), "--database", str(path)]),
            ]
    finally:
        os.environ["XDG_CACHE_HOME"] = cache
    err = capsys.readouterr().err
    assert set(codes) <= {0, 2}, err
    assert "Traceback" not in err and "bug in jubex" not in err, err
