"""The columnar history against the step-by-step computation it replaced, kept here as the
reference: the same table, cell for cell and bit for bit, over random histories with
series breaks, constant and single values, missing and non-numeric values, failed rows,
points of several rows and keys whose equal values are written differently."""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jubex.errors import UsageError, did_you_mean
from jubex.language.values import Size
from jubex.results.comparison.compare import group_points, numbers_of
from jubex.results.statistics import student_t
from jubex.results.statistics.significance import adjust, moments
from jubex.results.statistics.stats import Summary, summarize
from jubex.results.tables.columns import Header, Row
from jubex.results.tables.table import ResultTable
from jubex.results.trends.history import WHERE, RunRows, history_figures

# ---- the reference: the step-by-step history (one object per step) ----


@dataclass
class _Step:
    point: tuple[object, ...]
    metric: str
    run: RunRows
    values: list[float]
    summary: Summary
    setting: tuple[tuple[str, str], ...] = ()
    changed: str | None = None
    change: float | None = None
    p: float | None = None
    adjusted: float | None = None


def reference(
    runs: Sequence[RunRows],
    *,
    keys: Sequence[str],
    metrics: Sequence[str],
    directions: Mapping[str, bool | None],
    units: Mapping[str, str],
    tolerance: float = 0.05,
    alpha: float = 0.05,
    parameters: Collection[str] = (),
    by: Sequence[str] = (),
) -> ResultTable:
    """One row per point, metric and run (oldest first), change points marked; a run is
    set against the run before it in its series only (``parameters``: the names of the
    rows that are parameters; ``by``: more keys, settings made axes)."""
    keys = [*keys, *(name for name in by if name not in keys)]
    known = {name for run in runs for row in run.rows for name in row}
    for what, names in (("key", keys), ("metric", metrics)):
        for name in names:
            if name not in known:
                raise UsageError(
                    f"{what} '{name}' is in none of the runs", hint=did_you_mean(name, known)
                )
    ordered = sorted(runs, key=lambda run: run.created)
    others = [name for name in parameters if name not in keys]
    notes: list[str] = []
    steps: list[_Step] = []
    grouped = [_grouped(run, keys, others) for run in ordered]
    for metric in metrics:
        by_point: dict[tuple[object, ...], list[_Step]] = {}
        for run, (points, said) in zip(ordered, grouped, strict=True):
            notes += said
            for point, (rows, setting) in points.items():
                try:
                    values = numbers_of(rows, metric, 1.0)
                except ValueError as error:
                    notes.append(f"{metric} at {point} in run {run.label} {error}: left out")
                    continue
                if values:
                    by_point.setdefault(point, []).append(
                        _Step(
                            point,
                            metric,
                            run,
                            values,
                            _summary(values),
                            setting,
                        )
                    )
        for at_point in by_point.values():
            _breaks(at_point)
            series: dict[tuple[tuple[str, str], ...], list[_Step]] = {}
            for step in at_point:
                series.setdefault(step.setting, []).append(step)
            for one in series.values():
                _changes(one)
            steps += at_point
    for step, adjusted in zip(steps, adjust([s.p for s in steps]), strict=True):
        step.adjusted = adjusted
    return _table(steps, keys, directions, units, tolerance, alpha, notes)


def _summary(values: Sequence[float]) -> Summary:
    """The count, mean and spread a history shows, as :func:`summarize` computes them (the
    same numbers), without the rest of a summary that a history never reads."""
    n = len(values)
    try:
        mean = math.fsum(values) / n
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    except OverflowError:
        return summarize(values)
    return Summary(n, 0, mean, std, None, None, None, None, None, None)


def _grouped(
    run: RunRows, keys: Sequence[str], others: Sequence[str]
) -> tuple[dict[tuple[object, ...], tuple[list[Row], tuple[tuple[str, str], ...]]], list[str]]:
    """A run's rows by point, each with its setting, and the notes of the grouping: made
    once per run, not once per metric."""
    said: list[str] = []
    points = group_points(run.rows, keys, f"run {run.label}", said)
    return {point: (rows, setting_of(run, rows, others)) for point, rows in points.items()}, said


def setting_of(
    run: RunRows, rows: Sequence[Row], others: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    """Everything but time that makes a run's rows at a point what they are: the values of
    the parameters outside the keys, where it ran, and its definition."""
    names = [*others, *WHERE]
    if len(rows) == 1:  # a point of one row (most): 40,000 of them in a history of 1,000 runs
        row = rows[0]
        found = [(name, str(row[name])) for name in names if name in row]
    else:
        found = [
            (name, ", ".join(dict.fromkeys(str(row.get(name)) for row in rows)))
            for name in names
            if any(name in row for row in rows)
        ]
    return (*found, ("definition", run.definition[:12]))


def _breaks(at_point: Sequence[_Step]) -> None:
    """Name what changed where a run's setting differs from the run's before it."""
    for before, step in pairwise(at_point):
        if step.setting != before.setting:
            old, new = dict(before.setting), dict(step.setting)
            step.changed = "; ".join(
                f"{name} {old.get(name, '-')} → {new.get(name, '-')}"
                for name in dict.fromkeys([*old, *new])
                if old.get(name) != new.get(name)
            )


def _changes(series: list[_Step]) -> None:
    """Each run's change from the run before it, and the two-sided p of that change."""
    tests = stepwise_p([step.values for step in series])
    for (before, step), p in zip(pairwise(series), tests[1:], strict=True):
        b, c = before.summary.mean, step.summary.mean
        if b is None or c is None:
            continue
        step.change = (c / b - 1) * 100 if b else None
        step.p = p


def _table(
    steps: Sequence[_Step],
    keys: Sequence[str],
    directions: Mapping[str, bool | None],
    units: Mapping[str, str],
    tolerance: float,
    alpha: float,
    notes: list[str],
) -> ResultTable:
    headers = [Header(key, key) for key in keys] + [
        Header("metric", "metric"),
        Header("unit", "unit"),
        Header("run", "run"),
        Header("created", "created"),
        Header("n", "n"),
        Header("mean", "mean"),
        Header("std", "std"),
        Header("change", "change", unit="%", format="+.1f"),
        Header("p_adjusted", "p adj", format=".3g"),
        Header("change_point", "change point"),
        Header("setting_changed", "setting changed"),
    ]
    rows = []
    marked = 0
    when: dict[float, str] = {}  # a run's time, written once for all its rows
    for step in sorted(steps, key=lambda s: (s.metric, str(s.point), s.run.created)):
        created = step.run.created
        if created not in when:
            when[created] = time.strftime("%Y-%m-%d %H:%M", time.localtime(created))
        mark = _mark(step, directions.get(step.metric), tolerance, alpha)
        marked += bool(mark)
        rows.append(
            [
                *step.point,
                step.metric,
                units.get(step.metric, ""),
                step.run.label,
                when[created],
                step.summary.n,
                step.summary.mean,
                step.summary.std,
                step.change,
                step.adjusted,
                mark,
                step.changed,
            ]
        )
    tested = sum(s.p is not None for s in steps)
    breaks = sorted({f"run {s.run.label}: {s.changed}" for s in steps if s.changed})
    if breaks:
        notes.append(
            f"{len(breaks)} series break(s) where a setting changed ({'; '.join(breaks)}): "
            "a run is set only against runs of the same setting, and another setting is "
            "no change point (--by NAME makes a parameter an axis of the points)"
        )
    notes.append(
        f"{marked} change point(s): a run whose mean differs from the run before it beyond "
        f"the noise (Welch t-test, Holm-corrected over {tested} test(s) at alpha {alpha:g}) "
        f"and by more than {tolerance:.1%}"
    )
    return ResultTable("history", headers, rows, notes)


def _mark(step: _Step, direction: bool | None, tolerance: float, alpha: float) -> str | None:
    if step.adjusted is None or step.adjusted >= alpha or step.change is None:
        return None
    if abs(step.change) <= tolerance * 100:
        return None
    up = step.change > 0
    if direction is None:
        return "up" if up else "down"
    return "better" if up == direction else "worse"


def stepwise_p(samples: Sequence[Sequence[float]]) -> list[float | None]:
    """The two-sided Welch p of each sample against the one before it: None for the first,
    and where the test cannot tell (fewer than two values on a side, or no spread on
    either), as :func:`~jubex.results.statistics.significance.p_value` says."""
    found: list[float | None] = [None] * len(samples)
    if len(samples) < 2:
        return found
    counts = [len(values) for values in samples]
    mean_var = [moments(values) if n >= 2 else (math.nan, math.nan) for values, n in
                zip(samples, counts, strict=True)]  # fmt: skip
    constant = [n >= 1 and min(values) == max(values) for values, n in
                zip(samples, counts, strict=True)]  # fmt: skip
    tested = [
        i
        for i in range(1, len(samples))
        if counts[i - 1] >= 2 and counts[i] >= 2 and not (constant[i - 1] and constant[i])
    ]
    if not tested:
        return found
    index = np.array(tested)
    n = np.array(counts, dtype=float)
    mean, var = (np.array(column, dtype=float) for column in zip(*mean_var, strict=True))
    nb, nc = n[index - 1], n[index]
    sb, sc = var[index - 1] / nb, var[index] / nc
    df = (sb + sc) ** 2 / (sb**2 / (nb - 1) + sc**2 / (nc - 1))
    t = (mean[index] - mean[index - 1]) / np.sqrt(sb + sc)
    p = 2 * student_t.cdf(df, -np.abs(t))
    for i, value in zip(tested, p.tolist(), strict=True):
        found[i] = None if math.isnan(value) else value
    return found


# ---- random histories ----

#: values of a key: equal values written differently (1, 1.0, True; two texts of 1,024 bytes)
KEY_VALUES = ["a", "b", 1, 1.0, True, 2, Size(1024, "1KiB"), Size(1024, "1024"), None]
#: numbers that repeat often enough to give constant samples, ties and zero means
NUMBERS = st.one_of(
    st.sampled_from([1.0, 2.0, 2.5, 0.0, -0.0, 1e-3, 100.0]),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
)
#: a metric's value in a row: missing, None, a number, repetitions, or no number at all
VALUE = st.one_of(
    st.just("absent"),
    st.none(),
    NUMBERS,
    st.lists(NUMBERS, min_size=1, max_size=4),
    st.sampled_from([3, "x", math.inf, False]),
)


@st.composite
def rows(draw: st.DrawFn) -> dict[str, object]:
    row: dict[str, object] = {"p": draw(st.sampled_from(KEY_VALUES))}
    if draw(st.booleans()):
        row["q"] = draw(st.sampled_from([1, 2]))
    for name, values in (("block", [1, 2, "x"]), ("site", ["s", "t"]), ("ok", [True, False])):
        if draw(st.integers(0, 3)) == 0:
            row[name] = draw(st.sampled_from(values))
    samples: dict[str, object] = {}
    for metric in ("bw", "io"):
        value = draw(VALUE)
        if isinstance(value, list):
            samples[metric] = tuple(value) if draw(st.booleans()) else value
            row[metric] = value[0]
        elif value != "absent":
            row[metric] = value
    if samples or draw(st.booleans()):
        row["samples"] = samples
    return row


@st.composite
def histories(draw: st.DrawFn) -> list[RunRows]:
    count = draw(st.integers(1, 8))
    return [
        RunRows(
            f"r{i}",
            float(draw(st.integers(0, 5))),  # ties in time too
            draw(st.lists(rows(), max_size=6)),
            draw(st.sampled_from(["", "abcdef0123456789", "0123456789abcdef"])),
        )
        for i in range(count)
    ]


def _history(runs: list[RunRows], **options: Any) -> ResultTable:
    return history_figures(runs, **options).table()


def _both(runs: list[RunRows], **options: object) -> tuple[str, str]:
    found = []
    for compute in (_history, reference):
        try:
            table = compute(runs, **options)  # type: ignore[operator]
        except Exception as error:  # the same error is the same behaviour
            found.append(f"{type(error).__name__}: {error}")
        else:
            found.append(repr((table.headers, table.rows, table.notes)))
    return found[0], found[1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    histories(),
    st.sampled_from([["p"], ["p", "q"], []]),
    st.sampled_from([["bw"], ["bw", "io"], ["io", "bw", "bw"]]),
    st.sampled_from([(), ("block",)]),
    st.sampled_from([0.0, 0.05]),
    st.sampled_from([0.05, 1.0]),
)
def test_the_history_is_the_step_by_step_one(runs, keys, metrics, by, tolerance, alpha):
    options = {
        "keys": keys,
        "metrics": metrics,
        "directions": {"bw": True},
        "units": {"bw": "MiB/s"},
        "tolerance": tolerance,
        "alpha": alpha,
        "parameters": ["p", "q", "block"],
        "by": by,
    }
    new, old = _both(runs, **options)
    assert new == old


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), min_size=1,
                 max_size=5),
        min_size=2,
        max_size=30,
    )
)  # fmt: skip
def test_a_long_series_has_the_step_by_step_numbers(series):
    """One point over many runs: every pair tested, Holm over all of them."""
    runs = [
        RunRows(str(i), float(i), [{"p": "a", "bw": v[0], "samples": {"bw": v}}])
        for i, v in enumerate(series)
    ]
    options = {"keys": ["p"], "metrics": ["bw"], "directions": {}, "units": {}}
    new, old = _both(runs, **options)
    assert new == old


def test_values_whose_deviations_overflow_give_no_test_and_no_traceback():
    """Squares beyond the largest float: the step-by-step computation raised; the mean and
    deviation are summarize's (scaled down) and the test cannot tell."""
    runs = [
        RunRows(str(i), float(i), [{"p": "a", "bw": 0.0, "samples": {"bw": v}}])
        for i, v in enumerate([[1e200, -1e200, 3e200], [1.0, 2.0, 3.0], [2e200, -2e200]])
    ]
    table = history_figures(runs, keys=["p"], metrics=["bw"], directions={}, units={}).table()
    assert table.column("p_adjusted") == [None, None, None]
    assert table.column("std")[0] == summarize([1e200, -1e200, 3e200]).std
    assert "over 0 test(s)" in table.notes[-1]
