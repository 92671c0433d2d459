"""End to end on JUBE's examples: run, analyse and tabulate with both tools; convert.

JUBE's examples run locally in seconds, so the whole path a user takes can be compared, not
only the plan: ``jube run`` then ``jube result -a -s csv`` against ``jubex run`` then
``jubex result -f csv``, table by table, and the SQLite files of ``<database>`` results row by
row. Each tool works on its own copy of the example's directory, in the case's namespace.

What may differ and is therefore normalised in every cell: the run directory and the copy's
directory (``<RUN>``, ``<HOME>``) and date-time stamps (``<TIME>``): they differ between any
two runs of the same tool. Everything else, column titles, their order, the rows, their order
and each cell's text, must be JUBE's. Database tables are compared by their column names and
their rows as a multiset (SQL has no row order); a column's name includes its declared type.

``jubex convert`` is checked on every case jubex plans: the converted file must validate and
plan the same workpackages, step by step, as the original.
"""

from __future__ import annotations

import csv
import dataclasses
import re
import shutil
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path

from .cases import Case
from .env import Namespace, first_error, jube_error, run
from .jube import Jube
from .jubex import Jubex
from .plans import compare

RUN_TIMEOUT = 300
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:?\d{2})?")
_JUBE_DATABASE = re.compile(r"Database location of id \d+: (.+)")
# jubex result's note on standard error, per table: ``# results: written to the database F``
_JUBEX_DATABASE = re.compile(r"^# (?:[^:\n]+: )?written to the database (.+)$", re.M)
_SQLITE_MAGIC = b"SQLite format 3\0"
# What a copy of a suite or example leaves out: history, and runs made where it lies.
_IGNORED = shutil.ignore_patterns(".git", "bench_run*", "*.log")

# A table as text: its header line, then its rows.
Grid = list[list[str]]
# A database's tables: name -> (column names, rows).
Tables = dict[str, tuple[list[str], list[tuple[str, ...]]]]


@dataclasses.dataclass
class Results:
    """What one tool's run of an example produced, or why it produced nothing."""

    error: str = ""
    tables: dict[str, Grid] = dataclasses.field(default_factory=dict)
    databases: Tables = dataclasses.field(default_factory=dict)
    #: JUBE's run directory (``jubex import-jube`` reads it)
    run: Path | None = None


@dataclasses.dataclass
class EndToEnd:
    """The verdicts; an empty verdict means the check was not made."""

    tables: str = ""  # alike | none | differ: ... | JUBE fails: ... | jubex fails: ...
    databases: str = ""  # alike | none | differ: ...
    convert: str = ""  # round-trips | convert fails: ... | differs: ...
    imported: str = ""  # JUBE's run imported: alike | none | differ: ... | jubex fails: ...


def run_example(case: Case, sources: Path, jube: Jube, jubex: Jubex) -> EndToEnd:
    """Run, analyse and tabulate CASE with both tools and compare what they wrote."""
    with tempfile.TemporaryDirectory(prefix="e2e-") as tmp:
        theirs = _jube_results(case, sources, jube, Path(tmp) / "jube")
        if theirs.error:
            return EndToEnd(tables=f"JUBE fails: {theirs.error}")
        imported = _imported_results(case, jubex, theirs, Path(tmp) / "imported")
        ours = _jubex_results(case, sources, jubex, Path(tmp) / "jubex", list(theirs.tables))
        if ours.error:
            return EndToEnd(tables=f"jubex fails: {ours.error}")
        return EndToEnd(
            tables=_compare_tables(theirs.tables, ours.tables),
            databases=_compare_databases(theirs.databases, ours.databases),
            imported=(
                f"jubex fails: {imported.error}"
                if imported.error
                else _compare_tables(theirs.tables, imported.tables)
            ),
        )


def round_trip(case: Case, sources: Path, jubex: Jubex) -> str:
    """``jubex convert`` CASE, then validate and plan the result against the original's plan.

    Both files are planned in one copy of the case's suite (or example), the converted file
    beside the original: ``$jube_benchmark_home`` and relative paths then mean the same for
    both, as they would for a user who converts a file where it lies.
    """
    with tempfile.TemporaryDirectory(prefix="convert-") as tmp:
        group = Path(tmp) / case.group
        shutil.copytree(sources / case.group, group, symlinks=True, ignore=_IGNORED)
        copy = Path(tmp) / case.file
        out = copy.with_name(f"{copy.stem}.converted.yaml")
        argv = ["convert", str(copy), "-o", str(out)]
        done = jubex.call(case, argv + jubex.options(case, sources), copy.parent)
        if done.returncode != 0:
            return f"convert fails: {first_error(done.stderr + chr(10) + done.stdout)}"
        verdict = jubex.validate(case, sources, out, tags=False)
        if verdict != "valid":
            return f"converted file does not validate: {verdict}"
        runs = Path(tmp) / "out"  # the dry runs write nothing; the same run directory
        original = jubex.plan(case, sources, copy, outpath=runs)
        planned = jubex.plan(case, sources, out, tags=False, outpath=runs)
        if not original.accepted or not planned.accepted:
            return f"converted file does not plan: {planned.error or original.error}"
        _, differences = compare(original.plan, planned.plan)
        return f"differs: {differences[0]}" if differences else "round-trips"


def _copy_home(path: Path, scratch: Path) -> Path:
    """A copy of the example's directory (examples write beside themselves)."""
    home = scratch / path.parent.name
    shutil.copytree(path.parent, home, ignore=_IGNORED)
    return home


def _jube_results(case: Case, sources: Path, jube: Jube, scratch: Path) -> Results:
    path = sources / case.file
    home = _copy_home(path, scratch)
    ns: Namespace = jube.ns
    env = ns.env(case.system)
    argv = [str(jube.executable), "run", str(home / path.name), "-o", "out"]
    if case.include_path:
        argv += ["--include-path", *(str(sources / p) for p in case.include_path)]
    if case.tags:
        argv += ["--tag", *case.tags]
    done = run(ns.command(case.system, argv), env=env, cwd=home, timeout=RUN_TIMEOUT)
    if done.returncode != 0:
        return Results(error=jube_error(done.stdout + "\n" + done.stderr))
    result = [str(jube.executable), "result", "-a", "out", "-i", "last", "-s", "csv"]
    shown = run(ns.command(case.system, result), env=env, cwd=home, timeout=RUN_TIMEOUT)
    if shown.returncode != 0:
        return Results(error=jube_error(shown.stdout + "\n" + shown.stderr))
    runs = sorted((home / "out").glob("[0-9]*"))
    located = [home / p.strip() for p in _JUBE_DATABASE.findall(shown.stdout + shown.stderr)]
    marks = {str(runs[-1]): "<RUN>", str(home): "<HOME>"}
    tables = {}
    for dat in sorted((runs[-1] / "result").glob("*.dat")):
        # A database's ``.dat`` is the SQLite file itself, or holds the path of its file.
        if dat.read_bytes().startswith(_SQLITE_MAGIC) or _names_database(dat, located):
            continue
        tables[dat.stem] = _grid(dat.read_text(), marks)
    return Results(tables=tables, databases=_read_databases(located, marks), run=runs[-1])


def _imported_results(case: Case, jubex: Jubex, theirs: Results, scratch: Path) -> Results:
    """JUBE's run directory imported by ``jubex import-jube``, its tables as JUBE's names
    them (failed workpackages included, as JUBE shows them); cells hold JUBE's values, so
    JUBE's run directory is the one marked."""
    if theirs.run is None:
        return Results(error="JUBE made no run directory")
    scratch.mkdir(parents=True)
    done = jubex.call(case, ["import-jube", str(theirs.run), "--outpath", "out"], scratch)
    if done.returncode != 0:
        return Results(error=first_error(done.stderr + "\n" + done.stdout))
    marks = {str(theirs.run): "<RUN>", str(theirs.run.parent.parent): "<HOME>"}
    tables = {}
    for name in theirs.tables:
        argv = ["result", "--outpath", "out", "-T", name, "-f", "csv", "--include-failed"]
        one = jubex.call(case, argv, scratch)
        if one.returncode != 0:
            return Results(error=f"table {name}: {first_error(one.stderr + one.stdout)}")
        tables[name] = _grid(one.stdout, marks)
    return Results(tables=tables)


def _names_database(dat: Path, located: list[Path]) -> bool:
    text = dat.read_text(errors="replace").strip()
    return any(text and Path(text).name == p.name for p in located)


def _jubex_results(
    case: Case, sources: Path, jubex: Jubex, scratch: Path, names: list[str]
) -> Results:
    path = sources / case.file
    home = _copy_home(path, scratch)
    argv = ["run", str(home / path.name), "--outpath", "out", "-q", "--no-result"]
    done = jubex.call(case, argv + jubex.options(case, sources), home)
    if done.returncode != 0:
        return Results(error=first_error(done.stderr + "\n" + done.stdout))
    shown = jubex.call(case, ["result", "--outpath", "out", "-f", "csv"], home)
    if shown.returncode != 0:
        return Results(error=first_error(shown.stderr + "\n" + shown.stdout))
    runs = sorted((home / "out").glob("[0-9]*"))
    marks = {str(runs[-1]) if runs else str(home / "out"): "<RUN>", str(home): "<HOME>"}
    tables = {}
    for name in names:
        one = jubex.call(case, ["result", "--outpath", "out", "-T", name, "-f", "csv"], home)
        if one.returncode != 0:
            return Results(error=f"table {name}: {first_error(one.stderr + one.stdout)}")
        tables[name] = _grid(one.stdout, marks)
    notes = shown.stdout + "\n" + shown.stderr
    located = [home / p.strip() for p in _JUBEX_DATABASE.findall(notes)]
    return Results(tables=tables, databases=_read_databases(located, marks))


def _grid(text: str, marks: dict[str, str]) -> Grid:
    """The CSV table in TEXT, normalised; notes (``#`` lines) and blank lines left out."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return [[_normalise(cell, marks) for cell in row] for row in csv.reader(lines)]


def _normalise(cell: str, marks: dict[str, str]) -> str:
    for path, mark in marks.items():
        cell = cell.replace(path, mark)
    return _TIME.sub("<TIME>", cell)


def _read_databases(paths: list[Path], marks: dict[str, str]) -> Tables:
    tables: Tables = {}
    for path in paths:
        if not path.is_file():
            continue
        with sqlite3.connect(path) as db:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for name in names:
                info = db.execute(f'PRAGMA table_info("{name}")').fetchall()
                columns = [f"{c[1]} {c[2].lower()}".strip() for c in info]
                cursor = db.execute(f'SELECT * FROM "{name}"')
                rows = [tuple(_normalise(str(v), marks) for v in row) for row in cursor]
                tables[name] = (columns, sorted(rows))
    return tables


def _compare_tables(jube: dict[str, Grid], jubex: dict[str, Grid]) -> str:
    if not jube:
        return "none"
    for name, theirs in jube.items():
        ours = jubex.get(name, [])
        if not ours:
            return f"differ: table {name}: jubex shows nothing ({len(theirs) - 1} rows in JUBE)"
        if theirs[0] != ours[0]:
            return f"differ: table {name}: columns JUBE {theirs[0]} / jubex {ours[0]}"
        if theirs == ours:
            continue
        if Counter(map(tuple, theirs)) == Counter(map(tuple, ours)):
            return f"differ: table {name}: same rows in another order"
        if len(theirs) != len(ours):
            return f"differ: table {name}: {len(theirs) - 1} rows in JUBE, {len(ours) - 1} in jubex"
        row = next(i for i, (a, b) in enumerate(zip(theirs, ours, strict=True)) if a != b)
        return f"differ: table {name} row {row}: JUBE {theirs[row]} / jubex {ours[row]}"
    return "alike"


def _compare_databases(jube: Tables, jubex: Tables) -> str:
    if not jube and not jubex:
        return "none"
    if set(jube) != set(jubex):
        return f"differ: tables JUBE {sorted(jube)} / jubex {sorted(jubex)}"
    for name, (columns, rows) in jube.items():
        our_columns, our_rows = jubex[name]
        if columns != our_columns:
            return f"differ: {name}: columns JUBE {columns} / jubex {our_columns}"
        if rows != our_rows:
            return f"differ: {name}: rows JUBE {rows[:3]} / jubex {our_rows[:3]}"
    return "alike"
