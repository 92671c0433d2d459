"""What the pages show, read through the results database's public functions.

The runs come from the ``db:`` selector; each benchmark at each site is a history of its
own, its samples read as ``jubex query`` reads them, its change points found as
``jubex history`` finds them (so the pages show what the command line says), its two latest
runs compared as ``jubex compare`` compares them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from operator import itemgetter
from typing import Any

from jubex.dashboard.jsontext import loads
from jubex.dashboard.model import Compared, Dashboard, Entry, RunInfo, Series
from jubex.errors import UsageError
from jubex.results.comparison.compare import compare
from jubex.results.trends.figures import Figures, taken
from jubex.resultsdb.annotations import annotations_of
from jubex.resultsdb.connect import Database
from jubex.resultsdb.failures import failures
from jubex.resultsdb.samples import (
    SampleRows,
    Samples,
    figures_of_samples,
    read_selected,
    sample_rows,
)
from jubex.resultsdb.select import Selector, parse, selected
from jubex.resultsdb.sql import RunRow

#: the columns of ``jubex history``'s table after its keys
HISTORY_TAIL = ("metric", "unit", "run", "created", "n", "mean", "std", "change")


def collect(text: str, database: Database) -> Dashboard:
    """The runs ``text`` selects, each benchmark at each site a group of them, the sites'
    annotations and the runs' failures: all but the histories, which :func:`history_of`
    reads a group at a time (so that the memory a build needs is one group's samples)."""
    selector = parse(text)
    with database.querying() as connection:
        rows = selected(connection, replace(selector, last=None), database)
    by_group: dict[tuple[str, str], list[RunRow]] = {}
    for row in rows:
        by_group.setdefault((row.benchmark, row.site), []).append(row)
    if selector.last is not None:  # the N latest of each benchmark at each site
        by_group = {group: found[-selector.last :] for group, found in by_group.items()}
    runs = {row.id: _run_info(row) for found in by_group.values() for row in found}
    groups = {group: [row.id for row in found] for group, found in by_group.items()}
    sites = sorted({r.site for r in runs.values()})
    notes_by_site: dict[str, list[tuple[float, str]]] = {}
    for note in annotations_of(database, sites):
        notes_by_site.setdefault(note.site, []).append((note.moment, note.text))
    failed: dict[int, list[dict[str, object]]] = {}
    for failure in failures(database, list(runs)):
        failed.setdefault(failure.run, []).append(
            {
                "step": failure.step,
                "parameters": failure.parameters,
                "repetition": failure.repetition,
                "workpackage": failure.workpackage,
                "reason": failure.reason,
            }
        )
    return Dashboard(text, runs, [], [], notes_by_site, failed, [], groups)


def history_of(
    site: Dashboard,
    group: tuple[str, str],
    database: Database,
    *,
    tolerance: float,
    alpha: float,
    all_metrics: bool = False,
) -> tuple[list[Series], list[Compared]]:
    """The series of one benchmark at one site, its change points found as ``jubex
    history`` finds them, of the headline metrics it follows or of every measured value
    (``all_metrics``), and its two latest runs compared; what cannot be said is a note."""
    benchmark, where = group
    ids = site.groups[group]
    found = read_selected(_narrowed(parse(site.selector), group), (), database, set(ids))
    site.notes += found.notes
    latest = _latest_rows(found)
    if not latest:  # no point of any run holds a sample
        return [], []
    rows = sample_rows(found)
    figures = figures_of_samples(
        found, rows=rows, all_metrics=all_metrics, tolerance=tolerance, alpha=alpha
    )
    filesystem = site.runs[found.where[latest[-1][0]][0]].filesystem
    made = _series(benchmark, where, filesystem, found, rows, figures)
    by_run = _rows_by_run(latest, found.where)
    keys = figures.keys
    return made, _compared(benchmark, where, by_run, keys, made, tolerance, alpha, site.notes)


def _narrowed(selector: Selector, group: tuple[str, str]) -> Selector:
    """The selector of one group's runs: its benchmark and site (``last=N`` then counts the
    runs of the group, as the site's selection does)."""
    return replace(selector, fields={**selector.fields, "benchmark": group[0], "site": group[1]})


#: the fields of a run its page lists
_FIELDS = (
    "run_id", "run_key", "benchmark", "site", "platform", "scheduler", "user_name", "host",
    "directory", "jubex_version", "definition", "definition_hash", "tags", "overrides",
    "comment", "imported_from",
)  # fmt: skip
_PICKED = itemgetter(*(RunRow._fields.index(name) for name in _FIELDS))


def _run_info(row: RunRow) -> RunInfo:
    """A selected run as the pages show it (its fields are texts: :func:`selected` checks)."""
    provenance = _json(row.provenance)
    return RunInfo(
        row.id,
        row.run_id,
        row.benchmark,
        row.site,
        filesystem_of(provenance),
        float(row.created),
        dict(zip(_FIELDS, _PICKED(row), strict=True)),
        provenance,
    )


def _json(text: str) -> dict[str, object]:
    try:
        found = loads(text)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def filesystem_of(provenance: dict[str, object]) -> str:
    """The file system a run measured: the platform's target, else where the run lived."""
    for key in ("platform_filesystem", "filesystem"):
        facts = provenance.get(key)
        if isinstance(facts, dict) and facts.get("type"):
            where = facts.get("mount") or facts.get("path") or ""
            return f"{facts['type']} {where}".strip()
    return "unknown"


def _latest_rows(found: Samples) -> list[tuple[Any, ...]]:
    """The samples of the two latest runs that hold any, a row each (the samples are in
    run order, so they are the last ones: a comparison reads them, not the whole
    history)."""
    where, sets = found.where, found.sets
    runs: set[int] = set()
    start = len(sets)
    while start > 0:
        run = where[sets[start - 1].point][0]
        if run not in runs and len(runs) == 2:
            break
        runs.add(run)
        start -= 1
    return [row for each in sets[start:] for row in each.rows()]


def _rows_by_run(
    samples: Iterable[tuple[Any, ...]], where: Mapping[int, tuple[Any, ...]]
) -> dict[int, dict[tuple[int, int], dict[str, object]]]:
    """Each run's rows as ``jubex history`` of a selector makes them: a row a repetition
    (``where``: each point's run, step and parameters, by its id)."""
    by_run: dict[int, dict[tuple[int, int], dict[str, object]]] = {}
    parsed: dict[str, dict[str, str]] = {}
    for point, metric, repetition, _, value, *_ in samples:
        run, _, step, parameters = where[point]
        row = by_run.setdefault(run, {}).get((point, repetition))
        if row is None:
            row = by_run[run][(point, repetition)] = {
                **_parsed(parameters, parsed), "jube_step_name": step, "samples": {}
            }  # fmt: skip
        row.setdefault(metric, value)  # a row's value is its first sample (iteration 0)
        row["samples"].setdefault(metric, []).append(value)  # type: ignore[attr-defined]
    return by_run


def _parsed(text: str, known: dict[str, dict[str, str]]) -> dict[str, str]:
    """A point's parameters, each text read once."""
    found = known.get(text)
    if found is None:
        found = known[text] = json.loads(text)
    return found


def _series(
    benchmark: str,
    site: str,
    filesystem: str,
    found: Samples,
    rows: SampleRows,
    figures: Figures,
) -> list[Series]:
    """The series of the samples, each run's repetitions an entry: made from the rows a
    point the history was made of (each metric's samples a list already), their figures
    from the history's, each step's entry found by its metric and its cell (the history's
    run at a point) as a list's index; a row of no cell has a slot of its own. An entry
    takes its row's list of a metric's values, which nothing else holds once the history
    is made: a new list only where a run has two rows at one point."""
    keys = figures.keys
    created = {run.id: run.created for run in found.runs}
    cells = figures.cells
    run_of_label = {label: run for run, label in found.labels.items()}
    run_of_cell = taken([run_of_label.get(r.label) for r in figures.runs], cells.run)
    slot_of_pair: dict[tuple[int | None, tuple[str, ...]], int] = {}  # a run at a point
    slot_of = [  # each cell's slot: the first cell of its run and point as texts
        slot_of_pair.setdefault((run, tuple(map(str, point))), cell)
        for cell, (run, point) in enumerate(zip(run_of_cell, cells.point, strict=True))
    ]
    # each row with its run, point and slot (a row of no cell: a slot after the cells')
    placed: list[tuple[int, dict[str, Any], tuple[str, ...], int]] = []
    for run, held in rows.by_run.items():
        for row in held.held:
            point = tuple([str(row.get(k)) for k in keys])
            slot = slot_of_pair.setdefault((run, point), len(slot_of) + len(placed))
            placed.append((run, row, point, slot))
    of_metric: dict[str, list[Entry | None]] = {}  # each metric's entries by slot
    by_point: dict[tuple[str, ...], dict[str, Series]] = {}
    made_all: list[Series] = []  # in the order they were first met
    for run, row, point, slot in placed:
        series_of = by_point.get(point)
        if series_of is None:
            series_of = by_point[point] = {}
        for metric, values in row["samples"].items():
            made = series_of.get(metric)
            if made is None:
                made = series_of[metric] = Series(
                    benchmark, site, filesystem, metric, rows.units[metric],
                    rows.directions[metric], dict(zip(keys, point, strict=True)),
                )  # fmt: skip
                made_all.append(made)
            if None in values:
                values = [v for v in values if v is not None]
            slots = of_metric.get(metric)
            if slots is None:
                slots = of_metric[metric] = [None] * (len(slot_of) + len(placed))
            entry = slots[slot]
            if entry is None:
                slots[slot] = entry = Entry(run, created[run], values, None, None)  # row's list
                made.entries.append(entry)
            else:  # a run's second row at its point: a new list, the rows' own unchanged
                entry.values = entry.values + values
    for metric, cell, mean, std, change, p, mark, numbers, low, high in zip(
        figures.metric, figures.cell, figures.mean, figures.std, figures.change,
        figures.p_adjusted, figures.mark, figures.samples, figures.low, figures.high,
        strict=True,
    ):  # fmt: skip
        slots = of_metric.get(metric)
        entry = None if slots is None else slots[slot_of[cell]]
        if entry is not None:
            entry.mean, entry.std, entry.change, entry.p_adjusted = mean, std, change, p
            entry.mark = mark or None
            # its extremes, where worked out of its very values: not of a zero, whose
            # sign min() and max() take from the first and the last of equal values
            if numbers is entry.values and low and high:
                entry.low, entry.high = low, high
    return [s for s in made_all if any(e.mean is not None for e in s.entries)]


def _compared(
    benchmark: str,
    site: str,
    by_run: dict[int, dict[tuple[int, int], dict[str, object]]],
    keys: Sequence[str],
    series: Sequence[Series],
    tolerance: float,
    alpha: float,
    notes: list[str],
) -> list[Compared]:
    """The latest run against the one before it, on the metrics the history follows
    (``by_run``: the rows of the two latest runs, :func:`_rows_by_run`)."""
    if len(by_run) < 2:
        return []
    baseline, candidate = list(by_run)[-2:]
    metrics = list(dict.fromkeys(s.metric for s in series))
    directions = {s.metric: s.higher_is_better for s in series}
    units = {s.metric: s.unit for s in series}
    try:
        result = compare(
            list(by_run[baseline].values()),
            list(by_run[candidate].values()),
            keys=keys,
            metrics=metrics,
            directions=directions,
            tolerance=tolerance,
            alpha=alpha,
            units=units,
            candidate_units=units,
        )
    except UsageError as error:
        notes.append(f"{benchmark} at {site}: the two latest runs cannot be compared: {error}")
        return []
    shown = result.to_table(units)
    return [
        Compared(
            benchmark,
            site,
            baseline,
            candidate,
            [h.title for h in shown.headers],
            shown.rows,
            result.verdict_line(),
            result.status,
        )
    ]
