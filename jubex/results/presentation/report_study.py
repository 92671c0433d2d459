"""What the report of several runs adds to answer its study's question: the verdicts of
``jubex compare`` between the first run and each other, the runs side by side (one group
per site, parameter value or run: whatever tells them apart), and what changed in their
provenance.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from jubex.errors import JubexError
from jubex.results.comparison.compare_runs import compare_runs
from jubex.results.tables.dimensions import definition_hash, dimensions, run_labels
from jubex.results.tables.table import ResultTable, Row
from jubex.results.tables.tabulate import of_one_benchmark
from jubex.store.rundir import Run

#: facts that differ between any two runs and say nothing about what was measured
_EVERY_RUN = (
    "filesystem.free_bytes",
    "filesystem.path",
    "definition.file",
    "store.uid",
    "store.created",
    "store.started",
    "store.finished",
    "store.command",
    "store.cwd",
    "store.definition",
    "store.imported",
)
#: the name of the resolved definition's fingerprint among the facts
DEFINITION_HASH = "definition hash (resolved)"


@dataclass
class Verdict:
    """One comparison: which runs, the verdict line, the exit status ``jubex compare``
    would give (0 passed, 1 a regression, 2 not made or incomplete) and its table."""

    title: str
    line: str
    status: int
    table: ResultTable | None


def comparisons(runs: Sequence[Run]) -> list[Verdict]:
    """The first run of each benchmark compared with each other run of it, as ``jubex
    compare FIRST OTHER`` compares them; a pair that cannot be compared says why."""
    labels = dict(zip((id(run) for run in runs), run_labels(runs), strict=True))
    found = []
    for group, _ in of_one_benchmark(runs, ()):
        base = group[0]
        for other in group[1:]:
            title = f"{labels[id(base)]} (baseline) → {labels[id(other)]}"
            try:
                compared = compare_runs(base, other)
            except JubexError as exc:
                found.append(Verdict(title, f"not compared: {exc.message}", 2, None))
                continue
            table = at_a_glance(compared.to_table(), len(compared.keys))
            found.append(Verdict(title, compared.verdict_line(), compared.status, table))
    return found


#: the columns of a comparison a report shows, the verdict first: the rest (the interval
#: of the ratio, the raw p, the spreads) is in ``jubex compare``'s table
GLANCE = (
    "metric",
    "verdict",
    "change",
    "baseline_mean",
    "candidate_mean",
    "unit",
    "p_adjusted",
    "detectable",
    "needed",
    "note",
)


def at_a_glance(table: ResultTable, keys: int) -> ResultTable:
    """A comparison's table as a page shows it: its keys, then :data:`GLANCE`, so that the
    verdict is on the first screen and the table fits a window."""
    at = list(range(keys)) + [table.columns.index(name) for name in GLANCE]
    return dataclasses.replace(
        table,
        headers=[table.headers[i] for i in at],
        rows=[[row[i] for i in at] for row in table.rows],
    )


def sides(
    runs: Sequence[Run], rows: Sequence[Row], by: Sequence[str] | None = None
) -> list[tuple[str, list[Run]]]:
    """The runs in groups, one per value of what tells them apart (``site Alpha``,
    ``scale 3``, ``run 000001``), each benchmark's apart; none where they pool."""
    labels = dict(zip((id(run) for run in runs), run_labels(runs), strict=True))
    found: dict[str, list[Run]] = {}
    for group, own in of_one_benchmark(runs, rows):
        keys = dimensions(group, own, by).keys
        if not keys:
            continue
        several = len({run.benchmark.name for run in runs}) > 1
        for run in group:
            mine = [r for r in own if r.get("run") == labels[id(run)]]
            name = ", ".join(
                f"{key} {'/'.join(sorted({str(r.get(key)) for r in mine}) or ['?'])}"
                for key in keys
            )
            name = f"{run.benchmark.name}: {name}" if several else name
            found.setdefault(name, []).append(run)
    return list(found.items()) if len(found) > 1 else []


def provenance_diff(
    runs: Sequence[Run], facts: Sequence[Sequence[tuple[str, str]]]
) -> list[tuple[str, list[str]]]:
    """The facts whose values differ between the runs (host, kernel, file system,
    modules, compiler, jubex version, the resolved definition's hash ...), each with its
    value per run ("—": not recorded); the facts that differ between any two runs (when,
    where from) are left out."""
    per_run: list[Mapping[str, str]] = [
        {DEFINITION_HASH: definition_hash(run), **dict(own)}
        for run, own in zip(runs, facts, strict=True)
    ]
    names: dict[str, None] = {}
    for own in per_run:
        names.update(dict.fromkeys(own))
    return [
        (name, [own.get(name, "—") for own in per_run])
        for name in names
        if not name.startswith(_EVERY_RUN) and len({own.get(name) for own in per_run}) > 1
    ]
