"""A table turned so that the values of one key stand side by side: ``pivot: site`` gives
one row per remaining group and each value column once per site, as a study across
sites or file systems is read."""

from __future__ import annotations

from dataclasses import replace

from jubex.errors import UsageError, did_you_mean
from jubex.results.tables.columns import Header
from jubex.results.tables.table import ResultTable


def pivot(table: ResultTable, key: str, group_by: tuple[str, ...]) -> ResultTable:
    """``table`` with the column ``key`` turned into column groups.

    The other ``group_by`` columns stay the row index; every other column is repeated per
    value of ``key`` (in order of first appearance), titled ``<value>: <title>``. A cell no
    row gives stays missing. A table without groups puts the n-th row of each value side
    by side.
    """
    names = table.columns
    if key not in names:
        raise UsageError(
            f"table '{table.name}' cannot be pivoted by '{key}': it has no such column",
            hint=did_you_mean(key, names),
        )
    at = names.index(key)
    index = [i for i, name in enumerate(names) if name in group_by and i != at]
    values = [i for i in range(len(names)) if i != at and i not in index]
    keys: dict[object, None] = {}
    rows: dict[tuple[object, ...], dict[object, list[object]]] = {}
    counted: dict[object, int] = {}
    for row in table.rows:
        keys.setdefault(row[at])
        counted[row[at]] = counted.get(row[at], -1) + 1
        ident = tuple(row[i] for i in index) if group_by else (counted[row[at]],)
        rows.setdefault(ident, {})[row[at]] = row
    headers = [table.headers[i] for i in index] + [
        _header(table.headers[i], value) for value in keys for i in values
    ]
    cells = []
    for ident, by in rows.items():
        cell = list(ident) if group_by else []
        for value in keys:
            found = by.get(value)
            cell += [found[i] if found is not None else None for i in values]
        cells.append(cell)
    headers = [
        replace(h, missing=sum(1 for row in cells if row[n] is None)) for n, h in enumerate(headers)
    ]
    return replace(table, headers=headers, rows=cells)


def _header(header: Header, value: object) -> Header:
    return replace(header, name=f"{header.name}@{value}", title=f"{value}: {header.title}")
