"""Regression acceptance: is a candidate result set worse than its baseline, beyond the noise?

For every parameter point and metric the repetitions on each side are the samples. Welch's
t-test (unequal variances) says whether the means differ beyond the noise; the tolerance
says whether a real loss is small enough to accept. A bootstrap interval of the ratio was
not chosen: with the 3–5 repetitions HPC runs afford, resampling sees too few distinct
samples and its intervals come out too narrow, while the t-test's small-sample correction
is exact under its (stated) normality assumption. See ``docs/results.md``.

``compare`` is pure (rows in); ``compare_runs`` reads two runs' stores and chooses the
points and metrics as ``jubex compare`` does when they are not given.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from jubex.definition.model import Table
from jubex.errors import UsageError, did_you_mean
from jubex.results.columns import Header
from jubex.results.rows import META
from jubex.results.stats import Summary, summarize
from jubex.results.table import ResultTable, Row
from jubex.results.tabulate import directions_of, rows_for, rows_of, tables_of, units_of
from jubex.store.rundir import Run

VERDICTS = ("better", "same", "within tolerance", "worse", "changed", "missing")
NO_SPREAD = "no spread: cannot tell noise"


@dataclass(frozen=True, slots=True)
class PointComparison:
    """One metric at one parameter point: both sides, the change and the verdict.

    ``change`` is in percent of the baseline mean; ``beyond_noise`` is None when the noise
    cannot be told (fewer than two repetitions on a side).
    """

    point: tuple[object, ...]
    metric: str
    baseline: Summary | None
    candidate: Summary | None
    ratio: float | None
    change: float | None
    p_value: float | None
    beyond_noise: bool | None
    verdict: str
    note: str = ""


@dataclass
class Comparison:
    """All point comparisons; ``failed`` when any metric is worse beyond tolerance.

    ``units`` are the metrics' units, shown by ``to_table`` (a comparison of runs has them).
    """

    keys: tuple[str, ...]
    items: list[PointComparison]
    tolerance: float
    alpha: float
    notes: list[str] = field(default_factory=list)
    units: Mapping[str, str] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(item.verdict == "worse" for item in self.items)

    def counts(self) -> dict[str, int]:
        """How many comparisons got each verdict (verdicts that occur only)."""
        found = Counter(item.verdict for item in self.items)
        return {verdict: found[verdict] for verdict in VERDICTS if found[verdict]}

    def to_table(self, units: Mapping[str, str] | None = None) -> ResultTable:
        """The comparison as a result table, for any of the formats of ``render``."""
        units = units or self.units
        headers = [Header(key, key) for key in self.keys] + [
            Header("metric", "metric"),
            Header("unit", "unit"),
            Header("baseline_mean", "baseline mean"),
            Header("baseline_std", "baseline std"),
            Header("baseline_n", "n"),
            Header("candidate_mean", "candidate mean"),
            Header("candidate_std", "candidate std"),
            Header("candidate_n", "n"),
            Header("ratio", "ratio", format=".3f"),
            Header("change", "change", unit="%", format="+.1f"),
            Header("p_value", "p", format=".3g"),
            Header("verdict", "verdict"),
            Header("note", "note"),
        ]
        rows = [
            [
                *item.point,
                item.metric,
                units.get(item.metric, ""),
                *_sides(item.baseline),
                *_sides(item.candidate),
                item.ratio,
                item.change,
                item.p_value,
                item.verdict,
                item.note,
            ]
            for item in self.items
        ]
        summary = ", ".join(f"{n} {verdict}" for verdict, n in self.counts().items())
        notes = [
            *self.notes,
            f"verdicts: {summary or 'nothing to compare'}; "
            f"{'FAILED' if self.failed else 'passed'} (tolerance {self.tolerance:.1%}, "
            f"Welch t-test at alpha {self.alpha:g})",
        ]
        return ResultTable("comparison", headers, rows, notes)


def _sides(summary: Summary | None) -> tuple[object, object, object]:
    if summary is None:
        return None, None, 0
    return summary.mean, summary.std, summary.n


def compare(
    baseline: Sequence[Row],
    candidate: Sequence[Row],
    *,
    keys: Sequence[str],
    metrics: Sequence[str],
    directions: Mapping[str, bool | None],
    tolerance: float = 0.05,
    alpha: float = 0.05,
) -> Comparison:
    """Compare ``metrics`` of two result sets point by point (points = values of ``keys``).

    ``directions`` says per metric whether higher is better; a metric of unknown direction
    is only reported as ``changed`` or ``same``. ``tolerance`` is a fraction (0.05 = 5 %).
    """
    if not 0 <= tolerance < 1 or not 0 < alpha < 1:
        raise UsageError(
            f"tolerance must lie in [0, 1) and alpha in (0, 1), not {tolerance} and {alpha}"
        )
    _check_names(baseline, candidate, keys, "key")
    _check_names(baseline, candidate, metrics, "metric")
    notes: list[str] = []
    base_points = _points(baseline, keys, "baseline", notes)
    cand_points = _points(candidate, keys, "candidate", notes)
    items = [
        _compare_point(
            point,
            metric,
            base_points.get(point),
            cand_points.get(point),
            directions.get(metric),
            tolerance,
            alpha,
        )
        for point in {**base_points, **cand_points}
        for metric in metrics
    ]
    return Comparison(tuple(keys), items, tolerance, alpha, notes)


def _check_names(
    baseline: Sequence[Row], candidate: Sequence[Row], names: Sequence[str], what: str
) -> None:
    known = {name for rows in (baseline, candidate) for row in rows for name in row}
    for name in names:
        if (baseline or candidate) and name not in known:
            raise UsageError(
                f"{what} '{name}' is in neither result set", hint=did_you_mean(name, known)
            )


def _points(
    rows: Sequence[Row], keys: Sequence[str], side: str, notes: list[str]
) -> dict[tuple[object, ...], list[Row]]:
    points: dict[tuple[object, ...], list[Row]] = {}
    failed = 0
    for row in rows:
        if row.get("ok", True) is False:
            failed += 1
            continue
        points.setdefault(tuple(row.get(key) for key in keys), []).append(row)
    if failed:
        notes.append(f"{failed} failed workpackage(s) of the {side} left out")
    return points


def _values(rows: list[Row] | None, metric: str) -> list[float]:
    present: list[float] = []
    for value in (row.get(metric) for row in rows or ()):
        if value is None:
            continue
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise UsageError(f"metric '{metric}' holds {value!r}, not a number to compare")
        present.append(value)
    return present


def _compare_point(
    point: tuple[object, ...],
    metric: str,
    base_rows: list[Row] | None,
    cand_rows: list[Row] | None,
    direction: bool | None,
    tolerance: float,
    alpha: float,
) -> PointComparison:
    base, cand = _values(base_rows, metric), _values(cand_rows, metric)
    if not base or not cand:
        side = "baseline" if not base else "candidate"
        absent = "point" if (base_rows if side == "baseline" else cand_rows) is None else "value"
        note = f"no {absent} in the {side}"
        b, c = (summarize(base) if base else None), (summarize(cand) if cand else None)
        return PointComparison(point, metric, b, c, None, None, None, None, "missing", note)
    b, c = summarize(base), summarize(cand)
    assert b.mean is not None and c.mean is not None  # both sides have values
    ratio = c.mean / b.mean if b.mean else None
    change = None if ratio is None else (ratio - 1) * 100
    p_value, beyond, note = _noise(b, c, alpha)
    verdict = _verdict(b.mean, c.mean, beyond, direction, tolerance)
    return PointComparison(point, metric, b, c, ratio, change, p_value, beyond, verdict, note)


def _noise(b: Summary, c: Summary, alpha: float) -> tuple[float | None, bool | None, str]:
    """p-value of Welch's t-test, whether it is below alpha, and a note when it cannot tell.

    The test runs from the summaries (``ttest_ind_from_stats``): the same Welch test as
    ``ttest_ind(equal_var=False)`` on the samples, 30x cheaper per point.
    """
    if b.std is None or c.std is None or b.mean is None or c.mean is None:
        return None, None, NO_SPREAD  # fewer than two values on a side
    if not b.std and not c.std:
        return None, b.mean != c.mean, "no spread on either side: any difference is real"
    from scipy.stats import ttest_ind_from_stats  # slow to import; only comparisons need it

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        test = ttest_ind_from_stats(c.mean, c.std, c.n, b.mean, b.std, b.n, equal_var=False)
    p_value = float(test.pvalue)
    if math.isnan(p_value):
        return None, None, NO_SPREAD
    return p_value, p_value < alpha, ""


def _verdict(
    base: float,
    cand: float,
    beyond: bool | None,
    direction: bool | None,
    tolerance: float,
) -> str:
    """Without a noise estimate (``beyond`` None) a difference is taken at face value."""
    if beyond is False or cand == base:
        return "same"
    if direction is None:
        return "changed"
    if (cand > base) == direction:
        return "better"
    loss = abs(cand - base) / abs(base) if base else math.inf
    return "within tolerance" if loss <= tolerance + 1e-12 else "worse"


def compare_runs(
    baseline: Run,
    candidate: Run,
    *,
    keys: Sequence[str] = (),
    metrics: Sequence[str] = (),
    table: str | None = None,
    tolerance: float = 0.05,
    alpha: float = 0.05,
) -> Comparison:
    """Compare two analysed runs point by point.

    Without ``keys`` and ``metrics`` they come from ``table`` (its group_by and measured
    value columns), else from the runs (:func:`default_keys`, :func:`default_metrics`).
    Only the steps that measure the metrics take part.
    """
    runs = [baseline, candidate]
    chosen = tables_of(baseline.benchmark, [table])[0] if table else None
    rows = [rows_of([run]) for run in runs]
    if chosen is not None:
        rows = [rows_for(chosen, side, baseline.benchmark) for side in rows]
    directions = directions_of(runs)
    parameters = {name for run in runs for name in run.benchmark.parameter_types()}
    metrics = list(metrics) or default_metrics(rows, parameters, directions, chosen)
    steps = _steps_with(rows, metrics)
    if steps:  # else compare() names the metric that no row has
        rows = [[row for row in side if row["jube_step_name"] in steps] for side in rows]
    keys = list(keys) or default_keys(rows, parameters, chosen)
    result = applicable(
        compare(
            rows[0],
            rows[1],
            keys=keys,
            metrics=metrics,
            directions=directions,
            tolerance=tolerance,
            alpha=alpha,
        )
    )
    result.notes.insert(
        0, f"baseline {baseline.dir}, candidate {candidate.dir}; points by {', '.join(keys) or '—'}"
    )
    return dataclasses.replace(result, units=units_of(runs))


def default_metrics(
    rows: Sequence[Sequence[Row]],
    parameters: set[str],
    directions: Mapping[str, bool | None],
    table: Table | None,
) -> list[str]:
    """The table's measured value columns, or every measured value with a known direction."""
    measured = [name for name in _numeric(rows) if name not in parameters]
    if table is not None:
        names = [c.name for c in table.columns if not c.expr and c.name not in table.group_by]
        found = [_base_name(n, measured) for n in names]
        metrics = list(dict.fromkeys(n for n in found if n is not None))
    else:
        metrics = [n for n in measured if directions.get(n) is not None]
    if not metrics:
        where = f"table '{table.name}' shows" if table else "the runs hold"
        raise UsageError(
            f"nothing to compare: {where} no measured value whose better direction is known",
            hint="name the values with --metric",
        )
    return metrics


def default_keys(
    rows: Sequence[Sequence[Row]], parameters: set[str], table: Table | None
) -> list[str]:
    """A table's group_by, or the parameters that vary within either run.

    A parameter that differs only *between* the runs (the setting under test) is no key:
    it would put every point of one run apart from every point of the other.
    """
    if table is not None and table.group_by:
        return list(table.group_by)
    keys: dict[str, None] = {}
    for side in rows:
        for name in dict.fromkeys(k for row in side for k in row if k in parameters):
            if len({str(row.get(name)) for row in side}) > 1:
                keys[name] = None
    return list(keys)


def applicable(result: Comparison) -> Comparison:
    """Drop metrics that neither run measured at a point (another step's values)."""
    items = [i for i in result.items if i.baseline is not None or i.candidate is not None]
    return dataclasses.replace(result, items=items)


def _numeric(rows: Sequence[Sequence[Row]]) -> list[str]:
    """Names holding a number in some row, meta keys left out."""
    found: dict[str, None] = {}
    for side in rows:
        for row in side:
            found.update(
                dict.fromkeys(
                    k
                    for k, v in row.items()
                    if k not in META and isinstance(v, int | float) and not isinstance(v, bool)
                )
            )
    return list(found)


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
