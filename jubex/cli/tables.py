"""Result tables of runs: rows from the stores, tables from the definition, one renderer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from jubex.analysis import builtin
from jubex.definition.model import Column, Table
from jubex.errors import JubexError, UsageError, did_you_mean
from jubex.language.expr import compile_expr
from jubex.results import syslog
from jubex.results.database import write_database
from jubex.results.files import result_dir, write_result
from jubex.results.formats import render
from jubex.results.rows import result_rows, units_of
from jubex.results.table import build_table
from jubex.store.rundir import Run

META = ("jube_wp_id", "jube_step_name", "jube_wp_iteration", "run", "ok", "reason")


def directions_of(run: Run) -> dict[str, bool | None]:
    """Higher-is-better per value, from the definition's patterns and the built-ins used."""
    found: dict[str, bool | None] = {}
    for step in run.benchmark.steps.values():
        for name in step.analyse:
            if name in builtin.names():
                found.update({k: m.higher_is_better for k, m in builtin.get(name).metrics.items()})
    for pset in run.benchmark.patternsets.values():
        found.update({p.name: p.higher_is_better for p in pset.patterns.values()})
    return found


def default_table(rows: Sequence[dict[str, object]]) -> Table:
    """Without tables in the definition: every parameter that varies and every value."""
    names: dict[str, None] = {}
    varying = []
    for row in rows:
        names.update(dict.fromkeys(k for k in row if k not in META))
    for name in names:
        if len({str(r.get(name)) for r in rows}) > 1:
            varying.append(name)
    values = [n for n in names if n not in rows[0] or not _is_parameter(n, rows)]
    columns = [Column("jube_wp_id", title="wp")] + [Column(n) for n in varying if n not in values]
    columns += [Column(n) for n in values]
    return Table("values", columns=columns)


def _is_parameter(name: str, rows: Sequence[dict[str, object]]) -> bool:
    return all(name in r for r in rows)


def rows_for(
    table: Table, rows: Sequence[dict[str, object]], analysers: dict[str, str | None]
) -> list[dict[str, object]]:
    """The rows a table is about: all rows of the steps that produce its values.

    ``use`` names steps or analysers (JUBE's way); without it, a step belongs when any of
    its rows has one of the table's non-group-by columns, so a step's rows whose analysers
    found nothing still count (as missing), and a build step's rows stay out.
    """
    if table.use:
        steps = {analysers.get(n) or n for n in table.use}
    else:
        wanted = [c.name for c in table.columns if c.name not in table.group_by]
        steps = {r["jube_step_name"] for r in rows if any(w in r for w in wanted)}
    return [r for r in rows if r["jube_step_name"] in steps]


def names_used(tables: Sequence[Table]) -> set[str]:
    """Every name the tables may read: columns, their expressions, filters and sorting.

    A column with statistics reads its base name; a JUBE-style ``x_avg`` is stored as such
    but may also be a statistic of ``x``, so both are read.
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
    for text in texts:
        try:
            found |= compile_expr(text).names
        except JubexError:
            continue
    found |= {n.rpartition("_")[0] for n in found if "_" in n}
    return found


def tables_of(runs: Sequence[Run], names: Sequence[str] | None) -> list[Table]:
    tables = runs[0].benchmark.tables
    if not names:
        return list(tables.values())
    missing = [n for n in names if n not in tables]
    if missing:
        raise UsageError(
            f"the definition has no result table '{missing[0]}'"
            f" (it has: {', '.join(tables) or 'none'})",
            hint=did_you_mean(missing[0], tables),
        )
    return [tables[n] for n in names]


def render_tables(
    runs: Sequence[Run],
    names: Sequence[str] | None,
    fmt: str | None,
    *,
    include_failed: bool = False,
    deliver: bool = False,
) -> str:
    """The tables of the runs; ``fmt`` None means each table's own ``style``.

    ``deliver`` (``jubex result``): a table with a ``result_dir`` is also written there (a
    database goes there anyway), a table with a ``syslog`` target is sent there instead.
    """
    tables = tables_of(runs, names)
    reads = names_used(tables) if tables else None
    rows = [row for run in runs for row in result_rows(run, reads)]
    units: dict[str, str] = {}
    directions: dict[str, bool | None] = {}
    for run in runs:
        units.update(units_of(run))
        directions.update(directions_of(run))
    tables = tables or ([default_table(rows)] if rows else [])
    steps_of_analysers = {a.name: a.step for a in runs[0].benchmark.analysers.values()}
    if not tables:
        return "no analysed workpackages yet\n"
    out = []
    for table in tables:
        members = rows_for(table, rows, steps_of_analysers)
        result = build_table(members, table, units, directions, include_failed=include_failed)
        if table.database:
            folder = result_dir(runs[-1].benchmark.file, runs[-1].dir, table)
            target = (folder or runs[-1].dir) / table.database
            write_database(result, target, table.primekeys)
            result.notes.append(f"written to the database {target}")
        if deliver and table.syslog is not None:
            sent = syslog.send(result, table.syslog)
            out.append(
                f"table '{table.name}': {sent} lines sent to syslog at "
                f"{syslog.where(table.syslog)}\n"
            )
            continue
        if deliver and table.result_dir and not table.database:
            path = write_result(runs[-1].benchmark.file, runs[-1].dir, table, result)
            result.notes.append(f"written to {path}")
        out.append(render(result, fmt or table.style or "pretty"))
    return "\n".join(out)


def print_tables(
    run: Run, names: Sequence[str] | None, fmt: str | None, *, include_failed: bool
) -> None:
    print(render_tables([run], names, fmt, include_failed=include_failed), end="")


def write_output(text: str, path: str | None) -> None:
    if path is None:
        print(text, end="" if text.endswith("\n") else "\n")
        return
    try:
        Path(path).write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write '{path}': {exc.strerror}") from None
