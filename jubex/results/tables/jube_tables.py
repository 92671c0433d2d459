"""JUBE's own tables of an imported run (``result/*.dat``) checked against jubex's.

``jube result`` wrote each table of the run into ``result/NAME.dat``, in the style of that
call (``pretty``: ``| a | b |`` under a ``NAME:`` line; ``csv`` and ``aligned``: cells
joined by the table's separator, JUBE quoting nothing). An import keeps copies, and this
reads them as cells and compares them with jubex's table of the same name as ``jubex
result`` shows it (its numbers as JUBE prints them): so a number jubex shows for a JUBE
run is one JUBE showed, or the import says where the two differ, naming the rows of failed
workpackages JUBE shows and jubex's table leaves out. A ``<database>`` table (an SQLite file,
or the name of one) is kept, not compared.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

from jubex.plain import dataclass
from jubex.results.tables.formats import render
from jubex.results.tables.table import ResultTable
from jubex.results.tables.tabulate import tables_with_definitions
from jubex.store.rundir import Run

#: the first bytes of an SQLite database file
_SQLITE = b"SQLite format 3\x00"
#: differing cells named at most in a sentence
SHOWN = 3
#: the store meta key of an imported run's checks of JUBE's tables (a JSON list)
JUBE_TABLES = "jube_tables"

Cells = list[list[str]]


@dataclass(frozen=True)
class Checked:
    """One of JUBE's tables against jubex's: ``equal``, ``differs``, ``unchecked``, or
    ``instead`` (jubex's is empty: JUBE's file is the table to read)."""

    file: str
    verdict: str
    said: str


def check_jube_tables(run: Run, folder: Path) -> list[Checked]:
    """Each ``*.dat`` of ``folder`` (an imported run's copies of JUBE's ``result/``)
    against jubex's table of its name."""
    files = sorted(folder.glob("*.dat")) if folder.is_dir() else []
    if not files:
        return []
    built = {result.name: (table, result) for table, result in tables_with_definitions([run])}
    failed = {
        result.name: result for _, result in tables_with_definitions([run], include_failed=True)
    }
    checked = []
    for path in files:
        shown = f"result/{path.name}"
        name = path.name.removesuffix(".dat")
        data = path.read_bytes()
        if name not in built:
            checked.append(
                Checked(shown, "unchecked", "configuration.xml has no table of its name")
            )
        elif built[name][0].database or data.startswith(_SQLITE):
            said = "a <database> table, kept as JUBE wrote it"
            checked.append(Checked(shown, "unchecked", said))
        elif not built[name][1].rows:
            said = "holds the table jube result showed; jubex's is empty (nothing analysed)"
            checked.append(Checked(shown, "instead", said))
        else:
            result = built[name][1]
            theirs = jube_cells(data.decode("utf-8", "replace"), result.separator or ",")
            ours, whole = _cells(result), _cells(failed[name])
            found = _compare(shown, name, theirs, ours)
            if found.verdict == "differs":
                # JUBE shows the rows of failed workpackages: name them, or else the
                # cells that differ in the rows JUBE shows
                within = len(whole) == len(theirs) != len(ours)
                found = _left_out(shown, name, theirs, ours, whole) or (
                    _compare(shown, name, theirs, whole) if within else found
                )
            checked.append(found)
    return checked


def jube_table_notes(run: Run, name: str) -> list[str]:
    """What the import found of JUBE's own file of the table ``name``, when it differs
    or is the only table there is."""
    try:
        checked = json.loads(run.meta.get(JUBE_TABLES) or "[]")
    except ValueError:
        return []
    return [
        f"JUBE's {item['file']} {item['said']} (its copy: {run.dir / 'jube-result'})"
        for item in checked
        if isinstance(item, dict)
        and item.get("verdict") in ("differs", "instead")
        and item.get("file") == f"result/{name}.dat"
    ]


def jube_cells(text: str, separator: str) -> Cells:
    """The cells of a table as JUBE wrote it: pretty (``| a | b |``) or joined by
    ``separator``; each cell without the blanks JUBE aligned it with."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].rstrip().endswith(":") and lines[1].lstrip()[:1] == "|":
        lines = lines[1:]  # a pretty table's name
    if lines and lines[0].lstrip().startswith("|"):
        return [
            [cell.strip() for cell in line.strip().removeprefix("|").removesuffix("|").split("|")]
            for line in lines
            if not set(line.strip()) <= set("|-")
        ]
    return [[cell.strip() for cell in line.split(separator)] for line in lines]


def _cells(result: ResultTable) -> Cells:
    """jubex's table as the cells of its JUBE CSV (the values JUBE's formats give)."""
    import csv  # only for a JUBE run's tables, checked against JUBE's own

    text = render(result, "csv")
    return [
        [cell.strip() for cell in row]
        for row in csv.reader(io.StringIO(text), delimiter=result.separator or ",")
    ]


def _compare(shown: str, name: str, theirs: Cells, ours: Cells) -> Checked:
    if theirs == ours:
        return Checked(shown, "equal", f"equal to jubex's table {name}")
    if theirs[:1] == ours[:1] and sorted(theirs[1:]) == sorted(ours[1:]):
        return Checked(shown, "equal", f"equal to jubex's table {name} (its rows in another order)")
    head = ours[0] if ours else []
    if (theirs[:1] or [[]])[0] != head:
        said = f"columns {_row(theirs[0] if theirs else [])} in JUBE's, {_row(head)} in jubex's"
    elif len(theirs) != len(ours):
        said = f"{len(theirs) - 1} rows in JUBE's, {len(ours) - 1} in jubex's"
    else:
        said = "; ".join(_differences(theirs, ours))
    return Checked(shown, "differs", f"differs from jubex's table {name}: {said}")


def _left_out(
    shown: str, name: str, theirs: Cells, ours: Cells, with_failed: Cells
) -> Checked | None:
    """Where JUBE's table is jubex's with the rows of failed or unfinished workpackages
    (which JUBE shows and jubex's table leaves out), a verdict naming those rows."""
    if _compare(shown, name, theirs, with_failed).verdict != "equal":
        return None
    kept = list(ours[1:])
    rows = []
    for row in theirs[1:]:
        if row in kept:
            kept.remove(row)
        else:
            rows.append(f"({','.join(row[:2])})")
    said = (
        f"differs from jubex's table {name}: JUBE's row(s) {', '.join(rows[:SHOWN])}"
        + (f" and {len(rows) - SHOWN} more" if len(rows) > SHOWN else "")
        + " are of workpackages that failed or did not finish: jubex's table leaves them "
        "out (jubex result --include-failed shows them)"
    )
    return Checked(shown, "differs", said)


def _differences(theirs: Cells, ours: Cells) -> list[str]:
    """The first cells that differ, each named by its row and column."""
    head = ours[0]
    found = []
    for i, (jube, jubex) in enumerate(zip(theirs[1:], ours[1:], strict=True), 1):
        if len(jube) != len(jubex):
            found.append(f"row {i}: {len(jube)} cells in JUBE's, {len(jubex)} in jubex's")
            continue
        found += [
            f"row {i} ({','.join(jube[:2])}), {head[j]}: JUBE {a!r}, jubex {b!r}"
            for j, (a, b) in enumerate(zip(jube, jubex, strict=True))
            if a != b
        ]
    extra = f"and {len(found) - SHOWN} more cells" if len(found) > SHOWN else ""
    return found[:SHOWN] + ([extra] if extra else [])


def _row(cells: Sequence[str]) -> str:
    text = ",".join(cells)
    return text if len(text) <= 120 else text[:117] + "..."
