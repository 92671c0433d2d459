"""The rows result tables read: one per analysed workpackage, or per merged point.

Parameters come back typed, values as the analysers stored them; iterations of a point
whose analysers reduce are merged here, from the matches each iteration stored.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping, Sequence
from itertools import accumulate, chain
from typing import TYPE_CHECKING

from jubex.definition.model import Benchmark
from jubex.definition.references import analysers_of
from jubex.results.samples.concurrency import neighbours
from jubex.results.samples.kept import freeze, summary_key, thaw
from jubex.space.workpackage import SHARED, Workpackage
from jubex.store.rundir import JUBE_ROWS, Run

if TYPE_CHECKING:
    from jubex.analysis.harvest import Harvester

#: one row: a parameter, value or meta key -> its value
Row = Mapping[str, object]

#: the keys every row has besides parameters and values (``reduced``: a row of iterations;
#: ``run``, ``platform`` and ``site`` tell the runs of a result set apart; ``samples``: the
#: repetitions a program made inside its executions, see :func:`samples_of`, and
#: ``executions``: of a row of iterations, how many of them each iteration gave, see
#: :func:`executions_of`; ``concurrent``: how many of the row's executions ran while other
#: workpackages of the run did; ``finished``: false for a row of a JUBE run's workpackage
#: that had not finished)
META = (
    "jube_wp_id",
    "jube_step_name",
    "jube_wp_iteration",
    "run",
    "platform",
    "site",
    "ok",
    "reason",
    "finished",
    "reduced",
    "samples",
    "executions",
    "concurrent",
)


def result_rows(
    run: Run,
    names: Collection[str] | None = None,
    *,
    label: str | None = None,
    per_iteration: bool = False,
) -> Iterator[dict[str, object]]:
    """One row per analysed workpackage, or per parameter point of a step whose analysers
    reduce: parameters, values, and JUBE's meta names.

    A value matched several times appears under its name as the first match (JUBE's
    representative value); its reductions (``_max``, ``_avg``, ...) come from the analyser.
    Values of different records of one output (several IOR tests) get ``_<record>`` suffixes
    beyond the first record. ``names`` limits the values read to those a table needs;
    ``label`` names the run in the ``run`` key (default: its id).

    With ``reduce``, the iterations of a point (same step, point and parent workpackages, as
    JUBE's iteration siblings) are one row: the first iteration's identity, values merged
    from the matches all of them stored, ``ok`` only when every iteration is.
    ``per_iteration`` keeps every iteration a row of its own even so: a comparison needs
    the repetitions themselves, not their merge.

    The rows of a run read once are kept in its store until it changes (see ``kept``);
    kept rows that do not read back as rows (a damaged or edited store) are made again.
    """
    if run.benchmark.dialect == "jube" or run.meta.get(JUBE_ROWS):
        # a JUBE file's rows carry its names of the workpackage chain: read each time
        yield from _read_rows(run, names, label=label, per_iteration=per_iteration)
        return
    key = summary_key(names, per_iteration)
    data = run.store.summary(key)
    kept = None if data is None else thaw(run, data, label)
    if kept is not None:
        yield from kept
        return
    with run.store.snapshot() as keep:
        rows = list(_read_rows(run, names, label=label, per_iteration=per_iteration))
        frozen = freeze(run, rows, META)
        if frozen is not None:
            keep(key, frozen)
    yield from rows


def _read_rows(
    run: Run,
    names: Collection[str] | None,
    *,
    label: str | None,
    per_iteration: bool,
) -> Iterator[dict[str, object]]:
    """The rows of :func:`result_rows`, read from the store and the work directories."""
    # the analysers, imported where rows are made (a table of rows already made, or of a
    # results database's samples, needs none of them)
    from jubex.analysis.harvest import Harvester
    from jubex.analysis.run import ANALYSABLE

    stored = _stored_names(names) if names is not None else None
    every = run.store.workpackages()  # one read for the rows and their neighbours
    groups = _iteration_groups(run, every, per_iteration)
    analysed = run.store.analysed()
    harvesters = {step: Harvester(run.benchmark, step) for step in {g[0].step for g, _ in groups}}
    computed = {step for step, harvester in harvesters.items() if harvester.computes(stored)}
    if run.meta.get(JUBE_ROWS):
        computed = set()  # JUBE's statistics are stored as JUBE computed them
    merged = [g for g, _ in groups if len(g) > 1 or g[0].step in computed]
    values = run.store.representatives(stored, _label) if len(merged) < len(groups) else {}
    merge = _Merge(run, merged, stored, harvesters)
    repeats = _Repeats(run, groups, stored, harvesters)
    beside = neighbours(run, every)
    where = {
        "run": label or run.id,
        "platform": run.platform.name,
        "site": run.platform.site or run.platform.name,
    }
    stored_as_jube = run.benchmark.dialect == "jube"
    chains = _Chains(run) if stored_as_jube else None
    for group, reduced in groups:
        wp = group[0]
        row: dict[str, object] = _as_stored(wp.point) if stored_as_jube else dict(wp.point)
        found: Mapping[str, object] = values.get(wp.id, {})
        if wp.id in merge.ids:
            found = {}
            for name, record, value in merge(group, row):
                found.setdefault(_label(name, record), value)
        ok, reason = _verdict(group, analysed)
        row.update(
            {
                "jube_wp_id": wp.id,
                "jube_step_name": wp.step,
                "jube_wp_iteration": wp.iteration,
                **where,
                "ok": ok,
                "reason": reason,
                "finished": all(member.state in ANALYSABLE for member in group),
                "reduced": reduced,
                "samples": repeats(group),
                "executions": repeats.executions(group) if len(group) > 1 else {},
                "concurrent": sum(1 for member in group if beside.get(member.id)),
            }
        )
        for name, value in found.items():
            row.setdefault(name, value)
        if chains is not None:
            chains.add(wp, row)
        yield row


def samples_of(row: Mapping[str, object], name: str) -> list[object]:
    """The samples a row gives of ``name``: every repetition the program made inside the
    row's executions (IOR's ``-i``: one ``write_bw`` per iteration), else its one value.

    The row's own ``name`` stays the first (JUBE's representative value); statistics,
    comparisons and outlier marks take every repetition, so that ``n`` counts them.
    """
    samples = row.get("samples")
    if isinstance(samples, Mapping):
        found = samples.get(name)
        if found:
            return list(found)
    return [row.get(name)]


class GroupSamples:
    """Each row's samples of a name in one group of rows, read once per name: a table's
    cells and its flags both read them, two lookups a row and name each time. Each row's
    samples (a mapping, or None) are looked up once for all names, with the names any of
    them holds: a name none holds (a parameter, a value with one sample a row) is read
    from the rows alone."""

    __slots__ = ("_each", "_found", "_named", "_split", "rows")

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = rows
        self._found: dict[str, list[Sequence[object] | None]] = {}
        self._split: bool | None = None
        self._each: list[Mapping[str, Sequence[object]] | None] | None = None
        self._named: set[str] = set()

    def _samples(self) -> list[Mapping[str, Sequence[object]] | None]:
        """Each row's samples where they are a mapping (else None), and the names held."""
        if self._each is None:
            self._each = [
                # a dict told by its type first: the ABC's isinstance costs more than the lookup
                s if type(s := row.get("samples")) is dict or isinstance(s, Mapping) else None
                for row in self.rows
            ]  # fmt: skip
            self._named = set().union(*filter(None, self._each))
            if self._split is None:  # while the rows are at hand: a pass of its own misses
                self._split = any([row.get("executions") for row in self.rows])
        return self._each

    def per_row(self, name: str) -> list[Sequence[object] | None]:
        """Each row's samples of ``name`` as kept (None, or empty, where it has none)."""
        found = self._found.get(name)
        if found is None:
            each = self._samples()
            if name not in self._named:
                found = [None] * len(each)
            else:
                found = [None if s is None else s.get(name) for s in each]
            self._found[name] = found
        return found

    def flat(self, name: str) -> list[object]:
        """Every row's :func:`samples_of` ``name`` one after another, without a call per
        row: the same values in the same order."""
        per_row = self.per_row(name)
        if all(per_row):
            return list(chain.from_iterable(per_row))  # type: ignore[arg-type]
        if not any(per_row):
            return [row.get(name) for row in self.rows]
        found: list[object] = []
        for row, got in zip(self.rows, per_row, strict=True):
            if got:
                found += got
            else:
                found.append(row.get(name))
        return found

    def split(self) -> bool:
        """Whether any row merges the executions of several iterations (``executions``)."""
        if self._split is None:
            self._split = any(row.get("executions") for row in self.rows)
        return self._split


def executions_of(row: Mapping[str, object], name: str) -> list[tuple[object, list[object]]]:
    """The samples of ``name`` per execution, each with its iteration: of a row that merges
    the iterations of a point (``reduce: true``), one per iteration, else the row's own.
    The repetitions of one execution are no independent samples (results.md, "Flags")."""
    samples = samples_of(row, name)
    executions = row.get("executions")  # most rows: none (one iteration each)
    split = executions.get(name) if executions and isinstance(executions, Mapping) else None
    if not split or sum(count for _, count in split) != len(samples):
        return [(row.get("jube_wp_iteration"), samples)]
    starts = accumulate((count for _, count in split), initial=0)
    return [
        (iteration, samples[start : start + count])
        for (iteration, count), start in zip(split, starts, strict=False)
    ]


def _label(name: str, record: int) -> str:
    """A row's name of a value: a record beyond the first (another IOR test) is a suffix."""
    return name if record == 0 else f"{name}_{record}"


class _Chains:
    """JUBE's names of a row's workpackage chain: every parameter of the workpackage and of
    each workpackage it depends on, named ``<parameter>_<step>`` (``jube_wp_id_build``),
    as JUBE's result rows carry them; the nearest workpackage of a step names it first."""

    def __init__(self, run: Run) -> None:
        self.wps = {wp.id: wp for wp in run.store.workpackages()}

    def add(self, wp: Workpackage, row: dict[str, object]) -> None:
        seen: set[int] = set()
        todo = [wp]
        while todo:
            current = todo.pop(0)
            if current.id in seen:
                continue
            seen.add(current.id)
            own = {
                **_as_stored(current.point),
                "jube_wp_id": current.id,
                "jube_wp_iteration": current.iteration,
            }
            for name, value in own.items():
                row.setdefault(f"{name}_{current.step}", value)
            todo += [self.wps[p] for p in current.parents if p in self.wps]


def _as_stored(point: Mapping[str, object]) -> dict[str, object]:
    """A JUBE file's parameters as JUBE's tables show them: JUBE's run uses a value as it
    was worked out, but its tables read the values back from the run's store, and reading
    strips white space from the ends of each (``#SBATCH --exclude=\\n`` shows without the
    line break)."""
    return {k: v.strip() if isinstance(v, str) else v for k, v in point.items()}


def reducing_steps(benchmark: Benchmark) -> set[str]:
    """Steps with an analyser that merges the iterations of a point."""
    return {
        step.name
        for step in benchmark.steps.values()
        if any(a.reduce for a in analysers_of(benchmark, step))
    }


def keeping_steps(benchmark: Benchmark) -> set[str]:
    """Steps with a row per iteration: no analyser reduces, or one does not (a JUBE file
    may analyse a step both ways; JUBE gives each analyser its own rows)."""
    kinds = {
        step.name: {a.reduce for a in analysers_of(benchmark, step)}
        for step in benchmark.steps.values()
    }
    return {name for name, reduce in kinds.items() if not reduce or False in reduce}


def _iteration_groups(
    run: Run, every: Sequence[Workpackage], per_iteration: bool
) -> list[tuple[list[Workpackage], bool]]:
    """The analysed workpackages of ``every`` one of the run's (in order of id) in rows:
    alone, or with their iteration siblings (``True``).

    The planner numbers the iterations of one point and parent consecutively, iteration
    ``base + k`` (``base`` a multiple of the step's iterations) with id ``first + k``.
    """
    from jubex.analysis.run import ANALYSABLE, analysed_steps

    steps = analysed_steps(run.benchmark)
    rows = run.meta.get(JUBE_ROWS)
    # a JUBE run's rows are those JUBE analysed, of unfinished workpackages too (as in
    # its tables: an interrupted workpackage's outputs, a row of one never started)
    wps = [
        wp
        for wp in every
        if wp.kind != SHARED and wp.step in steps and (rows or wp.state in ANALYSABLE)
    ]
    if rows:
        return _jube_groups(wps, json.loads(rows))
    reducing = reducing_steps(run.benchmark) & steps
    if per_iteration or not reducing:
        return [([wp], False) for wp in wps]
    keeping = keeping_steps(run.benchmark) | (steps - reducing)
    iterations = {name: run.benchmark.steps[name].iterations for name in reducing}
    groups: dict[tuple[int, bool], list[Workpackage]] = {}
    for wp in wps:
        if wp.step in keeping:
            groups[wp.id, False] = [wp]
        if wp.step in reducing:
            first = wp.id - wp.iteration % iterations[wp.step]
            groups.setdefault((first, True), []).append(wp)
    return [(group, reduced) for (_, reduced), group in groups.items()]


def _jube_groups(
    wps: Sequence[Workpackage], rows: Mapping[str, Sequence[int]]
) -> list[tuple[list[Workpackage], bool]]:
    """The rows of a run imported from JUBE: those JUBE's analysers gave, each of one
    workpackage (a reducing analyser's holds JUBE's statistics over its iterations)."""
    reduced, kept = set(rows.get("reduced", ())), set(rows.get("kept", ()))
    groups = []
    for wp in wps:
        if wp.id in kept:
            groups.append(([wp], False))
        if wp.id in reduced:
            groups.append(([wp], True))
    return groups


class _Merge:
    """The merged values of groups of iteration siblings (or of one workpackage whose
    statistics are worked out), from one read of the store."""

    def __init__(
        self,
        run: Run,
        groups: Sequence[list[Workpackage]],
        stored: set[str] | None,
        harvesters: Mapping[str, Harvester],
    ) -> None:
        steps = {group[0].step for group in groups}
        self.harvesters = {step: harvesters[step] for step in steps}
        self.stored = stored
        every: set[str] | None = None
        firsts: set[str] = set()
        if stored is not None:
            every = set()
            for harvester in self.harvesters.values():
                found = harvester.inputs(stored)
                every |= found[0]
                firsts |= found[1]
        ids = [wp.id for group in groups for wp in group]
        #: the first workpackage of each group: its row is merged
        self.ids = {group[0].id for group in groups}
        self.found = run.store.values_of(ids, every, firsts - (every or set()))

    def __call__(
        self, group: Sequence[Workpackage], params: Mapping[str, object]
    ) -> list[tuple[str, int, object]]:
        harvester = self.harvesters[group[0].step]
        merged = harvester.merge([self.found.get(wp.id, []) for wp in group], params)
        return [
            (name, record, str(value) if isinstance(value, bool) else value)  # as stored
            for name, record, value in merged
            if self.stored is None or name in self.stored
        ]


class _Repeats:
    """Every value of the names a built-in analyser gives once per program iteration, per
    row, from one read of the store: the samples of :func:`samples_of`."""

    def __init__(
        self,
        run: Run,
        groups: Sequence[tuple[list[Workpackage], bool]],
        stored: set[str] | None,
        harvesters: Mapping[str, Harvester],
    ) -> None:
        wanted: set[str] = set().union(*(h.repeated for h in harvesters.values()))
        if stored is not None:
            wanted &= stored
        ids = [wp.id for group, _ in groups for wp in group] if wanted else []
        self.found = run.store.values_of(ids, wanted) if ids else {}

    def __call__(self, group: Sequence[Workpackage]) -> dict[str, tuple[object, ...]]:
        samples: dict[str, list[object]] = {}
        for wp in group:
            # the store gives each name and record's values one after another: the row's
            # list of them is looked up where a name or record begins, not per value
            last: tuple[str, int] | None = None
            into: list[object] = []
            for name, record, value, _ in self.found.get(wp.id, ()):
                if last is None or name != last[0] or record != last[1]:
                    last = name, record
                    into = samples.setdefault(_label(name, record), [])
                into.append(value)
        return {name: tuple(values) for name, values in samples.items()}

    def executions(self, group: Sequence[Workpackage]) -> dict[str, tuple[tuple[int, int], ...]]:
        """How many samples of each name each workpackage gave, with its iteration."""
        counts: dict[str, list[tuple[int, int]]] = {}
        for wp in group:
            mine: dict[str, int] = {}
            for name, record, _, _ in self.found.get(wp.id, ()):
                label = _label(name, record)
                mine[label] = mine.get(label, 0) + 1
            for label, count in mine.items():
                counts.setdefault(label, []).append((wp.iteration, count))
        return {name: tuple(found) for name, found in counts.items()}


def _verdict(
    group: Sequence[Workpackage], analysed: dict[int, tuple[bool, str, str]]
) -> tuple[bool, str]:
    """A row is ok when each of its workpackages is; the reason names the iterations not."""
    if len(group) == 1:  # most rows: no list to build
        wp = group[0]
        got = analysed.get(wp.id)
        return (got[0], got[1] or wp.reason) if got else (False, wp.reason)
    found = [(wp, *analysed.get(wp.id, (False, wp.reason, ""))[:2]) for wp in group]
    failed = [
        f"iteration {wp.iteration}: {reason or wp.reason or 'failed'}"
        for wp, ok, reason in found
        if not ok
    ]
    return not failed, "; ".join(failed)


def _stored_names(names: Collection[str]) -> set[str]:
    """The stored names a table's names may come from: ``x_3`` is record 3 of ``x``."""
    found = set(names)
    for name in names:
        base, _, suffix = name.rpartition("_")
        if base and suffix.isdigit():
            found.add(base)
    return found
