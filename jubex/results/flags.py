"""Marks on a table's rows that say when its numbers deserve less trust than they look.

A point whose repetitions scatter widely (a coefficient of variation above a limit, 5 % by
default) is *noisy*: its mean may move by that much on the next run. A repetition that
Rosner's generalized ESD test finds far from the others is an *outlier*: it stays in every statistic
(nothing is dropped behind the reader's back), but the row says which one it is, so that
a surprising mean can be traced to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jubex.results.columns import Row
from jubex.results.rows import samples_of
from jubex.results.stats import Summary, outliers, summarize

#: a point is noisy above this coefficient of variation
CV_LIMIT = 0.05
#: the level of the outlier test: about one sample in a hundred without any is marked
OUTLIER_ALPHA = 0.01


@dataclass(frozen=True, slots=True)
class Flags:
    """What one group's repetitions show: noisy fields and outlying values, as text."""

    noisy: tuple[str, ...] = ()
    outlying: tuple[str, ...] = ()
    beyond: tuple[str, ...] = ()

    def text(self) -> str | None:
        """``noisy: bw cv 7.1%; outlier: bw 1500 (iteration 2)``, or None without a flag."""
        parts = []
        if self.noisy:
            parts.append("noisy: " + ", ".join(self.noisy))
        if self.outlying:
            parts.append("outlier: " + ", ".join(self.outlying))
        parts += self.beyond
        return "; ".join(parts) or None


def flag(
    members: Sequence[Row],
    fields: Sequence[str],
    cv_limit: float = CV_LIMIT,
    outlier_alpha: float = OUTLIER_ALPHA,
) -> Flags:
    """The flags of one group of rows for the numeric ``fields`` its columns summarize
    (``outlier_alpha`` 0: no outlier test)."""
    noisy: list[str] = []
    outlying: list[str] = []
    for name in fields:
        present = [
            (_where(row, k, len(samples)), value)
            for row, samples in ((row, samples_of(row, name)) for row in members)
            for k, value in enumerate(samples)
            if isinstance(value, int | float) and not isinstance(value, bool)
        ]
        values = [value for _, value in present]
        cv = summarize(values).cv
        if cv is not None and cv > cv_limit:
            noisy.append(f"{name} cv {cv:.1%}")
        for index in outliers(values, outlier_alpha) if outlier_alpha else ():
            where, value = present[index]
            outlying.append(f"{name} {value:g}" + (f" ({where})" if where else ""))
    return Flags(tuple(noisy), tuple(outlying))


def _where(row: Row, repetition: int, repetitions: int) -> str:
    """Which sample a value is: its iteration, and the program's own repetition in it."""
    iteration = row.get("jube_wp_iteration")
    parts = [] if iteration is None else [f"iteration {iteration}"]
    if repetitions > 1:
        parts.append(f"repetition {repetition + 1} of {repetitions}")
    return ", ".join(parts)


def flag_note(
    cv_limit: float, noisy: int, outlying: int, outlier_alpha: float = OUTLIER_ALPHA
) -> str:
    """The note under a table that has flags: how many, and what they mean."""
    return (
        f"flags: {noisy} noisy point(s) (coefficient of variation above "
        f"{cv_limit * 100:.3g}%: the mean may move by that much), {outlying} outlier(s) "
        f"(generalized ESD test at {outlier_alpha * 100:.3g}%: noise alone marks about that "
        "share of points; kept in every statistic)"
    )


def side_warnings(side: str, values: Sequence[float], summary: Summary) -> list[str]:
    """What makes one side of a comparison less trustworthy: a wide spread, an outlier."""
    found = []
    if summary.cv is not None and summary.cv > CV_LIMIT:
        found.append(f"noisy {side} (cv {summary.cv:.1%})")
    far = [f"{values[i]:g}" for i in outliers(values, OUTLIER_ALPHA)]
    if far:
        found.append(f"outlier in the {side}: {', '.join(far)}")
    return found
