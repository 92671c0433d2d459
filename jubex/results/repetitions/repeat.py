"""Repetitions until the numbers are tight: after each round, which held iterations run.

A step with ``iterations: {min, max, until}`` is planned with ``max`` iterations per point,
those beyond ``min`` held (:data:`jubex.space.plan.HELD`). Once a round has run and been
analysed, each point is judged on its values: a point that meets its target, or whose
repetitions failed, lets its held iterations go (they are deleted, with the workpackages
that would have depended on them); a point short of it has as many released as its spread
says it needs (:func:`jubex.results.statistics.targets.repetitions_needed`). The next round runs
those, on any platform, as further jobs. Each decision is one transaction, taken again
from the store after a crash, so a round is never lost nor a repetition run twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from jubex.definition.model import Benchmark, Until
from jubex.errors import UsageError
from jubex.results.comparison.compare_runs import default_metrics
from jubex.results.samples.rows import result_rows
from jubex.results.statistics.targets import outcome, repetitions_needed, targets_of
from jubex.results.tables.table import Row
from jubex.results.tables.tabulate import directions_of, names_used
from jubex.space.workpackage import HELD, SHARED, Workpackage
from jubex.store.rundir import Run
from jubex.store.store import DONE, PLANNED, Store

#: states in which a point's iteration is still under way (the point is judged later)
_UNDER_WAY = frozenset({PLANNED, "queued", "submitted"})


@dataclass(frozen=True, slots=True)
class Round:
    """What one decision did: iterations released to run, held ones no longer needed."""

    released: int = 0
    dropped: int = 0


def next_round(run: Run) -> Round:
    """Release the held iterations the points still need, drop the others."""
    targets = targets_of(run.benchmark)
    if not targets or not run.store.workpackages(states=[HELD]):
        return Round()
    every = run.store.workpackages()
    wps = [wp for wp in every if wp.step in targets]
    # only the values the targets judge: the tables' and those the targets name
    reads = names_used(list(run.benchmark.tables.values()))
    reads |= {name for until, _ in targets.values() for name in until.metrics}
    rows = {
        int(str(row["jube_wp_id"])): row
        for row in result_rows(run, reads, per_iteration=True)
        if row["jube_step_name"] in targets
    }
    metrics = {
        step: _metrics(run, step, until, rows.values()) for step, (until, _) in targets.items()
    }
    release: list[tuple[int, str]] = []
    drop: list[int] = []
    for step, group in _points(wps, targets):
        until, most = targets[step]
        held = [wp.id for wp in group if wp.state == HELD]
        if not held or any(wp.state in _UNDER_WAY for wp in group):
            continue
        ran = [wp for wp in group if wp.state != HELD]
        good = [rows[wp.id] for wp in ran if wp.state == DONE and rows.get(wp.id, {}).get("ok")]
        found = outcome(until, good, metrics[step])
        if found.reached or len(good) < len(ran) or found.worst is None:
            drop += held
            continue
        more = repetitions_needed(until, found, most) - len(ran)
        name, share = found.worst
        why = f"{until.text}: {name} {until.stat} {share:.1%} after {len(ran)}"
        release += [(i, why) for i in held[: max(more, 1)]]
    _apply(run.store, release, _with_descendants(every, drop))
    return Round(len(release), len(drop))


def _points(
    wps: Sequence[Workpackage], targets: Mapping[str, tuple[Until, int]]
) -> Iterable[tuple[str, list[Workpackage]]]:
    """The iterations of each point, as the planner numbers them: iteration ``base + k``
    (``base`` a multiple of the step's iterations) has id ``first + k``."""
    groups: dict[tuple[str, int], list[Workpackage]] = {}
    for wp in wps:
        if wp.kind != SHARED:
            first = wp.id - wp.iteration % targets[wp.step][1]
            groups.setdefault((wp.step, first), []).append(wp)
    return ((step, group) for (step, _), group in groups.items())


def _metrics(run: Run, step: str, until: Until, rows: Iterable[Row]) -> list[str]:
    """The values a step's target is judged on: those it names, else the headline values
    of the tables (as ``jubex compare`` chooses them) that the step measures."""
    if until.metrics:
        return list(until.metrics)
    own = [row for row in rows if row["jube_step_name"] == step]
    return headline(run.benchmark, own, directions_of([run]))


def headline(benchmark: Benchmark, rows: Sequence[Row], directions: Mapping) -> list[str]:
    """The tables' measured value columns among ``rows``' values (none: nothing to judge)."""
    if not rows:
        return []
    parameters = set(benchmark.parameter_types())
    try:
        found = default_metrics([rows], parameters, directions, list(benchmark.tables.values()))
    except UsageError:  # no headline value: the points cannot be judged
        return []
    return [name for name in found if any(name in row for row in rows)]


def _apply(store: Store, release: Sequence[tuple[int, str]], drop: Sequence[int]) -> None:
    """Release and drop, each in one transaction."""
    store.set_states((i, PLANNED, None, None, f"repeat: {why}") for i, why in release)
    if drop:
        store.delete_workpackages(drop)


def _with_descendants(wps: Sequence[Workpackage], ids: Sequence[int]) -> list[int]:
    """``ids`` and the workpackages that depend on them (they would wait for them forever);
    a step's shared workpackage stays: it runs once its other iterations are done."""
    children: dict[int, list[int]] = {}
    for wp in wps:
        if wp.kind != SHARED:
            for parent in wp.parents:
                children.setdefault(parent, []).append(wp.id)
    found = set(ids)
    todo = list(ids)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return sorted(found)
