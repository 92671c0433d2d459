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


class PointRow(NamedTuple):
    """A point of a selected run, as :func:`points_query` gives it."""

    run: int
    point: int
    step: str
    parameters: str


class PointSample(NamedTuple):
    """A sample of a point of a selected run, as a point's set gives it (where and
    when it was taken are its point's, read once a point)."""

    point: int
    metric: str
    repetition: int
    iteration: int
    value: float | None
    unit: str
    #: True, False or None (a row of ``samples`` keeps 0 or 1: :func:`direction` reads both)
    higher_is_better: int | bool | None


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


def runs_query(
    selector: Selector,
    query: Query | None = None,
    columns: Sequence[str] = RunRow._fields,
    *,
    point_joined: bool = False,
) -> Query:
    """The ``runs`` rows a selector names, oldest first, of ``columns`` (``created`` and
    ``id`` among them). ``point_joined``: the caller joins only the points that have the
    selector's parameters, which selects the same runs unless ``last=`` counts them, so
    the runs' points are not searched twice."""
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
    if selector.parameters and (not point_joined or selector.last is not None):
        where.append(
            "EXISTS (SELECT 1 FROM points WHERE points.run = runs.id"
            + "".join(
                f" AND {has_parameter(query, 'points.id', name, value)}"
                for name, value in selector.parameters.items()
            )
            + ")"
        )
    body = f"SELECT {', '.join(columns)} FROM runs"
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


def points_query(selector: Selector) -> Query:
    """Every point of the selected runs (as the selector's parameters narrow them): oldest
    run first, then by point. The runs' own fields are read once a run
    (:func:`runs_query`), not once a point."""
    query = Query()
    query.text = _points_of(
        selector, query, "points.run, points.id, points.step, points.parameters"
    )
    query.text += " ORDER BY r.created, r.id, points.id"
    return query


#: the columns of ``sample_packs`` a reader takes, after the point's id
PACK_COLUMNS = ("layout", "numbers", "missing", "repetitions", "iterations")


def packs_query(selector: Selector) -> Query:
    """The samples of the points :func:`points_query` gives, a pack a point that has some
    (``sample_packs``: the point's id, then :data:`PACK_COLUMNS`), in its order."""
    query = Query()
    columns = ", ".join(f"sample_packs.{name}" for name in PACK_COLUMNS)
    # CROSS JOIN: SQLite joins the packs last, by their key (a join it may reorder, it
    # drives from every point of every run and sorts them)
    query.text = _points_of(
        selector, query, f"points.id, {columns}", " CROSS JOIN sample_packs",
        ["sample_packs.point = points.id"],
    )  # fmt: skip
    query.text += " ORDER BY r.created, r.id, points.id"
    return query


def _points_of(
    selector: Selector,
    query: Query,
    columns: str,
    joined: str = "",
    conditions: Sequence[str] = (),
) -> str:
    """``SELECT columns`` of the points of the selected runs that have the selector's
    parameters (``joined``: and of what joins them, on ``conditions``)."""
    runs = runs_query(selector, query, ("id", "created"), point_joined=True).text
    text = f"SELECT {columns} FROM ({runs}) AS r JOIN points ON points.run = r.id{joined}"
    where = [
        *conditions,
        *(has_parameter(query, "points.id", n, v) for n, v in selector.parameters.items()),
    ]
    return text + " WHERE " + " AND ".join(where) if where else text


def layouts_query(ids: Iterable[int]) -> Query:
    """The texts of these layouts of samples (``sample_layouts``)."""
    query = Query()
    query.text = f"SELECT id, body FROM sample_layouts WHERE id IN ({query.bind_all(ids)})"
    return query


def specs_query(hashes: Iterable[str]) -> Query:
    """The resolved runs (``run.json``) of these hashes."""
    query = Query()
    query.text = f"SELECT hash, body FROM specs WHERE hash IN ({query.bind_all(hashes)})"
    return query


def rows(connection: Reading, query: Query) -> list[tuple[Any, ...]]:
    """The rows of a query as plain tuples (SQLite's driver makes them in C, without a
    Python call a row)."""
    if isinstance(connection, sqlite3.Connection):
        return connection.execute(query.text, query.params).fetchall()
    import sqlalchemy as sa

    return [tuple(row) for row in connection.execute(sa.text(query.text), query.params)]


def fetch(connection: Reading, query: Query, row: Callable[..., _T]) -> list[_T]:
    """The rows of a query, each made by ``row`` from its columns; a boolean column comes
    back as SQLite keeps it (0 or 1) from either driver, so ``row`` makes it a bool."""
    return [row(*values) for values in rows(connection, query)]


def run_row(*values: Any) -> RunRow:
    return RunRow._make((*values[:-1], bool(values[-1])))


def direction(kept: int | None) -> bool | None:
    """Whether higher is better, as a sample's row keeps it."""
    return None if kept is None else bool(kept)
