"""Regression acceptance: is a candidate result set worse than its baseline, beyond the noise?

For every parameter point and metric the repetitions on each side are the samples, or,
where both sides hold several executions and a program repeated its measurement in them
(``ior -i 5``), the executions' means: the repetitions of one execution share its node,
its files and its moment, and taken as independent they make any difference between
executions look like a change (see :func:`units_tested`). A one-sided test (Welch's
t-test, or Mann–Whitney's U for skewed data) asks whether the candidate is worse; the
p-values of all points and metrics are corrected together (Holm by default), so that
comparing two runs of the same system raises a false alarm in at most alpha of the
comparisons however many metrics they hold. The tolerance says whether a real loss is
small enough to accept, and two one-sided tests (TOST) whether the candidate is shown to
be equivalent within it. See ``docs/results.md``.

``compare`` is pure (rows in); :mod:`jubex.results.comparison.compare_runs` reads two runs and
chooses the points and metrics as ``jubex compare`` does when they are not given.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from jubex.errors import UsageError, did_you_mean
from jubex.results.samples.rows import executions_of, samples_of
from jubex.results.samples.units import UnitError, factor
from jubex.results.statistics.experimental_unit import execution_note, units_tested
from jubex.results.statistics.flags import side_warnings
from jubex.results.statistics.moderated import fit_prior, moderated_welch
from jubex.results.statistics.significance import (
    CORRECTIONS,
    MOST_REPETITIONS,
    TESTS,
    Alternative,
    adjust,
    detectable,
    equivalent,
    p_value,
    ratio_interval,
    repetitions_needed,
    smallest_rank_p,
)
from jubex.results.statistics.stats import Summary, summarize
from jubex.results.tables.columns import Header
from jubex.results.tables.table import ResultTable, Row

#: the verdicts, worst first (the order rows are listed in)
VERDICTS = (
    "worse",
    "error",
    "missing",
    "within tolerance",
    "changed",
    "inconclusive",
    "same",
    "equivalent",
    "better",
)
NO_SPREAD = "no spread: cannot tell noise"
CONSTANT = "no spread on either side: any difference is real"
TEST_NAMES = {
    "moderated": "Welch t-test with variances moderated over the points",
    "welch": "Welch t-test",
    "mannwhitney": "Mann-Whitney U test",
}
CORRECTION_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}


@dataclass(frozen=True, slots=True)
class PointComparison:
    """One metric at one parameter point: both sides, the change and the verdict.

    ``change`` is in percent of the baseline mean, ``ratio_low``/``ratio_high`` the 95 %
    confidence interval of the ratio. ``p_value`` is the one-sided p of the direction the
    mean moved (two-sided for a metric of unknown direction), ``p_adjusted`` the same
    corrected for all tests of the comparison. ``beyond_noise`` is None when the noise
    cannot be told. ``direction_from`` says where ``higher_is_better`` came from
    (``declared``, ``unit``, or empty when unknown). ``detectable`` is the smallest change
    (in percent) the test would have found at these sizes and this noise, with 80 % power
    at the level the correction asks of the first test; ``needed``, for an inconclusive
    metric, the repetitions per side (executions, where their means are tested) at which a
    loss of the tolerance would be: the number that decides it.
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
    ratio_low: float | None = None
    ratio_high: float | None = None
    p_adjusted: float | None = None
    higher_is_better: bool | None = None
    direction_from: str = ""
    detectable: float | None = None
    needed: int | None = None

    @property
    def loss(self) -> float:
        """How far the change goes the bad way, in percent (for ordering; negative: good)."""
        if self.change is None:
            return math.inf if self.verdict in ("worse", "error", "missing") else -math.inf
        if self.higher_is_better is None:
            return abs(self.change)
        return -self.change if self.higher_is_better else self.change

    def unresolved(self, tolerance: float) -> bool:
        """Inconclusive, and the observed change goes beyond the tolerance the bad way (either
        way for a metric of unknown direction): a loss the test could not see."""
        return self.verdict == "inconclusive" and self.loss > tolerance * 100 + 1e-9


@dataclass
class Comparison:
    """All point comparisons, worst first; ``status`` is what ``jubex compare`` exits with.

    ``units`` are the metrics' units, shown by ``to_table`` (a comparison of runs has them).
    An inconclusive metric whose observed change goes beyond the tolerance makes the
    comparison inconclusive (exit status 4), not failed: noise alone gives such changes at
    few repetitions. ``strict`` turns that into a failure, ``allow_inconclusive`` into a pass.
    """

    keys: tuple[str, ...]
    items: list[PointComparison]
    tolerance: float
    alpha: float
    notes: list[str] = field(default_factory=list)
    units: Mapping[str, str] = field(default_factory=dict)
    test: str = "welch"
    correction: str = "holm"
    allow_inconclusive: bool = False
    strict: bool = False

    @property
    def failed(self) -> bool:
        """Some metric is worse beyond the noise and beyond the tolerance, or (``strict``)
        inconclusive with an observed loss beyond the tolerance."""
        regressed = any(item.verdict == "worse" for item in self.items)
        return regressed or (self.strict and bool(self.unresolved))

    @property
    def inconclusive(self) -> bool:
        """No regression, but some metric could hide a loss beyond the tolerance."""
        return not self.failed and bool(self.unresolved)

    @property
    def unresolved(self) -> list[PointComparison]:
        """Inconclusive comparisons that keep the gate from passing: observed losses beyond
        the tolerance that the noise hides (none when they are allowed)."""
        if self.allow_inconclusive:
            return []
        return [item for item in self.items if item.unresolved(self.tolerance)]

    @property
    def unusable(self) -> list[PointComparison]:
        """Comparisons that could not be made: a value the baseline has and the candidate
        lacks, or bad data."""
        return [
            item
            for item in self.items
            if item.verdict == "error"
            or (item.verdict == "missing" and item.candidate is None and item.baseline is not None)
        ]

    @property
    def status(self) -> int:
        """0 passed, 1 a regression, 2 nothing compared or a comparison that could not be
        made, 4 inconclusive (no regression, but a loss beyond the tolerance not ruled out)."""
        if self.failed:
            return 1
        if self.unusable or not self.items:
            return 2
        return 4 if self.unresolved else 0

    def counts(self) -> dict[str, int]:
        """How many comparisons got each verdict (verdicts that occur only)."""
        found = Counter(item.verdict for item in self.items)
        return {verdict: found[verdict] for verdict in VERDICTS if found[verdict]}

    def method(self) -> str:
        """The test, its correction and the thresholds, in one phrase."""
        tested = sum(item.p_value is not None for item in self.items)
        return (
            f"one-sided {TEST_NAMES[self.test]}, {CORRECTION_NAMES[self.correction]}-corrected "
            f"over {tested} test(s) at alpha {self.alpha:g}; tolerance {self.tolerance:.1%}"
        )

    def verdict_line(self) -> str:
        """The one line a gate reads: its outcome, the verdict counts and how it was decided."""
        counts = ", ".join(f"{n} {verdict}" for verdict, n in self.counts().items())
        total = len(self.items)
        if self.failed:
            n = self.counts().get("worse", 0)
            head = f"FAILED: {n} regression(s) beyond the noise and the tolerance"
            if self.unresolved:
                head += f", {len(self.unresolved)} inconclusive with a loss beyond the tolerance"
                head += " (--strict)" if self.strict else f" ({self.decide()})"
        elif self.status == 4:
            head = (
                f"INCONCLUSIVE: no regression found, but {len(self.unresolved)} metric(s) "
                f"could hide a loss beyond the tolerance ({self.decide()})"
            )
        elif self.status == 2:
            head = (
                f"ERROR: {len(self.unusable)} comparison(s) could not be made"
                if self.items
                else "ERROR: nothing to compare"
            )
        else:
            head = "PASSED: no regression beyond the noise and the tolerance"
        return f"{head} ({total} compared: {counts or 'none'}; {self.method()})"

    def decide(self) -> str:
        """What would decide the unresolved metrics: the repetitions a side needs."""
        needed = [item.needed for item in self.unresolved]
        known = [n for n in needed if n is not None]
        if not known or None in needed:
            more = "more repetitions can tell"
        elif max(known) > MOST_REPETITIONS:
            more = f"more than {MOST_REPETITIONS:,} repetitions a side would decide them"
        else:
            more = f"{max(known)} repetitions a side would decide them"
        return f"{more}; --strict fails, --allow-inconclusive passes them"

    def to_table(self, units: Mapping[str, str] | None = None) -> ResultTable:
        """The comparison as a result table, for any of the formats of ``render``."""
        units = units or self.units
        headers = [Header(key, key) for key in self.keys] + [
            Header("metric", "metric"),
            Header("unit", "unit"),
            Header("better", "better"),
            Header("baseline_mean", "baseline mean"),
            Header("baseline_std", "baseline std"),
            Header("baseline_n", "n"),
            Header("candidate_mean", "candidate mean"),
            Header("candidate_std", "candidate std"),
            Header("candidate_n", "n"),
            Header("ratio", "ratio", format=".3f"),
            Header("ratio_low", "ratio 95% CI low", format=".3f"),
            Header("ratio_high", "high", format=".3f"),
            Header("change", "change", unit="%", format="+.1f"),
            Header("p_value", "p", format=".3g"),
            Header("p_adjusted", "p adj", format=".3g"),
            Header("detectable", "detectable", unit="%", format=".1f"),
            Header("needed", "n needed"),
            Header("verdict", "verdict"),
            Header("note", "note"),
        ]
        rows = [
            [
                *item.point,
                item.metric,
                units.get(item.metric, ""),
                _direction_text(item),
                *_sides(item.baseline),
                *_sides(item.candidate),
                item.ratio,
                item.ratio_low,
                item.ratio_high,
                item.change,
                item.p_value,
                item.p_adjusted,
                item.detectable,
                _needed_text(item.needed),
                item.verdict,
                item.note,
            ]
            for item in self.items
        ]
        return ResultTable("comparison", headers, rows, [*self.notes, self.verdict_line()])


def _needed_text(needed: int | None) -> object:
    """The repetitions an inconclusive metric needs, or "more than" the most told."""
    return f">{MOST_REPETITIONS}" if needed and needed > MOST_REPETITIONS else needed


def _direction_text(item: PointComparison) -> str:
    if item.higher_is_better is None:
        return "?"
    text = "higher" if item.higher_is_better else "lower"
    return f"{text} (from unit)" if item.direction_from == "unit" else text


def _sides(summary: Summary | None) -> tuple[object, object, object]:
    if summary is None:
        return None, None, 0
    return summary.mean, summary.std, summary.n


@dataclass
class _Point:
    """One point and metric on its way to a verdict: the samples, how many of them each
    execution gave, what is tested (the samples or the executions' means), then the
    test's p-values."""

    point: tuple[object, ...]
    metric: str
    base: list[float]
    cand: list[float]
    direction: bool | None
    base_runs: list[int]
    cand_runs: list[int]
    base_units: list[float] = field(init=False)
    cand_units: list[float] = field(init=False)
    p_worse: float | None = None
    p_better: float | None = None
    p_two: float | None = None
    adj_worse: float | None = None
    adj_better: float | None = None
    adj_two: float | None = None

    def __post_init__(self) -> None:
        self.base_units, self.cand_units = units_tested(
            self.base, self.base_runs, self.cand, self.cand_runs
        )

    @property
    def by_execution(self) -> bool:
        """Whether the executions' means are tested rather than the samples."""
        return self.base_units is not self.base


def compare(
    baseline: Sequence[Row],
    candidate: Sequence[Row],
    *,
    keys: Sequence[str],
    metrics: Sequence[str],
    directions: Mapping[str, bool | None],
    tolerance: float = 0.05,
    alpha: float = 0.05,
    test: str = "moderated",
    correction: str = "holm",
    units: Mapping[str, str] | None = None,
    candidate_units: Mapping[str, str] | None = None,
    inferred: Collection[str] = (),
) -> Comparison:
    """Compare ``metrics`` of two result sets point by point (points = values of ``keys``).

    ``directions`` says per metric whether higher is better (``inferred``: the metrics whose
    direction a unit gave); a metric of unknown direction is only reported as changed or
    not. ``tolerance`` is a fraction (0.05 = 5 %). The candidate's values are converted
    into the baseline's ``units`` where ``candidate_units`` differ.
    """
    if not 0 <= tolerance < 1 or not 0 < alpha < 1:
        raise UsageError(
            f"tolerance must lie in [0, 1) and alpha in (0, 1), not {tolerance} and {alpha}"
        )
    if test not in TESTS or correction not in CORRECTIONS:
        raise UsageError(
            f"unknown test '{test}' or correction '{correction}'",
            hint=f"tests: {', '.join(TESTS)}; corrections: {', '.join(CORRECTIONS)}",
        )
    _check_names(baseline, candidate, keys, "key")
    _check_names(baseline, candidate, metrics, "metric")
    notes: list[str] = []
    base_points = group_points(baseline, keys, "baseline", notes)
    cand_points = group_points(candidate, keys, "candidate", notes)
    done: list[PointComparison] = []
    pending: list[_Point] = []
    for metric in metrics:
        scale, unit_error = _scale(metric, units or {}, candidate_units)
        for point in {**base_points, **cand_points}:
            base_rows, cand_rows = base_points.get(point), cand_points.get(point)
            try:
                base = numbers_of(base_rows, metric, 1.0)
                cand = numbers_of(cand_rows, metric, scale)
            except ValueError as error:
                done.append(_unusable(point, metric, str(error)))
                continue
            if not base or not cand:
                done.append(_missing(point, metric, base, cand, base_rows, cand_rows))
            elif unit_error:
                done.append(_unusable(point, metric, unit_error))
            else:
                runs = (_runs(base_rows, metric), _runs(cand_rows, metric))
                pending.append(_Point(point, metric, base, cand, directions.get(metric), *runs))
    test = _test_all(pending, test, correction, alpha)
    notes += execution_note(sum(p.by_execution for p in pending))
    if test == "mannwhitney":
        notes += _rank_limit(pending, alpha)
    tested = sum(p.p_worse is not None or p.p_two is not None for p in pending)
    level = alpha / max(1, tested)  # what Holm's correction asks of the first of them
    done += [
        _judge(p, tolerance, (alpha, level), _direction_from(p, inferred, directions), test)
        for p in pending
    ]
    done.sort(key=lambda item: (VERDICTS.index(item.verdict), -item.loss))
    return Comparison(tuple(keys), done, tolerance, alpha, notes, test=test, correction=correction)


def _direction_from(
    point: _Point, inferred: Collection[str], directions: Mapping[str, object]
) -> str:
    """Where the better direction of the point's metric came from."""
    if directions.get(point.metric) is None:
        return ""
    return "unit" if point.metric in inferred else "declared"


def _scale(
    metric: str, units: Mapping[str, str], candidate_units: Mapping[str, str] | None
) -> tuple[float, str]:
    """The factor that brings the candidate's values into the baseline's unit, or why not."""
    base, cand = units.get(metric), (candidate_units or {}).get(metric)
    if not base or not cand or base == cand:
        return 1.0, ""
    try:
        return factor(cand, base), ""
    except UnitError:
        return 1.0, f"the candidate's unit '{cand}' does not convert into the baseline's '{base}'"


def _check_names(
    baseline: Sequence[Row], candidate: Sequence[Row], names: Sequence[str], what: str
) -> None:
    known = {name for rows in (baseline, candidate) for row in rows for name in row}
    for name in names:
        if (baseline or candidate) and name not in known:
            raise UsageError(
                f"{what} '{name}' is in neither result set", hint=did_you_mean(name, known)
            )


def group_points(
    rows: Sequence[Row], keys: Sequence[str], side: str, notes: list[str]
) -> dict[tuple[object, ...], list[Row]]:
    """The rows of each point (the values of ``keys``); failed rows are counted in a note."""
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


def numbers_of(rows: list[Row] | None, metric: str, scale: float) -> list[float]:
    """The present numbers of ``metric``; ValueError naming a value that is no number."""
    present: list[float] = []
    for value in (value for row in rows or () for value in samples_of(row, metric)):
        if value is None:
            continue
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ValueError(f"holds {value!r}, not a number to compare")
        if not math.isfinite(value):
            raise ValueError(f"holds {value}, not a finite number")
        present.append(value * scale)
    return present


def _runs(rows: list[Row] | None, metric: str) -> list[int]:
    """How many of a side's numbers each execution gave (a program's own repetitions)."""
    return [
        sum(v is not None for v in samples)
        for row in rows or ()
        for _, samples in executions_of(row, metric)
    ]


def _unusable(point: tuple[object, ...], metric: str, why: str) -> PointComparison:
    return PointComparison(point, metric, None, None, None, None, None, None, "error", why)


def _missing(
    point: tuple[object, ...],
    metric: str,
    base: list[float],
    cand: list[float],
    base_rows: list[Row] | None,
    cand_rows: list[Row] | None,
) -> PointComparison:
    side = "baseline" if not base else "candidate"
    absent = "point" if (base_rows if side == "baseline" else cand_rows) is None else "value"
    b, c = (summarize(base) if base else None), (summarize(cand) if cand else None)
    note = f"no {absent} in the {side}"
    return PointComparison(point, metric, b, c, None, None, None, None, "missing", note)


def _test_all(points: list[_Point], test: str, correction: str, alpha: float) -> str:
    """Each point's p-values, then each family corrected over all points and metrics; the
    test that was made (``welch`` where too few points moderate their variances).

    Three families: worse and better for metrics of known direction, changed (two-sided)
    for the others. A gate fails only on the first, so its false alarms are bounded by
    alpha whatever the other two hold.
    """
    test, test_of = _tester(points, test)
    for p in points:
        if p.direction is None:
            p.p_two = test_of(p, "two-sided")
            continue
        lower: Alternative = "less"
        higher: Alternative = "greater"
        p.p_worse = test_of(p, lower if p.direction else higher)
        p.p_better = test_of(p, higher if p.direction else lower)
    worse = adjust([p.p_worse for p in points], correction)
    better = adjust([p.p_better for p in points], correction)
    two = adjust([p.p_two for p in points], correction)
    for p, adj_worse, adj_better, adj_two in zip(points, worse, better, two, strict=True):
        p.adj_worse, p.adj_better, p.adj_two = adj_worse, adj_better, adj_two
    return test


def _tester(
    points: Sequence[_Point], test: str
) -> tuple[str, Callable[[_Point, Alternative], float | None]]:
    """The test made and the p-value of one point by it: ``moderated`` is Welch's test
    with each side's variances moderated by a prior fitted to all points of that side, and
    Welch's own where too few points have a spread to fit one."""
    base = fit_prior([p.base_units for p in points]) if test == "moderated" else None
    cand = fit_prior([p.cand_units for p in points]) if test == "moderated" else None
    if base is None or cand is None:
        test = "welch" if test == "moderated" else test
        return test, lambda p, alternative: p_value(p.base_units, p.cand_units, alternative, test)
    priors = (base, cand)

    def moderated(p: _Point, alternative: Alternative) -> float | None:
        if p_value(p.base_units, p.cand_units, alternative) is None:
            return None  # what Welch's test cannot tell (one value, no spread) stays untold
        value = moderated_welch(p.base_units, p.cand_units, alternative, priors)
        return None if math.isnan(value) else value

    return test, moderated


def _rank_limit(points: Sequence[_Point], alpha: float) -> list[str]:
    """A note when ranks cannot show a difference at all: with few repetitions the
    smallest p Mann–Whitney's U can give stays above what the correction asks of it."""
    tested = [p for p in points if p.p_worse is not None or p.p_two is not None]
    if not tested:
        return []
    worst = max(tested, key=lambda p: smallest_rank_p(len(p.base_units), len(p.cand_units)))
    smallest = smallest_rank_p(len(worst.base_units), len(worst.cand_units))
    if smallest < alpha / len(tested):
        return []
    what = "executions" if worst.by_execution else "repetitions"
    return [
        f"Mann-Whitney's U cannot show a difference with {len(worst.base_units)} and "
        f"{len(worst.cand_units)} {what}: its smallest p, {smallest:.2g}, is not below "
        f"alpha/{len(tested)} = {alpha / len(tested):.2g} (add {what}, or use --test welch)"
    ]


def _judge(
    p: _Point, tolerance: float, levels: tuple[float, float], direction_from: str, test: str
) -> PointComparison:
    """The verdict of one tested point (its p-values corrected already); ``levels``: alpha
    and the one-sided level the smallest detectable change is worked out at."""
    alpha, level = levels
    level = level if p.direction is not None else level / 2
    b, c = summarize(p.base_units), summarize(p.cand_units)
    assert b.mean is not None and c.mean is not None  # both sides have values
    ratio = c.mean / b.mean if b.mean else None
    change = None if ratio is None else (ratio - 1) * 100
    interval = ratio_interval(b, c)
    low, high = interval if interval else (None, None)
    raw, adjusted = _shown_p(p, c.mean < b.mean)
    note = ""
    if raw is None:
        beyond = None if b.n < 2 or c.n < 2 else b.mean != c.mean
        note = NO_SPREAD if beyond is None else CONSTANT
        verdict = _face_value(b.mean, c.mean, p.direction, tolerance)
        if beyond is None and verdict != "same":
            verdict = "inconclusive"  # one value on a side: the noise cannot be told
    else:
        beyond = adjusted is not None and adjusted < alpha
        verdict = _tested(p, b, c, tolerance, alpha)
    note = "; ".join(
        filter(
            None,
            (
                note,
                _unit_note(p),
                *side_warnings("baseline", p.base, _of_values(p.base, b, p), p.base_runs),
                *side_warnings("candidate", p.cand, _of_values(p.cand, c, p), p.cand_runs),
            ),
        )
    )
    return PointComparison(
        p.point,
        p.metric,
        b,
        c,
        ratio,
        change,
        raw,
        beyond,
        verdict,
        note,
        low,
        high,
        adjusted,
        p.direction,
        direction_from,
        detectable(b, c, level),
        _needed(verdict, (b, c), tolerance, level, test),
    )


def _needed(
    verdict: str, sides: tuple[Summary, Summary], tolerance: float, level: float, test: str
) -> int | None:
    """For an inconclusive metric, the repetitions per side that would decide it."""
    if verdict != "inconclusive":
        return None
    return repetitions_needed(*sides, level, tolerance, ranks=test == "mannwhitney")


def _of_values(values: list[float], tested: Summary, p: _Point) -> Summary:
    """The summary of a side's values (that of the tested means is not: a side's spread
    and outliers are those of its values)."""
    return summarize(values) if p.by_execution else tested


def _unit_note(p: _Point) -> str:
    """What was tested when it is the executions' means (the comparison's note says why)."""
    if not p.by_execution:
        return ""
    return (
        f"tested on the means of {len(p.base_units)} and {len(p.cand_units)} executions "
        f"(of {len(p.base)} and {len(p.cand)} values)"
    )


def _shown_p(p: _Point, fell: bool) -> tuple[float | None, float | None]:
    """The p-value of the way the mean moved (the two-sided one without a direction)."""
    if p.direction is None:
        return p.p_two, p.adj_two
    if fell == p.direction:
        return p.p_worse, p.adj_worse
    return p.p_better, p.adj_better


def _tested(p: _Point, b: Summary, c: Summary, tolerance: float, alpha: float) -> str:
    assert b.mean is not None and c.mean is not None
    if p.direction is None:
        if p.adj_two is not None and p.adj_two < alpha:
            return "changed"
    elif p.adj_worse is not None and p.adj_worse < alpha:
        return _loss_verdict(b.mean, c.mean, tolerance)
    elif p.adj_better is not None and p.adj_better < alpha:
        return "better"
    return "equivalent" if equivalent(b, c, tolerance, alpha) else "inconclusive"


def _loss_verdict(base: float, cand: float, tolerance: float) -> str:
    loss = abs(cand - base) / abs(base) if base else math.inf
    return "within tolerance" if loss <= tolerance + 1e-12 else "worse"


def _face_value(base: float, cand: float, direction: bool | None, tolerance: float) -> str:
    """Without a test (no spread) a difference is taken as it is."""
    if cand == base:
        return "same"
    if direction is None:
        return "changed"
    if (cand > base) == direction:
        return "better"
    return _loss_verdict(base, cand, tolerance)
