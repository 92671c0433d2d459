"""Repetition targets (``iterations: {min, max, until}``) measured on a point's values.

The same arithmetic decides, while a run goes on, whether a point needs more repetitions
(:mod:`jubex.results.repetitions.repeat`) and says, in its table, whether it got there: a point's
spread is judged on the values the table shows, relative to their mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from jubex.definition.model import Benchmark, Until
from jubex.plain import dataclass
from jubex.results.samples.rows import Row
from jubex.results.statistics.stats import summarize, t_quantile


def targets_of(benchmark: Benchmark) -> dict[str, tuple[Until, int]]:
    """Each step with a repetition target: the target, and the most repetitions allowed."""
    return {
        name: (step.until, step.iterations)
        for name, step in benchmark.steps.items()
        if step.until is not None
    }


def relative(stat: str, values: Sequence[float]) -> float | None:
    """``ci95`` or ``cv`` of ``values`` as a share of their mean (None: fewer than two
    values, or a mean of zero, about which no share says anything)."""
    summary = summarize(values)
    spread = summary.ci95 if stat == "ci95" else summary.std
    if spread is None or summary.mean is None or summary.mean == 0:
        return None
    return spread / abs(summary.mean)


def numbers(rows: Sequence[Row], name: str) -> list[float]:
    """The numeric values of ``name`` in ``rows`` (a missing or textual one is no sample)."""
    return [
        float(value)
        for row in rows
        if isinstance(value := row.get(name), int | float) and not isinstance(value, bool)
    ]


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where one point stands against its target: repetitions, and the worst spread."""

    repetitions: int
    #: (metric, relative spread) of the metric furthest from the target; None: no value
    worst: tuple[str, float] | None
    reached: bool


def outcome(until: Until, rows: Sequence[Row], metrics: Sequence[str]) -> Outcome:
    """How the rows of one point meet ``until`` over ``metrics`` (each must; a metric
    without two values cannot)."""
    worst: tuple[str, float] | None = None
    reached = bool(metrics)
    for name in metrics:
        share = relative(until.stat, numbers(rows, name))
        if share is None:
            reached = False
            continue
        if worst is None or share > worst[1]:
            worst = (name, share)
        reached = reached and share <= until.limit
    return Outcome(len(rows), worst, reached)


def repetitions_needed(until: Until, outcome: Outcome, most: int) -> int:
    """How many repetitions the point probably needs in all, at most ``most``.

    For ``ci95`` the half-width shrinks as t(n-1)/sqrt(n): the smallest n where the spread
    seen so far would meet the target. A ``cv`` does not shrink with more values, so one
    more at a time. Never more than twice what the point has: the spread of a few values
    is itself a rough guess.
    """
    have = outcome.repetitions
    if until.stat != "ci95" or outcome.worst is None:
        return min(have + 1, most)
    cv = outcome.worst[1] * math.sqrt(have) / t_quantile(have - 1)
    need = have + 1
    while need < min(most, 2 * have) and t_quantile(need - 1) * cv / math.sqrt(need) > until.limit:
        need += 1
    return min(need, most, 2 * have)


def target_flag(until: Until, found: Outcome, most: int) -> str | None:
    """The flag of a point that ended short of its target, or None."""
    if found.reached:
        return None
    if found.worst is None:
        return f"target {until.text} not measurable after {found.repetitions} repetition(s)"
    name, share = found.worst
    cap = " (the most allowed)" if found.repetitions >= most else ""
    return (
        f"target {until.text} not reached: {name} {until.stat} {share:.1%} after "
        f"{found.repetitions} repetition(s){cap}"
    )


def target_note(until: Until, most: int, outcomes: Sequence[Outcome]) -> str:
    """The line under a table: the target, and how the points fared."""
    reached = [o.repetitions for o in outcomes if o.reached]
    short = len(outcomes) - len(reached)
    got = (
        f"{min(reached)}–{max(reached)}" if reached and min(reached) != max(reached) else ""
    ) or (str(reached[0]) if reached else "")
    text = (
        f"repetitions until {until.text} ({until.minimum} to {most} per point): "
        f"{len(reached)} point(s) reached it"
    )
    if reached:
        text += f" with {got} repetition(s)"
    if short:
        text += f", {short} did not (flagged)"
    return text
