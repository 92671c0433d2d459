"""Turn the rows of a run store into a result table: filter, group, summarize, derive, sort.

A row is one workpackage: parameter values, measurements (``None`` = missing) and meta keys
(``jube_wp_id``, ``jube_step_name``, ``jube_wp_iteration``, ``run``, ``ok``). Without
``group_by`` every row is a group of its own, so one code path serves both kinds of table.
Cells keep typed values; :mod:`jubex.results.tables.formats` decides how they look.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import field, replace
from itertools import chain
from typing import cast

from jubex.definition.model import Table, Until
from jubex.errors import DefinitionError, ExpressionError, did_you_mean
from jubex.language.values import Bool
from jubex.plain import dataclass
from jubex.results.samples.rows import GroupSamples
from jubex.results.statistics.flags import CV_LIMIT, OUTLIER_ALPHA, Flags, flag, flag_note
from jubex.results.statistics.stats import COUNTS
from jubex.results.statistics.targets import Outcome, outcome, target_flag, target_note
from jubex.results.tables.columns import (
    ColumnPlan,
    Header,
    PlusMinus,
    Row,
    compute_cells,
    derive_rows,
    plan_columns,
)
from jubex.results.tables.insights import insight_notes
from jubex.results.tables.peaks import above_peak, plan_peaks, share

#: the last column of a grouped table whose points deserve a second look
FLAGS = "flags"

__all__ = ["Header", "PlusMinus", "ResultTable", "Row", "build_table"]


@dataclass
class ResultTable:
    """Headers, rows of typed cells (``None`` = missing) and notes on what was left out.

    ``style`` is the format the table is shown in when no other is asked for.
    """

    name: str
    headers: list[Header]
    rows: list[list[object]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    transpose: bool = False
    separator: str = ","
    style: str = "pretty"
    #: CSV as JUBE writes it (a JUBE file's table): values as the columns format them,
    #: notes as trailing ``#`` lines, line feeds
    jube_csv: bool = False

    @property
    def columns(self) -> list[str]:
        """The output columns' names, as ``records`` and ``column`` take them."""
        return [h.name for h in self.headers]

    @property
    def units(self) -> dict[str, str]:
        """The unit of each output column that has one."""
        return {h.name: h.unit for h in self.headers if h.unit}

    @property
    def directions(self) -> dict[str, bool]:
        """Whether higher is better, for each output column whose direction is known."""
        return {h.name: h.higher_is_better for h in self.headers if h.higher_is_better is not None}

    def column(self, name: str) -> list[object]:
        """The cells of the output column called ``name``."""
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def records(self) -> list[dict[str, object]]:
        """The rows as mappings from column name to cell."""
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


def build_table(
    rows: Sequence[Row],
    table: Table,
    units: Mapping[str, str],
    directions: Mapping[str, bool | None],
    *,
    include_failed: bool = False,
    cv_limit: float = CV_LIMIT,
    peaks: Mapping[str, float] | None = None,
    targets: Mapping[str, tuple[Until, int]] | None = None,
) -> ResultTable:
    """Build ``table`` from the rows of one or several runs (rows carry ``run``).

    Failed rows (``ok`` false) are left out unless ``include_failed``; either way a note
    counts them. Missing values stay missing (``None``) and are counted per column.
    A grouped table marks its noisy points and outliers in a last column, ``flags``,
    when it has any (``cv_limit``: the coefficient of variation above which a point is
    noisy, unless the table's own ``flags`` say). A column with a ``peak`` adds its value
    as a share of the platform's ``peaks`` (base units), and flags a value above it.
    The points of a step with a repetition target (``targets``: step -> target and most
    repetitions) get their number of repetitions, and a flag when they fell short.
    """
    if len(table.separator) != 1:
        raise DefinitionError(
            f"table '{table.name}' has separator {table.separator!r}; expected one character",
            table.loc,
        )
    known = dict.fromkeys(chain.from_iterable(rows))  # every key, in order of appearance
    plan = plan_columns(table, known, units, directions)
    notes: list[str] = []
    failed = _failed_said(rows)
    if failed and not include_failed:
        rows = [row for row in rows if row.get("ok", True) is not False]
    if failed:
        notes.append(f"{failed} {'included' if include_failed else 'left out'}")
    rows = derive_rows(_filter(rows, table, known, notes, measured=directions), plan)
    groups = _groups(rows, table, known)
    samples = [GroupSamples(members) for members in groups]
    body: list[Entry] = [(compute_cells(group, plan), group.rows[0]) for group in samples]
    if table.cv_limit is not None:
        cv_limit = table.cv_limit
    alpha = OUTLIER_ALPHA if table.outlier_alpha is None else table.outlier_alpha
    marks = _flags(samples, plan, cv_limit, alpha) if table.group_by else {}
    _sort(body, table, plan)
    cells = [row for row, _ in body]
    headers = _count_missing(cells, plan, notes)
    headers += _shares(body, table, plan, peaks or {}, marks, notes)
    if table.group_by and targets:
        headers += _repetitions(body, groups, plan, targets, marks, notes)
    if any(mark.text() for mark in marks.values()):
        headers.append(Header(FLAGS, FLAGS))
        for line, first in body:
            line.append(marks.get(id(first), Flags()).text())
        note = flag_note(list(marks.values()), cv_limit, alpha)
        if note:
            notes.append(note)
    held = known.keys() | {name for name, _ in plan.per_row}  # the keys of the rows now
    notes += insight_notes(rows, table.group_by or [c.name for c in table.columns[:1]], held)
    notes += _concurrency(groups)
    return ResultTable(
        table.name, headers, cells, notes, table.transpose, table.separator, table.style or "pretty"
    )


def _failed_said(rows: Sequence[Row]) -> str:
    """``2 failed workpackage(s)`` ('' for none); those of a JUBE run that had not
    finished are said so."""
    bad = [row for row in rows if row.get("ok", True) is False]
    if not bad:
        return ""
    unfinished = sum(1 for row in bad if row.get("finished", True) is False)
    counts = [(len(bad) - unfinished, "failed"), (unfinished, "unfinished")]
    return " and ".join(f"{n} {word}" for n, word in counts if n) + " workpackage(s)"


def _concurrency(groups: Sequence[list[Row]]) -> list[str]:
    """A note when samples of the table ran while other workpackages of their run did."""
    shared = list(map(_concurrent, groups))
    if not any(shared):
        return []
    return [
        f"concurrent: {sum(shared)} execution(s) of {sum(map(bool, shared))} row(s) ran while "
        "other workpackages of the run did and measured a machine they shared (a step's "
        "exclusive: true runs each alone on the local platform; so does -j 1)"
    ]


def _concurrent(members: Sequence[Row]) -> int:
    """The sum of the rows' integer ``concurrent`` counts (others are no count); most
    groups hold integers only, summed in one call."""
    found = [row.get("concurrent") for row in members]
    if set(map(type, found)) <= {int}:
        return sum(cast("list[int]", found))
    return sum(c for c in found if isinstance(c, int))


def _shares(
    body: list[Entry],
    table: Table,
    plan: ColumnPlan,
    peaks: Mapping[str, float],
    marks: dict[int, Flags],
    notes: list[str],
) -> list[Header]:
    """Each row's values as shares of their peaks (appended to its cells), flagged above."""
    columns = plan_peaks(table, [c.header for c in plan.columns], peaks, plan.fields)
    above = 0
    for line, first in body:
        shares = [share(column, line, first, peaks) for column in columns]
        over = [above_peak(c, v) for c, v in zip(columns, shares, strict=True) if v and v > 1]
        if over:
            above += 1
            _add_flags(marks, first, over)
        line.extend(shares)
    for column in columns:
        if column.absent:
            notes.append(
                f"{column.header.name}: missing, the platform states no "
                f"{' and no '.join(column.absent)} (add it under peaks: in the platform file)"
            )
    if above:
        notes.append(
            f"{above} row(s) above a peak of the platform: more than the hardware can deliver, "
            "most likely a cache measured instead"
        )
    return [column.header for column in columns]


def _add_flags(marks: dict[int, Flags], first: Row, texts: Sequence[str]) -> None:
    """More flags of the group whose first row is ``first``."""
    found = marks.get(id(first), Flags())
    marks[id(first)] = replace(found, beyond=(*found.beyond, *texts))


def _repetitions(
    body: list[Entry],
    groups: Sequence[list[Row]],
    plan: ColumnPlan,
    targets: Mapping[str, tuple[Until, int]],
    marks: dict[int, Flags],
    notes: list[str],
) -> list[Header]:
    """How each point of a step with a repetition target fared: its repetitions (a column,
    unless the table shows ``n``), a flag when it fell short, and a note per target."""
    fields = _summarized(plan)
    found: dict[int, Outcome] = {}
    per_step: dict[str, list[Outcome]] = {}
    for members in groups:
        step = str(members[0].get("jube_step_name"))
        if step not in targets:
            continue
        until, most = targets[step]
        result = outcome(until, members, [m for m in until.metrics or fields])
        found[id(members[0])] = result
        per_step.setdefault(step, []).append(result)
        flagged = target_flag(until, result, most)
        if flagged:
            _add_flags(marks, members[0], [flagged])
    for step, outcomes in per_step.items():
        notes.append(target_note(*targets[step], outcomes))
    if not found or any(c.stat == "n" for c in plan.columns):
        return []
    for line, first in body:
        got = found.get(id(first))
        line.append(got.repetitions if got else None)
    return [Header("repetitions", "repetitions")]


def _summarized(plan: ColumnPlan) -> list[str]:
    """The numeric fields a table's statistics summarize (not the counts)."""
    return list(
        dict.fromkeys(c.field for c in plan.columns if c.stat is not None and c.stat not in COUNTS)
    )


def _flags(
    groups: Sequence[GroupSamples], plan: ColumnPlan, cv_limit: float, alpha: float
) -> dict[int, Flags]:
    """The flags of each group (by its first row), for the fields its statistics summarize."""
    fields = _summarized(plan)
    return {id(group.rows[0]): flag(group.rows, fields, cv_limit, alpha, group) for group in groups}


def filtered(rows: Sequence[Row], table: Table) -> Sequence[Row]:
    """The rows a table's filter keeps (all without a filter)."""
    known = dict.fromkeys(chain.from_iterable(rows))  # every key, in order of appearance
    return _filter(rows, table, known, [])


def _filter(
    rows: Sequence[Row],
    table: Table,
    known: Mapping[str, None],
    notes: list[str],
    *,
    measured: Collection[str] = (),
) -> Sequence[Row]:
    """The rows the filter keeps. A filter of parameters alone that keeps none can never
    hold for this run: an error. One that reads a ``measured`` value may keep none of
    today's numbers (``bw < 100``: no slow point) and says so in a note."""
    if not table.filter or not rows:
        return rows
    from jubex.language.expr import compile_expr  # only for a table that filters

    expr = compile_expr(table.filter, table.loc)
    for name in sorted(expr.names):
        if name not in known:
            raise DefinitionError(
                f"the filter of table '{table.name}' uses '{name}', which is neither a "
                "parameter, a measurement nor a meta key of the rows",
                table.loc,
                did_you_mean(name, known),
            )
    kept: list[Row] = []
    undecided = 0
    for row in rows:
        if any(row.get(name) is None for name in expr.names):
            undecided += 1
            continue
        verdict = expr.evaluate(row)
        if not isinstance(verdict, bool | Bool):
            raise ExpressionError(
                f"the filter of table '{table.name}' must give true or false, not {verdict!r}",
                table.loc,
            )
        if verdict:
            kept.append(row)
    dropped = len(rows) - len(kept) - undecided
    if not kept and not undecided:
        why = (
            f"the filter '{table.filter}' of table '{table.name}' is true for none of the "
            f"{len(rows)} row(s): {_values_of(rows, expr.names)}"
        )
        if not any(name in measured for name in expr.names):
            raise DefinitionError(why, table.loc)
        notes.append(why)
    elif dropped:
        notes.append(f"{dropped} row(s) left out by the filter '{table.filter}'")
    if undecided:
        notes.append(f"{undecided} row(s) left out: a value the filter needs is missing")
    return kept


def _values_of(rows: Sequence[Row], names: Iterable[str]) -> str:
    """The values the rows have of each name, to show why a filter kept nothing."""
    shown = []
    for name in sorted(names):
        values = list(dict.fromkeys(str(row.get(name)) for row in rows))
        more = f", ... ({len(values)} values)" if len(values) > 6 else ""
        shown.append(f"{name} is {', '.join(values[:6])}{more}")
    return "; ".join(shown)


def _groups(rows: Sequence[Row], table: Table, known: Mapping[str, None]) -> list[list[Row]]:
    """Rows sharing the ``group_by`` values, in order of first appearance."""
    if not table.group_by:
        return [[row] for row in rows]
    for key in table.group_by:
        if rows and key not in known:
            raise DefinitionError(
                f"table '{table.name}' groups by '{key}', which is neither a parameter nor "
                "a meta key of the rows",
                table.loc,
                did_you_mean(key, known),
            )
    groups: dict[tuple[object, ...], list[Row]] = {}
    keys = table.group_by
    for row in rows:
        groups.setdefault(tuple(map(row.get, keys)), []).append(row)
    return list(groups.values())


Entry = tuple[list[object], Row]  # the cells of an output row, and its group's first row


def _order(value: object) -> tuple[int, object]:
    """Numbers (sizes by bytes) before texts; missing values are put last by the caller."""
    if isinstance(value, PlusMinus):
        value = value.value
    if isinstance(value, int | float):
        return (0, value)
    return (1, str(value))


def _sort(body: list[Entry], table: Table, plan: ColumnPlan) -> None:
    """Sort in place by each ``sort`` key, most significant first; missing values last."""
    for spec in reversed(table.sort):
        value_of = _sort_value(spec.lstrip("-"), table, plan)
        present = [entry for entry in body if _present(value_of(entry))]
        absent = [entry for entry in body if not _present(value_of(entry))]
        present.sort(key=lambda entry: _order(value_of(entry)), reverse=spec.startswith("-"))
        body[:] = present + absent


def _sort_value(name: str, table: Table, plan: ColumnPlan) -> Callable[[Entry], object]:
    """An output column by name: ``write_bw_mean``, or ``write_bw`` for its first statistic
    that is not a count; without grouping, any field of the rows as well."""
    names = [column.header.name for column in plan.columns]
    index = names.index(name) if name in names else plan.sort_index.get(name)
    if index is not None:
        return lambda entry: entry[0][index]
    if not table.group_by and name in plan.fields:
        return lambda entry: entry[1].get(name)
    raise DefinitionError(
        f"table '{table.name}' sorts by '{name}', which is not one of its columns",
        table.loc,
        did_you_mean(name, [*names, *plan.sort_index]),
    )


def _present(value: object) -> bool:
    return value is not None and not (isinstance(value, PlusMinus) and value.value is None)


def _count_missing(cells: list[list[object]], plan: ColumnPlan, notes: list[str]) -> list[Header]:
    headers = []
    for index, column in enumerate(plan.columns):
        missing = sum(1 for row in cells if not _present(row[index]))
        header = column.header
        if missing:
            notes.append(f"{header.name}: {missing} of {len(cells)} value(s) missing")
            header = replace(header, missing=missing)
        headers.append(header)
    for name, count in plan.failures.items():
        notes.append(f"{name}: {count} value(s) could not be computed from their expression")
    return headers
