"""A metric across runs over time, with the runs where it changed marked.

A *series* is one configuration at one point: runs join it only when everything but time
is the same (the definition, the parameters outside the point's keys, the platform and the
site). Where a setting changes between a run and the run before it, the series breaks and
the row names what changed (``block 1 → 2``): another setting is no performance change, so
it is never a change point (``by`` makes a setting an axis of the points on purpose).

Each run is a sample per point (its iterations); each run is set against the run before it
in its series with Welch's two-sided t-test, and the p-values of the whole history are corrected
together (Holm), so that a long history of an unchanged system does not mark a change by
chance. A *change point* is a run whose mean differs from the previous run's beyond the
noise and by more than the tolerance: where a new compiler, a firmware update or a full
file system shows.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from jubex.definition.model import Benchmark
from jubex.engine import provenance
from jubex.errors import UsageError, did_you_mean
from jubex.results.comparison.compare import group_points, numbers_of
from jubex.results.comparison.compare_runs import completed_directions, default_metrics
from jubex.results.statistics.significance import adjust
from jubex.results.statistics.stats import Summary, summarize
from jubex.results.tables.columns import Header, Row
from jubex.results.tables.keys import default_keys
from jubex.results.tables.table import ResultTable
from jubex.results.tables.tabulate import directions_of, rows_of, units_of
from jubex.results.trends.steps import stepwise_p
from jubex.store.rundir import Run


@dataclass(frozen=True, slots=True)
class RunRows:
    """One run of a history: its id, when it was made (seconds since the epoch), its rows,
    and the sha256 of the definition it was made from (empty where unknown)."""

    label: str
    created: float
    rows: Sequence[Row]
    definition: str = ""


#: what a run's series is besides its parameters: where it ran (keys of its rows)
WHERE = ("platform", "site")


@dataclass
class _Step:
    point: tuple[object, ...]
    metric: str
    run: RunRows
    values: list[float]
    summary: Summary
    setting: tuple[tuple[str, str], ...] = ()
    changed: str | None = None
    change: float | None = None
    p: float | None = None
    adjusted: float | None = None


def history(
    runs: Sequence[RunRows],
    *,
    keys: Sequence[str],
    metrics: Sequence[str],
    directions: Mapping[str, bool | None],
    units: Mapping[str, str],
    tolerance: float = 0.05,
    alpha: float = 0.05,
    parameters: Collection[str] = (),
    by: Sequence[str] = (),
) -> ResultTable:
    """One row per point, metric and run (oldest first), change points marked; a run is
    set against the run before it in its series only (``parameters``: the names of the
    rows that are parameters; ``by``: more keys, settings made axes)."""
    keys = [*keys, *(name for name in by if name not in keys)]
    known = {name for run in runs for row in run.rows for name in row}
    for what, names in (("key", keys), ("metric", metrics)):
        for name in names:
            if name not in known:
                raise UsageError(
                    f"{what} '{name}' is in none of the runs", hint=did_you_mean(name, known)
                )
    ordered = sorted(runs, key=lambda run: run.created)
    others = [name for name in parameters if name not in keys]
    notes: list[str] = []
    steps: list[_Step] = []
    grouped = [_grouped(run, keys, others) for run in ordered]
    for metric in metrics:
        by_point: dict[tuple[object, ...], list[_Step]] = {}
        for run, (points, said) in zip(ordered, grouped, strict=True):
            notes += said
            for point, (rows, setting) in points.items():
                try:
                    values = numbers_of(rows, metric, 1.0)
                except ValueError as error:
                    notes.append(f"{metric} at {point} in run {run.label} {error}: left out")
                    continue
                if values:
                    by_point.setdefault(point, []).append(
                        _Step(
                            point,
                            metric,
                            run,
                            values,
                            _summary(values),
                            setting,
                        )
                    )
        for at_point in by_point.values():
            _breaks(at_point)
            series: dict[tuple[tuple[str, str], ...], list[_Step]] = {}
            for step in at_point:
                series.setdefault(step.setting, []).append(step)
            for one in series.values():
                _changes(one)
            steps += at_point
    for step, adjusted in zip(steps, adjust([s.p for s in steps]), strict=True):
        step.adjusted = adjusted
    return _table(steps, keys, directions, units, tolerance, alpha, notes)


def _summary(values: Sequence[float]) -> Summary:
    """The count, mean and spread a history shows, as :func:`summarize` computes them (the
    same numbers), without the rest of a summary that a history never reads."""
    n = len(values)
    try:
        mean = math.fsum(values) / n
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    except OverflowError:
        return summarize(values)
    return Summary(n, 0, mean, std, None, None, None, None, None, None)


def _grouped(
    run: RunRows, keys: Sequence[str], others: Sequence[str]
) -> tuple[dict[tuple[object, ...], tuple[list[Row], tuple[tuple[str, str], ...]]], list[str]]:
    """A run's rows by point, each with its setting, and the notes of the grouping: made
    once per run, not once per metric."""
    said: list[str] = []
    points = group_points(run.rows, keys, f"run {run.label}", said)
    return {point: (rows, setting_of(run, rows, others)) for point, rows in points.items()}, said


def setting_of(
    run: RunRows, rows: Sequence[Row], others: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    """Everything but time that makes a run's rows at a point what they are: the values of
    the parameters outside the keys, where it ran, and its definition."""
    names = [*others, *WHERE]
    if len(rows) == 1:  # a point of one row (most): 40,000 of them in a history of 1,000 runs
        row = rows[0]
        found = [(name, str(row[name])) for name in names if name in row]
    else:
        found = [
            (name, ", ".join(dict.fromkeys(str(row.get(name)) for row in rows)))
            for name in names
            if any(name in row for row in rows)
        ]
    return (*found, ("definition", run.definition[:12]))


def _breaks(at_point: Sequence[_Step]) -> None:
    """Name what changed where a run's setting differs from the run's before it."""
    for before, step in pairwise(at_point):
        if step.setting != before.setting:
            old, new = dict(before.setting), dict(step.setting)
            step.changed = "; ".join(
                f"{name} {old.get(name, '-')} → {new.get(name, '-')}"
                for name in dict.fromkeys([*old, *new])
                if old.get(name) != new.get(name)
            )


def _changes(series: list[_Step]) -> None:
    """Each run's change from the run before it, and the two-sided p of that change."""
    tests = stepwise_p([step.values for step in series])
    for (before, step), p in zip(pairwise(series), tests[1:], strict=True):
        b, c = before.summary.mean, step.summary.mean
        if b is None or c is None:
            continue
        step.change = (c / b - 1) * 100 if b else None
        step.p = p


def _table(
    steps: Sequence[_Step],
    keys: Sequence[str],
    directions: Mapping[str, bool | None],
    units: Mapping[str, str],
    tolerance: float,
    alpha: float,
    notes: list[str],
) -> ResultTable:
    headers = [Header(key, key) for key in keys] + [
        Header("metric", "metric"),
        Header("unit", "unit"),
        Header("run", "run"),
        Header("created", "created"),
        Header("n", "n"),
        Header("mean", "mean"),
        Header("std", "std"),
        Header("change", "change", unit="%", format="+.1f"),
        Header("p_adjusted", "p adj", format=".3g"),
        Header("change_point", "change point"),
        Header("setting_changed", "setting changed"),
    ]
    rows = []
    marked = 0
    when: dict[float, str] = {}  # a run's time, written once for all its rows
    for step in sorted(steps, key=lambda s: (s.metric, str(s.point), s.run.created)):
        created = step.run.created
        if created not in when:
            when[created] = time.strftime("%Y-%m-%d %H:%M", time.localtime(created))
        mark = _mark(step, directions.get(step.metric), tolerance, alpha)
        marked += bool(mark)
        rows.append(
            [
                *step.point,
                step.metric,
                units.get(step.metric, ""),
                step.run.label,
                when[created],
                step.summary.n,
                step.summary.mean,
                step.summary.std,
                step.change,
                step.adjusted,
                mark,
                step.changed,
            ]
        )
    tested = sum(s.p is not None for s in steps)
    breaks = sorted({f"run {s.run.label}: {s.changed}" for s in steps if s.changed})
    if breaks:
        notes.append(
            f"{len(breaks)} series break(s) where a setting changed ({'; '.join(breaks)}): "
            "a run is set only against runs of the same setting, and another setting is "
            "no change point (--by NAME makes a parameter an axis of the points)"
        )
    notes.append(
        f"{marked} change point(s): a run whose mean differs from the run before it beyond "
        f"the noise (Welch t-test, Holm-corrected over {tested} test(s) at alpha {alpha:g}) "
        f"and by more than {tolerance:.1%}"
    )
    return ResultTable("history", headers, rows, notes)


def _mark(step: _Step, direction: bool | None, tolerance: float, alpha: float) -> str | None:
    if step.adjusted is None or step.adjusted >= alpha or step.change is None:
        return None
    if abs(step.change) <= tolerance * 100:
        return None
    up = step.change > 0
    if direction is None:
        return "up" if up else "down"
    return "better" if up == direction else "worse"


def history_of_runs(
    runs: Sequence[Run],
    *,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    tolerance: float = 0.05,
    alpha: float = 0.05,
    all_metrics: bool = False,
    by: Sequence[str] = (),
) -> ResultTable:
    """The history of analysed runs; keys and metrics chosen as ``jubex compare`` does."""
    if not runs:
        raise UsageError("no runs to show a history of")
    # metrics named: only they are read (merging every value of 1,000 runs takes minutes);
    # one the runs lack has every value read, for the error to name those they hold
    names = None if all_metrics or not metrics else metrics
    rows = [rows_of([run], per_iteration=True, names=names) for run in runs]
    if names is not None and not set(names) <= {k for side in rows for row in side for k in row}:
        rows = [rows_of([run], per_iteration=True) for run in runs]
    units = units_of(runs)
    directions, _ = completed_directions(directions_of(runs), units)
    entries = [
        RunRows(str(run.id), float(run.meta.get("created") or 0), side, _definition(run))
        for run, side in zip(runs, rows, strict=True)
    ]
    return chosen_history(
        entries,
        benchmarks=[run.benchmark for run in runs],
        keys=keys,
        metrics=metrics,
        all_metrics=all_metrics,
        directions=directions,
        units=units,
        tolerance=tolerance,
        alpha=alpha,
        parameters={name for run in runs for name in run.benchmark.parameter_types()},
        by=by,
    )


def chosen_history(
    entries: Sequence[RunRows],
    *,
    benchmarks: Sequence[Benchmark],
    keys: Sequence[str],
    metrics: Sequence[str],
    all_metrics: bool,
    directions: Mapping[str, bool | None],
    units: Mapping[str, str],
    tolerance: float,
    alpha: float,
    parameters: Collection[str],
    by: Sequence[str],
) -> ResultTable:
    """:func:`history` with the keys and metrics not given chosen as ``jubex compare``
    chooses them (the newest benchmark's tables), for runs read from their directories and
    from the results database alike."""
    rows = [entry.rows for entry in entries]
    tables = list(benchmarks[-1].tables.values())
    metrics = list(metrics) or default_metrics(
        rows, set(parameters), directions, tables, all_metrics
    )
    keys = list(keys) or default_keys(rows, parameters, benchmarks)
    return history(
        entries,
        keys=keys,
        metrics=metrics,
        directions=directions,
        units=units,
        tolerance=tolerance,
        alpha=alpha,
        parameters=parameters,
        by=by,
    )


def _definition(run: Run) -> str:
    """The sha256 of the definition a run was made from, as its provenance recorded it."""
    found = provenance.read(run.dir).get("definition")
    return str(found.get("sha256", "")) if isinstance(found, dict) else ""
