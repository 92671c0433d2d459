"""Plots for a definition that declares none: a JUBE file (JUBE's format has no plots) or a
study without ``plots:``.

Each table's measured columns (values the analysers read, not parameters) are drawn
against the parameter that takes the most values in the rows, one line per value of the
parameter that takes the next most; a table without a parameter that varies gets none.
"""

from __future__ import annotations

from collections.abc import Sequence

from jubex.analysis import builtin
from jubex.definition.model import Benchmark, Plot, Table
from jubex.results.statistics.stats import ALIASES, STATISTICS
from jubex.results.tables.table import Row


def default_plots(benchmark: Benchmark, rows: Sequence[Row]) -> dict[str, Plot]:
    """The declared plots, else one per measured column of each table (see above)."""
    if benchmark.plots:
        return dict(benchmark.plots)
    parameters = {n for pset in benchmark.parametersets.values() for n in pset.parameters}
    patterns = {n for pset in benchmark.patternsets.values() for n in pset.patterns}
    patterns |= {
        metric
        for step in benchmark.steps.values()
        for name in step.analyse
        if name in builtin.names()
        for metric in builtin.get(name).metrics
    }
    found: dict[str, Plot] = {}
    for table in benchmark.tables.values():
        x, group = _axes(table, parameters, rows)
        if x is None:
            continue
        for measured in dict.fromkeys(_measured(table, patterns)):
            if measured in parameters or not _numbers(measured, rows):
                continue  # a parameter an analyser reads back (IOR's tasks) is an axis
            name = f"{table.name}_{measured}"
            found[name] = Plot(
                name, x=x, y=measured, group=group, title=f"{table.name}: {measured}"
            )
    return found


def _axes(
    table: Table, parameters: set[str], rows: Sequence[Row]
) -> tuple[str | None, tuple[str, ...]]:
    """The table's parameter taking the most values (x), and the next (the groups)."""
    counts = {
        c.name: len({str(r.get(c.name)) for r in rows if c.name in r})
        for c in table.columns
        if c.name in parameters and c.expr is None
    }
    varying = sorted((n for n, k in counts.items() if k > 1), key=lambda n: -counts[n])
    if not varying:
        return None, ()
    return varying[0], tuple(varying[1:2])


def _measured(table: Table, patterns: set[str]) -> list[str]:
    """The values a table's columns measure: a pattern, or a statistic of one (``bw_avg``)."""
    found = []
    for column in table.columns:
        if column.expr is not None:
            continue
        base, _, stat = column.name.rpartition("_")
        if column.name in patterns:
            found.append(column.name)
        elif base in patterns and (stat in STATISTICS or stat in ALIASES):
            found.append(base)
    return found


def _numbers(name: str, rows: Sequence[Row]) -> bool:
    """Whether the rows hold ``name`` and only as numbers: text (IOR's ``api``) has no mean."""
    values = [r[name] for r in rows if r.get(name) is not None]
    return bool(values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )
