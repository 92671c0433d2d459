"""Runs of the results database named by a selector, opened as runs.

``db:benchmark=ior,site=juwels,since=2026-01-01`` selects the published runs that match
every key: a run's fields (below), ``since``/``until`` (a date or a date and time, UTC),
``last=N`` (the N latest of those), and any other ``NAME=VALUE`` a parameter value that
one point of the run has. A selected run is opened from the copy of its store the
database keeps, unpacked once into the user's cache, so every command that reads runs
shows it exactly as its run directory did; it is never analysed again.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from jubex.engine.provenance import PROVENANCE
from jubex.errors import JubexError, UsageError
from jubex.resultsdb.connect import Database
from jubex.resultsdb.sql import FIELDS, Query, RunRow, fetch, run_row, runs_query
from jubex.space.spec import RunSpec
from jubex.store.imported import UntrustedStore, copy_store
from jubex.store.rundir import SPEC, STORE, Run, open_run
from jubex.store.store import Store

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from jubex.resultsdb.connect import Reading

PREFIX = "db:"
#: bytes a published run's store may unpack to (far above what a run's store holds)
MAX_STORE = 4 << 30
WINDOW = ("since", "until", "last")
#: the most runs ``last=`` counts: more than a database holds, within SQL's 64-bit integers
LAST_MAX = 2**62


def is_selector(text: str) -> bool:
    return text.startswith(PREFIX)


@dataclass(frozen=True)
class Selector:
    """A parsed ``db:`` selector."""

    text: str
    fields: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)
    since: float | None = None
    until: float | None = None
    last: int | None = None


def parse(text: str) -> Selector:
    """``db:KEY=VALUE,...`` into its parts; a malformed one is a usage error naming it."""
    fields: dict[str, str] = {}
    parameters: dict[str, str] = {}
    window: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text[len(PREFIX) :].split(","))):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise UsageError(
                f"'{text}': expected KEY=VALUE items separated by commas, got '{item}'",
                hint="e.g. db:benchmark=ior,site=juwels,since=2026-01-01",
            )
        target = window if name in WINDOW else fields if name in FIELDS else parameters
        target[name] = value
    return Selector(
        text,
        fields,
        parameters,
        _moment(text, window.get("since")),
        _moment(text, window.get("until")),
        _last(text, window.get("last")),
    )


def _last(text: str, value: str | None) -> int | None:
    """``last=N`` as a count; one larger than any database holds counts every run (a number
    of any length is read without converting all its digits)."""
    if value is None:
        return None
    digits = value.lstrip("0")
    if not (value.isascii() and value.isdigit()) or not digits:
        raise UsageError(f"'{text}': last={value[:40]}: expected a number of runs of at least 1")
    return LAST_MAX if len(digits) > 18 else min(int(digits), LAST_MAX)


def _moment(text: str, value: str | None) -> float | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(
            f"'{text}': '{value}' is no date: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def selected(connection: Reading, selector: Selector, database: Database) -> list[RunRow]:
    """The runs a selector names; none is an error saying what the database holds."""
    found = fetch(connection, runs_query(selector), run_row)
    for row in found:
        _check_types(row)
    if not found:
        count = fetch(connection, Query("SELECT count(*) FROM runs"), int)[0]
        known = fetch(connection, Query("SELECT DISTINCT benchmark FROM runs LIMIT 10"), str)
        raise UsageError(
            f"'{selector.text}' selects no run of the results database {database.name} "
            f"({count} run(s) published)",
            hint="benchmarks published: "
            + (", ".join(str(r)[:40] for r in known) or "none")
            + f"; keys: {', '.join([*FIELDS, *WINDOW])}, or a parameter NAME=VALUE",
        )
    return found


#: the type of each field of ``runs`` as jubex writes it (a float may be held as an integer)
_TYPES = tuple(
    int if name == "id" else float if name in ("created", "published") else
    bool if name == "every_sample" else str
    for name in RunRow._fields
)  # fmt: skip


def _check_types(row: RunRow) -> None:
    """Each field of a selected run of the type jubex writes (SQLite keeps any value in any
    column: a file someone else made may hold bytes where jubex keeps text)."""
    if tuple(map(type, row)) == _TYPES:  # the rule, in one C pass over the row
        return
    for name, value, wanted in zip(RunRow._fields, row, _TYPES, strict=True):
        if not isinstance(value, wanted) and not (wanted is float and isinstance(value, int)):
            raise _unopened(row, f"holds {type(value).__name__} in its field '{name}'")


def open_selected(text: str, database: Database | None = None) -> list[Run]:
    """The runs of a ``db:`` selector, oldest first, each opened from the cache."""
    database = database or Database()
    selector = parse(text)
    specs: dict[str, RunSpec] = {}
    with database.reading() as connection:
        rows = selected(connection, selector, database)
        return [opened(connection, row, specs) for row in rows]


def _cache() -> Path:
    import platformdirs

    return platformdirs.user_cache_path("jubex") / "published"


def opened(connection: Connection, row: RunRow, specs: dict[str, RunSpec]) -> Run:
    """A published run as a run directory in the cache (unpacked the first time); runs of
    one spec share it, read once (reading a spec costs more than the rest of opening)."""
    parts = (str(row.run_key)[:16], row.site or "site", str(row.run_id))
    if not all(_plain_part(part) for part in parts):
        raise UsageError(
            f"the published run {str(row.run_id)[:40]!r} of site {str(row.site)[:40]!r} names "
            "no place in the cache (a name with '/', '..' or a control character): it was "
            "not published by jubex and is not opened"
        )
    where = _cache().joinpath(*parts)
    if not (where / STORE).exists():
        _unpack(connection, row, where)
    if row.spec_hash not in specs:
        specs[row.spec_hash] = open_run(where).spec
    spec = specs[row.spec_hash]
    store = Store(where / STORE, types=spec.benchmark.parameter_types())
    return Run(where, store, spec)


def _unpack(connection: Connection, row: RunRow, where: Path) -> None:
    """Write the run's store (as published: marked imported, nothing to write to it),
    run.json and provenance.json; then move the whole in place. What the database holds
    is checked as a bundle's files are: a run it lacks or damaged is refused."""
    import sqlalchemy as sa

    from jubex.resultsdb import schema

    body = connection.execute(
        sa.select(schema.stores.c.body).where(schema.stores.c.run == row.id)
    ).scalar_one_or_none()
    spec = connection.execute(
        sa.select(schema.specs.c.body).where(schema.specs.c.hash == row.spec_hash)
    ).scalar_one_or_none()
    if not isinstance(body, bytes) or not isinstance(spec, str):
        raise _unopened(row, "lacks its store or its resolved run")
    where.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{where.name}-", dir=where.parent))
    try:
        _decompressed(body, folder / f"{STORE}.sent", row)
        try:  # the store is someone else's file, as a bundle's is: jubex's tables copied
            copy_store(folder / f"{STORE}.sent", folder / STORE)
        except UntrustedStore as exc:
            raise _unopened(row, f"has a store that {exc.message}") from None
        (folder / f"{STORE}.sent").unlink()
        (folder / SPEC).write_text(spec)
        (folder / PROVENANCE).write_text(json.dumps(json.loads(row.provenance), indent=1))
        os.replace(folder, where)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        if not (where / STORE).exists():
            raise
    except (JubexError, zlib.error, ValueError, TypeError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        if isinstance(exc, JubexError):
            raise
        raise _unopened(row, f"is damaged ({type(exc).__name__}: {str(exc)[:80]})") from None


def _unopened(row: RunRow, why: str) -> UsageError:
    return UsageError(
        f"the published run {str(row.run_id)[:40]!r} of the results database {why}: it is not "
        "opened",
        hint="publish the run again from its run directory",
    )


def _plain_part(name: str) -> bool:
    """One path part below the cache: no separator, not ``.``/``..``, printable, short."""
    return (
        name not in ("", ".", "..")
        and "/" not in name
        and name.isprintable()
        and len(name.encode()) <= 200
    )


def _decompressed(body: bytes, target: Path, row: RunRow) -> None:
    """Write a published store, decompressed in pieces, refusing one past MAX_STORE bytes
    (a small compressed body may unpack to gigabytes)."""
    unpack = zlib.decompressobj()
    written = 0
    with target.open("wb") as out:
        data = body
        while data and written <= MAX_STORE:
            piece = unpack.decompress(data, 1 << 20)
            written += len(piece)
            out.write(piece)
            data = unpack.unconsumed_tail
        out.write(unpack.flush())
        if written > MAX_STORE:
            raise UsageError(
                f"the published run {str(row.run_id)[:40]!r} unpacks to more than "
                f"{MAX_STORE:,} bytes: it is not opened"
            )


def selected_runs(specs: Sequence[str], database: Database | None = None) -> list[Run]:
    """The runs of several selectors, each once, in the order named."""
    found: dict[Path, Run] = {}
    for text in specs:
        for run in open_selected(text, database):
            found.setdefault(run.dir, run)
    return list(found.values())
