"""A history's steps as columns, in its table's order: what ``jubex history`` prints, and
what the site reads of it without the table.

A site's group of 10,000 runs of 50 metrics has 500,000 steps. Made into the table's rows
(a list of 13 cells each) and read back by matching each row's texts to a run and a point,
they cost a tenth of the group. The site reads these columns instead, each step's cell
(its run and point) by number; the table is made of the same columns, so that the command
line and the pages say the same of every step.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from jubex.results.tables.columns import Header
from jubex.results.tables.table import ResultTable
from jubex.results.trends.cells import Cells

_T = TypeVar("_T")


class Dated(Protocol):
    """What the table needs of a run of a history (its label, when it was made)."""

    @property
    def label(self) -> str: ...
    @property
    def created(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Figures:
    """Of each step (a run at a point, of one metric), in the table's order: its cell (of
    ``cells``, which names its run among ``runs`` and its point), its metric, count, mean,
    deviation, change against the step before it in its series, the adjusted p of that
    change, its mark and the setting that changed before it (None: nothing to show); and,
    for the site, the numbers it was worked out from with their least and greatest."""

    keys: list[str]
    #: the runs, oldest first
    runs: Sequence[Dated]
    cells: Cells
    cell: list[int]
    metric: list[str]
    n: list[int]
    mean: list[float]
    std: list[float | None]
    change: list[float | None]
    p_adjusted: list[float | None]
    mark: list[str | None]
    changed: list[str | None]
    units: Mapping[str, str]
    notes: list[str]
    samples: list[Sequence[float]]
    low: list[float]
    high: list[float]

    def table(self) -> ResultTable:
        """The history's table: a row a step."""
        run = taken(self.cells.run, self.cell)
        when = {  # a run's time, written once for all its rows
            created: time.strftime("%Y-%m-%d %H:%M", time.localtime(created))
            for created in {r.created for r in self.runs}
        }
        labels = [r.label for r in self.runs]
        written = [when[r.created] for r in self.runs]
        columns: list[Sequence[object]] = [
            *zip(*taken(self.cells.point, self.cell), strict=True),
            self.metric,
            [self.units.get(metric, "") for metric in self.metric],
            taken(labels, run),
            taken(written, run),
            self.n,
            self.mean,
            self.std,
            self.change,
            self.p_adjusted,
            self.mark,
            self.changed,
        ]
        rows: list[list[object]] = list(map(list, zip(*columns, strict=True)))
        return ResultTable("history", headers(self.keys), rows, self.notes)


def headers(keys: Sequence[str]) -> list[Header]:
    """The columns of a history's table after its ``keys``."""
    return [Header(key, key) for key in keys] + [
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


def taken(values: Sequence[_T], indices: list[int]) -> list[_T]:
    """``values`` at ``indices``, in one C call (a history's 40,000 steps)."""
    return list(map(values.__getitem__, indices))
