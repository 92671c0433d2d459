"""Analysis of a run into its store, incremental and idempotent.

A workpackage is read again only when its outputs changed since the last reading (the
signature is its exit-status file's size and modification time, and the state), so
``jubex analyse`` twice in a row does nothing the second time.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from jubex.analysis.harvest import Harvester
from jubex.analysis.measurement import ParseResult
from jubex.definition.model import Benchmark
from jubex.space.plan import SHARED, Workpackage
from jubex.store.rundir import Run, wp_dir_of
from jubex.store.store import DONE, FAILED
from jubex.workdir.script import EXIT, admin_dir

ANALYSABLE = (DONE, FAILED)


def _signature(run_dir: Path, wp: Workpackage) -> str:
    try:
        st = (admin_dir(wp_dir_of(run_dir, wp)) / EXIT).stat()
    except OSError:
        return wp.state
    return f"{wp.state}:{st.st_size}:{st.st_mtime_ns}"


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
            found = self.harvesters[step] = Harvester(self.run.benchmark, step)
        return found

    def workpackages(self, wps: Sequence[Workpackage], *, force: bool = False) -> int:
        """Harvest the given finished workpackages whose outputs are new; returns how many."""
        wps = [
            wp
            for wp in wps
            if wp.state in ANALYSABLE and wp.kind != SHARED and wp.step in self.steps
        ]
        known = {} if force else self.run.store.analysed([wp.id for wp in wps])
        results = []
        for wp in wps:
            signature = _signature(self.run.dir, wp)
            if not force and known.get(wp.id, (None, None, None))[2] == signature:
                continue
            params = wp.point
            workdir = wp_dir_of(self.run.dir, wp) / "work"
            found: ParseResult = self.harvester(wp.step).harvest(workdir, params)
            ok = found.ok and wp.state == DONE
            reason = found.reason if wp.state == DONE else (wp.reason or "failed")
            results.append((wp.id, ok, reason, signature, found.measurements))
        if results:
            self.run.store.store_analysis(results)
        return len(results)


def analyse_run(run: Run, *, force: bool = False) -> int:
    wps = run.store.workpackages(states=list(ANALYSABLE))
    return RunAnalysis(run).workpackages(wps, force=force)


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
