"""The catalogue of an outpath: what reading its runs at rest needs, in one file.

A command that reads finished runs once (``history``, ``result -i all``) asks each store
for its meta table, units, the marks of its analysis and its kept rows; opening 1,000
SQLite stores costs about 0.6 ms each, most of it SQLite parsing each one's schema. The
catalogue (``<outpath>/.jubex-catalogue``, itself SQLite) keeps those answers per run
beside the store file's *identity* (:func:`identity`), and answers for a store only while
its identity is the one catalogued; anything else asked of the store opens it.

An entry is made at the end of a command (:func:`catalogued`), of each store it opened,
between two looks at the identity that agree, and only of a file older than :data:`RACY`:
no commit can fall between what is kept and the identity it is kept under
(docs/design.md, "The catalogue of an outpath"). A damaged, edited or older catalogue is
no error: what fails its checks is not read, and the next save makes it anew. Outpaths
that cannot be written keep none.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path

from jubex.store.store import MARKS, SCHEMA_VERSION, Known, Mark, Store

#: a run's store, as :mod:`jubex.store.rundir` names it
STORE_FILE = "jubex.sqlite"
#: the catalogue's file, in the outpath beside the runs (run directories are numbers)
NAME = ".jubex-catalogue"
#: the layout of the catalogue; another one is made anew, never read
FORMAT = 5
#: a store changed this recently (ns) is not catalogued yet: file times tick coarsely
#: (some file systems by the second), so a change in the same tick would not show
RACY = 2_000_000_000

_TABLES = (
    "CREATE TABLE IF NOT EXISTS run"
    " (name TEXT PRIMARY KEY, identity TEXT NOT NULL, meta TEXT NOT NULL, marks TEXT NOT NULL,"
    " units TEXT NOT NULL, checked TEXT NOT NULL DEFAULT '')",
    "CREATE TABLE IF NOT EXISTS kept (name TEXT NOT NULL, key TEXT NOT NULL,"
    " identity TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (name, key))",
)

#: the catalogue of each outpath this process read runs from
_catalogues: dict[str, Catalogue] = {}


def identity(store: str | Path) -> str | None:
    """A store file as it is now, or None when it is not at rest or unreadable: inode,
    device, size, times and the header's change counters. Any commit in rollback mode
    changes the counter; a copy, a restore or an edit changes the inode or the ctime. A
    store in WAL mode is at rest while it has no ``-wal`` file (its commits are there, and
    putting them into the file changes its times)."""
    found = _identity(store)
    return found[0] if found else None


def _identity(store: str | Path) -> tuple[str, int] | None:
    """:func:`identity`, and the latest of the file's times (read by the descriptor: a
    file object costs more than the read, and a history asks 1,000 stores)."""
    try:
        fd = os.open(store, os.O_RDONLY)
    except OSError:
        return None
    try:
        head = os.read(fd, 100)
        st = os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(head) < 100 or head[:16] != b"SQLite format 3\0":
        return None
    mode = head[18:20]
    if mode == b"\2\2":
        if os.path.lexists(f"{store}-wal"):
            return None
    elif mode != b"\1\1":
        return None
    ident = (
        f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:"
        f"{mode.hex()}:{head[24:28].hex()}:{head[92:96].hex()}"
    )
    return ident, max(st.st_mtime_ns, st.st_ctime_ns)


class Catalogue:
    """The catalogue of one outpath: entries read on demand, entries learnt saved once."""

    def __init__(self, outpath: Path) -> None:
        self.path = outpath / NAME
        self._db: sqlite3.Connection | None = None
        self._tried = False
        #: the stores opened through this catalogue, by run name: saved if they were read
        self.learnt: dict[str, Store] = {}
        #: the identity each run has in the catalogue, of those looked up
        self.held: dict[str, str] = {}

    def _reader(self) -> sqlite3.Connection | None:
        if not self._tried:
            self._tried = True
            if self.path.is_file():
                with suppress(sqlite3.Error):
                    db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=1)
                    if db.execute("PRAGMA user_version").fetchone()[0] == FORMAT:
                        self._db = db
                    else:
                        db.close()
        return self._db

    def known(self, run_dir: Path) -> Known | None:
        """What the store of ``run_dir`` holds, if catalogued as it is now.

        Inside :func:`catalogued`, a command's answers come from one read transaction,
        which :meth:`save` ends: a statement outside one is a transaction of its own,
        which takes and drops SQLite's lock and looks for a journal (nine system calls),
        and a history of 1,000 runs made 2,000 of them. Outside a command (a library
        caller, a notebook) none is held: a long-lived process's lock would stop the
        commands' saves."""
        db = self._reader()
        if db is None:
            return None
        name = run_dir.name
        try:
            if _learning and not db.in_transaction:
                db.execute("BEGIN")  # one snapshot for the command's reading
            found = db.execute(
                "SELECT identity, meta, marks, units, checked FROM run WHERE name = ?", (name,)
            ).fetchone()
        except sqlite3.Error:
            return None
        if found is None or found[0] != identity(os.path.join(run_dir, STORE_FILE)):
            return None
        ident = str(found[0])
        meta, units = _texts(found[1]), _texts(found[3])
        if meta is None or units is None:
            return None
        marks_text = found[2]

        def summary(key: str) -> str | None:
            with suppress(sqlite3.Error):
                row = db.execute(  # of the entry as checked, not of one saved since
                    "SELECT data FROM kept WHERE name = ? AND key = ? AND identity = ?",
                    (name, key, ident),
                ).fetchone()
                if row is not None and type(row[0]) is str:
                    return str(row[0])
            return None

        def marks() -> list[Mark] | None:
            found = _marks(marks_text)
            if found is None:  # damaged: the entry is made again at the save
                self.held.pop(name, None)
            return found

        self.held[name] = ident
        return Known(meta, marks, units, summary, exits_checked=_checked(found[4]))

    def learn(self, name: str, store: Store) -> None:
        """Note a store opened through the catalogue while :func:`catalogued` is on: if it
        was read, it is catalogued when that ends."""
        if _learning:
            self.learnt[name] = store

    def save(self) -> int:
        """Catalogue the stores read that are at rest; returns how many entries it wrote.
        Never waits for another program saving: the next command saves instead."""
        entries = [
            (name, entry)
            for name, store in self.learnt.items()
            if (entry := _entry(store)) and entry[0] != self.held.get(name)  # else: as held
        ]
        written = {name for name, _ in entries}
        checked = [
            (json.dumps(sorted(steps)), name, self.held[name])
            for name, store in self.learnt.items()
            if (steps := store.exits_found_checked) is not None
            and name not in written
            and name in self.held
        ]
        self.learnt = {}
        if self._db is not None:  # the reading is over (a later question: the store's)
            self._db.close()
            self._db, self._tried = None, False
        if not entries and not checked:
            return 0
        try:
            db = _writer(self.path)
        except (sqlite3.Error, OSError):
            return 0
        try:
            db.execute("BEGIN IMMEDIATE")
            for name, (ident, meta, marks, units, kept) in entries:
                db.execute(
                    "INSERT OR REPLACE INTO run (name, identity, meta, marks, units)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (name, ident, meta, marks, units),
                )
                db.execute("DELETE FROM kept WHERE name = ?", (name,))
                db.executemany(
                    "INSERT INTO kept (name, key, identity, data) VALUES (?, ?, ?, ?)",
                    ((name, key, ident, data) for key, data in kept),
                )
            # the exit files found as analysed, at the identity whose marks they matched
            # (an entry written anew, of another identity, has none: the column's default)
            db.executemany("UPDATE run SET checked = ? WHERE name = ? AND identity = ?", checked)
            db.execute("COMMIT")
        except sqlite3.Error:
            return 0
        finally:
            db.close()
        return len(entries)


def _writer(path: Path) -> sqlite3.Connection:
    """The catalogue opened to write, made anew when it is damaged or of another layout."""
    for attempt in (0, 1):
        db = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != FORMAT:
                db.execute("DROP TABLE IF EXISTS run")
                db.execute("DROP TABLE IF EXISTS kept")
                db.execute(f"PRAGMA user_version = {FORMAT}")
            for statement in _TABLES:
                db.execute(statement)
            return db
        except sqlite3.DatabaseError as exc:
            db.close()
            if attempt or type(exc) is not sqlite3.DatabaseError:  # busy, read-only: later
                raise
            path.unlink()  # not a database: nothing of it can be read
    raise AssertionError("unreachable")


def _entry(store: Store) -> tuple[str, str, str, str, list[tuple[str, str]]] | None:
    """A store's entry: its identity, meta, marks and kept rows; None when the store was
    not opened, is not at rest, is not of this schema or changed while it was read.

    The store is closed (put at rest if this process wrote it), then read by a connection
    of its own between two looks at its identity: an entry is kept only when both are the
    same and the file's last change is older than :data:`RACY` (a file system's clock
    ticks coarsely: a change in the same tick as the first look would not show)."""
    if store.connection() is None:
        return None
    store.close()
    before = _identity(store.path)
    if before is None or time.time_ns() - before[1] < RACY:
        return None
    try:
        db = sqlite3.connect(store.path, isolation_level=None, timeout=0)
    except sqlite3.Error:
        return None
    try:
        db.execute("BEGIN")
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        marks = db.execute(f"{MARKS} ORDER BY w.id").fetchall()
        units = dict(db.execute("SELECT name, unit FROM unit").fetchall())
        try:
            kept = db.execute("SELECT key, data FROM summary").fetchall()
        except sqlite3.Error:  # no summary table: none kept yet
            kept = []
        db.execute("ROLLBACK")
    except sqlite3.Error:
        return None
    finally:
        db.close()
    if identity(store.path) != before[0] or meta.get("schema_version") != str(SCHEMA_VERSION):
        return None
    columns = [list(column) for column in zip(*marks, strict=True)] or [[]] * 6
    return before[0], json.dumps(meta), json.dumps(columns), json.dumps(units), kept


#: the types of each column of the marks (see :data:`Mark`)
_MARK_TYPES = (
    frozenset({int}),
    *[frozenset({str})] * 4,
    frozenset({str, type(None)}),
)


@lru_cache(maxsize=64)
def _texts(text: object) -> dict[str, str] | None:
    """A catalogued meta table or units: texts by text, checked (a catalogue is a file
    anyone may edit); None where they are not. The runs of one definition have the same
    units: their text is read once (the dict is shared, and only ever copied)."""
    try:
        found = json.loads(str(text))
    except (ValueError, RecursionError):
        return None
    if type(found) is not dict or not all(type(v) is str for v in found.values()):
        return None
    return found


def _checked(text: object) -> frozenset[str] | None:
    """The steps whose exit files an entry says were found as analysed at its identity (a
    JSON list of names), checked; None where it says none, or anything else."""
    if not text:
        return None
    try:
        steps = json.loads(str(text))
    except (ValueError, RecursionError):
        return None
    if type(steps) is not list or not all(type(step) is str for step in steps):
        return None
    return frozenset(steps)


def _marks(text: object) -> list[Mark] | None:
    """Catalogued marks (a column per field), checked; None where they are not marks."""
    try:
        columns = json.loads(str(text))
    except (ValueError, RecursionError):
        return None
    if type(columns) is not list or len(columns) != len(_MARK_TYPES):
        return None
    for column, types in zip(columns, _MARK_TYPES, strict=True):
        if type(column) is not list or len(column) != len(columns[0]):
            return None
        if not types.issuperset(map(type, column)):
            return None
    return list(zip(*columns, strict=True))


def catalogue_of(outpath: Path) -> Catalogue:
    """The catalogue of an outpath, one per process."""
    key = os.fspath(outpath)
    found = _catalogues.get(key)
    if found is None:
        found = _catalogues[key] = Catalogue(outpath)
    return found


def save_catalogues() -> int:
    """Save every catalogue something was learnt for; returns how many entries were
    written. The stores learnt are closed: it is the end of their reading."""
    return sum(catalogue.save() for catalogue in list(_catalogues.values()))


#: whether :func:`catalogued` is on (a depth: commands may nest)
_learning: list[bool] = []


@contextmanager
def catalogued() -> Iterator[None]:
    """Catalogue the stores of the runs opened to be read once inside, when it ends: a
    command reading many runs (``history``, ``result``) reads them inside. Saving never
    fails the command: a catalogue that cannot be written is left as it is."""
    _learning.append(True)
    try:
        yield
    finally:
        _learning.pop()
        if not _learning:
            save_catalogues()


def entries(outpath: Path) -> list[str]:
    """The names of the runs an outpath's catalogue holds."""
    try:
        db = sqlite3.connect(f"file:{outpath / NAME}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        return [name for (name,) in db.execute("SELECT name FROM run ORDER BY name")]
    except sqlite3.Error:
        return []
    finally:
        db.close()
