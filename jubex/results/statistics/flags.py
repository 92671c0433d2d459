"""Marks on a table's rows that say when its numbers deserve less trust than they look.

A point whose repetitions scatter widely (a coefficient of variation above a limit, 5 % by
default) is *noisy*: its mean may move by that much on the next run. A repetition that
Rosner's generalized ESD test finds far from the others is an *outlier*: it stays in every statistic
(nothing is dropped behind the reader's back), but the row says which one it is, so that
a surprising mean can be traced to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain
from typing import TypeGuard

from jubex.plain import dataclass
from jubex.results.samples.rows import GroupSamples, Row, executions_of
from jubex.results.statistics.experimental_unit import by_execution
from jubex.results.statistics.spread import Groups, Spread, examine
from jubex.results.statistics.stats import Number, Summary, cv_of

#: a point is noisy above this coefficient of variation
CV_LIMIT = 0.05
#: the level of the outlier test: about one sample in a hundred without any is marked
OUTLIER_ALPHA = 0.01


@dataclass(frozen=True, slots=True)
class Flags:
    """What one group's repetitions show: noisy fields, executions that differ, two groups,
    too many far values to be outliers, and outlying values, as text."""

    noisy: tuple[str, ...] = ()
    outlying: tuple[str, ...] = ()
    beyond: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    many: tuple[str, ...] = ()

    def text(self) -> str | None:
        """``noisy: bw cv 7.1%; outlier: bw 1500 (iteration 2)``, or None without a flag."""
        parts = [
            f"{label}: {', '.join(found)}"
            for label, found in (
                ("noisy", self.noisy),
                ("runs differ", self.runs),
                ("bimodal", self.groups),
                ("not one population", self.many),
                ("outlier", self.outlying),
            )
            if found
        ]
        parts += self.beyond
        return "; ".join(parts) or None


def flag(
    members: Sequence[Row],
    fields: Sequence[str],
    cv_limit: float = CV_LIMIT,
    outlier_alpha: float = OUTLIER_ALPHA,
    group: GroupSamples | None = None,
) -> Flags:
    """The flags of one group of rows for the numeric ``fields`` its columns summarize
    (``outlier_alpha`` 0: no outlier test). Each execution's samples (a row's, or each
    iteration's of a row that merges them) are the program's own repetitions, which
    :func:`~jubex.results.statistics.spread.examine` does not take as independent of each
    other. ``group``: the members' samples as the table's cells read them."""
    group = group or GroupSamples(members)
    found: dict[str, list[str]] = {
        "noisy": [],
        "outlying": [],
        "runs": [],
        "groups": [],
        "many": [],
    }
    for name in fields:
        executions = _executions(group, name)
        values = list(chain.from_iterable(executions))
        cv = cv_of(values)
        if cv is not None and cv > cv_limit:
            found["noisy"].append(f"{name} cv {cv:.1%}")
        if outlier_alpha:
            spread = examine(executions, outlier_alpha)
            for kind, text in _describe(name, spread, len(values)):
                found[kind].append(text)
            found["outlying"] += [_mark(members, name, index) for index in spread.outliers]
    return Flags(**{kind: tuple(texts) for kind, texts in found.items()})


def _executions(group: GroupSamples, name: str) -> list[Sequence[Number]]:
    """The numeric samples of ``name`` per execution of each row (:func:`executions_of`),
    a row of one execution (most rows) read without splitting it; rows whose samples are
    all floats (most groups: told in one pass over the group) give them as they are."""
    plain = _plain_executions(group, name)
    return _split_executions(group.rows, name) if plain is None else plain


def _split_executions(members: Sequence[Row], name: str) -> list[Sequence[Number]]:
    """:func:`_executions` of any rows, row by row."""
    found: list[Sequence[Number]] = []
    for row in members:
        if row.get("executions"):
            found += [[v for v in s if _numeric(v)] for _, s in executions_of(row, name)]
            continue
        samples = row.get("samples")
        # a dict told by its type: the ABC's isinstance costs a third of this loop
        got = samples.get(name) if type(samples) is dict or isinstance(samples, Mapping) else None
        found.append([v for v in (got or (row.get(name),)) if type(v) is float or _numeric(v)])
    return found


def _plain_executions(group: GroupSamples, name: str) -> list[Sequence[Number]] | None:
    """:func:`_executions` of rows of one execution each whose samples of ``name`` are
    all floats (checked once over the group, not row by row), else None."""
    if group.split():
        return None
    found = group.per_row(name)
    if not all(found):
        return None
    plain = set(map(type, chain.from_iterable(found))) <= {float}  # type: ignore[arg-type]
    return list(found) if plain else None  # type: ignore[arg-type]


def _describe(name: str, spread: Spread, n: int) -> list[tuple[str, str]]:
    """What a field's spread shows beyond its outliers, as (kind, text) of :class:`Flags`."""
    found = []
    if spread.runs:
        between, within = spread.runs
        found.append(("runs", f"{name} cv {between:.1%} between executions, {within:.1%} within"))
    if spread.groups:
        found.append(("groups", f"{name} {two_groups_text(spread.groups)}"))
    if spread.many:
        found.append(("many", f"{name} {spread.many} of {n} values far out"))
    return found


def two_groups_text(groups: Groups) -> str:
    """``10 near 3370, 15 near 21380``: each group's size and median to four significant
    digits, without an exponent."""
    return ", ".join(f"{n} near {float(f'{at:.4g}'):g}" for n, at in (groups.low, groups.high))


def _numeric(value: object) -> TypeGuard[Number]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _mark(members: Sequence[Row], name: str, index: int) -> str:
    """``bw 1503 (iteration 3, repetition 2 of 5)``: the ``index``-th numeric sample of
    ``name`` in the group, and where it was measured (looked up only for a mark)."""
    for row in members:
        for iteration, samples in executions_of(row, name):
            for k, value in enumerate(samples):
                if _numeric(value):
                    if not index:
                        where = _where(iteration, k, len(samples))
                        return f"{name} {value:g}" + (f" ({where})" if where else "")
                    index -= 1
    raise IndexError(index)


def _where(iteration: object, repetition: int, repetitions: int) -> str:
    """Which sample a value is: its iteration, and the program's own repetition in it."""
    parts = [] if iteration is None else [f"iteration {iteration}"]
    if repetitions > 1:
        parts.append(f"repetition {repetition + 1} of {repetitions}")
    return ", ".join(parts)


def flag_note(
    marks: Sequence[Flags], cv_limit: float, outlier_alpha: float = OUTLIER_ALPHA
) -> str | None:
    """The note under a table that has flags: how many, and what they mean."""
    noisy = sum(bool(m.noisy) for m in marks)
    outlying = sum(len(m.outlying) for m in marks)
    shapes = [
        (sum(bool(getattr(m, kind)) for m in marks), meaning) for kind, meaning in _SHAPES.items()
    ]
    if not (noisy or outlying or any(count for count, _ in shapes)):
        return None
    return ", ".join(
        [
            f"flags: {noisy} noisy point(s) (coefficient of variation above "
            f"{cv_limit * 100:.3g}%: the mean may move by that much), {outlying} outlier(s) "
            f"(generalized ESD test at {outlier_alpha * 100:.3g}%: noise alone marks about "
            "that share of points; kept in every statistic)",
            *(f"{count} {meaning}" for count, meaning in shapes if count),
        ]
    )


#: what a point's spread may show besides noise and outliers, as the note explains it
_SHAPES = {
    "runs": "point(s) whose runs differ (an execution's repetitions are no independent "
    "samples: std and ci95 understate how far the next run's mean may fall; compare the "
    "executions' means)",
    "groups": "bimodal point(s) (two groups of values: the mean lies between them)",
    "many": "point(s) not one population (too many far values to call outliers: none marked)",
}


def side_warnings(
    side: str, values: Sequence[float], summary: Summary, runs: Sequence[int] = ()
) -> list[str]:
    """What makes one side of a comparison less trustworthy: a wide spread, executions that
    differ, two groups, too many far values, an outlier. ``runs``: how many of the values
    each execution gave, in order (without it, one each)."""
    found = []
    if summary.cv is not None and summary.cv > CV_LIMIT:
        found.append(f"noisy {side} (cv {summary.cv:.1%})")
    split = by_execution(values, runs) if sum(runs) == len(values) else []
    executions = split or [[v] for v in values]
    spread = examine(executions, OUTLIER_ALPHA)
    if spread.runs:
        between, within = spread.runs
        found.append(f"{side} runs differ (cv {between:.1%} between, {within:.1%} within)")
    if spread.groups:
        found.append(f"bimodal {side}: {two_groups_text(spread.groups)}")
    if spread.many:
        found.append(f"{side} not one population: {spread.many} of {len(values)} values far out")
    far = [f"{values[i]:g}" for i in spread.outliers]
    if far:
        found.append(f"outlier in the {side}: {', '.join(far)}")
    return found
