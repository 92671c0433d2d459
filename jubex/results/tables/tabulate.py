"""The result tables of runs: rows read from their stores, tables from their definition.

``tabulate`` is what ``jubex result`` shows and ``jubex.result`` returns: one
:class:`ResultTable` per table of the definition (or one default table), its columns
carrying units and better directions. It only reads: where a table is also written
(a database, syslog, a ``result_dir``) is :mod:`jubex.results.delivery.deliver`'s business.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from typing import cast

from jubex.analysis import builtin
from jubex.collector import paused
from jubex.definition.model import Analyser, Benchmark, Column, Table
from jubex.definition.references import analysers_of
from jubex.errors import JubexError, UsageError, did_you_mean
from jubex.results.samples.rows import META, keeping_steps, reducing_steps, result_rows
from jubex.results.samples.summaries import counts_read, summaries_of, summary_notes
from jubex.results.statistics.targets import targets_of
from jubex.results.tables.dimensions import WHERE, Dimensions, dimensions, run_labels
from jubex.results.tables.insights import FLAGS as INSIGHT_FLAGS
from jubex.results.tables.peaks import platform_peaks
from jubex.results.tables.pivot import pivot
from jubex.results.tables.table import ResultTable, Row, build_table
from jubex.store.rundir import JUBE_ROWS, Run

#: the name of the table of a definition without tables
DEFAULT = "values"


def directions_of(runs: Sequence[Run]) -> dict[str, bool | None]:
    """Higher-is-better per value, from the definitions' patterns and the built-ins they use.

    Where runs disagree the first one (the baseline of a comparison) decides.
    """
    found: dict[str, bool | None] = {}
    for run in reversed(runs):
        benchmark = run.benchmark
        for step in benchmark.steps.values():
            for name in step.analyse:
                if name in builtin.names():
                    metrics = builtin.get(name).metrics
                    found.update({k: m.higher_is_better for k, m in metrics.items()})
        for pset in benchmark.patternsets.values():
            found.update({p.name: p.higher_is_better for p in pset.patterns.values()})
    return found


def units_of(runs: Sequence[Run]) -> dict[str, str]:
    """The unit of each value as the analysers stored it; the first run decides. A JUBE
    file's parameters show their ``unit`` too, as JUBE's tables do."""
    found: dict[str, str] = {}
    for run in reversed(runs):
        if run.benchmark.dialect == "jube":
            found.update(
                (p.name, p.unit)
                for pset in run.benchmark.parametersets.values()
                for p in pset.parameters.values()
                if p.unit
            )
        found.update(run.store.units())
    return found


def tables_of(benchmark: Benchmark, names: Sequence[str] | None) -> list[Table]:
    """The definition's tables called ``names`` (all of them without names); a definition
    without tables has one, ``values``, made from the rows (an empty list here)."""
    tables = benchmark.tables
    if not names:
        return list(tables.values())
    missing = [n for n in names if n not in tables]
    if not tables and set(missing) == {DEFAULT}:
        return []
    if missing:
        known = list(tables) or [f"{DEFAULT} (the default table of every value)"]
        raise UsageError(
            f"the definition has no result table '{missing[0]}' (it has: {', '.join(known)})",
            hint=did_you_mean(missing[0], list(tables) or [DEFAULT]),
        )
    return [tables[n] for n in names]


def default_table(rows: Sequence[Row]) -> Table:
    """Without tables in the definition: every parameter that varies and every value."""
    names: dict[str, None] = dict.fromkeys(
        k for k in WHERE if len({str(r.get(k)) for r in rows}) > 1
    )
    for row in rows:
        names.update(dict.fromkeys(k for k in row if k not in META))
    varying = [n for n in names if len({str(r.get(n)) for r in rows}) > 1]
    values = [n for n in names if not all(n in r for r in rows)]
    columns = [Column("jube_wp_id", title="wp")] + [Column(n) for n in varying if n not in values]
    columns += [Column(n) for n in values]
    return Table(DEFAULT, columns=columns)


def rows_for(table: Table, rows: Sequence[Row], benchmark: Benchmark) -> list[Row]:
    """The rows a table is about: all rows of the steps that produce its values.

    ``use`` names steps or analysers (JUBE's way); without it, a step belongs when any of
    its rows has one of the table's non-group-by columns, so a step's rows whose analysers
    found nothing still count (as missing), and a build step's rows stay out.
    """
    if table.use and (
        benchmark.dialect == "jube" or _names_one_of(table.use, mixed_steps(benchmark), benchmark)
    ):
        return _rows_per_analyser(table.use, rows, benchmark)
    return rows_of_steps(table, rows, benchmark)


def rows_of_steps(table: Table, rows: Sequence[Row], benchmark: Benchmark) -> list[Row]:
    """The rows of the steps a table is about: those its ``use`` names, else those with
    any of its value columns (every iteration a row of its own, as a comparison needs; a
    step analysed both ways gives its rows per iteration)."""
    steps: set[object]
    if table.use:
        analysers = {a.name: a.step for a in benchmark.analysers.values()}
        steps = {analysers.get(n) or n for n in table.use}
    else:
        wanted = [c.name for c in table.columns if c.name not in table.group_by]
        steps = set()
        for r in rows:  # a step found is not asked again: most rows are of a step found
            if (step := r["jube_step_name"]) not in steps and any(w in r for w in wanted):
                steps.add(step)
    mixed = mixed_steps(benchmark)
    return [
        r
        for r in rows
        if r["jube_step_name"] in steps
        and not (mixed and r.get("reduced") and r["jube_step_name"] in mixed)
    ]


def mixed_steps(benchmark: Benchmark) -> set[str]:
    """Steps analysed both ways: by an analyser that reduces and by one that does not."""
    return reducing_steps(benchmark) & keeping_steps(benchmark)


def _names_one_of(use: Sequence[str], steps: set[str], benchmark: Benchmark) -> bool:
    """Whether ``use`` names an analyser of one of these steps (which then chooses its rows)."""
    return any(a.name in use for s in steps for a in analysers_of(benchmark, benchmark.steps[s]))


def _steps_of(analyser: Analyser, benchmark: Benchmark) -> set[str]:
    """The steps an analyser reads: its ``step``, or those naming it in ``analyse``."""
    return {s.name for s in benchmark.steps.values() if analyser in analysers_of(benchmark, s)}


def _rows_per_analyser(use: Sequence[str], rows: Sequence[Row], benchmark: Benchmark) -> list[Row]:
    """JUBE's rows: each analyser a table uses gives its own, named in ``jube_res_analyser``,
    one per iteration or, where it reduces, one per group of iterations."""
    found: list[Row] = []
    for name in use:
        analyser = benchmark.analysers.get(name)
        if analyser is None:
            found += [r for r in rows if r["jube_step_name"] == name]
            continue
        base = name.removesuffix(f".{analyser.step}")
        label = base if base in benchmark.analysers else name  # JUBE's name of a split one
        steps = _steps_of(analyser, benchmark)
        found += [
            {**r, "jube_res_analyser": label}
            for r in rows
            if r["jube_step_name"] in steps and r["reduced"] == analyser.reduce
        ]
    return found


def names_used(tables: Sequence[Table]) -> set[str]:
    """Every name the tables may read: columns, their expressions, filters and sorting.

    A column with statistics reads its base name; a JUBE-style ``x_avg`` is stored as such
    but may also be a statistic of ``x``, so both are read; and the darshan analyser's
    insight flags, which every table notes.
    """
    found: set[str] = set()
    texts = []
    for table in tables:
        found.update(table.group_by)
        found.update(s.lstrip("-") for s in table.sort)
        texts += [table.filter] if table.filter else []
        for column in table.columns:
            found.add(column.name)
            texts += [column.expr] if column.expr else []
    found |= _names_read(texts)
    found |= {n.rpartition("_")[0] for n in found if "_" in n}
    return found | {INSIGHT_FLAGS}  # a Darshan log's flags are a note of every table


def _names_read(texts: Sequence[str]) -> set[str]:
    """The names the expressions read (one that is no expression reads none here: the
    table's check tells it)."""
    if not texts:  # the expression language, only for a table that has expressions
        return set()
    from jubex.language.expr import compile_expr

    found: set[str] = set()
    for text in texts:
        try:
            found |= compile_expr(text).names
        except JubexError:
            continue
    return found


def rows_of(
    runs: Sequence[Run],
    tables: Sequence[Table] = (),
    *,
    per_iteration: bool = False,
    names: Collection[str] | None = None,
) -> list[Row]:
    """The rows of all runs, with only the values ``tables`` read, or the values ``names``
    (every value without either); ``per_iteration``: a row per iteration even where an
    analyser merges them."""
    reads = names_used(tables) if tables else None if names is None else set(names)
    if reads is not None:
        reads |= counts_read(reads, summaries_of(runs))
    labels = run_labels(runs)
    with paused():
        return [
            row
            for run, label in zip(runs, labels, strict=True)
            for row in result_rows(run, reads, label=label, per_iteration=per_iteration)
        ]


def tables_with_definitions(
    runs: Sequence[Run],
    names: Sequence[str] | None = None,
    *,
    include_failed: bool = False,
    pivot_by: str | None = None,
    rows: Sequence[Row] | None = None,
    by: Sequence[str] | None = None,
) -> list[tuple[Table, ResultTable]]:
    """Each table built, beside the definition it was built from (delivery needs both);
    ``pivot_by`` turns every table by that key, instead of the tables' own ``pivot``.
    ``rows``: the runs' rows when already read (with at least the values the tables read).

    What differs between the runs is a dimension of every table (``by``: these keys
    instead, empty: pool them); runs of several benchmarks give each benchmark's tables,
    named ``<benchmark>: <table>``, never one table of both."""
    wanted = names_per_benchmark(runs, names)
    if rows is None:
        every = [t for run in runs for t in tables_of(run.benchmark, wanted[run.benchmark.name])]
        rows = rows_of(runs, every) if all(r.benchmark.tables for r in runs) else rows_of(runs)
    groups = of_one_benchmark(runs, rows)
    if len(groups) == 1:
        return _tables_of_group(runs, names, rows, include_failed, pivot_by, by)
    built = []
    for group, own in groups:
        name = group[0].benchmark.name
        if names and not wanted[name]:
            continue
        tables = _tables_of_group(group, wanted[name], own, include_failed, pivot_by, by)
        built += [(t, dataclasses.replace(r, name=f"{name}: {r.name}")) for t, r in tables]
    return built


def names_per_benchmark(
    runs: Sequence[Run], names: Sequence[str] | None
) -> dict[str, list[str] | None]:
    """Of the tables ``names``, those each benchmark of the runs has (None: all); a name
    no benchmark has is refused, naming those they have."""
    benchmarks = {run.benchmark.name: run.benchmark for run in runs}
    if not names or len(benchmarks) == 1:
        return {name: list(names) if names else None for name in benchmarks}
    own = {b.name: list(b.tables) or [DEFAULT] for b in benchmarks.values()}
    known = sorted({t for tables in own.values() for t in tables})
    for name in names:
        if name not in known:
            raise UsageError(
                f"no benchmark of these runs has a result table '{name}'"
                f" (they have: {', '.join(known)})",
                hint=did_you_mean(name, known),
            )
    return {b: [n for n in names if n in tables] for b, tables in own.items()}


def of_one_benchmark(runs: Sequence[Run], rows: Sequence[Row]) -> list[tuple[list[Run], list[Row]]]:
    """The runs, and their rows, in groups of one benchmark each (by name), in order of
    first appearance: two benchmarks never share a table, a plot or a row."""
    labels = dict(zip(run_labels(runs), [run.benchmark.name for run in runs], strict=True))
    groups: dict[str, tuple[list[Run], list[Row]]] = {}
    for run in runs:
        groups.setdefault(run.benchmark.name, ([], []))[0].append(run)
    found = [row.get("run") for row in rows]
    texts = cast("list[str]", found) if set(map(type, found)) <= {str} else list(map(str, found))
    names = list(map(labels.get, texts))
    if len(groups) == 1 and None not in names:  # one benchmark, every row one of its runs'
        next(iter(groups.values()))[1].extend(rows)
        return list(groups.values())
    for row, name in zip(rows, names, strict=True):
        if name is not None:
            groups[name][1].append(row)
    return list(groups.values())


def _tables_of_group(
    runs: Sequence[Run],
    names: Sequence[str] | None,
    rows: Sequence[Row],
    include_failed: bool,
    pivot_by: str | None,
    by: Sequence[str] | None,
) -> list[tuple[Table, ResultTable]]:
    """The tables of runs of one benchmark, what differs between them kept apart."""
    tables = tables_of(runs[0].benchmark, names)
    if not tables:
        tables = [default_table(rows)] if rows else []
    apart = dimensions(runs, rows, by)
    units, directions = units_of(runs), directions_of(runs)
    peaks = platform_peaks(runs[0].platform)
    targets = targets_of(runs[0].benchmark)
    summaries = summaries_of(runs)
    built = []
    for table in tables:
        key = pivot_by or table.pivot
        table = kept_apart(table, apart, pivot_by)
        own = rows_for(table, rows, runs[0].benchmark)
        result = build_table(
            own,
            table,
            units,
            directions,
            include_failed=include_failed,
            peaks=peaks,
            targets=targets,
        )
        if not result.rows:
            result.notes.append(
                why_empty(table, rows, own, include_failed=include_failed, runs=runs)
            )
        result.notes += summary_notes([c.name for c in table.columns], own, summaries)
        if runs[0].benchmark.dialect == "jube":
            result.jube_csv = True
            result.headers = [dataclasses.replace(h, jube=True) for h in result.headers]
        if apart.note:
            result.notes.append(apart.note)
        built.append((table, pivot(result, key, table.group_by) if key else result))
    return built


def kept_apart(table: Table, apart: Dimensions, pivot_by: str | None = None) -> Table:
    """The table with the keys that tell the runs apart (and the key it is pivoted by)
    among its columns, first, and among its groups: no row pools what they tell apart."""
    keys = [k for k in (pivot_by, *apart.keys) if k]
    shown = {c.name for c in table.columns}
    columns = [Column(k) for k in dict.fromkeys(keys) if k not in shown]
    if not columns and all(k in table.group_by for k in keys if table.group_by):
        return table
    group_by = table.group_by
    if group_by:
        group_by = (*(k for k in dict.fromkeys(keys) if k not in group_by), *group_by)
    return dataclasses.replace(table, group_by=group_by, columns=[*columns, *table.columns])


def why_empty(
    table: Table,
    rows: Sequence[Row],
    own: Sequence[Row],
    *,
    include_failed: bool,
    runs: Sequence[Run] = (),
) -> str:
    """Why a table has no row: nothing finished, everything failed, the analysers found
    none of its values, or its filter kept nothing."""
    if not rows:
        states = {state for run in runs for (_, state), n in run.store.counts().items() if n}
        if states and states <= {"failed", "skipped", "cancelled"}:
            return "empty: every workpackage failed or was skipped (jubex status shows why)"
        if "done" in states and all(JUBE_ROWS in run.meta for run in runs):
            return "empty: the JUBE run was imported with no analysed values (no analyse.xml)"
        return "empty: no workpackage has finished yet (jubex status shows the run)"
    usable = [r for r in own if include_failed or r.get("ok", True) is not False]
    if own and not usable:
        return (
            f"empty: all {len(own)} workpackage(s) of its steps failed (jubex status shows "
            "why; --include-failed shows what they gave)"
        )
    if not usable:
        failed = sum(1 for r in rows if r.get("ok", True) is False)
        if failed == len(rows):
            return f"empty: all {failed} workpackage(s) failed (jubex status shows why)"
        return (
            f"empty: the analysers found none of its values in the outputs of {len(rows)} "
            "workpackage(s) (jubex status lists those that gave nothing)"
        )
    if table.filter:
        return f"empty: its filter '{table.filter}' kept none of {len(usable)} row(s)"
    return f"empty: none of {len(usable)} row(s) has a value of its columns"


def tabulate(
    runs: Sequence[Run],
    names: Sequence[str] | None = None,
    *,
    include_failed: bool = False,
    pivot_by: str | None = None,
    rows: Sequence[Row] | None = None,
    by: Sequence[str] | None = None,
) -> list[ResultTable]:
    """The tables ``names`` (default: all; without any, one of every value) over ``runs``.

    Several runs make one table each; what differs between them is a column (``by``:
    these keys, empty: pool them all), and runs of identical studies pool as repetitions.
    A benchmark's first run says which tables there are. No table at all: nothing is
    analysed yet.
    """
    built = tables_with_definitions(
        runs, names, include_failed=include_failed, pivot_by=pivot_by, rows=rows, by=by
    )
    return [result for _, result in built]
