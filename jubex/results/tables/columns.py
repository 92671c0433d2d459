"""The columns of a result table: what each one shows, and how its cells are computed.

A table column of the definition becomes one output column per statistic it asks for
(``write_bw`` with ``stats: [mean, std]`` gives ``write_bw_mean`` and ``write_bw_std``).
JUBE's spelling ``write_bw_avg`` as a column name means the same as ``write_bw`` with
``stats: [avg]``. Cells are computed in the values' own units; conversion comes last.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, cast

from jubex.definition.model import Column, Table
from jubex.errors import DefinitionError, ExpressionError, JubexError, Loc, did_you_mean
from jubex.plain import dataclass
from jubex.results.samples.rows import META, GroupSamples, Row
from jubex.results.samples.units import UnitError, factor
from jubex.results.statistics.stats import (
    ALIASES,
    COUNTS,
    NUMERIC,
    PICKED,
    RATIOS,
    SHAPES,
    STATISTICS,
    Number,
    Summary,
    summarize,
)

if TYPE_CHECKING:
    from jubex.language.expr import Expr

_PAIR_SIGNS = ("±", "+-")


@dataclass(frozen=True, slots=True)
class PlusMinus:
    """A value with its spread in one cell (``mean±std``, ``mean±ci95``)."""

    value: float | None
    spread: float | None
    value_name: str = "mean"
    spread_name: str = "std"

    def scaled(self, by: float) -> PlusMinus:
        value = None if self.value is None else self.value * by
        spread = None if self.spread is None else self.spread * by
        return PlusMinus(value, spread, self.value_name, self.spread_name)


@dataclass(frozen=True, slots=True)
class Header:
    """One output column: ``name`` is what expressions and sorting use, ``title`` is shown."""

    name: str
    title: str
    unit: str = ""
    format: str | None = None
    higher_is_better: bool | None = None
    missing: int = 0
    #: JUBE's spelling of a unit in a header: ``title[unit]``, not ``title [unit]``
    jube: bool = False
    #: its cells are measured values as stored, not computed (no statistic but one that
    #: picks a value, no scale): shown with no more decimals than the value has
    printed: bool = False

    @property
    def label(self) -> str:
        if not self.unit:
            return self.title
        return f"{self.title}[{self.unit}]" if self.jube else f"{self.title} [{self.unit}]"


@dataclass
class OutColumn:
    """How to compute one output column: a statistic of a field, or a derived expression."""

    header: Header
    field: str = ""
    stat: str | None = None
    spread: str | None = None
    expr: Expr | None = None
    scale: float = 1.0
    loc: Loc | None = None


@dataclass
class ColumnPlan:
    """The output columns, and the derived fields computed on each row before grouping."""

    columns: list[OutColumn] = field(default_factory=list)
    per_row: list[tuple[str, Expr]] = field(default_factory=list)
    #: every field a row may have: parameters, measurements, meta keys, per-row derived
    fields: dict[str, None] = field(default_factory=dict)
    #: definition column name -> index of the output column sorting by that name uses
    sort_index: dict[str, int] = field(default_factory=dict)
    #: derived name -> cells whose expression could not be computed
    failures: Counter = field(default_factory=Counter)


class Sample:
    """The values of one field within one group -- every repetition a program made inside
    each row's execution (:func:`samples_of`) -- with statistics computed once, on demand."""

    __slots__ = ("_summary", "field", "present", "values")

    def __init__(self, name: str, group: GroupSamples) -> None:
        self.field = name
        self.values = group.flat(name)
        self.present = [v for v in self.values if v is not None]
        self._summary: Summary | None = None

    def numeric(self) -> bool:
        # the types seen first: a thousand floats are told in one pass, not a thousand checks
        return set(map(type, self.present)) <= {float, int} or all(
            isinstance(v, int | float) for v in self.present
        )

    def default(self) -> object:
        """The common value of the group, else the mean of numbers, else the distinct texts."""
        if not self.present:
            return None
        first = self.present[0]
        if all(v == first for v in self.present):
            return first
        if self.numeric():
            return self.get("mean", None)
        return ", ".join(dict.fromkeys(str(v) for v in self.present))

    def get(self, stat: str, loc: Loc | None) -> object:
        """One statistic; order and count statistics apply to any value, the rest to numbers."""
        if stat == "n":
            return len(self.present)
        if stat in ("cnt", "missing"):
            return len(self.values) - (len(self.present) if stat == "missing" else 0)
        if stat in ("first", "last"):
            return self.present[0 if stat == "first" else -1] if self.present else None
        shapes = stat in SHAPES
        if self._summary is None or (shapes and self._summary.mad is None):
            if not self.numeric():
                text = next(v for v in self.present if not isinstance(v, int | float))
                raise DefinitionError(
                    f"statistic '{stat}' needs numbers, but '{self.field}' holds text such as "
                    f"{text!r}; use first, last, n or cnt for text",
                    loc,
                )
            numbers = cast("list[Number]", self.present)  # numeric(): all are numbers
            self._summary = summarize(numbers, shapes=shapes)
        return self._summary.get(stat)


def parse_stat(text: str, loc: Loc | None) -> tuple[str, str | None]:
    """A statistic name, or a pair like ``mean±std`` shown in one cell, in canonical names."""
    for sign in _PAIR_SIGNS:
        if sign in text:
            value, spread = (part.strip() for part in text.split(sign, 1))
            return _canonical(value, text, loc), _canonical(spread, text, loc)
    return _canonical(text.strip(), text, loc), None


def _canonical(name: str, text: str, loc: Loc | None) -> str:
    stat = ALIASES.get(name, name)
    if stat not in STATISTICS:
        known = (*STATISTICS, *ALIASES, "mean±std", "mean±ci95")
        raise DefinitionError(
            f"unknown statistic '{text}'; expected one of {', '.join(known)}",
            loc,
            did_you_mean(name, known),
        )
    return stat


def split_stat(name: str, fields: Mapping[str, object]) -> tuple[str, str] | None:
    """``write_bw_avg`` -> (``write_bw``, ``mean``) when ``write_bw`` is a field."""
    base, _, suffix = name.rpartition("_")
    stat = ALIASES.get(suffix, suffix)
    return (base, stat) if base in fields and stat in STATISTICS else None


def plan_columns(
    table: Table,
    known: Mapping[str, object],
    units: Mapping[str, str],
    directions: Mapping[str, bool | None],
) -> ColumnPlan:
    """Resolve every column of ``table`` against the fields the rows have.

    Without rows nothing can be checked against them; the columns are taken as written.
    """
    columns = list(table.columns) or [
        Column(name) for name in known if name == "run" or name not in META
    ]
    listed = {c.name for c in columns}
    columns = [Column(key) for key in table.group_by if key not in listed] + columns
    plan = ColumnPlan(fields=dict.fromkeys(known))
    strict = bool(known)
    for column in columns:
        loc = column.loc or table.loc
        fmt = check_format(column.format, loc) if column.format else None
        if column.expr is not None and not column.stats:
            out = [_derived_column(column, fmt, plan, directions, loc, strict)]
        else:
            out = _field_columns(column, fmt, plan, units, directions, loc, strict)
        values = [i for i, c in enumerate(out) if c.stat not in COUNTS] or [0]
        plan.sort_index.setdefault(column.name, len(plan.columns) + values[0])
        plan.columns.extend(out)
    return plan


def _derived_column(
    column: Column,
    fmt: str | None,
    plan: ColumnPlan,
    directions: Mapping[str, bool | None],
    loc: Loc | None,
    strict: bool,
) -> OutColumn:
    """A column computed from the group's values, statistics and earlier columns."""
    from jubex.language.expr import compile_expr  # only for a table that has expressions

    expr = compile_expr(column.expr or "", loc)
    earlier = {c.header.name: None for c in plan.columns}
    if strict:
        usable = {**plan.fields, **earlier}
        _check_names(expr.names, lambda n: n in usable or split_stat(n, plan.fields), usable, loc)
    title = column.title or column.name
    header = Header(column.name, title, column.unit or "", fmt, directions.get(column.name))
    return OutColumn(header, expr=expr, loc=loc)


def _field_columns(
    column: Column,
    fmt: str | None,
    plan: ColumnPlan,
    units: Mapping[str, str],
    directions: Mapping[str, bool | None],
    loc: Loc | None,
    strict: bool,
) -> list[OutColumn]:
    """The statistic columns of a field (a per-row derived field included)."""
    name, stats = column.name, column.stats
    if column.expr is not None:
        from jubex.language.expr import compile_expr

        expr = compile_expr(column.expr, loc)
        if strict:
            _check_names(expr.names, plan.fields.__contains__, plan.fields, loc)
        plan.per_row.append((name, expr))
        plan.fields[name] = None
        unit, scale = column.unit or "", 1.0
    else:
        if strict and name not in plan.fields:
            split = split_stat(name, plan.fields)
            if split is None:
                raise _unknown(name, plan.fields, f"column '{name}'", loc)
            name, stats = split[0], (name.rpartition("_")[2],)
        unit, scale = _unit(name, column, units, loc)
    better = directions.get(name)
    measured = column.expr is None and scale == 1.0 and name in units
    if not stats:
        title = column.title or column.name
        header = Header(column.name, title, unit, fmt, better, printed=measured)
        return [OutColumn(header, name, None, None, None, scale, loc)]
    out = []
    for text in stats:
        stat, spread = parse_stat(text, loc)
        if spread is not None and (stat in COUNTS or spread not in NUMERIC):
            raise DefinitionError(
                f"'{text}' pairs a value with its spread; expected mean±std or mean±ci95", loc
            )
        count, ratio = stat in COUNTS, stat in RATIOS
        header_name = f"{name}_{text}"
        if header_name == column.name:
            title = column.title or header_name
        else:
            title = f"{column.title} {text}" if column.title else header_name
        header = Header(
            header_name,
            title,
            "" if count or ratio else unit,
            ".1%" if ratio else None if count else fmt,
            None if count or ratio else better,
            printed=measured and spread is None and stat in PICKED,
        )
        plain = count or ratio
        out.append(OutColumn(header, name, stat, spread, None, 1.0 if plain else scale, loc))
    return out


def _unit(
    name: str, column: Column, units: Mapping[str, str], loc: Loc | None
) -> tuple[str, float]:
    """The unit shown for a field's column and the factor that converts into it."""
    source = units.get(name, "") or _statistic_unit(name, units)
    if not column.unit or column.unit == source:
        return source, 1.0
    if not units:  # nothing was measured (every workpackage failed): nothing to convert
        return column.unit, 1.0
    if not source:
        raise UnitError(
            f"column '{column.name}' asks for unit '{column.unit}', but no unit is known "
            f"for '{name}'",
            loc,
        )
    return column.unit, factor(source, column.unit, loc)


def _statistic_unit(name: str, units: Mapping[str, str]) -> str:
    """The unit of a statistic worked out rather than stored (``write_bw_avg``: its value's;
    a count has none)."""
    base, _, stat = name.rpartition("_")
    stat = ALIASES.get(stat, stat)
    return "" if stat in COUNTS or stat not in STATISTICS else units.get(base, "")


def _check_names(
    names: Iterable[str],
    allowed: Callable[[str], object],
    candidates: Mapping[str, object],
    loc: Loc | None,
) -> None:
    for name in sorted(names):
        if not allowed(name):
            raise _unknown(name, candidates, f"'{name}' in an expression", loc)


def _unknown(name: str, fields: Mapping[str, object], what: str, loc: Loc | None) -> JubexError:
    return DefinitionError(
        f"{what} is neither a parameter, a measurement nor a meta key of the rows "
        "(nor a statistic like name_mean, nor a derived column defined before it)",
        loc,
        did_you_mean(name, fields),
    )


def derive_rows(rows: Sequence[Row], plan: ColumnPlan) -> Sequence[Row]:
    """Add the per-row derived fields (columns with both ``expr`` and ``stats``)."""
    if not plan.per_row:
        return rows
    out = []
    for row in rows:
        extended = dict(row)
        for name, expr in plan.per_row:
            env = {n: extended.get(n) for n in expr.names}
            extended[name] = _evaluate_env(expr, env, plan.failures, name)
        out.append(extended)
    return out


def compute_cells(group: GroupSamples, plan: ColumnPlan) -> list[object]:
    """The cells of one group (one row of the output), converted into the shown units."""
    samples: dict[str, Sample] = {}

    def sample(name: str) -> Sample:
        found = samples.get(name)
        if found is None:
            found = samples[name] = Sample(name, group)
        return found

    raw: dict[str, object] = {}

    def resolve(name: str) -> object:
        if name in raw:
            return raw[name]
        if name in plan.fields:
            return sample(name).default()
        split = split_stat(name, plan.fields)
        if split is None:
            return None
        return sample(split[0]).get(split[1], None)

    cells: list[object] = []
    for column in plan.columns:
        if column.expr is not None:
            value = _evaluate(column, resolve, plan)
        elif column.stat is None:
            value = sample(column.field).default()
        else:
            value = sample(column.field).get(column.stat, column.loc)
            if column.spread is not None:
                spread = sample(column.field).get(column.spread, column.loc)
                value = PlusMinus(_number(value), _number(spread), column.stat, column.spread)
        raw[column.header.name] = value
        cells.append(_scale(value, column.scale))
    return cells


def _evaluate(column: OutColumn, resolve: Callable[[str], object], plan: ColumnPlan) -> object:
    expr = column.expr
    assert expr is not None
    env = {name: resolve(name) for name in expr.names}
    return _evaluate_env(expr, env, plan.failures, column.header.name)


def _evaluate_env(expr: Expr, env: dict[str, object], failures: Counter, name: str) -> object:
    """The value, or missing when an input is missing or the arithmetic fails (e.g. x/0)."""
    if any(value is None for value in env.values()):
        return None
    try:
        return expr.evaluate(env)
    except ExpressionError:
        failures[name] += 1
        return None


def _scale(value: object, by: float) -> object:
    if by == 1.0 or value is None or isinstance(value, bool):
        return value
    if isinstance(value, PlusMinus):
        return value.scaled(by)
    return value * by if isinstance(value, int | float) else value


def check_format(spec: str, loc: Loc | None) -> str:
    """A column format as Python's format spec (JUBE's ``%.2f`` accepted), checked once."""
    spec = spec.strip().removeprefix("%")
    for probe in (1.5, 1):
        try:
            format(probe, spec)
            return spec
        except ValueError:
            continue
    raise DefinitionError(
        f"column format '{spec}' is not a number format; expected a Python format spec "
        "such as .2f, .3g or ,.0f",
        loc,
    )


def _number(value: object) -> float | None:
    """A statistic as a number (a count, a mean), or None when it is missing."""
    return float(value) if isinstance(value, int | float) else None
