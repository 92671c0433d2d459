"""The read queries of a ``db:`` selector as SQL text, one copy for both back ends.

SQLAlchemy Core writes and migrates the database; reading a selection needs no more than
these few queries, and importing SQLAlchemy costs more (0.4 s) than reading a history of a
thousand runs. So they are written once here, in the SQL that SQLite and PostgreSQL share,
with ``:name`` parameters: SQLite's own driver runs them on a SQLite file, SQLAlchemy's
``text()`` on PostgreSQL (:func:`fetch` takes either connection).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from jubex.language.values import size_spellings

if TYPE_CHECKING:
    from jubex.resultsdb.connect import Reading


class Selector(Protocol):
    """What the queries read of a parsed selector (:class:`jubex.resultsdb.select.Selector`,
    which imports this module)."""

    @property
    def fields(self) -> Mapping[str, str]: ...
    @property
    def parameters(self) -> Mapping[str, str]: ...
    @property
    def since(self) -> float | None: ...
    @property
    def until(self) -> float | None: ...
    @property
    def last(self) -> int | None: ...


_T = TypeVar("_T")


class RunRow(NamedTuple):
    """A row of ``runs``, its columns in the table's order (tests check it against
    :mod:`jubex.resultsdb.schema`)."""

    id: int
    run_key: str
    benchmark: str
    run_id: str
    directory: str
    created: float
    published: float
    user_name: str
    host: str
    site: str
    platform: str
    scheduler: str
    jubex_version: str
    definition: str
    definition_hash: str
    tags: str
    overrides: str
    comment: str
    imported_from: str
    provenance: str
    spec_hash: str
    every_sample: bool


class SampleRow(NamedTuple):
    """A sample with its run's and its point's fields, as :func:`samples_query` gives it."""

    run: int
    created: float
    site: str
    platform: str
    definition_hash: str
    user_name: str
    point: int
    step: str
    parameters: str
    metric: str
    repetition: int
    iteration: int
    value: float | None
    unit: str
    higher_is_better: bool | None


class PointRow(NamedTuple):
    id: int
    run: int
    step: str
    parameters: str


#: selector keys that are columns of ``runs`` (the rest are parameters)
FIELDS = {
    "benchmark": "benchmark",
    "site": "site",
    "platform": "platform",
    "user": "user_name",
    "host": "host",
    "version": "jubex_version",
    "definition_hash": "definition_hash",
    "id": "run_id",
    "key": "run_key",
}
#: what SQL's LIKE escapes with in a key prefix (so that % and _ in it are no wildcards)
ESCAPE = "/"


@dataclass
class Query:
    """SQL text and its parameters, named as it is built."""

    text: str = ""
    params: dict[str, object] = field(default_factory=dict)

    def bind(self, value: object) -> str:
        """A new parameter of ``value``: its placeholder."""
        name = f"p{len(self.params)}"
        self.params[name] = value
        return f":{name}"

    def bind_all(self, values: Iterable[object]) -> str:
        return ", ".join(self.bind(value) for value in values)


def runs_query(selector: Selector, query: Query | None = None) -> Query:
    """The ``runs`` rows a selector names, oldest first."""
    query = query or Query()
    where = [f"{FIELDS[name]} = {query.bind(value)}" for name, value in selector.fields.items()
             if name != "key"]  # fmt: skip
    if "key" in selector.fields:  # a prefix, matched literally
        key = selector.fields["key"]
        literal = "".join(ESCAPE + c if c in (ESCAPE, "%", "_") else c for c in key)
        where.append(f"run_key LIKE {query.bind(literal + '%')} ESCAPE '{ESCAPE}'")
    if selector.since is not None:
        where.append(f"created >= {query.bind(selector.since)}")
    if selector.until is not None:
        where.append(f"created < {query.bind(selector.until)}")
    if selector.parameters:
        where.append(
            "EXISTS (SELECT 1 FROM points WHERE points.run = runs.id"
            + "".join(
                f" AND {has_parameter(query, 'points.id', name, value)}"
                for name, value in selector.parameters.items()
            )
            + ")"
        )
    body = f"SELECT {', '.join(RunRow._fields)} FROM runs"
    if where:
        body += " WHERE " + " AND ".join(where)
    if selector.last is not None:
        body = (
            f"SELECT * FROM ({body} ORDER BY created DESC, id DESC "
            f"LIMIT {query.bind(selector.last)}) AS latest"
        )
    query.text = body + " ORDER BY created, id"
    return query


def has_parameter(query: Query, point: str, name: str, value: str) -> str:
    """Whether the point has the parameter value; a size in any spelling of it (``1MiB``
    selects what was written ``1m``), as expressions and filters compare sizes."""
    return (
        f"EXISTS (SELECT 1 FROM parameters WHERE parameters.point = {point}"
        f" AND parameters.name = {query.bind(name)}"
        f" AND parameters.value IN ({query.bind_all(size_spellings(value))}))"
    )


def samples_query(selector: Selector, metrics: Sequence[str]) -> Query:
    """The samples of the selected runs (of ``metrics``, or all), oldest run first."""
    query = Query()
    runs = runs_query(selector, query).text
    text = (
        f"SELECT {', '.join(f'{c} AS {n}' for n, c in _SAMPLE_COLUMNS.items())}"
        f" FROM ({runs}) AS r JOIN points ON points.run = r.id"
        " JOIN samples ON samples.point = points.id"
    )
    where = [has_parameter(query, "points.id", n, v) for n, v in selector.parameters.items()]
    if metrics:
        where.append(f"samples.metric IN ({query.bind_all(metrics)})")
    if where:
        text += " WHERE " + " AND ".join(where)
    query.text = (
        text + " ORDER BY r.created, r.id, points.id, samples.repetition, samples.metric,"
        " samples.iteration"
    )
    return query


#: each column of :class:`SampleRow` and where it comes from
_SAMPLE_COLUMNS = {
    "run": "r.id",
    **{name: f"r.{name}" for name in SampleRow._fields[1:6]},
    "point": "points.id",
    "step": "points.step",
    "parameters": "points.parameters",
    **{name: f"samples.{name}" for name in SampleRow._fields[9:]},
}


def points_query(selector: Selector) -> Query:
    """Every point of the selected runs, as the selector's parameters narrow them."""
    query = Query()
    runs = runs_query(selector, query).text
    text = (
        f"SELECT id, run, step, parameters FROM points WHERE run IN (SELECT id FROM ({runs}) AS r)"
    )
    for name, value in selector.parameters.items():
        text += f" AND {has_parameter(query, 'points.id', name, value)}"
    query.text = text + " ORDER BY id"
    return query


def specs_query(hashes: Iterable[str]) -> Query:
    """The resolved runs (``run.json``) of these hashes."""
    query = Query()
    query.text = f"SELECT hash, body FROM specs WHERE hash IN ({query.bind_all(hashes)})"
    return query


def fetch(connection: Reading, query: Query, row: Callable[..., _T]) -> list[_T]:
    """The rows of a query, each made by ``row`` from its columns; a boolean column comes
    back as SQLite keeps it (0 or 1) from either driver, so ``row`` makes it a bool."""
    if isinstance(connection, sqlite3.Connection):
        found: Iterable[Any] = connection.execute(query.text, query.params)
    else:
        import sqlalchemy as sa

        found = connection.execute(sa.text(query.text), query.params)
    return [row(*values) for values in found]


def run_row(*values: Any) -> RunRow:
    return RunRow._make((*values[:-1], bool(values[-1])))


def sample_row(*values: Any) -> SampleRow:
    last = values[-1]
    return SampleRow._make((*values[:-1], None if last is None else bool(last)))
