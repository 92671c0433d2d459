"""The engine's in-memory view of a run's workpackages, indexed so each loop is cheap.

States are kept in per-state sets and readiness in per-workpackage counters of unfinished
parents, so that a loop over 10,000 workpackages costs O(changes), not O(workpackages).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from pathlib import Path

from jubex.errors import JubexError
from jubex.schedulers.base import JobSpec, Scheduler
from jubex.schedulers.local import job_id_of
from jubex.space.workpackage import SHARED, Workpackage
from jubex.store.rundir import Run, wp_dir_of
from jubex.store.store import DONE, FINAL_STATES, PLANNED, QUEUED, STATES, SUBMITTED
from jubex.workdir.render import Rendered, Renderer
from jubex.workdir.script import admin_dir, is_waiting
from jubex.workdir.writer import DiskWriter


class Workpackages:
    """A run's workpackages, their states and readiness, and their rendering."""

    def __init__(self, run: Run, scheduler: Scheduler) -> None:
        self.run = run
        self.scheduler = scheduler
        self.run_dir = run.dir.resolve()
        self.rows: dict[int, Workpackage] = {wp.id: wp for wp in run.store.workpackages()}
        self.parents = {wp.id: list(wp.parents) for wp in self.rows.values() if wp.parents}
        self.children: dict[int, list[int]] = {}
        for child, parents in self.parents.items():
            for p in parents:
                self.children.setdefault(p, []).append(child)
        self.by_state: dict[str, set[int]] = {s: set() for s in STATES}
        for wp in self.rows.values():
            self.by_state[wp.state].add(wp.id)
        self.waiting = {
            i: sum(self.rows[p].state != DONE for p in self.parents.get(i, ()))
            for i in self.by_state[PLANNED]
        }
        self.ready_heap = [i for i, n in self.waiting.items() if n == 0]
        heapq.heapify(self.ready_heap)
        #: planned workpackages with a parent that ended without success (kept up to date)
        self.doomed = {i for i in self.by_state[PLANNED] if self.failed_parent(self.rows[i])}
        self.renderer = Renderer(run.spec, self.run_dir, local=scheduler.local)
        self.staged: dict[int, Rendered] = {}
        #: each workpackage's directory, built once (the loop asks for it several times)
        self.dirs: dict[int, Path] = {}
        #: steps with a command that waits for a done file
        self.marked = {n for n, s in run.benchmark.steps.items() if any(d.done_file for d in s.do)}

    # -- queries ------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        return {s: len(ids) for s, ids in self.by_state.items()}

    def in_states(self, *states: str) -> list[Workpackage]:
        return [self.rows[i] for s in states for i in sorted(self.by_state[s])]

    def count(self, *states: str) -> int:
        return sum(len(self.by_state[s]) for s in states)

    def awaiting_done_files(self) -> int:
        """Running workpackages that only wait for a done file (a batch job they submitted,
        a server they started): on the local platform they hold none of the ``-j`` slots."""
        if not self.marked:
            return 0
        return sum(
            1
            for i in self.by_state[SUBMITTED]
            if self.rows[i].step in self.marked and is_waiting(admin_dir(self.wp_dir(self.rows[i])))
        )

    def rows_of(self, ids: Iterable[int]) -> list[Workpackage]:
        return [self.rows[i] for i in ids]

    def has_ready(self) -> bool:
        while self.ready_heap and self.rows[self.ready_heap[0]].state != PLANNED:
            heapq.heappop(self.ready_heap)
        for i in [i for i in self.staged if self.rows[i].state != PLANNED]:
            del self.staged[i]
        return bool(self.ready_heap) or bool(self.staged) or bool(self.orphans())

    def prefetch(self, limit: int) -> None:
        """Prepare the next ready workpackages while jobs run, so that a finished job is
        followed by the next one at once (what the local platform spends its time on).

        Only files in the run directory are written; the workpackages stay planned until
        they are submitted, so a crash meanwhile just prepares them again."""
        while len(self.staged) < limit and self.ready_heap:
            i = heapq.heappop(self.ready_heap)
            if self.rows[i].state != PLANNED or i in self.staged:
                continue
            try:
                self.staged[i] = self.prepare(self.rows[i])
            except JubexError:
                heapq.heappush(self.ready_heap, i)
                return

    def take_prepared(self, wp: Workpackage) -> Rendered:
        """The workpackage prepared ahead, or prepared now."""
        staged = self.staged.pop(wp.id, None)
        return staged if staged is not None else self.prepare(wp)

    def ready(
        self, limit: int, use_dependencies: bool = False, *, alone: bool = False
    ) -> list[Workpackage]:
        """Planned workpackages whose parents are done (or queued, with deps), for up to
        ``limit`` jobs: a packed workpackage is its share of one.

        A packed parent is waited for until done: its pack job succeeds whatever its members
        did, so a scheduler dependency on it would not hold a child of a failed member back.
        With ``alone`` (a local platform) a workpackage of an ``exclusive`` step is given
        only when nothing else runs, and then by itself; nothing is given while it runs.
        """
        found: list[Workpackage] = []
        room = self._step_room()
        deferred = []
        staged = sorted(self.staged)
        used = 0.0
        exclusive = {s.name for s in self.run.benchmark.steps.values() if s.exclusive}
        alone = alone and bool(exclusive)
        busy = alone and self.count(QUEUED, SUBMITTED) > 0
        if busy and any(wp.step in exclusive for wp in self.in_states(QUEUED, SUBMITTED)):
            return []
        while (staged or self.ready_heap) and used < limit:
            i = staged.pop(0) if staged else heapq.heappop(self.ready_heap)
            wp = self.rows[i]
            if wp.state != PLANNED:
                self.staged.pop(i, None)
                continue
            if room.get(wp.step, 1) <= 0:
                deferred.append(i)
                continue
            if alone and wp.step in exclusive:
                if busy or found:
                    deferred.append(i)
                    continue
                found.append(wp)
                break
            if wp.step in room:
                room[wp.step] -= 1
            found.append(wp)
            used += 1 / self.pack_size(wp)
        for i in deferred:
            if i not in self.staged:
                heapq.heappush(self.ready_heap, i)
        if use_dependencies and used < limit:
            for i in sorted(self.by_state[PLANNED]):
                if used >= limit:
                    break
                parents = [self.rows[p] for p in self.parents.get(i, ())]
                if self.waiting.get(i) and all(
                    p.state == DONE
                    or (p.state == SUBMITTED and p.job_id and self.pack_size(p) == 1)
                    for p in parents
                ):
                    found.append(self.rows[i])
                    used += 1 / self.pack_size(self.rows[i])
        return found

    def _step_room(self) -> dict[str, int]:
        """How many more workpackages each capped step may have queued or running.

        A step's ``max_async`` (JUBE) or ``procs`` above 1 caps it; 0 and 1 leave it to
        the run's capacity (``--jobs`` or the platform's ``max_queued``).
        """
        caps = {}
        for name, step in self.run.benchmark.steps.items():
            limits = [n for n in (step.max_async, step.procs if step.procs > 1 else 0) if n > 0]
            if limits:
                caps[name] = min(limits)
        if not caps:
            return {}
        for i in self.by_state[QUEUED] | self.by_state[SUBMITTED]:
            if (name := self.rows[i].step) in caps:
                caps[name] -= 1
        return caps

    def orphans(self) -> list[tuple[int, str]]:
        """Planned workpackages that can never run because a parent did not succeed."""
        self.doomed &= self.by_state[PLANNED]
        return [(i, self.failed_parent(self.rows[i]) or "") for i in sorted(self.doomed)]

    def failed_parent(self, wp: Workpackage) -> str | None:
        """Why a workpackage cannot run any more: a parent that ended without success."""
        for p in self.parents.get(wp.id, ()):
            parent = self.rows[p]
            if parent.state in FINAL_STATES and parent.state != DONE:
                return f"parent {p} ({parent.step}) {parent.state}"
        return None

    def wp_dir(self, wp: Workpackage) -> Path:
        found = self.dirs.get(wp.id)
        if found is None:
            found = self.dirs[wp.id] = wp_dir_of(self.run_dir, wp)
        return found

    def time_limit(self, wp: Workpackage) -> float | None:
        return self.renderer.time_limit(wp)

    def owner_job_id(self, owner: str) -> str:
        """The job id of the copy that claimed a workpackage (a pid on the local platform)."""
        if self.scheduler.local and owner.isdigit():
            return job_id_of(int(owner))
        return owner

    # -- changes ------------------------------------------------------------------------

    def apply(self, changes: Sequence[tuple]) -> None:
        for wp_id, state, job_id, code, reason in changes:
            wp = self.rows[wp_id]
            self.by_state[wp.state].discard(wp_id)
            self.by_state[state].add(wp_id)
            was_done = wp.state == DONE
            wp.state, wp.exit_code, wp.reason = state, code, reason
            if job_id is not None:
                wp.job_id = job_id
            if state in (PLANNED, QUEUED):
                wp.job_id = job_id
            if state == PLANNED and self.waiting.get(wp_id, 0) == 0:
                heapq.heappush(self.ready_heap, wp_id)
            if state in FINAL_STATES and state != DONE:
                self.doomed.update(
                    c for c in self.children.get(wp_id, ()) if self.rows[c].state == PLANNED
                )
            if state == DONE and not was_done:
                for child in self.children.get(wp_id, ()):
                    if child in self.waiting:
                        self.waiting[child] -= 1
                        if self.waiting[child] == 0:
                            heapq.heappush(self.ready_heap, child)

    # -- preparation --------------------------------------------------------------------

    def in_array(self, wp: Workpackage) -> bool:
        """Whether a workpackage goes into a job array: its step asks, the scheduler can."""
        return (
            self.run.benchmark.steps[wp.step].array
            and wp.kind != SHARED
            and self.scheduler.arrays
            and bool(self.run.platform.scheduler_options.get("array", True))
        )

    def pack_size(self, wp: Workpackage) -> int:
        """How many workpackages of its step share one batch job (1: a job of its own).

        The step's ``pack`` wins over the platform's; arrays, shared workpackages and the
        local platform are never packed.
        """
        if self.scheduler.local or wp.kind == SHARED or self.in_array(wp):
            return 1
        size = self.run.benchmark.steps[wp.step].pack
        if not size:
            size = int(str(self.run.platform.scheduler_options.get("pack", 1)))
        return max(size, 1)

    def jobs_active(self) -> int:
        """Jobs queued or running: a pack counts once, however many members it holds."""
        packs = set()
        alone = 0
        for i in self.by_state[QUEUED] | self.by_state[SUBMITTED]:
            wp = self.rows[i]
            if wp.job_id and self.pack_size(wp) > 1:
                packs.add(wp.job_id)
            else:
                alone += 1
        return alone + len(packs)

    def prepare(self, wp: Workpackage) -> Rendered:
        """Render the work directory and wrapper of a workpackage, ready for submission."""
        parent_ids = self.parents.get(wp.id, ())
        depends = tuple(
            job_id
            for p in parent_ids
            if self.rows[p].state == SUBMITTED and (job_id := self.rows[p].job_id)
        )
        rendered = self.renderer.render(
            wp, [self.rows[p] for p in parent_ids], DiskWriter(), depends=depends
        )
        if rendered.prepared.updated:
            wp.point = {**wp.point, **rendered.prepared.updated}
            self.run.store.set_points([(wp.id, wp.point)])
        return rendered

    def job_spec(self, rendered: Rendered, name: str) -> JobSpec:
        """The spec of one workpackage's own job (a batch platform gets a job script)."""
        prepared = rendered.prepared
        admin = admin_dir(rendered.wp_dir)
        script = prepared.body
        if not self.scheduler.local:
            script = self.renderer.job_script(rendered, name, DiskWriter())
        return JobSpec(
            name=name,
            script=script,
            workdir=prepared.workdir,
            stdout=admin / "job.out",
            stderr=admin / "job.err",
            depends_on=rendered.depends,
            time_limit_s=rendered.time_limit_s,
            exclusive=bool(rendered.resources.get("exclusive")),
        )
