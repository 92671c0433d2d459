"""Result tables into SQLite files (JUBE's ``<database>``), for tools that read SQL.

One row per combination of the primary keys: writing again replaces rows instead of
duplicating them, so ``jubex result`` may run as often as it likes.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from jubex.errors import JubexError
from jubex.results.tables.columns import PlusMinus
from jubex.results.tables.table import ResultTable

_NAME = re.compile(r"[^A-Za-z0-9_]")


def _ident(name: str) -> str:
    return '"' + _NAME.sub("_", name) + '"'


def _cell(value: object) -> object:
    if value is None or isinstance(value, (int, float, str)):
        return value if not isinstance(value, bool) else int(value)
    if isinstance(value, PlusMinus):
        return value.value
    return str(value)


def _type(value: object) -> str:
    """The SQL type JUBE declares for a column: the first row's value's (which gives the
    column its affinity, so ``1`` in a text column is read back as ``'1'``)."""
    value = _cell(value)
    if value is None:
        return ""
    return {int: " int", float: " float"}.get(type(value), " text")


def write_database(table: ResultTable, path: Path, primekeys: Sequence[str] = ()) -> int:
    """Create or update the table ``table.name`` in the SQLite file; returns rows written.

    The SQL columns are the columns' titles, as JUBE names them; a primary key may name a
    column by its title or by its name.
    """
    titles = [h.title for h in table.headers]
    by_name = {h.name: h.title for h in table.headers}
    unknown = [k for k in primekeys if k not in titles and k not in by_name]
    if unknown:
        raise JubexError(
            f"database of table '{table.name}': primary key '{unknown[0]}' is not a column"
            f" (columns: {', '.join(titles)})"
        )
    keys = dict.fromkeys(k if k in titles else by_name[k] for k in primekeys)
    first = table.rows[0] if table.rows else [None] * len(titles)
    declared = ", ".join(f"{_ident(n)}{_type(v)}" for n, v in zip(titles, first, strict=True))
    columns = ", ".join(_ident(n) for n in titles)
    key = f", PRIMARY KEY ({', '.join(_ident(k) for k in keys)})" if keys else ""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(path) as db:
            db.execute(f"CREATE TABLE IF NOT EXISTS {_ident(table.name)} ({declared}{key})")
            marks = ", ".join("?" * len(titles))
            db.executemany(
                f"INSERT OR REPLACE INTO {_ident(table.name)} ({columns}) VALUES ({marks})",
                [[_cell(c) for c in row] for row in table.rows],
            )
    except (sqlite3.Error, OSError) as exc:
        raise JubexError(f"cannot write the result database {path}: {exc}") from None
    return len(table.rows)
