"""A metric's samples over time, read from the database without opening any run.

``jubex query`` prints them; ``jubex history`` of ``db:`` selectors sets them run against
run. One query reads the points of the selected runs (the selector's parameter values
narrow them to the points that have them), another their samples, a pack a point
(:mod:`jubex.resultsdb.packs`: of the metrics asked for alone), in the same order: a
point's run, step and parameters are read once, not once a sample.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from jubex.definition.frozen import from_json
from jubex.errors import UsageError
from jubex.results.tables.columns import Header
from jubex.results.tables.table import ResultTable
from jubex.resultsdb.connect import Database
from jubex.resultsdb.packs import PackError, PointSet, Unpacker, as_set
from jubex.resultsdb.select import Selector, opened, parse, selected
from jubex.resultsdb.sql import (
    PointRow,
    PointSample,
    Query,
    RunRow,
    direction,
    fetch,
    has_parameter,
    layouts_query,
    packs_query,
    points_query,
    rows,
    specs_query,
)
from jubex.space.spec import RunSpec
from jubex.store.store import Decoder

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from jubex.results.trends.figures import Figures


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
    what a reader must know of where they came from.

    They are kept as the queries give them: every point of the selected runs (a
    :class:`PointRow` each) and the samples of those that have some, a set a point
    (:class:`~jubex.resultsdb.packs.PointSet`), in the points' order: a history reads
    them so; :attr:`rows` and :attr:`items` are made from them when asked for."""

    runs: list[RunRow]
    #: each laid out as :class:`PointRow`
    points: list[tuple[Any, ...]]
    sets: list[PointSet]
    latest_spec: RunSpec
    notes: list[str] = field(default_factory=list)

    @cached_property
    def rows(self) -> list[tuple[Any, ...]]:
        """The samples a row each, laid out as :class:`PointSample`."""
        return [row for found in self.sets for row in found.rows()]

    @cached_property
    def labels(self) -> dict[int, str]:
        return _labels(self.runs)

    @cached_property
    def where(self) -> dict[int, tuple[Any, ...]]:
        """Each point's :class:`PointRow`, by its id."""
        return {point[1]: point for point in self.points}

    @cached_property
    def items(self) -> list[Sample]:
        runs = {run.id: run for run in self.runs}
        where = self.where
        labels = self.labels
        parsed: dict[str, dict[str, str]] = {}  # a point's parameters, read once
        found = []
        for point, metric, repetition, iteration, value, unit, better in self.rows:
            run, _, step, parameters = where[point]
            taken = runs[run]
            found.append(
                Sample(
                    run,
                    point,
                    labels[run],
                    taken.created,
                    taken.site,
                    taken.platform,
                    taken.definition_hash,
                    taken.user_name,
                    step,
                    _parsed(parameters, parsed),
                    metric,
                    repetition,
                    iteration,
                    value,
                    unit,
                    direction(better),
                )
            )
        return found


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
        points = rows(connection, points_query(selector))
        packs = rows(connection, packs_query(selector))
        ids = {pack[1] for pack in packs}
        layouts = dict(rows(connection, layouts_query(ids))) if ids else {}
    found = _unpacked(packs, layouts, metrics, database)
    one_snapshot = database.path is not None  # a SQLite file: read in one transaction
    points, found = _of_runs(points, found, {run.id for run in runs}, one_snapshot)
    partial = [run for run in runs if not run.every_sample]
    if partial:  # from their stored runs, which SQLAlchemy's connection opens
        with database.reading() as connection:
            again = _reread(connection, selector, metrics, partial)
        points, found = _with_reread(points, found, runs, {run.id for run in partial}, again)
    notes = []
    if partial:
        labels = _labels(runs)
        notes.append(
            f"{len(partial)} run(s) ({', '.join(labels[run.id] for run in partial)}) were "
            "published before the database kept every sample (it holds the first iteration "
            "of each execution of them): their samples were read from their stored runs"
        )
    return Samples(runs, points, found, _spec_of(runs[-1], spec), notes)


def _unpacked(
    packs: list[tuple[Any, ...]],
    layouts: dict[Any, Any],
    metrics: Sequence[str],
    database: Database,
) -> list[PointSet]:
    """The points' sets of samples of their packs (``layouts``: the texts of their
    layouts, by id), of ``metrics`` alone where named; a damaged pack refused by name."""
    unpack = Unpacker(layouts, metrics)
    try:
        return [found for found in map(unpack, packs) if found is not None]
    except PackError as error:
        raise UsageError(
            f"the results database {database.name} holds a damaged sample pack: {error}",
            hint="give a results database jubex made (docs/database.md)",
        ) from None


def _of_runs(
    points: list[tuple[Any, ...]],
    found: list[PointSet],
    runs: Collection[int],
    one_snapshot: bool,
) -> tuple[list[tuple[Any, ...]], list[PointSet]]:
    """The points of ``runs`` and their samples: all that were read where the queries
    shared one snapshot and selected no other runs (the rule), else those alone (only
    some runs of the selection asked for, or a database that gives each query its own
    snapshot, where a run published between them is in one and not the other)."""
    if one_snapshot and all(point[0] in runs for point in points):
        return points, found
    points = [point for point in points if point[0] in runs]
    ids = {point[1] for point in points}
    return points, [each for each in found if each.point in ids]


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


def _with_reread(
    points: list[tuple[Any, ...]],
    found: list[PointSet],
    runs: Sequence[RunRow],
    reread: Collection[int],
    again: list[tuple[PointRow, list[PointSample]]],
) -> tuple[list[tuple[Any, ...]], list[PointSet]]:
    """The points and samples of the database with those of the runs ``reread`` replaced by
    the ones read from their stored runs (``again``: each point that holds samples there,
    with them; the other points of those runs stay as the database has them; a point the
    points' query did not give is not taken), in the queries' order."""
    run_of = {point[1]: point[0] for point in points}
    again = [(point, samples) for point, samples in again if point.point in run_of]
    replaced = {point.point: point for point, _ in again}
    points = [replaced.get(point[1], point) for point in points]
    merged = [each for each in found if run_of.get(each.point) not in reread]
    merged += [as_set(point.point, samples) for point, samples in again]
    rank = {run.id: i for i, run in enumerate(runs)}
    return points, sorted(merged, key=lambda each: (rank[run_of[each.point]], each.point))


def _reread(
    connection: Connection, selector: Selector, metrics: Sequence[str], runs: Sequence[RunRow]
) -> list[tuple[PointRow, list[PointSample]]]:
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
    found: list[tuple[PointRow, list[PointSample]]] = []
    specs: dict[str, RunSpec] = {}
    for row in runs:
        run = opened(connection, row, specs)
        units = units_of([run])
        directions, _ = completed_directions(directions_of([run]), units)
        for point in points_of(run):
            point_id = ids.get((row.id, point.key))
            if point_id is None:
                continue
            samples = [
                PointSample(
                    point_id,
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
            if samples:
                where = PointRow(row.id, point_id, point.step, json.dumps(point.parameters))
                found.append((where, samples))
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
    return figures_of_samples(
        read_samples(text, metrics, database),
        keys=keys,
        metrics=metrics,
        tolerance=tolerance,
        alpha=alpha,
        all_metrics=all_metrics,
        by=by,
    ).table()


@dataclass
class RunSamples:
    """A run's rows as a history of samples makes them."""

    #: a row a point that holds samples of the metrics, its samples by metric under
    #: ``"samples"`` (its repetitions' samples in order, as a cell of a row a repetition
    #: gives them: 1,000 runs of 5 repetitions make 1,000 rows, not 5,000)
    held: list[dict[str, Any]] = field(default_factory=list)
    #: a row a point that holds none (as in a run directory's rows: the keys are the
    #: parameters that vary between all points of a run)
    bare: list[dict[str, Any]] = field(default_factory=list)
    #: the names of the parameters of its points
    names: set[str] = field(default_factory=set)


@dataclass
class SampleRows:
    """The samples of a selection as rows a point, by run, and each metric's unit and
    better direction (those of its first sample): made once, read by a history and by the
    site's series alike."""

    by_run: dict[int, RunSamples]
    units: dict[str, str]
    directions: dict[str, bool | None]


def sample_rows(found: Samples) -> SampleRows:
    """The rows of the samples read, a row a point, each parameter typed as a run's store
    types it; a row's value of a metric is its first repetition's first sample that is a
    number (as some row of a repetition each would hold it).

    The samples come in the points' order, a set a point, each metric's values one after
    another: each metric's list is a slice of the set's, so a site's 2.5 million samples
    cost no Python step each."""
    decode = Decoder(found.latest_spec.benchmark.parameter_types())  # as a run's store reads
    runs = {run.id: run for run in found.runs}
    texts: dict[str, dict[str, str]] = {}  # a point's parameters, read once a text
    by_run: dict[int, RunSamples] = {}
    units: dict[str, str] = {}
    directions: dict[str, bool | None] = {}
    sets = iter(found.sets)  # in the points' order
    held_set = next(sets, None)
    for run_id, point, step, text in found.points:
        run = runs[run_id]
        values = _parsed(text, texts)
        made = by_run.get(run_id)
        if made is None:
            made = by_run[run_id] = RunSamples()
        made.names.update(values)
        row = {**decode(values), "jube_step_name": step, "platform": run.platform, "site": run.site}
        if held_set is None or point != held_set.point:  # a point that holds none of them
            made.bare.append(row)
            continue
        made.held.append(row)
        held: dict[str, list[Any]] = {}
        row["samples"] = held
        every = held_set.values
        for index, metric, start, end in held_set.slices():
            values_of = held[metric] = every[start:end]
            value = values_of[0]
            row[metric] = value if value is not None else held_set.first_number(start, end)
            if metric not in units:
                units[metric] = held_set.units[index]
                directions[metric] = held_set.directions[index]
        held_set = next(sets, None)
    if held_set is not None:  # samples of no point read, or out of the points' order
        raise UsageError("the results database changed while it was read: try again")
    return SampleRows(by_run, units, directions)


def figures_of_samples(
    found: Samples,
    *,
    rows: SampleRows | None = None,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    tolerance: float = 0.05,
    alpha: float = 0.05,
    all_metrics: bool = False,
    by: Sequence[str] = (),
) -> Figures:
    """The history's figures of samples already read (the site reads each benchmark at
    each site apart and makes its series of them, not of the table's rows), of their rows
    where made already (``rows``: the site's series are made of them too)."""
    from jubex.results.trends.history import RunRows, chosen_figures  # numpy: not for query

    made = rows or sample_rows(found)
    runs = {run.id: run for run in found.runs}
    by_run = {run: held for run, held in made.by_run.items() if held.held}  # the others: none
    labels = found.labels
    entries = [
        RunRows(
            labels[run],
            runs[run].created,
            [*held.held, *held.bare],
            runs[run].definition_hash,
        )
        for run, held in by_run.items()
    ]
    parameters = {name for held in by_run.values() for name in held.names}
    figures = chosen_figures(
        entries,
        benchmarks=[found.latest_spec.benchmark],
        keys=keys,
        metrics=metrics,
        all_metrics=all_metrics,
        directions=made.directions,
        units=made.units,
        tolerance=tolerance,
        alpha=alpha,
        parameters=parameters,
        by=by,
    )
    figures.notes[:0] = found.notes
    return figures
