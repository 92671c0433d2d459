"""Where the results database is and how jubex talks to it: one interface, two back ends.

SQLite (the default: a file in the user's data directory, or any path) and PostgreSQL (a
URL; its credentials come from libpq's own service and password files or the
environment, never from jubex) are reached through SQLAlchemy. A writer takes the
database's write lock when it begins (SQLite's ``BEGIN IMMEDIATE``), so that two writers
queue instead of one failing with "database is locked" halfway; readers of SQLite's WAL
are never blocked by them. The schema is brought up to date (Alembic) on first use.
"""

from __future__ import annotations

import re
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from jubex.errors import JubexError, UsageError
from jubex.resultsdb.config import configured

if TYPE_CHECKING:
    from sqlalchemy.engine import URL, Connection, Engine

    #: a connection the read queries of :mod:`jubex.resultsdb.sql` run on
    Reading = sqlite3.Connection | Connection

#: the Alembic revision of the newest schema this jubex reads and writes (here, not in
#: schema.py, so that a reader learns it without importing SQLAlchemy)
HEAD = "0004"

#: seconds a writer waits for SQLite's write lock before giving up
SQLITE_WAIT = 600
#: seconds the check of a SQLite file's schema may take (a hostile file cannot hold it longer)
SQLITE_CHECK_LIMIT = 30.0
#: the lock PostgreSQL writers take while one of them migrates the schema
_MIGRATION_LOCK = 7_283_046


#: a URL's user-info password (``user:SECRET@``)
_USERINFO = re.compile(r"(://[^/@:\s]*:)[^@/\s]*@")
#: a keyword that holds a secret, in a URL's query or a libpq connection string
_SECRET_KEY = re.compile(
    r"((?:^|[?&;\s])[\w.-]*(?:pass|secret|token|key|cred|auth)[\w.-]*\s*=\s*)[^&;\s]*",
    re.IGNORECASE,
)


def masked_url(text: str) -> str:
    """``text`` (a URL, a path, or a message quoting one) with every secret in it replaced by
    ``***``: the user-info password and each query parameter or connection keyword that
    names a password, secret, token, key or credential. Every message that shows a database
    URL passes through here, whatever the back end."""
    return _SECRET_KEY.sub(r"\1***", _USERINFO.sub(r"\1***@", text))


def url_of(text: str) -> URL:
    """A URL or a file path as SQLAlchemy's URL: a path (or ``sqlite:///PATH``) is SQLite,
    ``postgresql://...`` is PostgreSQL through psycopg 3."""
    import sqlalchemy as sa
    from sqlalchemy.engine import URL, make_url

    if "://" not in text:
        return URL.create("sqlite", database=str(Path(text).expanduser().resolve()))
    try:
        url = make_url(text)
    except (sa.exc.ArgumentError, ValueError) as exc:  # ValueError: a port that is no number
        raise UsageError(
            f"'{masked_url(text)}' is no database URL or path"
            + (f": {masked_url(str(exc))}" if isinstance(exc, ValueError) else ""),
            hint="a URL is postgresql://USER@HOST:PORT/DATABASE (the port a number)",
        ) from None
    if url.get_backend_name() == "postgresql":
        return url.set(drivername="postgresql+psycopg")
    if url.get_backend_name() != "sqlite":
        raise UsageError(
            f"results database '{masked_url(url.render_as_string())}': jubex keeps results in "
            "SQLite or PostgreSQL",
            hint="give a file path, sqlite:///PATH or postgresql://HOST/DATABASE",
        )
    return url


def _sqlite_path(where: str) -> Path | None:
    """The file ``where`` names if it is a path or ``sqlite:///PATH`` with nothing SQLAlchemy
    would decode (no query, no %-escape, not ``:memory:``); None for any other URL."""
    if "://" not in where:
        return Path(where).expanduser().resolve()
    rest = where.removeprefix("sqlite:///")
    if rest == where or not rest or rest == ":memory:" or any(c in rest for c in "?%"):
        return None
    return Path(rest).resolve()


class Database:
    """A results database: ``writing()`` and ``reading()`` hand out connections, and
    ``querying()`` one for the read queries of :mod:`jubex.resultsdb.sql`.

    A SQLite file named by its path is read without SQLAlchemy (its import costs more than
    a history's queries): its engines are made when first used."""

    def __init__(self, where: str | None = None) -> None:
        where = configured(where)
        #: the SQLite file a path or a plain ``sqlite:///PATH`` names (any other URL goes
        #: through SQLAlchemy, whose import costs more than a history's queries)
        self.path = _sqlite_path(where)
        if self.path is None:
            self.url = url_of(where)
        #: how messages name it: without a password or any other secret
        self.name = masked_url(
            f"sqlite:///{quote(str(self.path), safe=' +/')}"  # as SQLAlchemy renders it
            if self.path is not None
            else self.url.render_as_string(hide_password=True)
        )
        self.sqlite = self.path is not None or self.url.get_backend_name() == "sqlite"
        self._checked = False

    @cached_property
    def url(self) -> URL:  # a path's; a URL's is set when the database is made
        return url_of(str(self.path))

    @cached_property
    def reader(self) -> Engine:
        return self._engine(immediate=False)

    @cached_property
    def writer(self) -> Engine:
        return self._engine(immediate=True) if self.sqlite else self.reader

    def _engine(self, *, immediate: bool) -> Engine:
        import sqlalchemy as sa

        if not self.sqlite:
            try:
                return sa.create_engine(self.url, pool_pre_ping=True)
            except ImportError:
                raise JubexError(
                    "PostgreSQL results databases need psycopg",
                    hint="pip install 'jubex[postgresql]'",
                ) from None
        Path(self.url.database or "").parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(self.url, connect_args={"timeout": SQLITE_WAIT})

        @sa.event.listens_for(engine, "connect")
        def _connect(dbapi: object, _record: object) -> None:
            dbapi.isolation_level = None  # type: ignore[attr-defined]  # BEGIN is ours
            cursor = dbapi.cursor()  # type: ignore[attr-defined]
            for pragma in _PRAGMAS:
                cursor.execute(pragma)
            cursor.close()

        @sa.event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine

    def forked(self) -> None:
        """Called in a process forked from one that used this database: the pooled
        connections it inherited are its parent's (a connection carried across a fork
        must not be used by both), so they are forgotten, not closed, and it opens its own."""
        for name in ("reader", "writer"):
            engine = self.__dict__.get(name)
            if engine is not None:
                engine.dispose(close=False)

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """One transaction that writes: all of it is committed, or none of it."""
        self.ensure_schema()
        with self._translated("write to"), self.writer.begin() as connection:
            yield connection

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection that reads (SQLite: one snapshot; never blocked by writers)."""
        self.ensure_schema()
        with self._translated("read"), self.reader.begin() as connection:
            yield connection

    @contextmanager
    def querying(self) -> Iterator[Reading]:
        """A connection for :mod:`jubex.resultsdb.sql`'s queries, as ``reading()``'s reads:
        a SQLite file through SQLite's own driver (set up as the engines set theirs up, one
        snapshot), any other database through SQLAlchemy."""
        if self.path is None:
            with self.reading() as connection:
                yield connection
            return
        self._check_file()
        with (
            self._translated("read"),
            closing(sqlite3.connect(self.path, timeout=SQLITE_WAIT, isolation_level=None)) as db,
        ):
            for pragma in _PRAGMAS:
                db.execute(pragma)
            db.execute("BEGIN")  # ended by closing: a reader commits nothing
            yield db

    def _check_file(self) -> None:
        """``ensure_schema`` of a SQLite file with SQLite's driver alone where the file is at
        this jubex's schema (SQLAlchemy and Alembic are needed only to make or migrate it)."""
        if not self._checked and self.path is not None and self.path.is_file():
            refuse_foreign_objects(self.path, self.name)
            with (
                self._translated("read"),
                closing(sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True)) as db,
            ):
                db.execute("PRAGMA trusted_schema=OFF")
                found = db.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
                ).fetchall()
                current = found and db.execute("SELECT version_num FROM alembic_version").fetchall()
            self._checked = current == [(HEAD,)]
        self.ensure_schema()

    def ensure_schema(self) -> None:
        """Make or migrate the tables when the database is not at this jubex's schema (a
        SQLite file is first checked, read only, for what jubex never makes)."""
        if self._checked:
            return
        import sqlalchemy as sa

        if self.sqlite:
            refuse_foreign_objects(Path(self.url.database or ""), self.name)
        with self._translated("read"), self.reader.connect() as connection:
            current = _revision(connection)
        if current != HEAD:
            with self._translated("set up"), self.writer.begin() as connection:
                if not self.sqlite:
                    connection.execute(
                        sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK}
                    )
                _migrate(connection, self.name)
        self._checked = True

    @contextmanager
    def _translated(self, what: str) -> Iterator[None]:
        """The driver's errors as one clear sentence naming the database."""
        try:
            yield
        except Exception as exc:
            undecoded = self.sqlite and isinstance(exc, UnicodeDecodeError)  # text SQLite
            if not (_driver_error(exc) or undecoded):  # keeps but cannot give as text
                raise
            message = f"cannot {what} the results database {self.name}: {_reason(exc)}"
            if undecoded or (self.sqlite and _damaged(exc)):
                raise UsageError(
                    message,
                    hint="the file is damaged or was not made by jubex: give a results "
                    "database jubex made (docs/database.md)",
                ) from None
            raise JubexError(message, hint=_hint(exc)) from None

    def close(self) -> None:
        for made in ("reader", "writer"):
            if made in self.__dict__:
                self.__dict__[made].dispose()


#: how every connection to a SQLite file is set up
_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA trusted_schema=OFF",  # no SQL function of a schema's own
)


def refuse_foreign_objects(path: Path, name: str) -> None:
    """Refuse a SQLite file that holds what jubex never makes: a trigger (it would run on a
    write, and could delete a run), a view (a recursive one never ends), a computed column.
    The file is opened read only, its schema distrusted, and the check is bounded in time,
    so that a file someone else made can do nothing before it is refused."""
    if not path.is_file():
        return
    deadline = time.monotonic() + SQLITE_CHECK_LIMIT
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise JubexError(f"cannot read the results database {name}: {exc}") from None
    try:
        db.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        db.execute("PRAGMA trusted_schema=OFF")
        db.execute("PRAGMA query_only=ON")
        objects = db.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
        found = next(((k, n, q) for k, n, q in objects if k not in ("table", "index")), None)
        found = found or next(
            (
                ("computed column", f"{table}.{column[1]}", "")
                for kind, table, _ in objects
                if kind == "table"
                for column in db.execute("SELECT * FROM pragma_table_xinfo(?)", (table,))
                if column[6] in (2, 3)  # hidden: generated columns
            ),
            None,
        )
    except (sqlite3.Error, UnicodeDecodeError) as exc:  # its schema's text: not UTF-8
        raise UsageError(
            f"the results database {name} cannot be read as one jubex made ({exc})",
            hint="give a results database jubex made (docs/database.md)",
        ) from None
    finally:
        db.close()
    if found is not None:
        kind, what, sql = found
        raise UsageError(
            f"the results database {name} holds the {kind} '{str(what)[:60]}' "
            f"({str(sql or '')[:80]}), which jubex never makes: it is not opened",
            hint="a results database holds only the tables jubex makes (docs/database.md)",
        )


def _revision(connection: Connection) -> str | None:
    """The schema revision the database holds (None: no tables yet)."""
    import sqlalchemy as sa

    if not sa.inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()


def _migrate(connection: Connection, name: str) -> None:
    """Alembic's upgrade to this jubex's head, in the caller's transaction."""
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.attributes["connection"] = connection
    current = _revision(connection)
    if current == HEAD:  # another writer migrated it while this one waited for the lock
        return
    known = {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}
    if current is not None and current not in known:
        raise UsageError(
            f"the results database {name} was made by a newer jubex (schema {str(current)[:40]})",
            hint="upgrade jubex to use it",
        )
    command.upgrade(config, "head")


def _driver_error(exc: Exception) -> bool:
    """Whether the exception is the database driver's: SQLite's own, or any SQLAlchemy
    passes on (SQLAlchemy is not imported to learn it: the exception would have been)."""
    if isinstance(exc, sqlite3.Error):
        return True
    sa = sys.modules.get("sqlalchemy")
    return sa is not None and isinstance(exc, sa.exc.DBAPIError)


def _orig(exc: Exception) -> object:
    """The driver's own exception."""
    return exc if isinstance(exc, sqlite3.Error) else getattr(exc, "orig", None)


def _reason(exc: Exception) -> str:
    """The driver's first line, any secret it quotes masked (libpq may echo its DSN)."""
    orig = _orig(exc)
    text = str(orig).strip() if orig else str(exc)
    return masked_url((text.splitlines() or [""])[0])


#: SQLite's words for a file that is not (or no longer) a database jubex made
_DAMAGED = re.compile(
    r"no such (table|column)|has no column|malformed|not a database|datatype mismatch|"
    r"constraint failed|no such index|unrecognized token|corrupt|already exists|could not decode",
    re.IGNORECASE,
)


def _damaged(exc: Exception) -> bool:
    """Whether SQLite's error says the file is damaged (bad input), not that it is locked,
    missing or on a failing disk (the machine's trouble)."""
    orig = _orig(exc)
    return isinstance(orig, sqlite3.IntegrityError) or bool(_DAMAGED.search(str(orig)))


def _hint(exc: Exception) -> str:
    orig = _orig(exc)
    code = getattr(orig, "sqlstate", None)
    if code == "42501":  # insufficient privilege
        return (
            "the role jubex connects as lacks this right: publishing needs a writer role of "
            "the project, reading the reader role (docs/database.md#roles)"
        )
    operational = type(orig).__name__ == "OperationalError"  # DB-API's name, either driver
    if operational and not code:
        return "check the URL (--database, $JUBEX_RESULTS_DB or results_database in config.yaml)"
    return ""
