"""A finished run into the results database: one transaction, once.

A run's identity is the hash of what made it unique where it was made (its random uid,
the moment it was made, the host and the benchmark), which a bundle carries along: the
same run published from its directory, from an imported copy or twice is one run. Its
rows are written in one transaction, so an interrupted publish (``kill -9``) leaves the
database as it was; publishing again is then the whole run.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import tempfile
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from jubex.collector import paused
from jubex.definition.frozen import to_json
from jubex.engine import provenance
from jubex.results.comparison.compare_runs import completed_directions
from jubex.results.samples.concurrency import SPANS, spans_of
from jubex.results.samples.rows import META, samples_of
from jubex.results.statistics.flags import CV_LIMIT, OUTLIER_ALPHA, two_groups_text
from jubex.results.statistics.spread import examine
from jubex.results.tables.tabulate import directions_of, rows_of, units_of
from jubex.resultsdb import schema
from jubex.resultsdb.connect import Database
from jubex.resultsdb.packs import pack, with_layout_ids
from jubex.store.rundir import Run, identity_of
from jubex.store.store import drop_summaries


def run_key(meta: Mapping[str, str]) -> str:
    """A run's identity: the same wherever its directory or a copy of it is published."""
    return identity_of(meta)


@dataclass
class Point:
    """One point of a run: its step, parameter values and the rows of its repetitions."""

    step: str
    parameters: dict[str, str]
    rows: list[Mapping[str, object]] = field(default_factory=list)

    @property
    def key(self) -> str:
        return json.dumps([self.step, self.parameters], sort_keys=True, separators=(",", ":"))


def points_of(run: Run) -> list[Point]:
    """The run's analysed workpackages, a row per repetition, grouped into points."""
    names = set(run.benchmark.parameter_types())
    found: dict[str, Point] = {}
    for row in rows_of([run], per_iteration=True):
        params = {k: str(v) for k, v in row.items() if k in names and k not in META}
        point = Point(str(row["jube_step_name"]), params)
        found.setdefault(point.key, point).rows.append(row)
    return list(found.values())


def metrics_of(row: Mapping[str, object], parameters: Mapping[str, str]) -> dict[str, float]:
    """A row's numbers that are measurements (not parameters, not jubex's meta keys)."""
    return {
        name: float(value)
        for name, value in row.items()
        if name not in parameters
        and name not in META
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    }


def store_bytes(run: Run, origin: str) -> bytes:
    """The run's store, compacted (``VACUUM INTO``) and compressed, made ready to be read
    where it is unpacked without writing to it: at rest (rollback mode) as every store,
    saying where it came from (``imported_from``: such a run is never analysed again) and
    when each workpackage ran (which its directory's files said: which ran beside others)."""
    spans = spans_of(run, run.store.workpackages())
    with tempfile.TemporaryDirectory(prefix="jubex-publish-") as folder:
        copy = Path(folder) / "store.sqlite"
        run.store.db.execute("VACUUM INTO ?", (str(copy),))
        with closing(sqlite3.connect(copy, isolation_level=None)) as db:
            drop_summaries(db)
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('imported_from', ?)",
                (f"a results database (published from {origin})",),
            )
            db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                (SPANS, json.dumps({str(k): list(v) for k, v in spans.items()})),
            )
        return zlib.compress(copy.read_bytes(), 6)


def publish(database: Database, run: Run) -> bool:
    """Publish one run; False when the database holds it already (nothing is written).

    The run's rows, points and samples are made with the cycle collector paused: they
    hold no cycles and are freed by their counts once written, and its collections, set
    off again and again by a run of 10,000 workpackages, walked them and all else alive
    for nothing (2-4 % of publishing it)."""
    meta = run.meta
    key = run_key(meta)
    with database.reading() as connection:
        if _published(connection, key):
            return False
    with paused():
        return _publish(database, run, meta, key)


def _publish(database: Database, run: Run, meta: Mapping[str, str], key: str) -> bool:
    """:func:`publish` of a run the database does not hold yet."""
    spec = to_json(run.spec)
    spec_hash = hashlib.sha256(spec.encode()).hexdigest()
    facts = provenance.read(run.dir)
    units = units_of([run])
    directions, _ = completed_directions(directions_of([run]), units)
    points = points_of(run)
    body = store_bytes(run, f"{meta.get('host', '')}:{run.dir.resolve()}")
    with database.writing() as connection:
        _insert_ignoring(connection, schema.specs, [{"hash": spec_hash, "body": spec}], "hash")
        inserted = connection.execute(
            _conflict_free(connection, schema.runs, "run_key").returning(schema.runs.c.id),
            _run_row(run, meta, key, spec_hash, facts),
        ).scalar()
        if inserted is None:  # another writer published it meanwhile
            return False
        connection.execute(schema.stores.insert(), {"run": inserted, "body": body})
        _write_points(connection, inserted, points, units, directions)
    return True


def _published(connection: Connection, key: str) -> bool:
    query = sa.select(schema.runs.c.id).where(schema.runs.c.run_key == key)
    return connection.execute(query).first() is not None


def _conflict_free(connection: Connection, table: sa.Table, column: str) -> sa.Insert:
    """An INSERT that skips a row whose ``column`` is taken (both back ends' spelling)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table).on_conflict_do_nothing(index_elements=[column])
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table).on_conflict_do_nothing(index_elements=[column])


def _insert_ignoring(
    connection: Connection, table: sa.Table, rows: list[dict[str, object]], column: str
) -> None:
    connection.execute(_conflict_free(connection, table, column), rows)


def _run_row(
    run: Run, meta: Mapping[str, str], key: str, spec_hash: str, facts: Mapping[str, object]
) -> dict[str, object]:
    definition = facts.get("definition")
    sha = definition.get("sha256", "") if isinstance(definition, dict) else ""
    return {
        "run_key": key,
        "benchmark": meta.get("name") or run.benchmark.name,
        "run_id": run.id,
        "directory": str(run.dir.resolve()),
        "created": float(meta.get("created") or 0),
        "published": time.time(),
        "user_name": meta.get("user", ""),
        "host": meta.get("host", ""),
        "site": run.platform.site or run.platform.name,
        "platform": run.platform.name,
        "scheduler": run.platform.scheduler,
        "jubex_version": meta.get("jubex_version", ""),
        "definition": meta.get("definition", ""),
        "definition_hash": str(sha),
        "tags": meta.get("tags", "[]"),
        "overrides": meta.get("overrides", "{}"),
        "comment": meta.get("comment", ""),
        "imported_from": meta.get("imported_from", ""),
        "provenance": json.dumps(facts, sort_keys=True),
        "spec_hash": spec_hash,
        "every_sample": True,
    }


@dataclass(frozen=True, slots=True)
class Taken:
    """One number of a point: its execution (the point's ``repetition``, its workpackage),
    its metric and the program's own ``iteration`` inside that execution (IOR's ``-i``)."""

    repetition: int
    workpackage: int
    metric: str
    iteration: int
    value: float


def taken(point: Point) -> Iterator[Taken]:
    """Every sample of a point, as its rows give them to a result table (``samples_of``):
    each repetition, each metric, each of a program's own iterations, in that order."""
    for repetition, row in enumerate(point.rows):
        wp = int(row["jube_wp_id"])  # type: ignore[call-overload]
        for metric in metrics_of(row, point.parameters):
            for iteration, value in enumerate(samples_of(row, metric)):
                if isinstance(value, int | float) and not isinstance(value, bool):
                    yield Taken(repetition, wp, metric, iteration, float(value))


def _write_points(
    connection: Connection,
    run_id: int,
    points: Sequence[Point],
    units: Mapping[str, str],
    directions: Mapping[str, bool | None],
) -> None:
    """Points, their parameters, samples, verdicts and flags: a handful of bulk inserts."""
    if not points:
        return
    ids = connection.execute(
        schema.points.insert().returning(schema.points.c.id, sort_by_parameter_order=True),
        [
            {
                "run": run_id,
                "step": p.step,
                "point_key": p.key,
                "parameters": json.dumps(p.parameters),  # in the run's order, as its rows
            }
            for p in points
        ],
    ).scalars()
    parameters, samples, verdicts, flags, packs = [], [], [], [], []
    for point_id, point in zip(ids, points, strict=True):
        parameters += [
            {"point": point_id, "name": n, "value": v, "number": _number(v)}
            for n, v in point.parameters.items()
        ]
        verdicts += [
            {
                "point": point_id,
                "repetition": repetition,
                "run": run_id,
                "workpackage": int(row["jube_wp_id"]),  # type: ignore[call-overload]
                "ok": bool(row["ok"]),
                "reason": str(row.get("reason") or ""),
            }
            for repetition, row in enumerate(point.rows)
        ]
        series: dict[str, dict[int, list[float]]] = {}
        of_point = []
        for sample in taken(point):
            value = sample.value
            series.setdefault(sample.metric, {}).setdefault(sample.repetition, []).append(value)
            row = {
                "point": point_id,
                "metric": sample.metric,
                "repetition": sample.repetition,
                "iteration": sample.iteration,
                "run": run_id,
                "workpackage": sample.workpackage,
                "value": value if math.isfinite(value) else None,
                "unit": unit_of(sample.metric, units),
                "higher_is_better": directions.get(sample.metric),
            }
            samples.append(row)
            of_point.append(_PACKED(row))
        if of_point:
            packs.append(pack(point_id, run_id, of_point))
        flags += _flags(point_id, run_id, series)
    for table, rows in (
        (schema.parameters, parameters),
        (schema.samples, samples),
        (schema.sample_packs, with_layout_ids(connection, packs)),
        (schema.verdicts, verdicts),
        (schema.flags, flags),
    ):
        insert_many(connection, table, rows)


#: a sample's row as its point's pack takes it
_PACKED = itemgetter("metric", "repetition", "iteration", "value", "unit", "higher_is_better")


def insert_many(connection: Connection, table: sa.Table, rows: list[dict[str, object]]) -> None:
    """Rows into a table by the driver's own executemany: SQLAlchemy's per-row processing
    of a compiled INSERT cost most of a publish (100,000 samples: seconds)."""
    if not rows:
        return
    columns = list(rows[0])
    mark = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    connection.exec_driver_sql(
        f"INSERT INTO {table.name} ({', '.join(columns)}) "
        f"VALUES ({', '.join([mark] * len(columns))})",
        [tuple(row[c] for c in columns) for row in rows],
    )


def _number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def unit_of(metric: str, units: Mapping[str, str]) -> str:
    """A value's unit; of ``write_bw_1`` (record 1 of ``write_bw``), the unit of its name."""
    if metric in units:
        return units[metric]
    base, _, record = metric.rpartition("_")
    return units.get(base, "") if record.isdigit() else ""


def _flags(
    point: int, run: int, series: Mapping[str, Mapping[int, list[float]]]
) -> list[dict[str, object]]:
    """A point's noisy metrics and outlying samples, as ``jubex result`` flags them: each
    execution's values (its repetition's) are the program's own iterations, not
    independent of each other (results.md, "Flags")."""
    found = []
    for metric, by_repetition in series.items():
        executions = list(by_repetition.values())
        values = [v for execution in executions for v in execution]
        cv = _cv(values)
        if cv is not None and cv > CV_LIMIT:
            found.append(_flag(point, run, metric, "noisy", f"cv {cv:.1%}"))
        spread = examine(executions, OUTLIER_ALPHA)
        if spread.runs:
            between, within = spread.runs
            detail = f"cv {between:.1%} between executions, {within:.1%} within"
            found.append(_flag(point, run, metric, "runs differ", detail))
        if spread.groups:
            found.append(_flag(point, run, metric, "bimodal", two_groups_text(spread.groups)))
        if spread.many:
            detail = f"{spread.many} of {len(values)} values far out"
            found.append(_flag(point, run, metric, "not one population", detail))
        if spread.outliers:
            where = [
                (repetition, iteration, value)
                for repetition, execution in by_repetition.items()
                for iteration, value in enumerate(execution)
            ]
            detail = ", ".join(
                _where(*where[i], len(by_repetition[where[i][0]])) for i in spread.outliers
            )
            found.append(_flag(point, run, metric, "outlier", detail))
    return found


def _where(repetition: int, iteration: int, value: float, iterations: int) -> str:
    """``repetition 2: 1500``, or ``repetition 2 iteration 1: 1500`` of an execution that
    repeated its measurement."""
    place = f"repetition {repetition}" + (f" iteration {iteration}" if iterations > 1 else "")
    return f"{place}: {value:g}"


def _cv(values: Sequence[float]) -> float | None:
    """std / |mean| as a summary's ``cv`` (sample std; none for one value or a zero mean),
    without the rest of a summary: a publish asks it of every metric of every point."""
    finite = [v for v in values if math.isfinite(v)]
    if len(finite) < 2:
        return None
    mean = math.fsum(finite) / len(finite)
    if not mean:
        return None
    return math.sqrt(math.fsum((v - mean) ** 2 for v in finite) / (len(finite) - 1)) / abs(mean)


def _flag(point: int, run: int, metric: str, flag: str, detail: str) -> dict[str, object]:
    return {"point": point, "metric": metric, "flag": flag, "run": run, "detail": detail}
