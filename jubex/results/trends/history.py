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

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import cast

import numpy as np

from jubex.definition.model import Benchmark
from jubex.engine import provenance
from jubex.errors import UsageError, did_you_mean
from jubex.language.values import Bool, Size
from jubex.results.comparison.compare_runs import completed_directions, default_metrics
from jubex.results.tables.columns import Row
from jubex.results.tables.keys import default_keys
from jubex.results.tables.table import ResultTable
from jubex.results.tables.tabulate import directions_of, rows_of, units_of
from jubex.results.trends.cells import WHERE, Cells, cells_of, setting_of
from jubex.results.trends.cells import changed as changed_setting
from jubex.results.trends.columns import (
    ONE_TEXT,
    RunColumns,
    cells_of_columns,
    kept_columns,
    parameter_rows,
)
from jubex.results.trends.figures import Dated, Figures, taken
from jubex.results.trends.steps import Numbers, holm, moments_of, numbers_at, welch_p
from jubex.store.rundir import Run

__all__ = [
    "WHERE",
    "Figures",
    "RunRows",
    "chosen_figures",
    "history_figures",
    "history_of_runs",
    "setting_of",
]


@dataclass(frozen=True, slots=True)
class RunRows:
    """One run of a history: its id, when it was made (seconds since the epoch), its rows,
    and the sha256 of the definition it was made from (empty where unknown)."""

    label: str
    created: float
    rows: Sequence[Row]
    definition: str = ""


@dataclass(slots=True)
class _Steps:
    """The steps of a history (a run at a point, of one metric) as columns, in the order
    the table's sort starts from: by metric, by point (as first seen), by run; where each
    metric's numbers came as one array (:data:`~jubex.results.trends.steps.Numbers`),
    each step's count and the numbers in the steps' order as arrays too (``arrays``)."""

    cell: list[np.ndarray] = field(default_factory=list)
    metric: list[str] = field(default_factory=list)
    samples: list[Sequence[float]] = field(default_factory=list)
    arrays: list[tuple[np.ndarray, np.ndarray]] | None = field(default_factory=list)

    def counts_and_numbers(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Each step's count and all numbers one after another (None, None: not kept)."""
        if not self.arrays:
            return None, None
        counts, numbers = zip(*self.arrays, strict=True)
        return np.concatenate(counts), np.concatenate(numbers)

    def keep(
        self, samples: Sequence[Sequence[float]], flat: np.ndarray | None, order: np.ndarray
    ) -> None:
        """The arrays of one metric's steps, taken in ``order`` from its samples and their
        numbers one after another (``flat``; None: no arrays for any metric)."""
        if flat is None or self.arrays is None:
            self.arrays = None
            return
        sizes = np.fromiter(map(len, samples), dtype=np.int64, count=len(samples))
        picked = sizes[order]
        begin = (np.cumsum(sizes) - sizes)[order]
        at = np.repeat(begin - (np.cumsum(picked) - picked), picked) + np.arange(int(picked.sum()))
        self.arrays.append((picked, flat[at]))


def history_figures(
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
) -> Figures:
    """One step a point, metric and run (oldest first), change points marked; a run is
    set against the run before it in its series only (``parameters``: the names of the
    rows that are parameters; ``by``: more keys, settings made axes). The table of
    ``jubex history`` is its :meth:`~Figures.table`."""
    keys = [*keys, *(name for name in by if name not in keys)]
    for what, names in (("key", keys), ("metric", metrics)):
        for name in names:
            if not any(name in row for run in runs for row in run.rows):
                known = {name for run in runs for row in run.rows for name in row}
                raise UsageError(
                    f"{what} '{name}' is in none of the runs", hint=did_you_mean(name, known)
                )
    ordered = sorted(runs, key=lambda run: run.created)
    others = [name for name in parameters if name not in keys]
    cells = cells_of(ordered, keys, others)
    numbers = numbers_at(cells.rows, metrics)
    return _stepped(ordered, cells, metrics, numbers, keys, directions, units, tolerance, alpha)


def _stepped(
    ordered: Sequence[Dated],
    cells: Cells,
    metrics: Sequence[str],
    numbers: Sequence[Numbers],
    keys: Sequence[str],
    directions: Mapping[str, bool | None],
    units: Mapping[str, str],
    tolerance: float,
    alpha: float,
) -> Figures:
    """The history's figures of its cells and each metric's numbers (as
    :func:`~jubex.results.trends.steps.numbers_at` gives them), the runs oldest first."""
    notes: list[str] = []
    steps = _Steps()
    at = np.array(cells.at, dtype=np.int64)
    for metric, (kept, samples, errors, flat) in zip(metrics, numbers, strict=True):
        left_out: list[list[str]] = [[] for _ in ordered] if errors else []
        for index, error in errors:
            point, run = cells.point[index], ordered[cells.run[index]]
            left_out[cells.run[index]].append(
                f"{metric} at {point} in run {run.label} {error}: left out"
            )
        notes += chain.from_iterable(
            chain.from_iterable(zip(cells.notes, left_out, strict=True)) if errors else cells.notes
        )
        kept_cells = np.array(kept, dtype=np.int64)
        # the points in the order they are first seen, each point's steps run by run
        seen, firsts = np.unique(at[kept_cells], return_index=True)
        first = np.zeros(len(cells.points), dtype=np.int64)
        first[seen] = firsts
        order = np.argsort(first[at[kept_cells]], kind="stable")
        steps.cell.append(kept_cells[order])
        steps.metric += [metric] * len(kept)
        steps.samples += [samples[i] for i in order.tolist()]
        steps.keep(samples, flat, order)
    return _figures(ordered, cells, steps, keys, directions, units, tolerance, alpha, notes)


def _figures(
    runs: Sequence[Dated],
    cells: Cells,
    steps: _Steps,
    keys: Sequence[str],
    directions: Mapping[str, bool | None],
    units: Mapping[str, str],
    tolerance: float,
    alpha: float,
    notes: list[str],
) -> Figures:
    """The history's figures, worked out a column at a time."""
    cell = np.concatenate(steps.cell) if steps.cell else np.zeros(0, dtype=np.int64)
    moments = moments_of(steps.samples, *steps.counts_and_numbers())
    metric_id = np.repeat(np.arange(len(steps.cell)), [len(c) for c in steps.cell])
    at = np.array(cells.at, dtype=np.int64)[cell]
    setting = np.array(cells.setting, dtype=np.int64)[cell]
    everything = np.arange(len(cell))
    # a step's series: its metric, point and setting; the steps of a series are in run order
    before, after = _consecutive(everything, metric_id, at, setting)
    change = np.full(len(cell), np.nan)
    p = np.full(len(cell), np.nan)
    b, c = moments.mean[before], moments.mean[after]
    nonzero = b != 0
    with np.errstate(over="ignore"):  # as Python's float division: inf
        change[after[nonzero]] = (c[nonzero] / b[nonzero] - 1) * 100
    p[after] = welch_p(moments, before, after)
    adjusted = holm(p)
    # a break: a step whose setting is not that of the step before it at its point
    before, after = _consecutive(everything, metric_id, at)
    broken = setting[before] != setting[after]
    changed: list[str | None] = [None] * len(cell)
    for i, j in zip(before[broken].tolist(), after[broken].tolist(), strict=True):
        changed[j] = changed_setting(cells.settings[setting[i]], cells.settings[setting[j]])
    mark = _marks(steps.metric, change, adjusted, directions, tolerance, alpha)
    sort = _sorted(runs, cells, steps, cell)
    order = sort.tolist()
    # the steps whose setting changed are those after a break
    breaks = sorted(
        {
            f"run {runs[cells.run[int(cell[i])]].label}: {changed[i]}"
            for i in after[broken].tolist()
            if changed[i]
        }
    )
    if breaks:
        notes.append(
            f"{len(breaks)} series break(s) where a setting changed ({'; '.join(breaks)}): "
            "a run is set only against runs of the same setting, and another setting is "
            "no change point (--by NAME makes a parameter an axis of the points)"
        )
    notes.append(
        f"{len(mark) - mark.count(None)} change point(s): a run whose mean differs from "
        f"the run before it beyond the noise (Welch t-test, Holm-corrected over "
        f"{int((~np.isnan(p)).sum())} test(s) at alpha {alpha:g}) and by more than "
        f"{tolerance:.1%}"
    )
    return Figures(
        list(keys),
        runs,
        cells,
        cell[sort].tolist(),
        taken(steps.metric, order),
        moments.n[sort].tolist(),
        moments.mean[sort].tolist(),
        _cells(moments.std[sort]),
        _cells(change[sort]),
        _cells(adjusted[sort]),
        taken(mark, order),
        taken(changed, order),
        units,
        notes,
        taken(steps.samples, order),
        moments.low[sort].tolist(),
        moments.high[sort].tolist(),
    )


def _sorted(runs: Sequence[Dated], cells: Cells, steps: _Steps, cell: np.ndarray) -> np.ndarray:
    """The table's order of the steps: by metric, point (as text) and time, ties in the
    order of the steps (a stable sort)."""
    names = sorted(set(steps.metric))
    rank = dict(zip(names, range(len(names)), strict=True))
    metric = np.array([rank[name] for name in steps.metric], dtype=np.int64)
    texts = _texts(cells)
    names = sorted(set(texts))
    rank = dict(zip(names, range(len(names)), strict=True))
    text = np.array([rank[t] for t in texts], dtype=np.int64)[cell]
    run = np.array(cells.run, dtype=np.int64)[cell]
    created = np.array([r.created for r in runs], dtype=float)[run]
    if np.isnan(created).any():  # no order for numpy: Python's, whatever it is
        keys = list(zip(steps.metric, text.tolist(), created.tolist(), strict=True))
        return np.array(sorted(range(len(cell)), key=keys.__getitem__), dtype=np.int64)
    return np.lexsort((np.arange(len(cell)), created, text, metric))


#: types whose values are shown alike where they are equal and of the same type and text
_SHOWN_BY_TEXT = {str, int, float, bool, type(None)}
_SHOWN_BY_OWN_TEXT = {Size, Bool}


def _texts(cells: Cells) -> list[str]:
    """Each cell's point as text (what the table sorts by). Equal points of one text each
    (the rule) are written once per point, not once per run: a point is written once per
    cell only where equal values of a key show differently (``1`` and ``1.0``)."""
    for column in zip(*cells.point, strict=True):
        types = set(map(type, column))
        shown: set[tuple[object, ...]]
        if len(types) == 1 and types <= ONE_TEXT:
            continue  # nothing to write out: its equal values show alike
        if types <= _SHOWN_BY_TEXT:
            shown = set(zip(column, map(type, column), map(str, column), strict=True))
        elif len(types) == 1 and types <= _SHOWN_BY_OWN_TEXT:
            shown = set(zip(column, map(attrgetter("text"), column), strict=True))
        else:
            return list(map(str, cells.point))
        if len(set(column)) != len(shown):
            return list(map(str, cells.point))
    by_point = [str(point) for point in cells.points]
    return [by_point[at] for at in cells.at]


def _consecutive(steps: np.ndarray, *groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each step that has one before it in its group (the same value of every one of
    ``groups``), with that step: the pairs a history compares."""
    order = np.lexsort((steps, *reversed(groups)))
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for group in groups:
        ordered = group[order]
        same &= ordered[1:] == ordered[:-1]
    return order[:-1][same], order[1:][same]


def _marks(
    metrics: Sequence[str],
    change: np.ndarray,
    adjusted: np.ndarray,
    directions: Mapping[str, bool | None],
    tolerance: float,
    alpha: float,
) -> list[str | None]:
    """``better``/``worse`` (``up``/``down`` without a direction) where a change is beyond
    the noise (adjusted p below alpha) and beyond the tolerance."""
    with np.errstate(invalid="ignore"):
        beyond = (adjusted < alpha) & ~np.isnan(change) & ~(np.abs(change) <= tolerance * 100)
    mark: list[str | None] = [None] * len(change)
    for i in np.flatnonzero(beyond).tolist():
        up, direction = change[i] > 0, directions.get(metrics[i])
        if direction is None:
            mark[i] = "up" if up else "down"
        else:
            mark[i] = "better" if up == direction else "worse"
    return mark


def _cells(values: np.ndarray) -> list[float | None]:
    """Floats as a table's cells: NaN (nothing to show) is None."""
    found = values.astype(object)
    found[np.isnan(values)] = None
    return cast("list[float | None]", found.tolist())


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
    if names is not None:
        noise = {"tolerance": tolerance, "alpha": alpha}
        table = _history_of_columns(runs, keys, names, by, **noise)
        if table is not None:
            return table
    rows = [rows_of([run], per_iteration=True, names=names) for run in runs]
    if names is not None and not all(_in_some_row(name, rows) for name in names):
        rows = [rows_of([run], per_iteration=True) for run in runs]
    units = units_of(runs)
    directions, _ = completed_directions(directions_of(runs), units)
    entries = [
        RunRows(str(run.id), float(run.meta.get("created") or 0), side, _definition(run))
        for run, side in zip(runs, rows, strict=True)
    ]
    return chosen_figures(
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
    ).table()


def chosen_figures(
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
) -> Figures:
    """:func:`history_figures` with the keys and metrics not given chosen as ``jubex
    compare`` chooses them (the newest benchmark's tables), for runs read from their
    directories and from the results database alike."""
    rows = [entry.rows for entry in entries]
    tables = list(benchmarks[-1].tables.values())
    metrics = list(metrics) or default_metrics(
        rows, set(parameters), directions, tables, all_metrics
    )
    keys = list(keys) or default_keys(rows, parameters, benchmarks)
    return history_figures(
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


def _in_some_row(name: str, rows: Sequence[Sequence[Row]]) -> bool:
    """Whether a row of any run has ``name``: most often the first row has."""
    return any(name in row for side in rows for row in side)


def _definition(run: Run) -> str:
    """The sha256 of the definition a run was made from, as its provenance recorded it."""
    found = provenance.read(run.dir).get("definition")
    return str(found.get("sha256", "")) if isinstance(found, dict) else ""


def _history_of_columns(
    runs: Sequence[Run],
    keys: Sequence[str],
    metrics: Sequence[str],
    by: Sequence[str],
    *,
    tolerance: float,
    alpha: float,
) -> ResultTable | None:
    """:func:`history_of_runs` of the named ``metrics`` from the runs' kept columns (see
    :mod:`jubex.results.trends.columns`), the table the rows give; ``None`` where the
    columns are not the plain case: a run whose rows are not kept as columns of one
    shape, a name in none of them (the rows' error names it), a value that is no finite
    float (the rows' notes name it)."""
    found = kept_columns(runs, metrics)
    entries = []
    for run, columns in zip(runs, found, strict=True):
        if columns is None:
            return None
        size = len(cast("Sequence[object]", columns["executions"])) if columns else 0
        created = float(run.meta.get("created") or 0)
        entries.append(RunColumns(str(run.id), created, columns, size, _definition(run)))
    held_names = {name for entry in entries if entry.size for name in entry.columns}
    if not all(name in held_names for name in metrics):
        return None
    units = units_of(runs)
    directions, _ = completed_directions(directions_of(runs), units)
    # runs of one definition share its benchmark: each is read once
    benchmarks = list({id(run.benchmark): run.benchmark for run in runs}.values())
    parameters = {name for benchmark in benchmarks for name in benchmark.parameter_types()}
    keys = list(keys) or default_keys(parameter_rows(entries, parameters), parameters, benchmarks)
    keys = [*keys, *(name for name in by if name not in keys)]
    if not all(name in held_names for name in keys):
        return None
    ordered = sorted(entries, key=lambda run: run.created)
    others = [name for name in parameters if name not in keys]
    made = cells_of_columns(ordered, keys, others, metrics)
    if made is None:
        return None
    cells, samples = made
    numbers: list[Numbers] = [(list(range(len(samples[m]))), samples[m], [], None) for m in metrics]
    figures = _stepped(ordered, cells, metrics, numbers, keys, directions, units, tolerance, alpha)
    return figures.table()
