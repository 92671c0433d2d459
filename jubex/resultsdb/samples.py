"""A metric's samples over time, read from the database without opening any run.

``jubex query`` prints them; ``jubex history`` of ``db:`` selectors sets them run against
run. One query joins the selected runs, their points (the selector's parameter values
narrow them to the points that have them) and the samples of the metrics asked for.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jubex.definition.frozen import from_json
from jubex.errors import UsageError
from jubex.results.tables.columns import Header
from jubex.results.tables.table import ResultTable
from jubex.results.trends.history import RunRows, chosen_history
from jubex.resultsdb.connect import Database
from jubex.resultsdb.select import Selector, opened, parse, selected
from jubex.resultsdb.sql import (
    PointRow,
    Query,
    RunRow,
    SampleRow,
    fetch,
    has_parameter,
    points_query,
    sample_row,
    samples_query,
    specs_query,
)
from jubex.space.spec import RunSpec
from jubex.store.store import Decoder

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection


@dataclass(frozen=True, slots=True)
class Sample:
    """One sample with where and when it was taken."""

    run: int
    point: int
    label: str
    created: float
    site: str
    platform: str
    definition: str
    user: str
    step: str
    parameters: dict[str, str]
    metric: str
    repetition: int
    iteration: int
    value: float | None
    unit: str
    higher_is_better: bool | None


@dataclass
class Samples:
    """The samples a selector and metrics name, oldest run first, the newest run's spec, and
    what a reader must know of where they came from."""

    items: list[Sample]
    latest_spec: RunSpec
    notes: list[str] = field(default_factory=list)
    #: the parameter values of every point of each run, whether it holds the metrics or not
    points: dict[int, list[tuple[int, str, dict[str, str]]]] = field(default_factory=dict)


def read_samples(
    text: str, metrics: Sequence[str] = (), database: Database | None = None
) -> Samples:
    """The samples of the runs ``text`` selects: of ``metrics``, or of every metric.

    A run published before the database kept every sample holds one per execution (the
    first of a program's own iterations): its samples are taken from its stored run
    instead, as publishing takes them now, and a note says which runs those were."""
    return read_selected(parse(text), metrics, database or Database())


def read_selected(
    selector: Selector,
    metrics: Sequence[str],
    database: Database,
    only: Collection[int] | None = None,
) -> Samples:
    """:func:`read_samples` of a parsed selector; ``only``: of these of its runs alone (the
    site reads a benchmark at a site at a time, so that its memory is one history's)."""
    with database.querying() as connection:
        runs = selected(connection, selector, database)
        if only is not None:
            runs = [run for run in runs if run.id in only]
            if not runs:  # they were removed since they were selected
                raise UsageError(
                    f"the runs of '{selector.text}' changed while they were read: try again"
                )
        spec = fetch(connection, specs_query([runs[-1].spec_hash]), lambda _, body: body)
        found = fetch(connection, samples_query(selector, metrics), sample_row)
        if only is not None:
            found = [row for row in found if row.run in only]
        every_point = fetch(connection, points_query(selector), PointRow)
        if only is not None:
            every_point = [point for point in every_point if point.run in only]
        partial = [run for run in runs if not run.every_sample]
    if partial:  # from their stored runs, which SQLAlchemy's connection opens
        with database.reading() as connection:
            found = [row for row in found if row.run not in {run.id for run in partial}]
            found += _reread(connection, selector, metrics, partial)
        found.sort(key=_order)
    labels = _labels(runs)
    parsed: dict[str, dict[str, str]] = {}  # a point's parameters, read once for its samples
    items = [
        Sample(
            row.run,
            row.point,
            labels[row.run],
            row.created,
            row.site,
            row.platform,
            row.definition_hash,
            row.user_name,
            row.step,
            _parsed(row.parameters, parsed),
            row.metric,
            row.repetition,
            row.iteration,
            row.value,
            row.unit,
            row.higher_is_better,
        )
        for row in found
    ]
    notes = []
    if partial:
        notes.append(
            f"{len(partial)} run(s) ({', '.join(labels[run.id] for run in partial)}) were "
            "published before the database kept every sample (it holds the first iteration "
            "of each execution of them): their samples were read from their stored runs"
        )
    points: dict[int, list[tuple[int, str, dict[str, str]]]] = {}
    for point in every_point:
        points.setdefault(point.run, []).append(
            (point.id, point.step, json.loads(point.parameters))
        )
    return Samples(items, _spec_of(runs[-1], spec), notes, points)


def _spec_of(run: RunRow, found: list[object]) -> RunSpec:
    """The newest run's resolved run, which a damaged database may lack."""
    try:
        if len(found) == 1 and isinstance(found[0], str):
            return from_json(RunSpec, found[0])
    except (ValueError, TypeError, AttributeError, KeyError, RecursionError):
        pass  # as a run directory's damaged run.json is told
    raise UsageError(
        f"the published run {str(run.run_id)[:40]!r} of the results database lacks its "
        "resolved run or holds a damaged one: it is not read",
        hint="publish the run again from its run directory",
    )


def read_specs(database: Database, hashes: Collection[str]) -> dict[str, RunSpec]:
    """The specs of these hashes, in one query."""
    with database.querying() as connection:
        found = fetch(connection, specs_query(hashes), lambda *row: row)
        return {key: from_json(RunSpec, body) for key, body in found}


def _parsed(text: str, known: dict[str, dict[str, str]]) -> dict[str, str]:
    found = known.get(text)
    if found is None:
        found = known[text] = json.loads(text)
    return found


def _order(row: SampleRow) -> tuple[float, int, int, int, str, int]:
    return (row.created, row.run, row.point, row.repetition, row.metric, row.iteration)


def _reread(
    connection: Connection, selector: Selector, metrics: Sequence[str], runs: Sequence[RunRow]
) -> list[SampleRow]:
    """The samples of runs published with their first iterations only, from their stored
    runs (unpacked into the cache as ``db:`` opens them), by publishing's own reading."""
    from jubex.results.comparison.compare_runs import completed_directions
    from jubex.results.tables.tabulate import directions_of, units_of
    from jubex.resultsdb.publish import points_of, taken, unit_of

    query = Query()
    query.text = (
        "SELECT id, run, point_key FROM points"
        f" WHERE run IN ({query.bind_all(run.id for run in runs)})"
    )
    for name, value in selector.parameters.items():
        query.text += f" AND {has_parameter(query, 'points.id', name, value)}"
    ids = {(run, key): point for point, run, key in fetch(connection, query, lambda *r: r)}
    wanted = set(metrics)
    found: list[SampleRow] = []
    specs: dict[str, RunSpec] = {}
    for row in runs:
        run = opened(connection, row, specs)
        units = units_of([run])
        directions, _ = completed_directions(directions_of([run]), units)
        for point in points_of(run):
            point_id = ids.get((row.id, point.key))
            if point_id is None:
                continue
            parameters = json.dumps(point.parameters)
            found += [
                SampleRow(
                    row.id,
                    row.created,
                    row.site,
                    row.platform,
                    row.definition_hash,
                    row.user_name,
                    point_id,
                    point.step,
                    parameters,
                    sample.metric,
                    sample.repetition,
                    sample.iteration,
                    sample.value if math.isfinite(sample.value) else None,
                    unit_of(sample.metric, units),
                    directions.get(sample.metric),
                )
                for sample in taken(point)
                if not wanted or sample.metric in wanted
            ]
    return found


def _labels(runs: Sequence[RunRow]) -> dict[int, str]:
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
    found = read_samples(text, [metric], database)
    if not found.items:
        raise UsageError(f"the runs '{text}' selects hold no samples of '{metric}'")
    names = list(dict.fromkeys(n for s in found.items for n in s.parameters))
    first = found.items[0]
    headers = [
        Header("created", "created"),
        Header("run", "run"),
        Header("site", "site"),
        Header("user", "user"),
        Header("step", "step"),
        *(Header(n, n) for n in names),
        Header("repetition", "repetition"),
        Header("iteration", "iteration"),
        Header(metric, metric, unit=first.unit, higher_is_better=first.higher_is_better),
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
            s.iteration,
            s.value,
        ]
        for s in found.items
    ]
    runs = len({s.run for s in found.items})
    notes = [f"{len(rows)} sample(s) of {runs} run(s)", *found.notes]
    return ResultTable("query", headers, rows, notes)


def database_history(
    text: str,
    *,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    tolerance: float = 0.05,
    alpha: float = 0.05,
    all_metrics: bool = False,
    by: Sequence[str] = (),
    database: Database | None = None,
) -> ResultTable:
    """``jubex history db:...``: the history of the selected runs from their samples."""
    return history_of_samples(
        read_samples(text, metrics, database),
        keys=keys,
        metrics=metrics,
        tolerance=tolerance,
        alpha=alpha,
        all_metrics=all_metrics,
        by=by,
    )


def history_of_samples(
    found: Samples,
    *,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    tolerance: float = 0.05,
    alpha: float = 0.05,
    all_metrics: bool = False,
    by: Sequence[str] = (),
) -> ResultTable:
    """The history of samples already read (the site reads a whole selection at once and
    sets each benchmark at each site apart)."""
    decode = Decoder(found.latest_spec.benchmark.parameter_types())  # as a run's store reads
    decoded: dict[int, dict[str, object]] = {}

    def typed(point: int, values: dict[str, str]) -> dict[str, object]:
        if point not in decoded:
            decoded[point] = decode(values)
        return decoded[point]

    by_run: dict[int, tuple[Sample, dict[tuple[int, int], dict[str, object]]]] = {}
    parameters: set[str] = set()
    units: dict[str, str] = {}
    directions: dict[str, bool | None] = {}
    for sample in found.items:
        _, points = by_run.setdefault(sample.run, (sample, {}))
        row = points.setdefault(
            (sample.point, sample.repetition),
            {
                **typed(sample.point, sample.parameters),
                "jube_step_name": sample.step,
                "platform": sample.platform,
                "site": sample.site,
                "samples": {},
            },
        )
        row.setdefault(sample.metric, sample.value)  # a row's value is its first sample
        row["samples"].setdefault(sample.metric, []).append(sample.value)  # type: ignore[attr-defined]
        parameters.update(sample.parameters)
        units.setdefault(sample.metric, sample.unit)
        directions.setdefault(sample.metric, sample.higher_is_better)
    # a point without samples of the metrics is a row too, as in a run directory's rows: the
    # keys are the parameters that vary between all points of a run
    for run, (first, points) in by_run.items():
        held = {point for point, _ in points}
        for point, step, values in found.points.get(run, []):
            if point not in held:
                points[point, -1] = {
                    **typed(point, values),
                    "jube_step_name": step,
                    "platform": first.platform,
                    "site": first.site,
                }
            parameters.update(values)
    entries = [
        RunRows(first.label, first.created, list(rows.values()), first.definition)
        for first, rows in by_run.values()
    ]
    table = chosen_history(
        entries,
        benchmarks=[found.latest_spec.benchmark],
        keys=keys,
        metrics=metrics,
        all_metrics=all_metrics,
        directions=directions,
        units=units,
        tolerance=tolerance,
        alpha=alpha,
        parameters=parameters,
        by=by,
    )
    table.notes[:0] = found.notes
    return table
