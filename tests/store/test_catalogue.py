"""The catalogue of an outpath answers for stores at rest, and never for a store that
changed since it was catalogued: any commit, a WAL file beside it, a rewritten exit file
(analysed again, until every exit file was found as read at the store's state), a damaged
or edited catalogue, a change too recent to tell."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

import jubex
from jubex.analysis import run as analysis_run
from jubex.api import analyse_runs
from jubex.results.tables.tabulate import rows_of
from jubex.store import catalogue
from jubex.store.catalogue import NAME, entries, identity, save_catalogues
from jubex.store.rundir import Run, open_run
from jubex.store.store import Store

DEFINITION = """
name: cat
parameters:
  x: [1, 2]
patterns:
  p:
    bw: {regex: "bw: ([0-9.]+)", type: float, unit: MiB/s}
steps:
  work:
    do: 'echo "bw: $x.5"'
    analyse: [p]
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("made")
    (home / "cat.yaml").write_text(DEFINITION)
    run, _ = jubex.run(jubex.resolve(home / "cat.yaml"))
    run.store.close()
    return run.dir


@pytest.fixture
def run_dir(made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the run in an outpath of its own; any change counts as old enough."""
    monkeypatch.setattr(catalogue, "RACY", 0)
    monkeypatch.setattr(catalogue, "_catalogues", {})
    shutil.copytree(made, tmp_path / "runs" / "000000")
    return tmp_path / "runs" / "000000"


#: the analysed steps of the definition's runs
STEPS = frozenset({"work"})


@pytest.fixture(autouse=True)
def learning(monkeypatch: pytest.MonkeyPatch) -> None:
    """As inside :func:`catalogued`, the saving left to each test."""
    monkeypatch.setattr(catalogue, "_learning", [True])


def read(run_dir: Path) -> tuple[Run, list[dict[str, object]]]:
    """A run opened as a command reading it once opens it, and its rows."""
    run = open_run(run_dir, follow=False)
    analyse_runs([run])
    return run, [dict(row) for row in rows_of([run], per_iteration=True, names=["bw"])]


def catalogued(run_dir: Path) -> list[dict[str, object]]:
    """Read the run and save what was read: the rows read."""
    _, rows = read(run_dir)
    assert save_catalogues() == 1
    catalogue._catalogues.clear()
    assert entries(run_dir.parent) == [run_dir.name]
    return rows


def test_a_run_read_again_is_answered_from_the_catalogue_without_opening_its_store(
    run_dir: Path,
) -> None:
    rows = catalogued(run_dir)
    run, again = read(run_dir)
    assert again == rows and [r["bw"] for r in rows] == [1.5, 2.5]
    assert run.meta["name"] == "cat" and run.store.units()["bw"] == "MiB/s"
    assert run.store.connection() is None  # one file read for the run: the catalogue
    assert save_catalogues() == 0  # nothing new to keep


def test_runs_answered_with_the_same_units_each_get_their_own(run_dir: Path) -> None:
    """The catalogue reads a units text once for the runs that share it: what each
    store gives out is its own copy."""
    catalogued(run_dir)
    first, _ = read(run_dir)
    second, _ = read(run_dir)
    units = first.store.units()
    units["bw"] = "changed"
    first.store.meta()["name"] = "changed"
    assert second.store.units()["bw"] == first.store.units()["bw"] == "MiB/s"
    assert first.store.meta()["name"] == "cat"


def test_any_commit_to_the_store_is_seen_and_read_from_the_store(run_dir: Path) -> None:
    catalogued(run_dir)
    writer = Store(run_dir / "jubex.sqlite")
    writer.set_meta({"name": "renamed"})
    writer.close()
    run = open_run(run_dir, follow=False)
    assert run.meta["name"] == "renamed" and run.store.connection() is not None


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_a_commit_in_either_journal_mode_changes_the_identity(run_dir: Path, journal: str) -> None:
    path = run_dir / "jubex.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA journal_mode={journal}")
    db.close()
    hour_ago = os.stat(path).st_mtime_ns - 3600 * 10**9
    os.utime(path, ns=(hour_ago, hour_ago))  # as catalogued: changed long before
    before = identity(path)
    assert before is not None  # at rest in either mode (no -wal file)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE meta SET value = 'dog' WHERE key = 'name'")  # the same size
    while_written = identity(path)
    assert while_written is None if journal == "wal" else while_written not in (None, before)
    db.close()
    assert identity(path) not in (None, before)


def test_a_store_being_written_in_wal_mode_is_never_answered_from_the_catalogue(
    run_dir: Path,
) -> None:
    catalogued(run_dir)
    writer = sqlite3.connect(run_dir / "jubex.sqlite", isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('note', 'new')")
    run = open_run(run_dir, follow=False)
    assert run.meta["note"] == "new"
    writer.close()


def test_an_exit_file_rewritten_in_place_is_analysed_again(run_dir: Path) -> None:
    """Until the catalogue found every exit file as read: then the store's next change."""
    catalogued(run_dir)
    later = rewrite_exit_file(run_dir)
    run = open_run(run_dir, follow=False)
    before = dict(Store(run_dir / "jubex.sqlite").analysed())[0][2]
    analyse_runs([run])
    after = dict(Store(run_dir / "jubex.sqlite").analysed())[0][2]
    assert before != after and str(later) in after


def known_as_read(run_dir: Path) -> list[dict[str, object]]:
    """Read the run until the catalogue holds that its exit files were found as read."""
    rows = catalogued(run_dir)  # from the store: its marks are the catalogue's from now on
    run, again = read(run_dir)
    assert (
        again == rows
        and not run.store.exits_checked(STEPS)
        and run.store.exits_found_checked == STEPS
    )
    assert save_catalogues() == 0  # no entry made anew: the one held is marked
    catalogue._catalogues.clear()
    return rows


def test_exit_files_found_as_read_are_not_looked_at_while_the_store_is_as_it_was(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = known_as_read(run_dir)

    def looked(*args: object, **kwargs: object) -> str:
        raise AssertionError("an exit file looked at")

    monkeypatch.setattr(analysis_run, "_signature_of", looked)
    run, again = read(run_dir)
    assert again == rows and run.store.exits_checked(STEPS) and run.store.connection() is None


def test_after_any_commit_the_exit_files_are_looked_at_again(run_dir: Path) -> None:
    known_as_read(run_dir)
    writer = Store(run_dir / "jubex.sqlite")
    writer.set_meta({"note": "changed"})
    writer.close()
    later = rewrite_exit_file(run_dir)
    run = open_run(run_dir, follow=False)
    assert not run.store.exits_checked(STEPS)
    analyse_runs([run])
    assert save_catalogues() == 1  # the entry of the store as it is now, made anew: no mark
    db = sqlite3.connect(run_dir.parent / NAME)
    assert db.execute("SELECT identity, checked FROM run").fetchall() == [
        (identity(run_dir / "jubex.sqlite"), "")
    ]
    db.close()
    assert str(later) in dict(Store(run_dir / "jubex.sqlite").analysed())[0][2]


def test_a_mark_kept_for_another_state_of_the_store_is_not_taken(run_dir: Path) -> None:
    """Found while the store was as catalogued, saved after it changed: the mark stays
    with the identity it was found at, which the store no longer has."""
    catalogued(run_dir)
    run, _ = read(run_dir)
    assert run.store.exits_found_checked == STEPS
    writer = Store(run_dir / "jubex.sqlite")
    writer.set_meta({"note": "changed"})
    writer.close()
    save_catalogues()
    catalogue._catalogues.clear()
    assert not open_run(run_dir, follow=False).store.exits_checked(STEPS)


def test_a_finished_workpackage_without_an_exit_file_is_looked_at_every_time(
    run_dir: Path,
) -> None:
    """Its job may yet write one (a job the scheduler lost sight of)."""
    catalogued(run_dir)
    (run_dir / "000001_work" / "exit").unlink()
    for _ in range(3):
        run, _ = read(run_dir)
        assert not run.store.exits_checked(STEPS) and run.store.exits_found_checked is None
        save_catalogues()
        catalogue._catalogues.clear()
    assert run.store.connection() is None  # answered from the catalogue all the same


@pytest.mark.parametrize("text", ["edited", "[1, 2]", '["work", 3]', '{"work": 1}', "{"])
def test_an_edited_mark_is_not_taken(run_dir: Path, text: str) -> None:
    known_as_read(run_dir)
    edit(run_dir, "UPDATE run SET checked = ?", text)
    run, _ = read(run_dir)
    assert not run.store.exits_checked(STEPS) and run.store.connection() is None


def test_a_mark_is_of_the_steps_it_was_found_for(run_dir: Path) -> None:
    """A jubex that analyses other steps of the run looks at their exit files again."""
    known_as_read(run_dir)
    run = open_run(run_dir, follow=False)
    assert run.store.exits_checked(STEPS) and run.store.exits_checked(["work"])
    assert not run.store.exits_checked(["work", "other"]) and not run.store.exits_checked([])


def edit(run_dir: Path, statement: str, *values: str) -> None:
    """The catalogue of the run's outpath edited, as anyone may edit it."""
    db = sqlite3.connect(run_dir.parent / NAME, isolation_level=None)
    db.execute(statement, values)
    db.close()


def rewrite_exit_file(run_dir: Path) -> int:
    """The first workpackage's exit file rewritten where it is, a second later: its time."""
    exit_file = run_dir / "000000_work" / "exit"
    stat = exit_file.stat()
    with open(exit_file, "r+") as file:  # the same bytes, rewritten where they are
        text = file.read()
        file.seek(0)
        file.write(text)
    later = stat.st_mtime_ns + 1_000_000_000
    os.utime(exit_file, ns=(stat.st_atime_ns, later))
    return later


def test_a_damaged_catalogue_is_not_read_and_made_anew(run_dir: Path) -> None:
    (run_dir.parent / NAME).write_bytes(b"not a database, " * 100)
    _, rows = read(run_dir)
    assert save_catalogues() == 1
    catalogue._catalogues.clear()
    run, again = read(run_dir)
    assert again == rows and run.store.connection() is None


def test_a_catalogue_of_another_layout_is_not_read_and_made_anew(run_dir: Path) -> None:
    catalogued(run_dir)
    edit(run_dir, "PRAGMA user_version = 99")
    run, _ = read(run_dir)
    assert run.store.connection() is not None
    assert save_catalogues() == 1 and entries(run_dir.parent) == [run_dir.name]


@pytest.mark.parametrize(
    ("column", "text"),
    [("meta", "[1]"), ("meta", '{"name": 3}'), ("units", "{"), ("marks", '[[1], ["a"]]')],
)
def test_an_edited_entry_is_not_read(run_dir: Path, column: str, text: str) -> None:
    rows = catalogued(run_dir)
    edit(run_dir, f"UPDATE run SET {column} = ?", text)
    run, again = read(run_dir)
    assert again == rows and run.meta["name"] == "cat"
    assert run.store.connection() is not None  # read from the store itself
    assert save_catalogues() == 1  # and the entry made again
    catalogue._catalogues.clear()
    run, again = read(run_dir)
    assert again == rows and run.store.connection() is None


def test_an_entry_as_held_is_not_written_again(run_dir: Path) -> None:
    catalogued(run_dir)
    run = open_run(run_dir, follow=False)
    assert run.store.workpackages()  # not the catalogue's to answer: the store opens
    assert save_catalogues() == 0


def test_a_store_changed_within_the_racy_window_is_not_catalogued(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalogue, "RACY", 3600 * 10**9)
    read(run_dir)
    assert save_catalogues() == 0 and entries(run_dir.parent) == []


def test_runs_are_learnt_only_inside_catalogued_and_saved_when_it_ends(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalogue, "_learning", [])
    read(run_dir)  # a library caller, outside any command: nothing is kept of it
    assert save_catalogues() == 0
    with catalogue.catalogued():
        read(run_dir)
        assert entries(run_dir.parent) == []
    assert entries(run_dir.parent) == [run_dir.name]


def _locked(catalogue_file: Path) -> bool:
    """Whether another program is kept from writing the catalogue now."""
    other = sqlite3.connect(catalogue_file, isolation_level=None, timeout=0)
    try:
        other.execute("BEGIN EXCLUSIVE")
        other.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return True
    finally:
        other.close()


def test_a_command_reads_the_catalogue_in_one_transaction_which_its_save_ends(
    run_dir: Path,
) -> None:
    """One snapshot for all its answers (and one lock, not two a run), held from the first
    answer to the save at the command's end, which must then be free to write."""
    catalogued(run_dir)
    run, _ = read(run_dir)
    assert run.store.connection() is None  # answered from the catalogue
    assert _locked(run_dir.parent / NAME)
    save_catalogues()
    assert not _locked(run_dir.parent / NAME)


def test_a_save_while_another_command_reads_is_refused_and_a_later_one_catalogues(
    run_dir: Path,
) -> None:
    """A save never waits for a command still reading: the run it read is catalogued by a
    later command, and until then read from its store."""
    catalogued(run_dir)
    second = run_dir.parent / "000001"
    shutil.copytree(run_dir, second)
    reading = catalogue.Catalogue(run_dir.parent)
    assert reading.known(run_dir) is not None  # another command, in the midst of its reading
    read(second)
    assert save_catalogues() == 0
    assert entries(run_dir.parent) == [run_dir.name]
    reading.save()  # that command ends
    run, _ = read(second)
    assert run.store.connection() is not None  # not catalogued yet: read from its store
    assert save_catalogues() == 1
    assert entries(run_dir.parent) == [run_dir.name, second.name]


def test_a_library_caller_holds_no_lock_on_the_catalogue(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a command (a notebook open for hours), each answer is a transaction of its
    own: the commands' saves are never stopped by it."""
    catalogued(run_dir)
    monkeypatch.setattr(catalogue, "_learning", [])
    run, _ = read(run_dir)
    assert run.store.connection() is None
    assert not _locked(run_dir.parent / NAME)


def test_a_catalogue_that_cannot_be_written_is_no_error(run_dir: Path) -> None:
    """Its name taken by a directory (root writes into any outpath, so the test makes the
    file itself impossible): nothing saved, nothing raised, the runs read from the stores."""
    (run_dir.parent / NAME).mkdir()
    _, rows = read(run_dir)
    assert rows and save_catalogues() == 0
    assert (run_dir.parent / NAME).is_dir() and not any((run_dir.parent / NAME).iterdir())
    catalogue._catalogues.clear()
    assert read(run_dir)[1] == rows


def test_a_run_outside_an_outpath_leaves_nothing_beside_it(run_dir: Path) -> None:
    """A run directory not named as an outpath's runs are (copied to ``mine``): read from
    its store, and its parent, which may be anyone's directory, gets no catalogue."""
    mine = run_dir.rename(run_dir.parent / "mine")
    _, rows = read(mine)
    assert rows and save_catalogues() == 0
    assert not (mine.parent / NAME).exists()
