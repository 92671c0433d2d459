"""Where result tables go besides the screen: JUBE's ``<database>``, ``<syslog>`` and
``result_dir``, and the text ``jubex result`` prints once they went there.

A database is written whenever its table is built by the command line, as JUBE does; a
syslog target or a ``result_dir`` only on ``jubex result`` (``targets``), so that
``jubex run``'s closing table does not log every row twice.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from jubex.definition.model import Table
from jubex.results.delivery.files import keep_in_run, result_dir, write_result
from jubex.results.tables.formats import render, terminal_width
from jubex.results.tables.jube_tables import jube_table_notes
from jubex.results.tables.table import ResultTable
from jubex.results.tables.tabulate import tables_with_definitions
from jubex.store.rundir import Run


def deliver(table: Table, result: ResultTable, run: Run, *, targets: bool = True) -> str | None:
    """Write ``result`` where ``table`` sends it, noting where in ``result.notes``.

    Returns the line that stands for the table when its rows went to syslog instead.
    An imported run's definition is the sender's: its places (``result_dir``, a database
    path, a syslog host) are not followed; a database goes into the run's own ``result``.
    """
    if run.meta.get("imported_from"):
        if table.database:
            target = run.dir / "result" / Path(table.database).name
            _write_database(result, target, table)
            result.notes.append(f"written to the database {target} (an imported run)")
        return None
    if table.database:
        # As JUBE: beside the result_dir's tables, else in the run's result directory.
        folder = result_dir(run.benchmark.file, run.dir, table) or run.dir / "result"
        target = folder / os.path.expanduser(table.database)
        _write_database(result, target, table)
        result.notes.append(f"written to the database {target}")
    if targets and table.syslog is not None:
        from jubex.results.delivery import (
            syslog,  # logging's handlers, for the tables that use them
        )

        sent = syslog.send(result, table.syslog)
        return f"table '{table.name}': {sent} lines sent to syslog at {syslog.where(table.syslog)}"
    if targets and table.result_dir and not table.database:
        path = write_result(run.benchmark.file, run.dir, table, result)
        result.notes.append(f"written to {path}")
    return None


def _write_database(result: ResultTable, target: Path, table: Table) -> None:
    """The rows into the SQLite database ``target``, imported for the tables that name one."""
    from jubex.results.delivery.database import write_database

    write_database(result, target, table.primekeys)


def report(
    runs: Sequence[Run],
    names: Sequence[str] | None = None,
    fmt: str | None = None,
    *,
    include_failed: bool = False,
    targets: bool = False,
    keep: bool = True,
    pivot_by: str | None = None,
    width: int | None = None,
    by: Sequence[str] | None = None,
) -> str:
    """The tables of the runs as text, each delivered first (into the last run's places).

    ``fmt`` None shows each table in its own ``style``. With ``keep``, the table of a single
    run is also written into the run directory (``result/<name>.<ext>``); a table of
    several runs belongs to none of them. ``width`` as :func:`render` takes it (0: as wide
    as the table, for a file). ``by`` as :func:`jubex.results.tables.tabulate.tabulate` takes it.
    CSV holds no notes (RFC 4180 has no comments): a CSV table's notes go to stderr, as
    ``# `` lines.
    """
    built = tables_with_definitions(
        runs, names, include_failed=include_failed, pivot_by=pivot_by, by=by
    )
    if not built:
        return "no analysed workpackages yet\n"
    out = []
    unlimited = width == 0 or (width is None and terminal_width() is None)
    for table, result in built:
        line = deliver(table, result, runs[-1], targets=targets)
        if len(runs) == 1:
            result.notes += jube_table_notes(runs[0], result.name)
        kept = _keep(runs[0], result, fmt) if keep and len(runs) == 1 else None
        if line:
            out.append(f"{line}\n")
        else:  # the text kept is the text shown where no terminal limits its width
            out.append(kept if kept is not None and unlimited else render(result, fmt, width=width))
        if (fmt or result.style) == "csv":
            sys.stderr.writelines(f"# {result.name}: {note}\n" for note in result.notes)
    return "\n".join(out)


def _keep(run: Run, result: ResultTable, fmt: str | None) -> str | None:
    """The table into its run, and the text written; a run that cannot take it (read-only,
    full) is noted in the table, which is still shown (None: render it again, with the note)."""
    text = render(result, fmt, width=0)
    try:
        keep_in_run(run.dir, result, fmt, text)
    except OSError as exc:
        result.notes.append(f"not kept in {run.dir / 'result'}: {exc.strerror or exc}")
        return None
    return text
