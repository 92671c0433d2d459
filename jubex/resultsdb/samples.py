"""A metric's samples over time, read from the database without opening any run.

``jubex query`` prints them; ``jubex history`` of ``db:`` selectors sets them run against
run. One query joins the selected runs, their points (the selector's parameter values
narrow them to the points that have them) and the samples of the metrics asked for.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

import sqlalchemy as sa

from jubex.definition.frozen import from_json
from jubex.errors import UsageError
from jubex.results.columns import Header
from jubex.results.compare_runs import default_metrics
from jubex.results.history import RunRows, history
from jubex.results.keys import default_keys
from jubex.results.table import ResultTable
from jubex.resultsdb import schema
from jubex.resultsdb.connect import Database
from jubex.resultsdb.select import Selector, has_parameter, parse, run_query, selected
from jubex.space.spec import RunSpec


@dataclass(frozen=True, slots=True)
class Sample:
    """One sample with where and when it was taken."""

    run: int
    point: int
    label: str
    created: float
    site: str
    user: str
    step: str
    parameters: dict[str, str]
    metric: str
    repetition: int
    value: float | None
    unit: str
    higher_is_better: bool | None


@dataclass
class Samples:
    """The samples a selector and metrics name, oldest run first, and the newest run's spec."""

    items: list[Sample]
    latest_spec: RunSpec


def read_samples(
    text: str, metrics: Sequence[str] = (), database: Database | None = None
) -> Samples:
    """The samples of the runs ``text`` selects: of ``metrics``, or of every metric."""
    database = database or Database()
    selector = parse(text)
    with database.reading() as connection:
        runs = selected(connection, selector, database)
        spec = connection.execute(
            sa.select(schema.specs.c.body).where(schema.specs.c.hash == runs[-1].spec_hash)
        ).scalar_one()
        found = connection.execute(_samples_query(selector, metrics)).all()
    labels = _labels(runs)
    items = [
        Sample(
            row.run,
            row.point,
            labels[row.run],
            row.created,
            row.site,
            row.user_name,
            row.step,
            json.loads(row.parameters),
            row.metric,
            row.repetition,
            row.value,
            row.unit,
            row.higher_is_better,
        )
        for row in found
    ]
    return Samples(items, from_json(RunSpec, spec))


def _samples_query(selector: Selector, metrics: Sequence[str]) -> sa.Select:
    runs = run_query(selector).subquery()
    points, samples = schema.points, schema.samples
    query = (
        sa.select(
            runs.c.id.label("run"),
            runs.c.created,
            runs.c.site,
            runs.c.user_name,
            points.c.id.label("point"),
            points.c.step,
            points.c.parameters,
            samples.c.metric,
            samples.c.repetition,
            samples.c.value,
            samples.c.unit,
            samples.c.higher_is_better,
        )
        .join(points, points.c.run == runs.c.id)
        .join(samples, samples.c.point == points.c.id)
    )
    for name, value in selector.parameters.items():
        query = query.where(has_parameter(points.c.id, name, value))
    if metrics:
        query = query.where(samples.c.metric.in_(list(metrics)))
    return query.order_by(runs.c.created, points.c.id, samples.c.repetition, samples.c.metric)


def _labels(runs: Sequence[sa.Row]) -> dict[int, str]:
    """How a run is named: its id where that is unique, else its site and id, else its key."""
    for label in (
        lambda r: r.run_id,
        lambda r: f"{r.site}/{r.run_id}",
        lambda r: f"{r.site}/{r.run_id}/{r.run_key[:8]}",
    ):
        names = {r.id: label(r) for r in runs}
        if len(set(names.values())) == len(names):
            return names
    return {r.id: r.run_key for r in runs}


def query_table(text: str, metric: str, database: Database | None = None) -> ResultTable:
    """``jubex query``: every sample of one metric, a row each, oldest run first."""
    found = read_samples(text, [metric], database).items
    if not found:
        raise UsageError(f"the runs '{text}' selects hold no samples of '{metric}'")
    names = list(dict.fromkeys(n for s in found for n in s.parameters))
    unit = found[0].unit
    headers = [
        Header("created", "created"),
        Header("run", "run"),
        Header("site", "site"),
        Header("user", "user"),
        Header("step", "step"),
        *(Header(n, n) for n in names),
        Header("repetition", "repetition"),
        Header(metric, metric, unit=unit, higher_is_better=found[0].higher_is_better),
    ]
    rows: list[list[object]] = [
        [
            time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s.created)),
            s.label,
            s.site,
            s.user,
            s.step,
            *(s.parameters.get(n) for n in names),
            s.repetition,
            s.value,
        ]
        for s in found
    ]
    runs = len({s.run for s in found})
    return ResultTable("query", headers, rows, [f"{len(rows)} sample(s) of {runs} run(s)"])


def database_history(
    text: str,
    *,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    tolerance: float = 0.05,
    alpha: float = 0.05,
    all_metrics: bool = False,
    database: Database | None = None,
) -> ResultTable:
    """``jubex history db:...``: the history of the selected runs from their samples."""
    found = read_samples(text, metrics, database)
    by_run: dict[int, tuple[Sample, dict[tuple[int, int], dict[str, object]]]] = {}
    parameters: set[str] = set()
    units: dict[str, str] = {}
    directions: dict[str, bool | None] = {}
    for sample in found.items:
        _, points = by_run.setdefault(sample.run, (sample, {}))
        row = points.setdefault(
            (sample.point, sample.repetition),
            {**sample.parameters, "jube_step_name": sample.step},
        )
        row[sample.metric] = sample.value
        parameters.update(sample.parameters)
        units.setdefault(sample.metric, sample.unit)
        directions.setdefault(sample.metric, sample.higher_is_better)
    entries = [
        RunRows(first.label, first.created, list(rows.values())) for first, rows in by_run.values()
    ]
    rows = [entry.rows for entry in entries]
    tables = list(found.latest_spec.benchmark.tables.values())
    metrics = list(metrics) or default_metrics(rows, parameters, directions, tables, all_metrics)
    keys = list(keys) or default_keys(rows, parameters, [found.latest_spec.benchmark])
    return history(
        entries,
        keys=keys,
        metrics=metrics,
        directions=directions,
        units=units,
        tolerance=tolerance,
        alpha=alpha,
    )
