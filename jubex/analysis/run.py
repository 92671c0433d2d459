"""Analysis of a run into its store, incremental and idempotent.

A workpackage is read again only when its outputs changed since the last reading (the
signature is its exit-status file's size and modification time, and the state), so
``jubex analyse`` twice in a row does nothing the second time. Where the outpath's
catalogue found every exit file as read while the store was as it is, none is looked at
(docs/design.md, "The catalogue of an outpath").

Many workpackages are read in parallel, by forked worker processes (one per core), in
batches; the parent alone writes the store, a batch per transaction, in the order of the
workpackages -- so the store ends as a serial analysis leaves it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from jubex.definition.model import Benchmark
from jubex.errors import JubexError
from jubex.space.workpackage import SHARED, Workpackage
from jubex.store.packed import Packed, pack
from jubex.store.rundir import JUBE_ROWS, Run, checked_dir_name, wp_dir_of
from jubex.store.store import DONE, FAILED
from jubex.workdir.script import EXIT, admin_dir

if TYPE_CHECKING:
    from jubex.analysis.harvest import Harvester
    from jubex.analysis.measurement import ParseResult

ANALYSABLE = (DONE, FAILED)
#: workpackages per batch a worker reads, and per transaction of the parent
BATCH = 250
#: at least this many workpackages to read before worker processes are worth their start
PARALLEL_FROM = 2 * BATCH

Analysed = tuple[int, bool, str, str, Packed]

#: the analysis worker processes inherit when they are forked
_forked: RunAnalysis | None = None


#: where a workpackage's exit-status file lies in its directory
_EXIT_IN = os.path.normpath(os.path.join(admin_dir(Path()), EXIT))


def _signature(run_dir: Path, wp: Workpackage) -> str:
    return _signature_of(run_dir, wp.id, wp.dir_name, wp.state)


def _signature_of(
    run_dir: Path, wp_id: int, name: str, state: str, top: str | None = None, at: int | None = None
) -> str:
    """A workpackage's outputs as last seen: its state, and its exit-status file's size and
    modification time (plain strings, ``top`` the run directory's: joins cost more than
    the stat; ``at``: the run directory opened, the exit file found from it)."""
    name = checked_dir_name(run_dir, wp_id, name)
    try:
        if at is None:
            st = os.stat(f"{top or os.fspath(run_dir)}/{name}/{_EXIT_IN}")
        else:
            st = os.stat(f"{name}/{_EXIT_IN}", dir_fd=at)
    except OSError:
        return state
    return f"{state}:{st.st_size}:{st.st_mtime_ns}"


@contextmanager
def _opened(directory: str) -> Iterator[int | None]:
    """A directory opened, so that the exit files below it are found from it and not each
    by the whole path (a history stats 40,000); None where it cannot be."""
    fd = None
    if os.stat in os.supports_dir_fd:
        try:
            fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            fd = None
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def analysed_steps(benchmark: Benchmark) -> set[str]:
    """Steps with something to read: built-ins, patternsets or analysers bound to them."""
    bound = {a.step for a in benchmark.analysers.values() if a.step}
    return {name for name, step in benchmark.steps.items() if step.analyse or name in bound}


class RunAnalysis:
    """Harvests a run's finished workpackages; compiled once, then used for every batch."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.steps = analysed_steps(run.benchmark)
        self.harvesters: dict[str, Harvester] = {}

    def harvester(self, step: str) -> Harvester:
        found = self.harvesters.get(step)
        if found is None:
            # the patterns and the expression language: only for outputs to read (a table
            # of a run read before asks one stat a workpackage and reads nothing)
            from jubex.analysis.harvest import Harvester

            found = self.harvesters[step] = Harvester(self.run.benchmark, step)
        return found

    def refuse_code(self) -> None:
        """Refuse to analyse when a pattern would run code: an imported run's definition is
        the sender's, and its shell and python patterns would run the sender's code here."""
        for step in sorted(self.steps):
            for pattern in self.harvester(step).code_patterns():
                raise JubexError(
                    f"the run {self.run.dir} was imported from "
                    f"{self.run.meta.get('imported_from')}: analysing it again would run "
                    f"the sender's code, the {pattern.mode} pattern '{pattern.name}'"
                    + (f" ({pattern.loc})" if pattern.loc else ""),
                    hint="its store holds the analysis made where it ran, which `jubex "
                    "result` shows; only regex, JSON and expression patterns are read again",
                )

    def workpackages(self, wps: Sequence[Workpackage], *, force: bool = False) -> int:
        """Harvest the given finished workpackages whose outputs are new; returns how many."""
        wps = [
            wp
            for wp in wps
            if wp.state in ANALYSABLE and wp.kind != SHARED and wp.step in self.steps
        ]
        known = {} if force else self.run.store.analysed([wp.id for wp in wps])
        todo = []
        for wp in wps:
            signature = _signature(self.run.dir, wp)
            if force or known.get(wp.id, (None, None, None))[2] != signature:
                todo.append((wp, signature))
        for results in self._harvested(todo, processes=_cores()):
            self.run.store.store_analysis(results)
        return len(todo)

    def stale(self) -> list[int]:
        """The finished workpackages whose outputs changed since they were analysed, from
        one query and a stat each (plain strings, no objects: most reads of a run find
        none, and a history reads the 40,000 workpackages of 1,000 runs); none without a
        stat where the catalogue found them all as analysed at the store's state
        (:meth:`Store.exits_checked`)."""
        store, steps = self.run.store, self.steps
        if store.exits_checked(steps):
            return []
        run_dir = self.run.dir
        top = os.fspath(run_dir)
        marks = [
            mark
            for mark in store.analysis_marks(ANALYSABLE)
            if mark[2] != SHARED and mark[1] in steps
        ]
        with _opened(top) as at:
            stale = [
                wp_id
                for wp_id, _step, _kind, state, name, signature in marks
                if _signature_of(run_dir, wp_id, name, state, top, at) != signature
            ]
        # a workpackage without an exit file may yet get one (a job the scheduler lost
        # sight of): such a run is looked at every time
        if not stale and all(signature != state for *_, state, _name, signature in marks):
            store.note_exits_checked(steps)
        return stale

    def harvest(self, batch: Sequence[tuple[Workpackage, str]]) -> list[Analysed]:
        """What the analysers find of each (workpackage, signature), packed for the store."""
        results = []
        for wp, signature in batch:
            workdir = wp_dir_of(self.run.dir, wp) / "work"
            found: ParseResult = self.harvester(wp.step).harvest(workdir, wp.point)
            ok = found.ok and wp.state == DONE
            reason = found.reason if wp.state == DONE else (wp.reason or "failed")
            results.append((wp.id, ok, reason, signature, pack(found.measurements)))
        return results

    def _harvested(
        self, todo: Sequence[tuple[Workpackage, str]], processes: int
    ) -> Iterator[list[Analysed]]:
        """The results of ``todo`` in batches, in order: read here, or by ``processes``
        forked workers when there are enough to share."""
        batches = [todo[i : i + BATCH] for i in range(0, len(todo), BATCH)]
        if processes < 2 or len(todo) < PARALLEL_FROM:
            yield from map(self.harvest, batches)
            return
        import multiprocessing  # here: tables and small analyses need not import them
        from concurrent.futures import ProcessPoolExecutor

        for step in {wp.step for wp, _ in todo}:
            self.harvester(step)  # compiled once, before the workers inherit it
        global _forked
        _forked = self
        try:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(processes, mp_context=context) as pool:
                yield from pool.map(_harvest_forked, batches)
        finally:
            _forked = None


def _harvest_forked(batch: Sequence[tuple[Workpackage, str]]) -> list[Analysed]:
    """A worker's share: the analysis it inherited, applied to one batch."""
    assert _forked is not None, "analysis workers are forked from an analysing process"
    return _forked.harvest(batch)


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def analyse_run(run: Run, *, force: bool = False) -> int:
    meta = run.meta
    if meta.get(JUBE_ROWS):
        return 0  # imported from JUBE: its store holds JUBE's analysis, no outputs came along
    analysis = RunAnalysis(run)
    if meta.get("imported_from"):
        analysis.refuse_code()
    if force:
        return analysis.workpackages(run.store.workpackages(states=list(ANALYSABLE)), force=True)
    stale = analysis.stale()
    return analysis.workpackages(run.store.workpackages(ids=stale)) if stale else 0


def analyse_runs(runs: Iterable[Run]) -> None:
    """Read the outputs of the runs' workpackages that are not analysed yet (not of an
    imported run: its store holds the analysis made where it ran)."""
    for run in runs:
        if not run.meta.get("imported_from"):
            analyse_run(run)


def missing_analysis(run: Run) -> list[tuple[int, str]]:
    """Finished workpackages whose analysers found nothing (for ``jubex status``)."""
    found = run.store.found_counts()
    return [
        (wp, reason or "no value found")
        for wp, (ok, reason, _sig) in run.store.analysed().items()
        if not found.get(wp) or not ok
    ]


class Batched:
    """Analysis of finished workpackages in batches: one transaction for many.

    What a crash leaves unanalysed is picked up by the next ``analyse`` or ``result``
    (analysis is incremental), so holding a batch back costs nothing but its age.
    """

    SIZE, AGE = 256, 1.0

    def __init__(self, analysis: RunAnalysis) -> None:
        self.analysis = analysis
        self.pending: list[Workpackage] = []
        self.since = time.monotonic()

    def add(self, wps: Iterable[Workpackage]) -> None:
        self.pending.extend(wps)
        if len(self.pending) >= self.SIZE or time.monotonic() - self.since >= self.AGE:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.analysis.workpackages(self.pending)
        self.pending = []
        self.since = time.monotonic()
