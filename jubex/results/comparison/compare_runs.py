"""Comparison of two runs: their repetitions, and the points and metrics chosen for them.

What ``jubex compare`` does when it is not told: the points are the independent parameters
that vary within a run (:mod:`jubex.results.tables.keys`), the metrics the headline values of the
definition's tables, the better direction what the analysers declare or else what the unit
says. Every iteration is a sample of its own, even where an analyser merges the iterations
of a point for its tables.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from jubex.definition.model import STATISTICS as REDUCTIONS
from jubex.definition.model import Table
from jubex.errors import UsageError
from jubex.results.comparison.compare import Comparison, compare
from jubex.results.samples.rows import META
from jubex.results.samples.summaries import summaries_of, summary_notes
from jubex.results.samples.units import direction_of_unit
from jubex.results.tables.keys import default_keys, sides_differ
from jubex.results.tables.table import Row
from jubex.results.tables.tabulate import directions_of, rows_of, rows_of_steps, tables_of, units_of
from jubex.store.rundir import Run


def compare_runs(
    baseline: Run,
    candidate: Run,
    *,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    table: str | None = None,
    tolerance: float = 0.05,
    alpha: float = 0.05,
    test: str = "moderated",
    correction: str = "holm",
    all_metrics: bool = False,
    allow_inconclusive: bool = False,
    strict: bool = False,
) -> Comparison:
    """Compare two analysed runs point by point.

    Without ``keys`` and ``metrics`` they come from ``table`` (its group_by and measured
    value columns), else from the runs (``keys.default_keys``, :func:`default_metrics`;
    ``all_metrics``: every measured number). Only the steps that measure them take part.
    A run compared with itself is refused: its samples would pass any gate.
    """
    if baseline.identity == candidate.identity:
        where = dict.fromkeys(str(run.dir) for run in (baseline, candidate))
        raise UsageError(
            f"the baseline and the candidate are the same run ({' and '.join(where)}: "
            f"run {baseline.id} of {baseline.meta.get('host', '?')}, one identity); a run "
            "compared with itself shows no change whatever it measured",
            hint="compare two runs: the reference first, then the run judged",
        )
    runs = [baseline, candidate]
    benchmark = baseline.benchmark
    chosen = next(iter(tables_of(benchmark, [table])), None) if table else None
    rows = [rows_of([run], per_iteration=True) for run in runs]
    if chosen is not None:
        rows = [rows_of_steps(chosen, side, benchmark) for side in rows]
    units = units_of([baseline])
    directions, inferred = completed_directions(
        directions_of(runs), {**units_of([candidate]), **units}
    )
    parameters = {name for run in runs for name in run.benchmark.parameter_types()}
    if not metrics:
        headline = [chosen] if chosen else list(benchmark.tables.values())
        metrics = default_metrics(rows, parameters, directions, headline, all_metrics)
    steps = _steps_with(rows, metrics)
    if steps:  # else compare() names the metric that no row has
        rows = [[row for row in side if row["jube_step_name"] in steps] for side in rows]
    benchmarks = [run.benchmark for run in runs]
    keys = list(keys) or default_keys(rows, parameters, benchmarks, chosen)
    differ = sides_differ(rows, parameters, benchmarks)
    result = applicable(
        compare(
            rows[0],
            rows[1],
            keys=keys,
            metrics=metrics,
            directions=directions,
            tolerance=tolerance,
            alpha=alpha,
            test=test,
            correction=correction,
            units=units,
            candidate_units=units_of([candidate]),
            inferred=inferred,
        )
    )
    result.notes.insert(
        0,
        f"baseline {baseline.dir}, candidate {candidate.dir}; points by {', '.join(keys) or '—'}"
        + (f"; what differs: {'; '.join(differ)}" if differ else ""),
    )
    result.notes += summary_notes(metrics, [*rows[0], *rows[1]], summaries_of(runs))
    return dataclasses.replace(
        result, units=units, allow_inconclusive=allow_inconclusive, strict=strict
    )


def completed_directions(
    declared: Mapping[str, bool | None], units: Mapping[str, str]
) -> tuple[dict[str, bool | None], set[str]]:
    """Declared directions, completed from the units where nothing declares one."""
    directions = dict(declared)
    inferred: set[str] = set()
    for name, unit in units.items():
        if directions.get(name) is None and (found := direction_of_unit(unit)) is not None:
            directions[name] = found
            inferred.add(name)
    return directions, inferred


def default_metrics(
    rows: Sequence[Sequence[Row]],
    parameters: set[str],
    directions: Mapping[str, bool | None],
    tables: Sequence[Table] = (),
    all_metrics: bool = False,
) -> list[str]:
    """The headline metrics: the measured value columns of ``tables``, else every measured
    value whose better direction is known (not the reductions an analyser adds, such as
    ``bw_max`` beside ``bw``); with ``all_metrics`` every measured number."""
    measured = [name for name in _numeric(rows) if name not in parameters]
    metrics = measured if all_metrics else []
    for table in () if all_metrics else tables:
        names = [c.name for c in table.columns if not c.expr and c.name not in table.group_by]
        metrics += [n for n in (_base_name(n, measured) for n in names) if n is not None]
    if not all_metrics and not metrics:
        metrics = [
            n for n in measured if directions.get(n) is not None and not _reduction(n, measured)
        ]
    if not metrics:
        where = f"table '{tables[0].name}' shows" if len(tables) == 1 else "the runs hold"
        raise UsageError(
            f"nothing to compare: {where} no measured value whose better direction is known",
            hint="name the values with --metric, or compare every measured value with --all",
        )
    return list(dict.fromkeys(metrics))


def applicable(result: Comparison) -> Comparison:
    """Drop metrics that neither run measured at a point (another step's values)."""
    items = [
        i
        for i in result.items
        if i.baseline is not None or i.candidate is not None or i.verdict == "error"
    ]
    return dataclasses.replace(result, items=items)


def _numeric(rows: Sequence[Sequence[Row]]) -> list[str]:
    """Names holding a number in some row, meta keys left out, in the order they are
    first found. A row's names already found are not looked at again (a history of
    10,000 points has 10,000 rows of the same 50 numbers)."""
    found: dict[str, None] = {}
    for side in rows:
        for row in side:
            new = {
                k
                for k in row.keys() - found.keys()
                if k not in META
                and isinstance(row[k], int | float)
                and not isinstance(row[k], bool)
            }
            if new:
                found.update(dict.fromkeys(k for k in row if k in new))
    return list(found)


def _reduction(name: str, measured: Sequence[str]) -> bool:
    """``bw_max`` beside ``bw``: a reduction an analyser adds, not a value of its own."""
    base, _, stat = name.rpartition("_")
    return base in measured and stat in REDUCTIONS


def _base_name(name: str, measured: Sequence[str]) -> str | None:
    """A column as written (``write_bw``) or in JUBE's ``<name>_<stat>`` spelling."""
    if name in measured:
        return name
    base = name.rpartition("_")[0]
    return base if base in measured else None


def _steps_with(rows: Sequence[Sequence[Row]], metrics: Sequence[str]) -> set[object]:
    return {
        row["jube_step_name"]
        for side in rows
        for row in side
        if any(row.get(m) is not None for m in metrics)
    }
