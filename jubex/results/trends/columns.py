"""The cells of a history made from the runs' kept columns, without a dict a row.

A history of 1,000 runs of 40 workpackages reads 40,000 rows; made as dicts from the
kept rows (:func:`~jubex.results.samples.kept.thaw`) they cost more than the history's
arithmetic. The kept rows are columns already: here a history's cells (points, settings,
failed rows) and each metric's samples come straight from them, as :func:`cells_of` and
:func:`~jubex.results.trends.steps.numbers_at` make them from the rows. Where the columns
do not hold the plain case (a run not kept, rows of several shapes, a value that is no
finite float), :func:`cells_of_columns` gives ``None`` and the rows are read instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import cast

import numpy as np

from jubex.results.samples.kept import summary_key, thaw_columns
from jubex.results.samples.rows import JUBE_ROWS
from jubex.results.samples.summaries import counts_read, summaries_of
from jubex.results.tables.columns import Row
from jubex.results.trends.cells import WHERE, Cells, Setting
from jubex.store.rundir import Run

#: a run's rows as columns: a column per key, every row holding every key
Columns = dict[str, object]
#: types whose equal values always have one text (unlike floats: ``0.0`` and ``-0.0``)
ONE_TEXT = frozenset({str, int, bool, type(None)})


@dataclass(frozen=True, slots=True)
class RunColumns:
    """One run of a history as columns: its label, when it was made, its rows' columns
    (none: no rows), how many rows, and the sha256 of its definition."""

    label: str
    created: float
    columns: Columns
    size: int
    definition: str = ""


def kept_columns(runs: Sequence[Run], names: Sequence[str]) -> list[Columns | None]:
    """Of each run, the columns of the rows :func:`~jubex.results.tables.tabulate.rows_of`
    gives of it alone reading ``names`` a row per iteration, as kept in its store (no
    rows: no columns); ``None`` where its rows are not kept, or not as one shape. The key
    of the rows kept is worked out once per benchmark (runs of one definition share it)."""
    keys: dict[int, str] = {}
    found: list[Columns | None] = []
    for run in runs:
        if run.benchmark.dialect == "jube" or run.meta.get(JUBE_ROWS):
            found.append(None)
            continue
        key = keys.get(id(run.benchmark))
        if key is None:
            reads = set(names)
            reads |= counts_read(reads, summaries_of([run]))
            key = keys[id(run.benchmark)] = summary_key(reads, True)
        data = run.store.summary(key)
        segments = None if data is None else thaw_columns(run, data, None)
        if segments is None or len(segments) > 1:
            found.append(None)
        else:
            found.append(segments[0] if segments else {})
    return found


def parameter_rows(runs: Sequence[RunColumns], parameters: set[str]) -> list[list[Row]]:
    """Of each run, the rows :func:`~jubex.results.tables.keys.default_keys` chooses the
    keys of all its rows by, holding only the ``parameters`` (in the rows' order of keys):
    its first row, and of each parameter the first row that shows another value of it (as
    text). Every row has the same keys, and whether a parameter varies in a run is whether
    such a row exists: 40 rows a run made into dicts cost more than the choice."""
    found: list[list[Row]] = []
    for run in runs:
        names = [name for name in run.columns if name in parameters]
        values = [_column(run.columns, name, run.size) for name in names]
        chosen = {0: None} if run.size else {}
        for column in values:
            if len(set(map(type, column))) == 1 and type(column[0]) in ONE_TEXT:
                first, texts = column[0], column  # another value: another text
            else:
                texts = list(map(str, column))
                first = texts[0] if texts else None
            if texts and texts.count(first) != len(texts):
                chosen[next(i for i, text in enumerate(texts) if text != first)] = None
        found.append([{name: column[i] for name, column in zip(names, values, strict=True)}
                      for i in sorted(chosen)])  # fmt: skip
    return found


def cells_of_columns(
    runs: Sequence[RunColumns], keys: Sequence[str], others: Sequence[str], metrics: Sequence[str]
) -> tuple[Cells, dict[str, list[Sequence[float]]]] | None:
    """:func:`~jubex.results.trends.cells.cells_of` of the runs' columns (its ``rows``
    left empty), and each metric's samples a cell as
    :func:`~jubex.results.trends.steps.numbers_at` reads them; ``None`` where a sample is
    no finite float (the rows say which and why)."""
    cells = Cells()
    samples: dict[str, list[Sequence[object]]] = {metric: [] for metric in metrics}
    names = [*others, *WHERE]
    ids: tuple[dict[tuple[object, ...], int], dict[tuple[object, ...], int]] = ({}, {})
    last: tuple[tuple[object, ...], tuple[list[int], list[int]]] | None = None
    for index, run in enumerate(runs):
        columns = run.columns
        ok = cast("Sequence[object]", columns.get("ok", [True] * run.size))
        kept = [i for i, good in enumerate(ok) if good is not False]
        failed = run.size - len(kept)
        cells.notes.append([f"{failed} failed workpackage(s) of the run {run.label} left out"]
                           if failed else [])  # fmt: skip
        point_columns = [_column(columns, key, run.size) for key in keys]
        points = list(zip(*point_columns, strict=True)) if keys else [()] * run.size
        local: dict[tuple[object, ...], list[int]] = {}
        for i in kept:
            local.setdefault(points[i], []).append(i)
        present = tuple(name for name in names if name in columns)
        texts = [list(map(str, cast("Sequence[object]", columns[name]))) for name in present]
        # each row's texts in one C call: most points are one row, their setting its texts
        row_texts = list(zip(*texts, strict=True)) if texts else [()] * run.size
        definition = run.definition[:12]
        values = {metric: _row_samples(columns, metric, run.size) for metric in metrics}
        # a run of the points, texts and definition of the one before it (a history of one
        # study: most runs) has its cells at the points and settings of that one's
        shape = (points, kept, present, row_texts, definition)
        if last is None or last[0] != shape:
            last = (shape, _placed(cells, ids, local, present, texts, row_texts, definition))
        cells.at += last[1][0]
        cells.setting += last[1][1]
        cells.run += [index] * len(local)
        cells.point += local
        for metric, found in values.items():
            samples[metric] += [
                found[rows[0]] if len(rows) == 1 else [value for i in rows for value in found[i]]
                for rows in local.values()
            ]
    for found in samples.values():
        if not set(map(type, chain.from_iterable(found))) <= {float}:
            return None
        if not np.isfinite(np.fromiter(chain.from_iterable(found), dtype=float)).all():
            return None
    return cells, cast("dict[str, list[Sequence[float]]]", samples)


def _placed(
    cells: Cells,
    ids: tuple[dict[tuple[object, ...], int], dict[tuple[object, ...], int]],
    local: dict[tuple[object, ...], list[int]],
    present: tuple[str, ...],
    texts: list[list[str]],
    row_texts: Sequence[tuple[str, ...]],
    definition: str,
) -> tuple[list[int], list[int]]:
    """The point and the setting of each of a run's ``local`` points, by number (``ids``:
    those of the points and settings met so far), new ones added to ``cells``."""
    point_ids, setting_ids = ids
    at_points: list[int] = []
    at_settings: list[int] = []
    for point, rows in local.items():
        if len(rows) == 1:
            raw: tuple[str, ...] = row_texts[rows[0]]
        else:
            raw = tuple(", ".join(dict.fromkeys(text[i] for i in rows)) for text in texts)
        at = point_ids.setdefault(point, len(point_ids))
        if at == len(cells.points):
            cells.points.append(point)
        setting_id = setting_ids.setdefault((present, raw, definition), len(setting_ids))
        if setting_id == len(cells.settings):
            setting: Setting = (*zip(present, raw, strict=True), ("definition", definition))
            cells.settings.append(setting)
        at_points.append(at)
        at_settings.append(setting_id)
    return at_points, at_settings


def _column(columns: Columns, name: str, size: int) -> Sequence[object]:
    """The column of ``name``: ``None`` a row where the rows have no such key (as
    ``row.get`` says)."""
    return cast("Sequence[object]", columns[name]) if name in columns else [None] * size


def _row_samples(columns: Columns, metric: str, size: int) -> list[Sequence[object]]:
    """Each row's samples of ``metric`` as :func:`~jubex.results.samples.rows.samples_of`
    gives them: its repetitions, else its one value (``None`` where it has none)."""
    by_name = cast("dict[str, list[tuple[object, ...]]]", columns.get("samples") or {})
    repetitions = by_name.get(metric)
    values = _column(columns, metric, size)
    if not repetitions:
        return [(v,) for v in values]
    return [found if found else (v,) for found, v in zip(repetitions, values, strict=True)]
