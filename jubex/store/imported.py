"""A bundled run's store, copied table by table into a fresh store of jubex's own schema.

The store in a bundle is a file someone else wrote, and SQLite trusts its schema: a trigger
would run on a write, a view on a read, a generated column on every row. So that file is
only read, and only its plain tables of jubex's names: each column by name, each value
checked for the type jubex's schema gives it and for its size (``MAX_VALUE``), every query
under a time limit (SQLite's progress handler). What the run keeps is a new file jubex made, holding
rows of its own tables and nothing else. A workpackage's directory must be one plain name
inside the run, not the run's own (``source``) nor another workpackage's (a store naming
``/home/x``, ``../x`` or ``source`` is refused), and the store is then
read once as every command reads it, so that a damaged one is refused here and not by
each command later.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from jubex.errors import JubexError
from jubex.store.rundir import RUN_OWN
from jubex.store.store import SCHEMA_VERSION, Store

#: seconds the whole copy may take (a hostile store cannot hold an import for longer)
TIME_LIMIT = 60.0
#: bytes one value of a bundled store may hold: a workpackage's parameters (JSON), an
#: event's detail, ...; and a workpackage's packed measurements
MAX_VALUE, MAX_PACKED = 1 << 20, 16 << 20
_TYPES = {"INTEGER": (int,), "REAL": (float, int), "TEXT": (str,)}


class UntrustedStore(JubexError):
    """A bundled store that is not a plain jubex store; says what was found."""


def copy_store(source: Path, target: Path) -> None:
    """Copy the tables of jubex's schema from ``source`` into a new store at ``target``."""
    deadline = time.monotonic() + TIME_LIMIT
    old = _open_read_only(source, deadline)
    fresh = None
    try:
        _check_version(old)
        fresh = Store(target, create=True)
        with fresh.transaction() as db:
            db.execute("DELETE FROM meta")
            for table, columns in _columns(db):
                rows = _rows(old, table, columns)
                db.executemany(
                    f"INSERT INTO {table} ({', '.join(c for c, _, _ in columns)})"
                    f" VALUES ({', '.join('?' * len(columns))})",
                    rows,
                )
    except sqlite3.Error as exc:
        raise UntrustedStore(_said(exc, deadline)) from None
    finally:
        old.close()
        if fresh is not None:
            fresh.close()
    _check_readable(target)


def _check_version(db: sqlite3.Connection) -> None:
    """The store's schema is the one this jubex writes (an older one is exported again)."""
    if not db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone():
        raise UntrustedStore("has no table 'meta'")
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    version = row[0] if row else None
    if version != str(SCHEMA_VERSION):
        raise UntrustedStore(
            f"has the schema version {str(version)[:20]!r}; this jubex imports stores of "
            f"version {SCHEMA_VERSION} (export the run again with this jubex)"
        )


def _open_read_only(source: Path, deadline: float) -> sqlite3.Connection:
    """The bundled store, read only (no WAL made beside it), with its schema not trusted
    and every statement ended at ``deadline``."""
    try:
        db = sqlite3.connect(f"file:{source}?mode=ro&immutable=1", uri=True)
        db.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        db.execute("PRAGMA trusted_schema=OFF")
        db.execute("PRAGMA query_only=ON")
        objects = db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    except sqlite3.Error as exc:
        raise UntrustedStore(_said(exc, deadline)) from None
    for kind, name, sql in objects:
        if kind not in ("table", "index") or (kind == "table" and not _plain_table(sql)):
            shown = str(sql or name)[:80]
            raise UntrustedStore(f"holds the {kind} '{name}' ({shown}), which jubex never makes")
    return db


def _plain_table(sql: object) -> bool:
    return isinstance(sql, str) and sql.lstrip().upper().startswith("CREATE TABLE")


def _columns(db: sqlite3.Connection) -> list[tuple[str, list[tuple[str, str, bool]]]]:
    """(table, [(column, declared type, not null)]) of jubex's schema, from the new store."""
    tables = [
        name
        for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
    ]
    return [
        (t, [(r[1], r[2], bool(r[3] or r[5])) for r in db.execute(f"PRAGMA table_info({t})")])
        for t in tables
    ]


def _rows(
    db: sqlite3.Connection, table: str, columns: list[tuple[str, str, bool]]
) -> Iterator[tuple[object, ...]]:
    """The table's rows, each value of the type jubex's schema gives its column."""
    found = {r[1]: r for r in db.execute(f"PRAGMA table_xinfo({table})")}
    if not found:
        raise UntrustedStore(f"has no table '{table}'")
    missing = [name for name, _, _ in columns if name not in found]
    if missing:
        raise UntrustedStore(f"has no column '{missing[0]}' in its table '{table}'")
    hidden = [name for name, row in found.items() if row[6]]
    if hidden:
        raise UntrustedStore(f"computes the column '{hidden[0]}' of its table '{table}'")
    _check_sizes(db, table, columns)
    names = ", ".join(f'"{name}"' for name, _, _ in columns)
    owners: dict[object, object] = {}  # each workpackage directory's workpackage
    for row in db.execute(f"SELECT {names} FROM {table}"):
        for value, (name, kind, required) in zip(row, columns, strict=True):
            if value is None and not required:
                continue
            if type(value) not in _TYPES[kind]:
                raise UntrustedStore(
                    f"holds {type(value).__name__} {str(value)[:40]!r} in the column "
                    f"'{name}' of its table '{table}', where jubex keeps {kind.lower()}"
                )
        if table == "workpackage" and not _plain_name(row[5]):
            raise UntrustedStore(
                f"places workpackage {row[0]} in '{str(row[5])[:80]}', which is not one "
                "name inside its run"
            )
        if table == "workpackage" and row[5] in RUN_OWN:
            raise UntrustedStore(
                f"places workpackage {row[0]} in '{row[5]}', which is the run's own, not a "
                "workpackage's"
            )
        if table == "workpackage" and owners.setdefault(row[5], row[0]) != row[0]:
            raise UntrustedStore(
                f"places workpackage {row[0]} in '{str(row[5])[:80]}', the directory of "
                f"workpackage {owners[row[5]]}"
            )
        yield row


def _check_sizes(db: sqlite3.Connection, table: str, columns: list[tuple[str, str, bool]]) -> None:
    """Each value's size, measured by SQLite before any row is read into memory: one value
    of 200 MiB held every command reading the run for minutes and gigabytes."""
    lengths = ", ".join(f'max(length(CAST("{name}" AS BLOB)))' for name, _, _ in columns)
    found = db.execute(f"SELECT {lengths} FROM {table}").fetchone() or ()
    for longest, (name, _, _) in zip(found, columns, strict=True):
        limit = MAX_PACKED if table == "packed" else MAX_VALUE
        if isinstance(longest, int) and longest > limit:
            raise UntrustedStore(
                f"holds a value of {longest:,} bytes in the column '{name}' of its table "
                f"'{table}', more than the {limit:,} jubex accepts there"
            )


def _plain_name(name: object) -> bool:
    """One path part below the run: no separator, not ``.``/``..``, nothing hidden."""
    return (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and "/" not in name
        and "\0" not in name
        and len(name.encode()) <= 255
    )


def _check_readable(path: Path) -> None:
    """Read the copy once as the commands read it: its version, workpackages, values."""
    try:
        store = Store(path)
    except JubexError as exc:
        raise UntrustedStore(exc.message) from None
    try:
        store.workpackages()
        store.measurements()
        store.representatives()
        store.parents(), store.counts(), store.events(), store.analysed(), store.units()
    except Exception as exc:  # any reader's failure: the data is not what jubex wrote
        raise UntrustedStore(f"cannot be read ({type(exc).__name__}: {exc})") from None
    finally:
        store.close()


def _said(exc: sqlite3.Error, deadline: float) -> str:
    if time.monotonic() > deadline:
        return f"took longer than {TIME_LIMIT:g} s to read (a query that does not end)"
    return f"cannot be read as a jubex store ({exc})"
