"""The run store: one SQLite database per run, the single source of truth.

Every state change is a transaction, written *before* the outside world is touched
(record the intent, then submit, then record the job id). Batches of changes share one
transaction so that a 10,000-workpackage run does not pay 30,000 fsyncs; a crash loses at
most the batch that was not yet committed, and that batch was recorded as intent first.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from jubex.errors import JubexError
from jubex.language.values import parse_value
from jubex.plain import dataclass
from jubex.space.workpackage import HELD, Workpackage
from jubex.store.measurement import Measurement, Value
from jubex.store.packed import Label, Packed, first_values, key, name_record, pack, unpack

#: 2: a workpackage's values in one row (``packed``); 1 kept a row per value (``measurement``)
SCHEMA_VERSION = 2

_PACKED = """CREATE TABLE IF NOT EXISTS packed (wp INTEGER PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stored_key (
    seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, name TEXT NOT NULL, record INTEGER NOT NULL
)"""

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS workpackage (
    id INTEGER PRIMARY KEY,
    step TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'wp',
    iteration INTEGER NOT NULL DEFAULT 0,
    params TEXT NOT NULL,
    workdir TEXT NOT NULL,
    state TEXT NOT NULL,
    job_id TEXT,
    exit_code INTEGER,
    reason TEXT NOT NULL DEFAULT '',
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS wp_state ON workpackage(state);
CREATE TABLE IF NOT EXISTS parent (
    child INTEGER NOT NULL, parent INTEGER NOT NULL, PRIMARY KEY (child, parent)
);
CREATE TABLE IF NOT EXISTS event (
    id INTEGER PRIMARY KEY, wp INTEGER NOT NULL, time REAL NOT NULL,
    state TEXT NOT NULL, detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS event_wp ON event(wp);
{_PACKED};
CREATE TABLE IF NOT EXISTS unit (name TEXT PRIMARY KEY, unit TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS analysed (
    wp INTEGER PRIMARY KEY, time REAL NOT NULL, ok INTEGER NOT NULL,
    reason TEXT NOT NULL DEFAULT '', signature TEXT NOT NULL DEFAULT '',
    found INTEGER NOT NULL DEFAULT 0
);
"""

#: what a kept summary is made of: a change of any of these tables discards every summary
_SUMMARISED = ("meta", "workpackage", "parent", "packed", "stored_key", "unit", "analysed")

_SUMMARY = (
    "CREATE TABLE IF NOT EXISTS summary (key TEXT PRIMARY KEY, data TEXT NOT NULL)",
    *(
        f"CREATE TRIGGER IF NOT EXISTS summary_{table}_{op.lower()} AFTER {op} ON {table}"
        " BEGIN DELETE FROM summary; END"
        for table in _SUMMARISED
        for op in ("INSERT", "UPDATE", "DELETE")
    ),
)


def drop_summaries(db: sqlite3.Connection) -> None:
    """Remove the summaries and their triggers from a copy of a store that leaves jubex's
    hands (a bundle): an importer takes no trigger from a store it did not make."""
    for statement in _SUMMARY[1:]:
        name = statement.split()[5]  # CREATE TRIGGER IF NOT EXISTS <name>
        db.execute(f"DROP TRIGGER IF EXISTS {name}")
    db.execute("DROP TABLE IF EXISTS summary")


#: summaries kept per run at most (each a table's names, say); more discard the others
MAX_SUMMARIES = 8

#: states of a workpackage; see docs/design.md for the transitions
PLANNED, QUEUED, SUBMITTED, DONE, FAILED, SKIPPED, CANCELLED = (
    "planned",
    "queued",
    "submitted",
    "done",
    "failed",
    "skipped",
    "cancelled",
)
STATES = (HELD, PLANNED, QUEUED, SUBMITTED, DONE, FAILED, SKIPPED, CANCELLED)
FINAL_STATES = frozenset({DONE, FAILED, SKIPPED, CANCELLED})


_WP_COLUMNS = (
    "id, step, kind, iteration, params, workdir, state, job_id, exit_code, reason,"
    " (SELECT group_concat(parent) FROM parent WHERE child = id)"
)


class Decoder:
    """Stored parameter texts back to typed values, each distinct text parsed once.

    The text of a typed value is the text it was written as, so the declared type and the
    text give back the very value that was planned.
    """

    def __init__(self, types: Mapping[str, str] | None) -> None:
        self.types = dict(types or {})
        self.known: dict[tuple[str, str], object] = {}

    def __call__(self, params: Mapping[str, str]) -> dict[str, object]:
        found = {}
        for name, text in params.items():
            value = self.known.get((name, text))
            if value is None:
                value = self.known[(name, text)] = _parsed(text, self.types.get(name, "auto"))
            found[name] = value
        return found

    def column(self, name: str, texts: Sequence[str]) -> list[object]:
        """The values of one parameter's texts (a column of kept rows), each text parsed
        once."""
        kind = self.types.get(name, "auto")
        known = {text: _parsed(text, kind) for text in set(texts)}
        return [known[text] for text in texts]


@lru_cache(maxsize=1 << 14)
def _parsed(text: str, kind: str) -> object:
    """A parameter text's typed value, parsed once a process: 1,000 runs of one definition
    store the same few texts, and the values are immutable (int and float types)."""
    return parse_value(text, kind)


#: a workpackage's analysis mark: (id, step, kind, state, directory, signature of its last
#: analysis or None)
Mark = tuple[int, str, str, str, str, str | None]

#: the marks of every workpackage (a ``WHERE`` may follow)
MARKS = (
    "SELECT w.id, w.step, w.kind, w.state, w.workdir, a.signature"
    " FROM workpackage w LEFT JOIN analysed a ON a.wp = w.id"
)


@dataclass(frozen=True)
class Known:
    """What a store at rest held when it was catalogued: its meta table, the marks of its
    workpackages (by id; decoded when asked, None where the catalogue's are damaged), its
    units, a way to its summaries (None: none under that key), and the analysed steps
    whose finished workpackages' exit files were all found as analysed while the store was
    as it is (``exits_checked``, None if none were: see :meth:`Store.exits_checked`)."""

    meta: Mapping[str, str]
    marks: Callable[[], Sequence[Mark] | None]
    units: Mapping[str, str]
    summary: Callable[[str], str | None]
    exits_checked: frozenset[str] | None = None


def encode(point: Mapping[str, object]) -> str:
    return json.dumps({k: str(v) for k, v in point.items()}, separators=(",", ":"))


class Store:
    """Access to one run's database. Cheap to open; one writer at a time (see RunLock)."""

    def __init__(
        self,
        path: Path,
        *,
        create: bool = False,
        types: Mapping[str, str] | None = None,
        follow: bool = True,
        known: Known | None = None,
    ) -> None:
        """``types``: the declared type of each parameter, by name (how values read back).
        ``follow``: whether :meth:`meta` sees other programs' writes at each call; a
        command that reads a run once opens it without, and reads meta as it was at
        opening (and after this connection's own writes). ``known``: what the store held
        as catalogued (``catalogue.py``): its meta, marks and summaries are answered from
        it, and the file is opened only when anything else is asked."""
        self.path = path
        self.decode = Decoder(types)
        self.follow = follow
        #: the meta table as last read, and SQLite's data version it was read at
        self._meta: tuple[int, dict[str, str]] | None = None
        #: whether this connection has set up writing (see :meth:`_writing`)
        self._writes = False
        #: puts the store back at rest when it is closed, once this connection wrote
        self._rest: weakref.finalize | None = None
        self._known = known
        #: the analysed steps whose finished workpackages' exit files this process found
        #: as analysed, by the marks the catalogue answered (see :meth:`note_exits_checked`)
        self.exits_found_checked: frozenset[str] | None = None
        self._db: sqlite3.Connection | None = None
        #: whether the connection reads a copy in memory (see :meth:`_in_memory`)
        self._copy = False
        if known is None:
            self._open(create)

    @property
    def db(self) -> sqlite3.Connection:
        """The connection, opened at the first question the catalogue cannot answer: from
        then on the store itself answers every one."""
        if self._db is None:
            self._known = None
            self._meta = None
            self._open(create=False)
        assert self._db is not None
        return self._db

    def connection(self) -> sqlite3.Connection | None:
        """The connection if the store was opened (not only answered from a catalogue) and
        is the file's own (not a copy in memory)."""
        return None if self._copy else self._db

    def _open(self, create: bool) -> None:
        path = self.path
        if not create and not path.exists():
            raise JubexError(f"no run store at {path}", hint="is this a jubex run directory?")
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None, timeout=30)
            if create:
                self._writing()
                self._db.executescript(SCHEMA)
                self.set_meta({"schema_version": str(SCHEMA_VERSION)})
            text = str(self.meta().get("schema_version", "0"))
        except sqlite3.Error as exc:
            raise JubexError(f"cannot open the run store {path}: {exc}") from None
        if not (text.isascii() and text.isdigit() and len(text) < 10):
            raise JubexError(
                f"the run store {path} is damaged: its schema version is {text[:20]!r}"
            )
        version = int(text)
        if version > SCHEMA_VERSION:
            raise JubexError(
                f"the run store {path} was written by a newer jubex (schema {version})",
                hint="upgrade jubex to read it",
            )
        if version < SCHEMA_VERSION:
            if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
                self._in_memory()
            self._migrate()

    def _writing(self) -> None:
        """Set this connection up to write, once, before its first write: the store in WAL
        mode while it is written (readers never wait for the writer, nor it for them),
        synced at checkpoints, and back at rest in rollback mode when this connection is
        closed or let go of (see :func:`_at_rest`). Reading needs none of it."""
        if self._writes:
            return
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._writes = True
        self._rest = weakref.finalize(self, _at_rest, self.db, os.getpid())

    def _in_memory(self) -> None:
        """Read a store that cannot be written from a copy in memory (to migrate it there)."""
        copy = sqlite3.connect(":memory:", isolation_level=None)
        self.db.backup(copy)
        self.db.close()
        self._db = copy
        self._copy = True
        self._writes = True  # a copy in memory keeps its own journal

    def _migrate(self) -> None:
        """Bring a store of schema 1 (a row per value) to schema 2 (a row per workpackage),
        in one transaction: a store is either still as it was or wholly migrated. A store
        that cannot be written is migrated in a copy in memory: it reads all the same."""
        with self.transaction() as db:
            for statement in _PACKED.split(";"):
                db.execute(statement)
            old = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'measurement'"
            ).fetchone()
            if old:
                rows = db.execute(
                    "SELECT wp, name, record, value, unit FROM measurement ORDER BY wp, seq"
                )
                found = (
                    (wp, pack([Measurement(r[1], r[3], r[4], r[2]) for r in group]))
                    for wp, group in groupby(rows, itemgetter(0))
                )
                self._store_packed(db, list(found))
                db.execute("DROP TABLE measurement")
            db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )

    def close(self) -> None:
        if self._rest is not None:
            self._rest()  # at rest, then closed
        elif self._db is not None:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic batch of changes; a failure rolls the whole batch back."""
        try:
            self._writing()
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise JubexError(f"cannot write the run store {self.path}: {exc}") from None
        try:
            yield self.db
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise JubexError(
                f"cannot write the run store {self.path}: {exc}",
                hint="the last batch of changes was not recorded; `jubex continue` redoes it",
            ) from None
        except BaseException:
            self._rollback()
            raise
        finally:
            self._meta = None  # the batch may have changed it, unseen by data_version

    def _rollback(self) -> None:
        """Undo an open batch (SQLite may already have rolled it back itself)."""
        if self.db.in_transaction:
            with suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")

    # -- meta ---------------------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        """The meta table (a copy), read again only when the store changed: a command asks
        for it about seven times a run. Following, one query asks SQLite whether any
        connection wrote since (``data_version``); this one's writes forget it in
        :meth:`transaction`. The first read asks both in one query."""
        if self._known is not None:
            return dict(self._known.meta)
        if self._meta is not None and self.follow:
            (version,) = self.db.execute("PRAGMA data_version").fetchone()
            if self._meta[0] != version:
                self._meta = None
        if self._meta is None:
            rows = self.db.execute(
                "SELECT key, value, (SELECT data_version FROM pragma_data_version) FROM meta"
            ).fetchall()
            version = rows[0][2] if rows else -1
            self._meta = (version, {key: value for key, value, _ in rows})
        return dict(self._meta[1])

    def set_meta(self, values: Mapping[str, str]) -> None:
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", list(values.items())
            )

    # -- workpackages -------------------------------------------------------------------

    def add_workpackages(self, wps: Iterable[Workpackage]) -> None:
        """Insert planned workpackages with their edges to their parents."""
        now = time.time()
        wps = list(wps)
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO workpackage"
                " (id, step, kind, iteration, params, workdir, state, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        wp.id,
                        wp.step,
                        wp.kind,
                        wp.iteration,
                        encode(wp.point),
                        wp.dir_name,
                        wp.state,
                        now,
                    )
                    for wp in wps
                ),
            )
            db.executemany(
                "INSERT INTO parent (child, parent) VALUES (?, ?)",
                ((wp.id, p) for wp in wps for p in wp.parents),
            )

    def set_points(self, changes: Iterable[tuple[int, Mapping[str, object]]]) -> None:
        """Replace the parameter values of workpackages (values their cycles changed)."""
        with self.transaction() as db:
            db.executemany(
                "UPDATE workpackage SET params = ? WHERE id = ?",
                ((encode(point), i) for i, point in changes),
            )

    def workpackages(
        self, states: Sequence[str] | None = None, ids: Sequence[int] | None = None
    ) -> list[Workpackage]:
        sql = f"SELECT {_WP_COLUMNS} FROM workpackage"
        args: list[object] = []
        clauses = []
        if states is not None:
            clauses.append(f"state IN ({','.join('?' * len(states))})")
            args += states
        if ids is not None:
            clauses.append(f"id IN ({','.join('?' * len(ids))})")
            args += ids
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        rows = self.db.execute(sql + " ORDER BY id", args).fetchall()
        # one JSON parse of every row's parameters: 10,000 small parses cost three times more
        params = json.loads("[" + ",".join(r[4] for r in rows) + "]")
        return [self._workpackage(r, p) for r, p in zip(rows, params, strict=True)]

    def _workpackage(self, r: tuple, params: dict[str, str]) -> Workpackage:
        parents = tuple(sorted(int(p) for p in r[10].split(","))) if r[10] else ()
        point = self.decode(params)
        return Workpackage(r[0], r[1], r[3], point, parents, r[2], r[5], r[6], r[7], r[8], r[9])

    def parents(self) -> dict[int, list[int]]:
        edges: dict[int, list[int]] = {}
        for child, parent in self.db.execute("SELECT child, parent FROM parent ORDER BY parent"):
            edges.setdefault(child, []).append(parent)
        return edges

    def counts(self) -> dict[tuple[str, str], int]:
        """(step, state) -> number of workpackages."""
        return {
            (step, state): n
            for step, state, n in self.db.execute(
                "SELECT step, state, COUNT(*) FROM workpackage GROUP BY step, state"
            )
        }

    def set_states(
        self,
        changes: Iterable[tuple[int, str, str | None, int | None, str]],
        db: sqlite3.Connection | None = None,
    ) -> None:
        """Apply (id, state, job_id, exit_code, reason) changes and log each as an event."""
        changes = list(changes)
        if not changes:
            return
        now = time.time()
        if db is None:
            with self.transaction() as tx:
                self._set_states(tx, changes, now)
        else:
            self._set_states(db, changes, now)

    @staticmethod
    def _set_states(
        db: sqlite3.Connection,
        changes: list[tuple[int, str, str | None, int | None, str]],
        now: float,
    ) -> None:
        db.executemany(
            "UPDATE workpackage SET state = ?,"
            " job_id = CASE WHEN ? THEN NULL ELSE COALESCE(?, job_id) END,"
            " exit_code = ?, reason = ?, updated = ? WHERE id = ?",
            (
                (st, st in (PLANNED, QUEUED), job, code, reason, now, wp)
                for wp, st, job, code, reason in changes
            ),
        )
        db.executemany(
            "INSERT INTO event (wp, time, state, detail) VALUES (?, ?, ?, ?)",
            (
                (wp, now, st, reason or (f"job {job}" if job else ""))
                for wp, st, job, _, reason in changes
            ),
        )

    def events(self, wp: int | None = None) -> list[tuple[int, float, str, str]]:
        sql = "SELECT wp, time, state, detail FROM event"
        args: tuple = ()
        if wp is not None:
            sql += " WHERE wp = ?"
            args = (wp,)
        return list(self.db.execute(sql + " ORDER BY id", args))

    def delete_workpackages(self, ids: Sequence[int]) -> None:
        with self.transaction() as db:
            for table, column in (
                ("workpackage", "id"),
                ("event", "wp"),
                ("packed", "wp"),
                ("analysed", "wp"),
                ("parent", "child"),
                ("parent", "parent"),
            ):
                db.executemany(f"DELETE FROM {table} WHERE {column} = ?", ((i,) for i in ids))

    # -- analysis -----------------------------------------------------------------------

    def analysed(self, ids: Sequence[int] | None = None) -> dict[int, tuple[bool, str, str]]:
        """(ok, reason, signature) per analysed workpackage (of ``ids``, when given)."""
        sql = "SELECT wp, ok, reason, signature FROM analysed"
        if ids is not None:
            if not ids:
                return {}
            sql += f" WHERE wp IN ({','.join(str(int(i)) for i in ids)})"
        return {wp: (bool(ok), reason, sig) for wp, ok, reason, sig in self.db.execute(sql)}

    def analysis_marks(self, states: Sequence[str]) -> list[Mark]:
        """(id, step, kind, state, directory, signature of its last analysis or None) of
        the workpackages in ``states``: whether each is analysed up to date, in one query."""
        marks = self._known.marks() if self._known is not None else None
        if marks is not None:
            wanted = set(states)
            return [mark for mark in marks if mark[3] in wanted]
        return self.db.execute(
            f"{MARKS} WHERE w.state IN ({','.join('?' * len(states))}) ORDER BY w.id",
            list(states),
        ).fetchall()

    def exits_checked(self, steps: Collection[str]) -> bool:
        """Whether the catalogue answers that the exit file of every finished workpackage
        of ``steps`` (those analysed: a jubex that analyses others asks again) was found as
        its analysis saw it, while this store was as it is now.

        Sound while the store is unchanged: a finished workpackage's wrapper has ended,
        having written its exit file (the mark's signature shows it did); another copy of
        its job refuses to start while the wrapper's claim is there; and jubex frees a
        claim only with a change of state, which is a commit to this store. Only a hand
        edit of an exit file is not seen, as a hand edit of an output never is.
        """
        return self._known is not None and self._known.exits_checked == frozenset(steps)

    def note_exits_checked(self, steps: Collection[str]) -> None:
        """The exit file of every finished workpackage of ``steps`` was just found as
        analysed, checked against the marks the catalogue answered: the catalogue keeps
        that it was."""
        if self._known is not None:
            self.exits_found_checked = frozenset(steps)

    def store_analysis(
        self, results: Iterable[tuple[int, bool, str, str, Sequence[Measurement] | Packed]]
    ) -> None:
        """Replace the values of each (wp, ok, reason, signature, values), in one
        transaction; values are given as measurements or already packed (see packed.py)."""
        now = time.time()
        packed: list[tuple[int, Packed]] = []
        done: list[tuple] = []
        for wp, ok, reason, signature, values in results:
            found = values if isinstance(values, Packed) else pack(values)
            packed.append((wp, found))
            done.append((wp, now, int(ok), reason, signature, found.found))
        with self.transaction() as db:
            db.executemany("DELETE FROM packed WHERE wp = ?", ((d[0],) for d in done))
            self._store_packed(db, packed)
            db.executemany(
                "INSERT OR REPLACE INTO analysed (wp, time, ok, reason, signature, found)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                done,
            )

    def _store_packed(self, db: sqlite3.Connection, packed: Sequence[tuple[int, Packed]]) -> None:
        """Insert packed values, and register their keys and units where new."""
        db.executemany(
            "INSERT OR REPLACE INTO packed (wp, data) VALUES (?, ?)",
            ((wp, found.data) for wp, found in packed if found.found),
        )
        units: dict[str, str] = {}
        keys: dict[str, None] = {}
        seen: set[tuple[str, ...]] = set()
        for _, found in packed:
            if found.keys not in seen:  # most outputs of a step have the same keys
                seen.add(found.keys)
                keys.update(dict.fromkeys(found.keys))
            for name, unit in found.units.items():
                units.setdefault(name, unit)
        db.executemany(
            "INSERT OR IGNORE INTO stored_key (key, name, record) VALUES (?, ?, ?)",
            ((k, *name_record(k)) for k in keys),
        )
        db.executemany("INSERT OR IGNORE INTO unit (name, unit) VALUES (?, ?)", units.items())

    def measurements(self) -> dict[int, list[Measurement]]:
        """Every value of every workpackage (all matches, all statistics), grouped by name
        and record in the order found."""
        return {
            wp: list(unpack(data))
            for wp, data in self.db.execute("SELECT wp, data FROM packed ORDER BY wp")
        }

    def values_of(
        self,
        ids: Collection[int],
        names: Collection[str] | None = None,
        firsts: Collection[str] = (),
    ) -> dict[int, list[tuple[str, int, Value, str]]]:
        """(name, record, value, unit) of every stored value (all matches, all statistics) of
        these workpackages, grouped by name and record in the order found; with ``names``,
        only those names, and of ``firsts`` only the first value per record."""
        if not ids:
            return {}
        every = None if names is None else set(names)
        first = set(firsts)
        found: dict[int, list[tuple[str, int, Value, str]]] = {}
        records: dict[str, tuple[str, int]] = {}
        for wp, items in self._packed_of(ids, every, first):
            values: list[tuple[str, int, Value, str]] = []
            for stored, group in items:
                if (name_and_record := records.get(stored)) is None:
                    name_and_record = records[stored] = name_record(stored)
                name, record = name_and_record
                if every is not None and name not in every:
                    if name not in first:
                        continue
                    group = group[:2]
                values.extend((name, record, value, group[0]) for value in group[1:])
            found[wp] = values
        return found

    def _packed_of(
        self, ids: Collection[int], every: set[str] | None, first: set[str]
    ) -> Iterator[tuple[int, Iterable[tuple[str, list[Any]]]]]:
        """Each of these workpackages with its stored keys and values. With ``every``, only
        the keys of those names and of ``first``'s, in the order the run first stored each,
        picked out by SQLite: a table over 10,000 IOR outputs reads a few of their ~110
        names, and decoding them all cost it 2.4 s."""
        where = f"wp IN ({','.join(str(int(i)) for i in ids)})"
        keys = None
        if every is not None:
            keys = [
                k
                for k, name in self.db.execute("SELECT key, name FROM stored_key ORDER BY seq")
                if name in every or name in first
            ]
        if (
            keys is None
            or len(keys) > _MAX_EXTRACTED
            or any('"' in k or "\\" in k for k in keys)  # a name a JSON path cannot quote
        ):
            every_row = f"SELECT wp, data FROM packed WHERE {where} ORDER BY wp"
            for wp, data in self.db.execute(every_row):
                yield wp, json.loads(data).items()
            return
        if not keys:
            for (wp,) in self.db.execute(f"SELECT wp FROM packed WHERE {where} ORDER BY wp"):
                yield wp, ()
            return
        paths = [f'$."{k}"' for k in keys]
        rows = self.db.execute(
            f"SELECT wp, json_extract(data, {','.join('?' * len(paths))})"
            f" FROM packed WHERE {where} ORDER BY wp",
            paths,
        ).fetchall()
        if len(keys) == 1:  # json_extract of one path answers its value, not a list of them
            rows = [(wp, f"[{answer or 'null'}]") for wp, answer in rows]
        answers = json.loads("[" + ",".join(answer for _, answer in rows) + "]")
        for (wp, _), answer in zip(rows, answers, strict=True):
            yield (
                wp,
                [(k, group) for k, group in zip(keys, answer, strict=True) if group is not None],
            )

    def representatives(
        self, names: Collection[str] | None = None, label: Label = key
    ) -> dict[int, dict[str, Value]]:
        """The first value of each name and record, per workpackage, under ``label(name,
        record)`` (a table row's name for it), in the order the run first stored each name
        and record (the order an output gives them).

        With ``names``, SQLite reads just those out of each row's packed values (the run's
        keys say which records exist), so a table over 10,000 workpackages reads its few
        columns, not millions of values.
        """
        if names is not None and not names:
            return {}
        wanted = sorted(names) if names is not None else None
        every = "SELECT wp, data FROM packed ORDER BY wp"
        if wanted is None or len(wanted) > _MAX_EXTRACTED:
            return first_values(self.db.execute(every), wanted, label)
        keys = self.db.execute(
            "SELECT key, name, record FROM stored_key"
            f" WHERE name IN ({','.join('?' * len(wanted))}) ORDER BY seq",
            wanted,
        ).fetchall()
        if not keys:
            return {}
        if len(keys) > _MAX_EXTRACTED or any('"' in k or "\\" in k for k, _, _ in keys):
            # too many to pick out, or a name a JSON path cannot quote: decode in Python
            return first_values(self.db.execute(every), wanted, label)
        # one json_extract per row, of each key's unit (null: no such key) and first value,
        # and one JSON parse of all rows' answers
        paths = [path for k, _, _ in keys for path in (f'$."{k}"[0]', f'$."{k}"[1]')]
        rows = self.db.execute(
            f"SELECT wp, json_extract(data, {','.join('?' * len(paths))}) FROM packed ORDER BY wp",
            paths,
        ).fetchall()
        answers = json.loads("[" + ",".join(answer for _, answer in rows) + "]")
        labels = [label(name, record) for _, name, record in keys]
        found: dict[int, dict[str, Value]] = {}
        for (wp, _), answer in zip(rows, answers, strict=True):
            present = {
                name: value
                for name, unit, value in zip(labels, answer[0::2], answer[1::2], strict=True)
                if unit is not None
            }
            if present:
                found[wp] = present
        return found

    # -- summaries --------------------------------------------------------------------------

    def summary(self, key: str) -> str | None:
        """A summary kept by :meth:`snapshot` under ``key``, if the store has not changed
        since (an older store has none)."""
        if self._known is not None:
            return self._known.summary(key)
        try:
            found = self.db.execute("SELECT data FROM summary WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:  # no summary table: none kept yet
            return None
        return found[0] if found else None

    @contextmanager
    def snapshot(self) -> Iterator[Callable[[str, str], None]]:
        """Reads of one state of the store, and a way to keep a summary of what they found:
        ``keep(key, data)``. The summary is kept only when the store is still as read (in
        WAL mode a write after the snapshot refuses the upgrade; at rest, the snapshot's
        read lock holds a writer's commit back, and a writer that began refuses it), and
        triggers discard every summary at the next change of what it was made of, whoever
        writes: a summary is never read stale. Keeping never waits for a writer, and a
        store that cannot be written keeps nothing; either way the reads are as good. A
        summary is kept in the store's journal mode as found: a store at rest stays so
        (switching it to WAL and back cost 50 ms a run, a rollback commit 10 ms).
        """
        if self.db.in_transaction:  # inside someone's batch: read, keep nothing
            yield lambda key, data: None
            return
        try:
            self.db.execute("BEGIN")
        except sqlite3.Error:
            yield lambda key, data: None
            return
        kept: list[tuple[str, str]] = []
        try:
            yield lambda key, data: kept.append((key, data))
            if kept:
                self._keep(kept)
        finally:
            self._rollback()

    def _keep(self, kept: Sequence[tuple[str, str]]) -> None:
        """Write the summaries in the snapshot's transaction; give up rather than wait."""
        with suppress(sqlite3.Error):  # changed since read, busy or read-only: not kept
            self.db.execute("PRAGMA busy_timeout = 0")
            for statement in _SUMMARY:
                self.db.execute(statement)
            (count,) = self.db.execute("SELECT count(*) FROM summary").fetchone()
            if count + len(kept) > MAX_SUMMARIES:
                self.db.execute("DELETE FROM summary")
            self.db.executemany("INSERT OR REPLACE INTO summary (key, data) VALUES (?, ?)", kept)
            self.db.execute("COMMIT")
        with suppress(sqlite3.Error):
            self.db.execute("PRAGMA busy_timeout = 30000")

    def units(self) -> dict[str, str]:
        if self._known is not None:
            return dict(self._known.units)
        return dict(self.db.execute("SELECT name, unit FROM unit"))

    def found_counts(self) -> dict[int, int]:
        """How many values the analysers found, per analysed workpackage."""
        return dict(self.db.execute("SELECT wp, found FROM analysed"))


#: more keys per row than SQLite should pick out one by one: decode in Python
_MAX_EXTRACTED = 400


def _at_rest(db: sqlite3.Connection, pid: int) -> None:
    """Close a connection that wrote, leaving the store in rollback mode, as a store at rest
    is kept: opening one to read costs half of opening one in WAL mode (whose reader makes
    and removes its ``-wal`` and ``-shm`` files). Only a connection alone with the store
    can switch; while another has it open in WAL mode SQLite refuses at once (no wait),
    and the store stays in WAL mode, read as well. A forked worker leaves its parent's
    connection alone (``pid``)."""
    if os.getpid() != pid:
        return
    with suppress(sqlite3.Error):
        db.execute("PRAGMA busy_timeout = 0")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA journal_mode = DELETE")
    db.close()
