"""A store's journal mode over its life: WAL while a program writes it, rollback mode at
rest (a store at rest opens for reading in half the time), readers beside a writer always
reading what was committed, and a store a killed writer left in WAL mode read as well."""

from __future__ import annotations

import gc
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jubex.store.store import Store


def mode(path: Path) -> str:
    """The journal mode the file says (a connection of its own, closed at once)."""
    db = sqlite3.connect(path)
    try:
        return str(db.execute("PRAGMA journal_mode").fetchone()[0])
    finally:
        db.close()


def beside(path: Path) -> set[str]:
    """SQLite's files beside the store (a store at rest has none)."""
    return {p.name for p in path.parent.iterdir() if p.name.startswith(f"{path.name}-")}


def test_a_store_written_and_closed_is_at_rest_in_rollback_mode(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = Store(path, create=True)
    store.set_meta({"note": "a"})
    assert mode(path) == "wal"  # while it is written
    store.close()
    assert mode(path) == "delete" and beside(path) == set()
    reader = Store(path)
    assert reader.meta()["note"] == "a"
    reader.close()
    assert mode(path) == "delete" and beside(path) == set()  # reading changes nothing


def test_a_writer_let_go_of_or_ending_with_its_program_leaves_it_at_rest(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    store = Store(path, create=True)
    store.set_meta({"note": "a"})
    del store
    gc.collect()
    assert mode(path) == "delete"
    program = (
        "import sys; from pathlib import Path; from jubex.store.store import Store\n"
        "store = Store(Path(sys.argv[1])); store.set_meta({'note': 'b'})\n"
    )  # never closed: the program ends with the store open
    subprocess.run([sys.executable, "-c", program, str(path)], check=True)
    assert mode(path) == "delete" and beside(path) == set()
    assert Store(path).meta()["note"] == "b"


def test_a_reader_beside_a_writer_reads_what_it_commits_and_keeps_wal(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path, create=True).close()
    reader = Store(path)  # opened at rest, as `jubex status` beside a starting engine
    assert "note" not in reader.meta()
    writer = Store(path)
    writer.set_meta({"note": "a"})  # the writer switches the store to WAL under the reader
    assert reader.meta()["note"] == "a"
    writer.set_meta({"note": "b"})
    assert reader.meta()["note"] == "b"
    writer.close()  # not alone: the reader has it open in WAL mode, so it stays in WAL
    assert mode(path) == "wal"
    assert reader.meta()["note"] == "b"
    reader.close()
    last = Store(path)
    last.set_meta({"note": "c"})
    last.close()  # alone: at rest again
    assert mode(path) == "delete" and beside(path) == set()
    assert Store(path).meta()["note"] == "c"


def test_a_store_a_killed_writer_left_in_wal_mode_reads_and_rests_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    program = (
        "import os, signal, sys; from pathlib import Path\n"
        "from jubex.store.store import Store\n"
        "store = Store(Path(sys.argv[1]), create=True); store.set_meta({'note': 'kept'})\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run([sys.executable, "-c", program, str(path)], check=False)
    assert done.returncode == -9
    assert f"{path.name}-wal" in beside(path)  # what it wrote is in the WAL alone
    reader = Store(path)  # as an older jubex left every store: it reads all the same
    assert reader.meta()["note"] == "kept"
    reader.close()
    writer = Store(path)
    writer.set_meta({"more": "x"})
    writer.close()
    assert mode(path) == "delete" and beside(path) == set()
    assert Store(path).meta() == {"schema_version": "2", "note": "kept", "more": "x"}


def test_a_summary_kept_at_rest_leaves_the_store_at_rest_and_holds_writes_back(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    Store(path, create=True).close()
    reader = Store(path)
    other = sqlite3.connect(path, isolation_level=None, timeout=0)  # another program
    with reader.snapshot() as keep:
        reader.meta()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("UPDATE meta SET value = 'x' WHERE key = 'schema_version'")
        keep("k", "[]")  # the store is as read: nobody could commit meanwhile
    assert reader.summary("k") == "[]"
    assert mode(path) == "delete" and beside(path) == set()
    other.execute("INSERT INTO meta (key, value) VALUES ('note', 'after')")
    assert reader.summary("k") is None  # any later write discards it
    other.close()
    reader.close()


def test_meta_as_opened_without_following(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path, create=True).close()
    once = Store(path, follow=False)  # a command reading a finished run once
    assert "note" not in once.meta()
    other = Store(path)
    other.set_meta({"note": "b"})
    assert "note" not in once.meta()  # as it was opened: no query at each call
    once.set_meta({"own": "x"})  # its own writes are read again
    assert once.meta()["note"] == "b" and once.meta()["own"] == "x"
    other.close()
    once.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forked workers are POSIX")
def test_a_forked_worker_leaves_its_parents_writer_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = Store(path, create=True)
    store.set_meta({"note": "a"})
    pid = os.fork()
    if pid == 0:  # the worker lets go of what it inherited, as an ending program
        del store
        gc.collect()
        os._exit(0)
    os.waitpid(pid, 0)
    store.set_meta({"note": "b"})  # the parent's connection is untouched
    assert mode(path) == "wal"
    store.close()
    assert mode(path) == "delete" and Store(path).meta()["note"] == "b"
