"""Result tables as files of their own (JUBE's ``<result result_dir>``).

JUBE writes every table of a ``<result result_dir="DIR">`` to ``DIR/<run id>/<name>.dat``,
``DIR`` taken relative to the definition's directory; a database of that result lands in
the same directory. The file holds the table as its ``style`` shows it.
"""

from __future__ import annotations

import os
from pathlib import Path

from jubex.definition.model import Table
from jubex.errors import JubexError
from jubex.results.formats import render
from jubex.results.table import ResultTable


def result_dir(definition: str, run_dir: Path, table: Table) -> Path | None:
    """Where the table's files go, or None when it names no ``result_dir``."""
    if not table.result_dir:
        return None
    home = Path(definition).resolve().parent if definition else Path.cwd()
    return home / os.path.expandvars(os.path.expanduser(table.result_dir)) / run_dir.name


def write_result(definition: str, run_dir: Path, table: Table, result: ResultTable) -> Path:
    """Write ``result`` (built from ``table``) to ``<result_dir>/<run id>/<name>.dat``."""
    folder = result_dir(definition, run_dir, table)
    if folder is None:
        raise JubexError(f"table '{table.name}' names no result_dir")
    path = folder / f"{table.name}.dat"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(render(result, width=0))
    except OSError as exc:
        raise JubexError(f"cannot write table '{table.name}' to {path}: {exc.strerror}") from None
    return path
