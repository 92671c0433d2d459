"""What a plot shows, as data: one series per group, a point per x value, from the rows.

A plot is a result table in disguise: its groups and x (and a heatmap's rows) are the
``group_by`` keys, its metric one column with the statistics drawn. So the numbers are
those ``jubex result`` prints, computed by :func:`jubex.results.tables.table.build_table` from the
rows of :func:`jubex.results.tables.tabulate.rows_of` — filters, failed rows, missing values and
units behave the same. Nothing here draws; :mod:`jubex.results.presentation.plot` does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from jubex.definition.model import Column, Plot, Table
from jubex.errors import UsageError, did_you_mean
from jubex.language.values import Size
from jubex.results.samples.rows import META
from jubex.results.tables.dimensions import WHERE, Dimensions, dimensions, run_labels
from jubex.results.tables.keys import derived_parameters
from jubex.results.tables.table import ResultTable, Row, build_table, filtered
from jubex.results.tables.tabulate import directions_of, rows_for, rows_of, units_of
from jubex.store.rundir import Run

#: a point with fewer repetitions than this is named in the notes (its spread says little)
FEW = 3


@dataclass
class Series:
    """One line (or one colour of bars): the x values in order, the statistic at each, its
    error (None: none to show) and how many repetitions it summarises."""

    label: str
    xs: list[object] = field(default_factory=list)
    ys: list[float | None] = field(default_factory=list)
    errors: list[float | None] = field(default_factory=list)
    ns: list[int] = field(default_factory=list)


@dataclass
class PlotData:
    """Everything a drawing needs: the series, the axis titles with units, the scale."""

    plot: Plot
    kind: str
    series: list[Series]
    x_label: str
    y_label: str
    logx: bool
    #: a heatmap's rows (the ``rows`` parameter's values, top to bottom)
    row_values: list[object] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Nothing to draw: no series holds a value."""
        return not any(y is not None for series in self.series for y in series.ys)

    @property
    def x_values(self) -> list[object]:
        """Every x value of any series, in order of first appearance."""
        found: dict[object, None] = {}
        for series in self.series:
            found.update(dict.fromkeys(series.xs))
        return list(found)


def plot_data(
    runs: Sequence[Run],
    plot: Plot,
    *,
    include_failed: bool = False,
    rows: Sequence[Row] = (),
    by: Sequence[str] | None = None,
) -> PlotData:
    """The data of ``plot`` over the runs' rows (``rows``: already read, else read here);
    what differs between the runs is a series of its own (``by`` as ``tabulate`` takes it)."""
    rows = list(rows) or rows_of(runs, [plot_table(plot)])
    _check_names(plot, rows, runs)
    apart = dimensions(runs, rows, by)
    plot = _series_apart(plot, apart)
    table = plot_table(plot)
    units = units_of(runs)
    result = build_table(
        rows_for(table, rows, runs[0].benchmark),
        table,
        units,
        directions_of(runs),
        include_failed=include_failed,
    )
    data = _series(plot, result)
    pooled = _pooled(plot, filtered(rows, table), runs)
    data.notes = [*result.notes, *([apart.note] if apart.note else []), *pooled, *_few(data)]
    unit = units.get(plot.y, "")
    spread = "" if plot.error == "none" or data.kind == "heatmap" else f" ± {plot.error}"
    data.y_label = f"{plot.y} ({plot.stat}{spread})" + (f" [{unit}]" if unit else "")
    data.x_label = plot.x + (f" [{units[plot.x]}]" if units.get(plot.x) else "")
    return data


class RunsDiffer(UsageError):
    """A plot that draws one study (a heatmap) asked to draw runs that differ."""


def _series_apart(plot: Plot, apart: Dimensions) -> Plot:
    """The plot with a series per value of what tells its runs apart, where no axis shows it."""
    shown = {plot.x, *plot.group, plot.rows}
    extra = tuple(k for k in apart.keys if k not in shown)
    if not extra:
        return plot
    if plot.rows:
        raise RunsDiffer(
            f"plot '{plot.name}': the runs differ in {', '.join(extra)}, and a heatmap draws "
            "one study; choose one with --filter, or pool them with --pool"
        )
    return dataclasses.replace(plot, group=(*plot.group, *extra))


def plot_table(plot: Plot) -> Table:
    """The result table whose cells a plot draws."""
    keys = [*plot.group, plot.x, *([plot.rows] if plot.rows else [])]
    keys = list(dict.fromkeys(keys))
    stats = ["n", plot.stat] + ([] if plot.error == "none" else [plot.error])
    return Table(
        plot.name,
        columns=[*(Column(k) for k in keys), Column(plot.y, stats=tuple(stats))],
        group_by=tuple(keys),
        sort=(*([plot.rows] if plot.rows else []), plot.x),  # groups: as they first appear
        filter=plot.filter,
        loc=plot.loc,
    )


def _check_names(plot: Plot, rows: Sequence[Row], runs: Sequence[Run]) -> None:
    """A key no row has, or a metric no row has a value of: one clear paragraph."""
    where = ", ".join(run_labels(runs))
    if not rows:
        raise UsageError(f"plot '{plot.name}': run {where} has no analysed workpackages yet")
    keys: dict[str, None] = {}
    for row in rows:
        keys.update(dict.fromkeys(row))
    for name in [plot.x, *plot.group, *([plot.rows] if plot.rows else [])]:
        if name not in keys:
            parameters = sorted(k for k in keys if k in _parameters(runs) or k in WHERE)
            raise UsageError(
                f"plot '{plot.name}': '{name}' is not a parameter of run {where}"
                f" (its parameters: {', '.join(parameters) or 'none'})",
                hint=did_you_mean(name, parameters),
            )
    if not any(row.get(plot.y) is not None for row in rows):
        values = plot_names(runs)[1]
        raise UsageError(
            f"plot '{plot.name}': run {where} has no values of '{plot.y}'"
            f" (its values: {', '.join(values) or 'none'}); nothing was drawn",
            hint=did_you_mean(plot.y, values),
        )


def plot_names(runs: Sequence[Run]) -> tuple[list[str], list[str]]:
    """What a plot of these runs may name: the keys of its rows (parameters, and run,
    site, platform, ...) for x, rows and group, and the measured values for y."""
    every: dict[str, None] = {}
    for row in rows_of(runs):
        every.update(dict.fromkeys(row))
    keys = sorted(k for k in every if k in _parameters(runs) or k in WHERE)
    values = sorted(k for k in every if k not in META and k not in _parameters(runs))
    return keys, [v for v in values if v.rpartition("_")[0] not in values]  # not x_avg


def _parameters(runs: Sequence[Run]) -> set[str]:
    return {name for run in runs for name in run.benchmark.parameter_types()}


def _series(plot: Plot, table: ResultTable) -> PlotData:
    """The table's rows as series: one per combination of the group keys' values."""
    records = table.records()
    xs = [r[plot.x] for r in records]
    numeric = bool(xs) and all(isinstance(x, int | float) and not isinstance(x, bool) for x in xs)
    kind = plot.kind
    if kind == "auto":
        kind = "heatmap" if plot.rows else "line" if numeric else "bar"
    if kind == "line" and not numeric:
        raise UsageError(
            f"plot '{plot.name}': a line needs numbers along x, but '{plot.x}' holds"
            f" {next(str(x) for x in xs if not isinstance(x, int | float))!r}; use --kind bar"
        )
    logx = kind == "line" and (plot.logx if plot.logx is not None else _log2(xs))
    series: dict[str, Series] = {}
    rows: dict[object, None] = {}
    for record in records:
        label = _label(plot, record)
        if plot.rows:
            rows.setdefault(record[plot.rows])
            label = str(record[plot.rows])
        one = series.setdefault(label, Series(label))
        one.xs.append(record[plot.x])
        one.ys.append(_number(record[f"{plot.y}_{plot.stat}"]))
        one.errors.append(
            None if plot.error == "none" else _number(record[f"{plot.y}_{plot.error}"])
        )
        one.ns.append(int(_number(record[f"{plot.y}_n"]) or 0))
    return PlotData(plot, kind, list(series.values()), plot.x, plot.y, bool(logx), list(rows))


def _label(plot: Plot, record: dict[str, object]) -> str:
    if len(plot.group) == 1:
        return str(record[plot.group[0]])
    return ", ".join(f"{key}={record[key]}" for key in plot.group)


def _log2(xs: Sequence[object]) -> bool:
    """Sizes, or three or more distinct powers of two: doubling is what varies."""
    values = {x for x in xs if isinstance(x, int) and not isinstance(x, bool)}
    if not values or len(values) != len(set(xs)) or min(values) <= 0:
        return False
    if all(isinstance(x, Size) for x in xs):
        return len(values) > 1
    return len(values) > 2 and all(v & (v - 1) == 0 for v in values)


def _pooled(plot: Plot, rows: Sequence[Row], runs: Sequence[Run]) -> list[str]:
    """Independent parameters on no axis that take several values within one point: each
    such point mixes them (a parameter that varies with the axes, as a zipped one, mixes
    nothing; a derived one is named by the parameters it follows)."""
    shown = [plot.x, *plot.group, *([plot.rows] if plot.rows else [])]
    derived = derived_parameters(run.benchmark for run in runs)  # they follow the others
    names = [n for n in (*sorted(_parameters(runs) - derived), *WHERE) if n not in shown]
    notes = []
    for name in names:
        within: dict[tuple[str, ...], set[str]] = {}
        for row in rows:
            if name in row:
                point = tuple(str(row.get(key)) for key in shown)
                within.setdefault(point, set()).add(str(row[name]))
        if any(len(values) > 1 for values in within.values()):
            count = len(set().union(*within.values()))
            notes.append(
                f"'{name}' varies ({count} values) but is on no axis: each point pools"
                f" its values (add --group {name}, or --filter)"
            )
    return notes


def _few(data: PlotData) -> list[str]:
    few = sum(
        1 for s in data.series for n, y in zip(s.ns, s.ys, strict=True) if y is not None and n < FEW
    )
    if not few:
        return []
    return [f"{few} point(s) rest on fewer than {FEW} repetitions: their error bars say little"]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
