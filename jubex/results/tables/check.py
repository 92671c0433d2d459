"""A definition's tables checked against what the run will give them.

A table column, group or sort key that is neither a parameter, a pattern, a meta key of
the rows (``run``, ``ok``, ...) nor a metric of a built-in analyser in use is an error, found
before anything runs. Only the names a built-in analyser makes from its output (fio's
percentiles as the job asked for them: ``read_clat_p99_99``) cannot be known beforehand:
those are warnings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jubex.analysis import builtin
from jubex.definition.model import STATISTICS as REDUCTIONS
from jubex.definition.model import Benchmark, Column, Table, place
from jubex.definition.references import BUILTIN_PREFIXES, unknown
from jubex.errors import DefinitionError, DefinitionWarning, JubexError, Loc, did_you_mean
from jubex.language.expr import compile_expr
from jubex.results.samples.rows import META
from jubex.results.samples.units import UnitError, parse_unit
from jubex.results.statistics.stats import ALIASES, STATISTICS
from jubex.results.tables.peaks import peak_kind_problem, peak_names_problem

#: fio's percentile values, named after the percentiles the job file asked for
_FIO_PERCENTILE = re.compile(r"[a-z]+_c?lat_p[0-9_]+")


def check_tables(b: Benchmark) -> list[DefinitionError]:
    """Every table's analysers, columns, groups and sort keys must name something, and so
    must every plot's axes and groups."""
    return [*_table_references(b), *_plot_references(b), *_target_references(b)]


def _target_references(b: Benchmark) -> Iterator[DefinitionError]:
    """A repetition target judges values a step's analysers give: those it names, else
    its tables' value columns, so there must be some."""
    _, values = _known_names(b)
    builtins = _builtins_in_use(b)
    for step in b.steps.values():
        if step.until is None:
            continue
        where = f"step '{step.name}': the target {step.until.text!r}"
        for name in step.until.metrics:
            if not _known_value(name, values):
                yield _column_problem(where, name, values, builtins, step.until.loc)
        if not step.until.metrics and not b.tables:
            yield DefinitionError(
                f"{where} judges the values the result tables show, and there is no table",
                step.until.loc,
                "name the values, as in 'ci95(write_bw) <= 2%', or add a table",
            )


def _builtins_in_use(b: Benchmark) -> list[str]:
    named = [n for step in b.steps.values() for n in step.analyse]
    named += [a.builtin for a in b.analysers.values() if a.builtin]
    return sorted({n for n in named if builtin.is_builtin(n)})


def _known_names(b: Benchmark) -> tuple[set[str], set[str]]:
    """The parameters and meta keys of the rows, and the values analysers may give them."""
    patterns = {name for ps in b.patternsets.values() for name in ps.patterns}
    reduced = {f"{name}_{stat}" for name in patterns for stat in ("first", "last", "min", "max")}
    reduced |= {f"{name}_{stat}" for name in patterns for stat in ("avg", "sum", "cnt", "std")}
    parameters = {name for ps in b.parametersets.values() for name in ps.parameters}
    metrics: set[str] = set()
    for used in _builtins_in_use(b):
        for name, metric in builtin.get(used).metrics.items():
            metrics.add(name)
            if metric.repeated:  # once per program iteration: its statistics are worked out
                metrics |= {f"{name}_{stat}" for stat in REDUCTIONS}
    return parameters | set(META), patterns | reduced | metrics


def _table_references(b: Benchmark) -> Iterator[DefinitionError]:
    keys, values = _known_names(b)
    builtins = _builtins_in_use(b)
    sources = {*b.analysers, *b.patternsets, *builtin.names()}
    for table in b.tables.values():
        where = f"table '{table.name}'"
        for i, name in enumerate(table.use):
            if name not in sources:
                yield unknown("analyser", name, sources, where, place(table, "use", i))
        known = keys | values
        for column in table.columns:
            if column.expr is None and not _known_value(column.name, known):
                yield _column_problem(where, column.name, known, builtins, column.loc)
            for name in _expression_names(column.expr, column.loc):
                if not _known_value(name, known) and not _statistic_of_known(name, known):
                    yield _column_problem(where, name, known, builtins, column.loc)
            yield from _peak_problems(b, table, column, known)
            known.add(column.name)
            known |= {f"{column.name}_{stat}" for stat in column.stats}
        listed = [*(("group_by", i, k) for i, k in enumerate(table.group_by))]
        listed += [("sort", i, k.lstrip("-")) for i, k in enumerate(table.sort)]
        for key, i, name in listed:
            if not _known_value(name, known):
                yield _column_problem(where, name, known, builtins, place(table, key, i))
        if table.pivot and table.pivot not in table.group_by:
            yield DefinitionError(
                f"{where} pivots by '{table.pivot}', which is not one of its group_by keys"
                f" ({', '.join(table.group_by) or 'none'})",
                place(table, "pivot"),
                "a pivot key must also be in group_by: its values become columns",
            )


def _peak_problems(
    b: Benchmark, table: Table, column: Column, known: set[str]
) -> Iterator[DefinitionError]:
    """A column's peak names peaks or values, and sets a value of the peak's kind (where
    the value's unit is declared) against it, as the table will when it is built."""
    if not column.peak:
        return
    try:
        expr = compile_expr(column.peak, column.loc)
    except JubexError:
        return  # the load stage reports an expression that does not compile
    problem = peak_names_problem(table, column, expr, known)
    if problem:
        yield problem
    declared = column.unit or next(
        (
            pattern.unit
            for patterns in b.patternsets.values()
            for name, pattern in patterns.patterns.items()
            if name == column.name and pattern.unit
        ),
        None,
    )
    if not declared:
        return
    try:
        unit = parse_unit(declared)
    except UnitError:
        return  # a unit the tables cannot convert is reported where it is converted
    mismatch = peak_kind_problem(table, column, expr, unit.kind, unit.text)
    if mismatch:
        yield mismatch


def _plot_references(b: Benchmark) -> Iterator[DefinitionError]:
    """A plot's x, rows and groups are parameters or meta keys; its y is a value."""
    keys, values = _known_names(b)
    builtins = _builtins_in_use(b)
    for plot in b.plots.values():
        where = f"plot '{plot.name}'"
        named = [("x", None, plot.x), *(("group", i, g) for i, g in enumerate(plot.group))]
        named += [("rows", None, plot.rows)] if plot.rows else []
        for key, i, name in named:
            if name not in keys and not name.startswith(BUILTIN_PREFIXES):
                yield DefinitionError(
                    f"{where}: '{name}' is neither a parameter nor a meta key of the rows"
                    " (run, site, platform, ...)",
                    place(plot, key, i),
                    did_you_mean(name, keys),
                )
        if not _known_value(plot.y, values):
            yield _column_problem(where, plot.y, values, builtins, place(plot, "y"))
        for name in _expression_names(plot.filter, place(plot, "filter")):
            if not _known_value(name, keys | values):
                yield _column_problem(where, name, keys | values, builtins, place(plot, "filter"))


def _expression_names(text: str | None, loc: Loc | None) -> list[str]:
    """The names a column's expression reads (none when it does not compile: the load
    stage reports that)."""
    if text is None:
        return []
    try:
        return sorted(compile_expr(text, loc).names)
    except JubexError:
        return []


def _statistic_of_known(name: str, known: set[str]) -> bool:
    """``write_bw_mean``: a statistic of a known value, as an expression may read it."""
    base, _, suffix = name.rpartition("_")
    return base in known and ALIASES.get(suffix, suffix) in STATISTICS


def _known_value(name: str, known: set[str]) -> bool:
    return name in known or name.startswith(BUILTIN_PREFIXES)


def _column_problem(
    where: str, name: str, known: set[str], builtins: list[str], loc: Loc | None
) -> DefinitionError:
    message = f"{where}: '{name}' is neither a parameter nor a pattern"
    hint = did_you_mean(name, known)
    if builtins:
        message += f" nor a value of the built-in analyser {', '.join(builtins)}"
    if "fio" in builtins and _FIO_PERCENTILE.fullmatch(name):
        message += "; it stays empty unless fio prints that percentile"
        return DefinitionWarning(message, loc, hint)
    return DefinitionError(message, loc, hint)
