"""Every run's rows by point, each with its setting: the cells of a history, made once.

A history of 1,000 runs of 40 workpackages has 40,000 cells (a run at a point). They are
kept as columns of plain lists: the point of each cell, the id of its point among all runs
(equal points share one) and the id of its setting (equal settings share one), so that
series are told apart by comparing integers, not tuples of strings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import is_, itemgetter, methodcaller, not_
from typing import Protocol

from jubex.results.tables.columns import Row

#: what a run's series is besides its parameters: where it ran (keys of its rows)
WHERE = ("platform", "site")

#: whether a row is ok (a row without the key is)
_ok = methodcaller("get", "ok", True)

#: a setting: the name and value of everything but time that makes a point what it is
Setting = tuple[tuple[str, str], ...]


class Labelled(Protocol):
    """What a cell needs of a run (:class:`jubex.results.trends.history.RunRows`)."""

    @property
    def label(self) -> str: ...
    @property
    def rows(self) -> Sequence[Row]: ...
    @property
    def definition(self) -> str: ...


@dataclass(slots=True)
class Cells:
    """The cells of runs given oldest first, run by run, each run's points in the order of
    its rows; ``notes[i]`` are the notes of grouping run ``i`` (its failed rows)."""

    run: list[int] = field(default_factory=list)
    point: list[tuple[object, ...]] = field(default_factory=list)
    at: list[int] = field(default_factory=list)
    setting: list[int] = field(default_factory=list)
    rows: list[list[Row]] = field(default_factory=list)
    #: the points (the first of each set of equal ones) and settings, by id
    points: list[tuple[object, ...]] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    notes: list[list[str]] = field(default_factory=list)


def cells_of(runs: Sequence[Labelled], keys: Sequence[str], others: Sequence[str]) -> Cells:
    """The runs' rows grouped by point (the values of ``keys``), failed rows left out and
    counted in a note, each cell with the setting :func:`setting_of` gives it."""
    cells = Cells()
    point_of, names = _getter(keys), [*others, *WHERE]
    setting_raw = _getter(names)
    point_ids: dict[tuple[object, ...], int] = {}
    setting_ids: dict[Setting, int] = {}
    for index, run in enumerate(runs):
        rows = list(run.rows)
        failing = list(map(is_, map(_ok, rows), repeat(False)))
        failed = failing.count(True)
        if failed:
            rows = list(compress(rows, map(not_, failing)))
        local = _by_point(rows, point_of, keys)
        cells.notes.append([f"{failed} failed workpackage(s) of the run {run.label} left out"]
                           if failed else [])  # fmt: skip
        definition = ("definition", run.definition[:12])
        for point, rows in local.items():
            setting: Setting
            if len(rows) == 1:
                try:
                    raw = setting_raw(rows[0])
                except KeyError:
                    setting = setting_of(run, rows, others)
                else:
                    setting = (*zip(names, map(str, raw), strict=True), definition)
            else:
                setting = setting_of(run, rows, others)
            at = point_ids.setdefault(point, len(point_ids))
            if at == len(cells.points):
                cells.points.append(point)
            setting_id = setting_ids.setdefault(setting, len(setting_ids))
            if setting_id == len(cells.settings):
                cells.settings.append(setting)
            cells.run.append(index)
            cells.point.append(point)
            cells.at.append(at)
            cells.setting.append(setting_id)
            cells.rows.append(rows)
    return cells


def _by_point(
    rows: list[Row], point_of: Callable[[Row], tuple[object, ...]], keys: Sequence[str]
) -> dict[tuple[object, ...], list[Row]]:
    """The rows by point, in order of first appearance; each row's point found in one C
    call where every row has every key (the rule), and every point apart where each has
    its own (the rule of a run: a row per point)."""
    try:
        points = list(map(point_of, rows))
    except KeyError:  # a key a row lacks is None, as Mapping.get says
        points = [tuple(row.get(key) for key in keys) for row in rows]
    local = dict(zip(points, map(_alone, rows), strict=True))
    if len(local) == len(rows):
        return local
    local = {}
    for point, row in zip(points, rows, strict=True):
        if point in local:
            local[point].append(row)
        else:
            local[point] = [row]
    return local


def _alone(row: Row) -> list[Row]:
    return [row]


def setting_of(run: Labelled, rows: Sequence[Row], others: Sequence[str]) -> Setting:
    """Everything but time that makes a run's rows at a point what they are: the values of
    the parameters outside the keys, where it ran, and its definition."""
    names = [*others, *WHERE]
    if len(rows) == 1:
        row = rows[0]
        found = [(name, str(row[name])) for name in names if name in row]
    else:
        found = [
            (name, ", ".join(dict.fromkeys(str(row.get(name)) for row in rows)))
            for name in names
            if any(name in row for row in rows)
        ]
    return (*found, ("definition", run.definition[:12]))


def changed(before: Setting, after: Setting) -> str:
    """What changed between two settings (``block 1 → 2``), as a history's row names it."""
    old, new = dict(before), dict(after)
    return "; ".join(
        f"{name} {old.get(name, '-')} → {new.get(name, '-')}"
        for name in dict.fromkeys([*old, *new])
        if old.get(name) != new.get(name)
    )


def _getter(names: Sequence[str]) -> Callable[[Mapping[str, object]], tuple[object, ...]]:
    """The values of ``names`` in a row as a tuple (KeyError where one is missing), in one
    C call: the per-row cost of a history of 40,000 rows."""
    if len(names) >= 2:
        return itemgetter(*names)
    if names:
        name = names[0]
        return lambda row: (row[name],)
    return lambda row: ()
