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

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from jubex.engine.provenance import PROVENANCE
from jubex.errors import UsageError
from jubex.language.values import size_spellings
from jubex.resultsdb import schema
from jubex.resultsdb.connect import Database
from jubex.space.spec import RunSpec
from jubex.store.rundir import SPEC, STORE, Run, open_run
from jubex.store.store import Store

PREFIX = "db:"
#: selector keys that are fields of ``runs`` (the rest are parameters)
FIELDS = {
    "benchmark": schema.runs.c.benchmark,
    "site": schema.runs.c.site,
    "platform": schema.runs.c.platform,
    "user": schema.runs.c.user_name,
    "host": schema.runs.c.host,
    "version": schema.runs.c.jubex_version,
    "definition_hash": schema.runs.c.definition_hash,
    "id": schema.runs.c.run_id,
    "key": schema.runs.c.run_key,
}
WINDOW = ("since", "until", "last")


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
    last = window.get("last")
    if last is not None and (not last.isdigit() or int(last) < 1):
        raise UsageError(f"'{text}': last={last}: expected a number of runs of at least 1")
    return Selector(
        text,
        fields,
        parameters,
        _moment(text, window.get("since")),
        _moment(text, window.get("until")),
        int(last) if last else None,
    )


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


def run_query(selector: Selector) -> sa.Select:
    """The ``runs`` rows a selector names, oldest first."""
    runs = schema.runs
    query = sa.select(runs)
    for name, value in selector.fields.items():
        column = FIELDS[name]
        query = query.where(column.startswith(value) if name == "key" else column == value)
    if selector.since is not None:
        query = query.where(runs.c.created >= selector.since)
    if selector.until is not None:
        query = query.where(runs.c.created < selector.until)
    if selector.parameters:
        points = schema.points
        point = sa.select(points.c.id).where(points.c.run == runs.c.id)
        for name, value in selector.parameters.items():
            point = point.where(has_parameter(points.c.id, name, value))
        query = query.where(point.exists())
    if selector.last is not None:
        latest = query.order_by(runs.c.created.desc()).limit(selector.last).subquery()
        return sa.select(latest).order_by(latest.c.created)
    return query.order_by(runs.c.created)


def has_parameter(point: sa.ColumnElement, name: str, value: str) -> sa.ColumnElement:
    """Whether the point has the parameter value; a size in any spelling of it (``1MiB``
    selects what was written ``1m``), as expressions and filters compare sizes."""
    parameters = schema.parameters
    return (
        sa.select(parameters.c.point)
        .where(parameters.c.point == point, parameters.c.name == name)
        .where(parameters.c.value.in_(size_spellings(value)))
        .exists()
    )


def selected(connection: Connection, selector: Selector, database: Database) -> list[sa.Row]:
    """The runs a selector names; none is an error saying what the database holds."""
    found = list(connection.execute(run_query(selector)))
    if not found:
        count = connection.execute(sa.select(sa.func.count()).select_from(schema.runs)).scalar()
        known = connection.execute(sa.select(schema.runs.c.benchmark).distinct().limit(10))
        raise UsageError(
            f"'{selector.text}' selects no run of the results database {database.name} "
            f"({count} run(s) published)",
            hint="benchmarks published: "
            + (", ".join(r[0] for r in known) or "none")
            + f"; keys: {', '.join([*FIELDS, *WINDOW])}, or a parameter NAME=VALUE",
        )
    return found


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


def opened(connection: Connection, row: sa.Row, specs: dict[str, RunSpec]) -> Run:
    """A published run as a run directory in the cache (unpacked the first time); runs of
    one spec share it, read once (reading a spec costs more than the rest of opening)."""
    where = _cache() / row.run_key[:16] / (row.site or "site") / row.run_id
    if not (where / STORE).exists():
        _unpack(connection, row, where)
    if row.spec_hash not in specs:
        specs[row.spec_hash] = open_run(where).spec
    spec = specs[row.spec_hash]
    store = Store(where / STORE, types=spec.benchmark.parameter_types())
    return Run(where, store, spec)


def _unpack(connection: Connection, row: sa.Row, where: Path) -> None:
    """Write the run's store (as published: marked imported, nothing to write to it),
    run.json and provenance.json; then move the whole in place."""
    body = connection.execute(
        sa.select(schema.stores.c.body).where(schema.stores.c.run == row.id)
    ).scalar_one()
    spec = connection.execute(
        sa.select(schema.specs.c.body).where(schema.specs.c.hash == row.spec_hash)
    ).scalar_one()
    where.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{where.name}-", dir=where.parent))
    try:
        (folder / STORE).write_bytes(zlib.decompress(body))
        (folder / SPEC).write_text(spec)
        (folder / PROVENANCE).write_text(json.dumps(json.loads(row.provenance), indent=1))
        os.replace(folder, where)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        if not (where / STORE).exists():
            raise


def selected_runs(specs: Sequence[str], database: Database | None = None) -> list[Run]:
    """The runs of several selectors, each once, in the order named."""
    found: dict[Path, Run] = {}
    for text in specs:
        for run in open_selected(text, database):
            found.setdefault(run.dir, run)
    return list(found.values())
