"""What the pages show, read through the results database's public functions.

The runs come from the ``db:`` selector; each benchmark at each site is a history of its
own, its samples read as ``jubex query`` reads them, its change points found as
``jubex history`` finds them (so the pages show what the command line says), its two latest
runs compared as ``jubex compare`` compares them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace

from jubex.dashboard.model import Compared, Dashboard, Entry, RunInfo, Series
from jubex.errors import UsageError
from jubex.results.comparison.compare import compare
from jubex.results.tables.table import ResultTable
from jubex.resultsdb.annotations import annotations_of
from jubex.resultsdb.connect import Database
from jubex.resultsdb.failures import failures
from jubex.resultsdb.samples import Sample, history_of_samples, read_selected
from jubex.resultsdb.select import Selector, parse, selected
from jubex.resultsdb.sql import RunRow

#: the columns of ``jubex history``'s table after its keys
HISTORY_TAIL = ("metric", "unit", "run", "created", "n", "mean", "std", "change")


def collect(text: str, database: Database) -> Dashboard:
    """The runs ``text`` selects, each benchmark at each site a group of them, the sites'
    annotations and the runs' failures: all but the histories, which :func:`history_of`
    reads a group at a time (so that the memory a build needs is one group's samples)."""
    selector = parse(text)
    with database.reading() as connection:
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
    if not found.items:
        return [], []
    table = history_of_samples(found, all_metrics=all_metrics, tolerance=tolerance, alpha=alpha)
    filesystem = site.runs[found.items[-1].run].filesystem
    made = _series(benchmark, where, filesystem, found.items, table)
    return made, _compared(benchmark, where, found.items, table, made, tolerance, alpha, site.notes)


def _narrowed(selector: Selector, group: tuple[str, str]) -> Selector:
    """The selector of one group's runs: its benchmark and site (``last=N`` then counts the
    runs of the group, as the site's selection does)."""
    return replace(selector, fields={**selector.fields, "benchmark": group[0], "site": group[1]})


def _run_info(row: object) -> RunInfo:
    provenance = _json(getattr(row, "provenance", "{}"))
    fields = {
        name: str(getattr(row, name))
        for name in (
            "run_id", "run_key", "benchmark", "site", "platform", "scheduler", "user_name",
            "host", "directory", "jubex_version", "definition", "definition_hash", "tags",
            "overrides", "comment", "imported_from",
        )
    }  # fmt: skip
    return RunInfo(
        getattr(row, "id"),  # noqa: B009  (a Row's field, read as the others are)
        fields["run_id"],
        fields["benchmark"],
        fields["site"],
        filesystem_of(provenance),
        float(getattr(row, "created")),  # noqa: B009
        fields,
        provenance,
    )


def _json(text: str) -> dict[str, object]:
    try:
        found = json.loads(text)
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


def _keys(table: ResultTable) -> list[str]:
    names = table.columns
    return names[: names.index("metric")]


def _rows_by_run(found: Iterable[Sample]) -> dict[int, dict[tuple[int, int], dict[str, object]]]:
    """Each run's rows as ``jubex history`` of a selector makes them: a row a repetition."""
    by_run: dict[int, dict[tuple[int, int], dict[str, object]]] = {}
    for s in found:
        row = by_run.setdefault(s.run, {}).setdefault(
            (s.point, s.repetition), {**s.parameters, "jube_step_name": s.step, "samples": {}}
        )
        row.setdefault(s.metric, s.value)  # a row's value is its first sample (iteration 0)
        row["samples"].setdefault(s.metric, []).append(s.value)  # type: ignore[attr-defined]
    return by_run


def _series(
    benchmark: str, site: str, filesystem: str, found: Sequence[Sample], table: ResultTable
) -> list[Series]:
    keys = _keys(table)
    by_key: dict[tuple[str, tuple[str, ...]], Series] = {}
    entries: dict[tuple[str, tuple[str, ...], str], Entry] = {}
    run_of_label = {s.label: s.run for s in found}
    for s in found:
        cells = {**s.parameters, "jube_step_name": s.step}
        point = tuple(str(cells.get(k)) for k in keys)
        made = by_key.get((s.metric, point))
        if made is None:
            made = by_key[(s.metric, point)] = Series(
                benchmark, site, filesystem, s.metric, s.unit, s.higher_is_better,
                dict(zip(keys, point, strict=True)),
            )  # fmt: skip
        entry = entries.get((s.metric, point, s.label))
        if entry is None:
            entry = entries[(s.metric, point, s.label)] = Entry(s.run, s.created, [], None, None)
            made.entries.append(entry)
        if s.value is not None:
            entry.values.append(s.value)
    index = {name: i for i, name in enumerate(table.columns)}
    for row in table.rows:
        point = tuple(str(v) for v in row[: len(keys)])
        metric, label = str(row[index["metric"]]), str(row[index["run"]])
        entry = entries.get((metric, point, label))
        if entry is None or run_of_label.get(label) != entry.run:
            continue
        entry.mean, entry.std = _number(row[index["mean"]]), _number(row[index["std"]])
        entry.change = _number(row[index["change"]])
        entry.p_adjusted = _number(row[index["p_adjusted"]])
        mark = row[index["change_point"]]
        entry.mark = str(mark) if mark else None
    return [s for s in by_key.values() if any(e.mean is not None for e in s.entries)]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _compared(
    benchmark: str,
    site: str,
    found: Sequence[Sample],
    table: ResultTable,
    series: Sequence[Series],
    tolerance: float,
    alpha: float,
    notes: list[str],
) -> list[Compared]:
    """The latest run against the one before it, on the metrics the history follows."""
    by_run = _rows_by_run(found)
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
            keys=_keys(table),
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
