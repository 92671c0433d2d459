"""Result tables as files of their own: in the run (``<run>/result/``) and JUBE's
``<result result_dir>``.

Every table a run or ``jubex result`` shows is kept in its run directory, as JUBE keeps
``result/``: ``<run>/result/<name>.<ext>``, one file per format asked for, so the numbers
stay with the outputs they came from. JUBE also writes every table of a
``<result result_dir="DIR">`` to ``DIR/<run id>/<name>.dat``, ``DIR`` taken relative to the
definition's directory; a database of that result lands in the same directory. Files are
written whole or not at all (a temporary file, then renamed), so a reader never sees half
a table.
"""

from __future__ import annotations

import os
from pathlib import Path

from jubex.definition.model import Table
from jubex.errors import JubexError
from jubex.results.tables.formats import render
from jubex.results.tables.table import ResultTable


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
        write_atomically(path, render(result, width=0))
    except OSError as exc:
        raise JubexError(f"cannot write table '{table.name}' to {path}: {exc.strerror}") from None
    return path


#: the file name ending of each table format
EXTENSIONS = {
    "pretty": "dat",
    "aligned": "txt",
    "csv": "csv",
    "json": "json",
    "markdown": "md",
    "latex": "tex",
}


def keep_in_run(
    run_dir: Path, result: ResultTable, fmt: str | None = None, text: str | None = None
) -> Path:
    """Write ``result`` into ``<run_dir>/result/<name>.<ext>`` in format ``fmt`` (default:
    the table's style), as ``text`` when already rendered so (as wide as the table); an
    OSError when the run directory cannot take it."""
    fmt = fmt or result.style
    path = run_dir / "result" / f"{result.name}.{EXTENSIONS.get(fmt, fmt)}"
    write_atomically(path, render(result, fmt, width=0) if text is None else text)
    return path


def write_atomically(path: Path, text: str) -> None:
    """``text`` into ``path`` by a temporary file renamed over it: whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
