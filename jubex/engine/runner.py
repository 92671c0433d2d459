"""The state machine of a run: submit what is ready, poll, collect, analyse; repeat.

The polling policy lives here, once: the interval backs off while nothing changes (with
jitter), resets when something does, and the number of jobs in the queue is capped. A
backend only submits one job and polls or cancels many with one call each.

Order of every submission: record ``queued`` (the intent) → call the scheduler → record
``submitted`` with the job id (locally, with the next transaction: the id is also in the
job's claim file). ``reconcile`` resolves what a crash left between those steps.
Locally, the intent is recorded for up to ``AHEAD`` workpackages at once, more than there
is room for: those beyond the room wait, prepared and ``queued``, and start as jobs end,
without a transaction each (a crash leaves them queued without a job; ``reconcile`` finds
them unclaimed and plans them again).
On a batch platform, children of submitted parents are submitted at once with a dependency
(the scheduler holds them until their parents succeed), and the ready workpackages of an
``array: true`` step go in as one array job (see :mod:`jubex.engine.arrays`), and those of a
packed step as packs, several in one job one after another (see :mod:`jubex.engine.packing`).
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import ParamSpec, TypeVar

from jubex.engine import arrays, packing
from jubex.engine.progress import Progress
from jubex.engine.workpackages import Workpackages
from jubex.errors import JubexError
from jubex.schedulers.base import JobSpec, JobState, JobStatus, Scheduler, SchedulerError
from jubex.space.workpackage import Workpackage
from jubex.store.rundir import Run
from jubex.store.store import (
    CANCELLED,
    DONE,
    FAILED,
    FINAL_STATES,
    HELD,
    PLANNED,
    QUEUED,
    SKIPPED,
    SUBMITTED,
)
from jubex.workdir.render import Rendered
from jubex.workdir.script import ALREADY_CLAIMED, admin_dir, read_exit, read_owner, release

#: seconds before each retry of a transient scheduler error; after the last one it is final
TRANSIENT_RETRIES = (1.0, 2.0, 4.0, 8.0, 16.0)
#: how long a finished job may take to show its exit-status file (shared file systems lag)
EXIT_FILE_GRACE = {True: 0.5, False: 10.0}
#: how many workpackages the local platform records as queued with one transaction
AHEAD = 16
P = ParamSpec("P")
T = TypeVar("T")

Change = tuple[int, str, str | None, int | None, str]


@dataclass
class Policy:
    """How often to ask the scheduler and how much to give it at once."""

    capacity: int = 2
    interval: float = 1.0
    max_interval: float = 30.0
    fail_fast: bool = False
    wait: bool = True
    use_dependencies: bool = False


@dataclass
class _Active:
    since_finished: dict[int, float] = field(default_factory=dict)
    #: when a batch job's failed exit status was first read while its job still ran
    since_failed: dict[int, float] = field(default_factory=dict)


class Engine:
    """Drives one run until every workpackage is final (or, with no-wait, submitted)."""

    def __init__(
        self,
        run: Run,
        scheduler: Scheduler,
        policy: Policy,
        progress: Progress,
        on_finished: Callable[[Iterable[Workpackage]], None] | None = None,
    ) -> None:
        self.run = run
        self.store = run.store
        self.scheduler = scheduler
        self.policy = policy
        self.progress = progress
        self.on_finished = on_finished or (lambda _wps: None)
        self.wps = Workpackages(run, scheduler)
        self.active = _Active()
        self.stopping = False
        #: changes applied in memory, recorded with the next transaction
        self.pending: list[Change] = []
        self.uid = run.store.meta().get("uid", "run")
        #: the scheduler refused a submission over a limit of jobs: submit no more this loop
        self.held = False
        #: whether the last submission was held back (the user hears of it once)
        self.at_limit = False
        #: jobs the scheduler accepted in this submission so far (not yet recorded)
        self.accepted = 0
        #: locally: workpackages recorded queued and prepared, waiting for room to start
        self.reserved: dict[int, Rendered] = {}
        steps = run.benchmark.steps.values()
        #: whether the intent may run ahead of the room (no exclusive step, no done files)
        self.ahead = scheduler.local and not self.wps.marked and not any(s.exclusive for s in steps)

    # -- public -------------------------------------------------------------------------

    def go(self) -> dict[str, int]:
        previous = {s: signal.signal(s, self._stop) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.reconcile()
            self._loop()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self.progress.close(self.wps.counts())
        return self.wps.counts()

    def cancel(self) -> int:
        """Cancel every queued or submitted job with one scheduler call.

        Jobs that already wrote their exit status keep it; a crash's leftovers are settled
        first, so that a job that reached the scheduler unrecorded is cancelled too.
        """
        self.reconcile()
        self._record(self._exits(self.wps.in_states(QUEUED, SUBMITTED)))
        active = self.wps.in_states(QUEUED, SUBMITTED)
        ids = list(dict.fromkeys(wp.job_id for wp in active if wp.job_id))
        if ids:
            self._call(self.scheduler.cancel, ids)
        planned = self.wps.in_states(PLANNED, HELD)
        self._change([(wp.id, CANCELLED, None, None, "cancelled") for wp in active + planned])
        self.reserved.clear()
        return len(active) + len(planned)

    # -- the loop -----------------------------------------------------------------------

    def _loop(self) -> None:
        interval = self.policy.interval
        # what ended while no jubex watched, before any child is submitted behind it
        self._collect(self.wps.in_states(QUEUED, SUBMITTED))
        while not self.stopping:
            submitted = self._submit_ready()
            active = self._running()
            if not active and not self.reserved and not self.wps.has_ready():
                break
            if not self.policy.wait and not self.scheduler.local:
                break
            self.progress.update(self.wps.counts())
            if self.scheduler.local:
                self.wps.prefetch(self.policy.capacity)
            if not submitted:
                self._change([])
            self.scheduler.wait(min(interval, 0.5) if self.scheduler.local else interval)
            changed = self._collect(active) or submitted
            if changed or self.scheduler.local:
                interval = self.policy.interval
            else:
                interval = min(interval * 1.5, self.policy.max_interval)
                interval *= random.uniform(0.9, 1.1)
            if self.policy.fail_fast and self.wps.count(FAILED):
                self.cancel()
                break
        self._change([])

    def _stop(self, signum: int, _frame: FrameType | None) -> None:
        self.stopping = True
        raise KeyboardInterrupt

    def _submit_ready(self) -> int:
        """Submit what is ready; with scheduler dependencies, its children right behind it."""
        total = 0
        self.held = False
        while True:
            self._skip_orphans()
            if self.scheduler.local:
                room = self.policy.capacity - self.wps.count(QUEUED, SUBMITTED)
                room += self.wps.awaiting_done_files() + len(self.reserved)
                if self.reserved:
                    started = self._start_reserved(room)
                    total, room = total + started, room - started
                    if self.reserved or room <= 0:
                        return total
            else:
                room = self.policy.capacity - self.wps.jobs_active()
            more = max(room, AHEAD) if self.ahead else room
            ready = (
                self.wps.ready(more, self.policy.use_dependencies, alone=self.scheduler.local)
                if room > 0
                else []
            )
            if not ready:
                return total
            total += self._submit(ready, room)
            if not self.policy.use_dependencies or self.held:
                return total

    def _submit(self, ready: list[Workpackage], room: int) -> int:
        """Intent first (all ``queued`` in one transaction), then the scheduler, then the ids.
        Of single jobs, ``room`` are submitted; the rest wait in ``reserved`` (locally).

        Returns how many workpackages reached the scheduler.
        """
        self._change([(wp.id, QUEUED, None, None, "") for wp in ready])
        self.accepted = 0
        changes: list[Change] = []
        prepared: list[Rendered] = []
        for wp in ready:
            try:
                prepared.append(self.wps.take_prepared(wp))
            except JubexError as exc:
                changes.append((wp.id, FAILED, None, None, _reason(exc)))
        for warning in self.wps.renderer.warnings:
            self.progress.warn(warning)
        self.wps.renderer.warnings.clear()
        in_array = [r for r in prepared if self.wps.in_array(r.wp)]
        packed = [r for r in prepared if self.wps.pack_size(r.wp) > 1]
        sizes = {r.wp.step: self.wps.pack_size(r.wp) for r in packed}
        single = [
            r for r in prepared if not self.wps.in_array(r.wp) and self.wps.pack_size(r.wp) == 1
        ]
        now = room if self.ahead else len(single)
        for item in single[:now]:
            changes += self._submit_job([item], kind="job")
        self.reserved.update((item.wp.id, item) for item in single[now:])
        for members in arrays.groups(in_array):
            changes += self._submit_job(members, kind="array")
        for members in packing.groups(packed, sizes):
            changes += self._submit_job(members, kind="pack")
        # a local job's id is in its claim file, which continue reads back (see reconcile)
        self._record(changes, defer=self.scheduler.local)
        held = sum(c[1] == PLANNED for c in changes)
        if held and not self.at_limit:
            self.progress.note(
                f"the scheduler's limit of jobs is reached; {held} workpackage(s) wait "
                "for jobs of this run to end"
            )
        self.at_limit = bool(held)
        return len(ready) - held - len(single[now:])

    def _running(self) -> list[Workpackage]:
        """The queued and submitted workpackages, but those reserved, which did not start."""
        active = self.wps.in_states(QUEUED, SUBMITTED)
        return [wp for wp in active if wp.id not in self.reserved] if self.reserved else active

    def _start_reserved(self, room: int) -> int:
        """Start up to ``room`` of the workpackages already recorded as queued; their job ids
        are recorded with the next transaction (the claim file holds them meanwhile)."""
        self.accepted = 0
        changes: list[Change] = []
        for wp_id in list(self.reserved)[:room]:
            changes += self._submit_job([self.reserved.pop(wp_id)], kind="job")
        self._record(changes, defer=True)
        return len(changes)

    def _submit_job(self, members: Sequence[Rendered], *, kind: str) -> list[Change]:
        """One job for one workpackage, or one array or pack job for several: their changes.

        Every member of a pack is recorded with the pack's job id. A submission refused over
        a limit of jobs while jobs of this run are in the queue (their end makes room) goes
        back to planned, as does every one after it in this loop.
        """
        if self.held:
            return [(m.wp.id, PLANNED, None, None, "held back: limit of jobs") for m in members]
        try:
            if kind == "array":
                name = arrays.array_name(self.uid, members)
                spec = arrays.write_array(self.wps.run_dir, self.run.platform, name, members)
            elif kind == "pack":
                name = packing.pack_name(self.uid, members)
                step = self.run.benchmark.steps[members[0].wp.step]
                spec = packing.write_pack(self.wps.run_dir, self.run.platform, name, members, step)
            else:
                spec = self.wps.job_spec(members[0], f"jx{self.uid}-{members[0].wp.id}")
            job_id = self._submit_spec(spec, members)
        except JubexError as exc:
            return [(m.wp.id, FAILED, None, None, _reason(exc)) for m in members]
        except SchedulerError as exc:
            if exc.limit and (self.wps.count(SUBMITTED) or self.accepted):
                self.held = True
                return [(m.wp.id, PLANNED, None, None, f"held back: {exc}") for m in members]
            return [(m.wp.id, FAILED, None, None, f"submission failed: {exc}") for m in members]
        self.accepted += 1
        if kind != "array":
            return [(m.wp.id, SUBMITTED, job_id, None, "") for m in members]
        return [
            (m.wp.id, SUBMITTED, self.scheduler.array_task_id(job_id, i), None, "")
            for i, m in enumerate(members)
        ]

    def _submit_spec(self, spec: JobSpec, members: Sequence[Rendered]) -> str:
        """Submit, retrying transient errors; a retry first asks whether the job got in anyway.

        A submission that timed out may still have reached the scheduler: asking by name
        before trying again keeps the job from being queued twice. A job of that name that
        already ended counts only if one of its workpackages shows it ran (an older attempt
        left no files behind, see ``--retry-failed``).
        """
        for delay in (*TRANSIENT_RETRIES, None):
            try:
                return self.scheduler.submit(spec)
            except SchedulerError as exc:
                if not exc.transient or delay is None:
                    raise
                self.progress.note(f"scheduler busy ({exc}); retrying in {delay:.0f} s")
                time.sleep(delay)
            found = self._found([spec.name]).get(spec.name)
            if found and (not found[1] or any(map(self._ran, members))):
                return found[0]
        raise AssertionError("unreachable")

    def _ran(self, item: Rendered) -> bool:
        admin = admin_dir(item.wp_dir)
        return read_owner(admin) is not None or read_exit(admin) is not None

    def _skip_orphans(self) -> None:
        orphans = self.wps.orphans()
        if orphans:
            self._change([(i, SKIPPED, None, None, reason) for i, reason in orphans])

    # -- collecting ---------------------------------------------------------------------

    def _collect(self, active: list[Workpackage]) -> bool:
        """Read exit files, poll the rest with one call, record what finished."""
        exited = self._exits(active)
        self._record(exited, defer=True)
        unknown = [wp for wp in active if wp.state in (QUEUED, SUBMITTED) and wp.job_id]
        polled = self._polled(unknown) if unknown else []
        self._record(polled, defer=True)
        return bool(exited or polled)

    def _exits(self, active: Iterable[Workpackage]) -> list[Change]:
        """The exit-status files written so far: the first source of truth."""
        changes = []
        failed = []
        for wp in active:
            code = read_exit(admin_dir(self.wps.wp_dir(wp)))
            if code is not None:
                changes.append(self._final(wp, code))
                if code != 0 and wp.job_id and not self.scheduler.local:
                    failed.append(wp)
        return self._timed_out(changes, failed) if failed else changes

    def _timed_out(self, changes: list[Change], failed: list[Workpackage]) -> list[Change]:
        """A batch job killed at its time limit may still write the status its commands got
        from the signal (143), or one they made of it (``sleep 600 || exit 1``; an MPI
        launcher whose ranks were killed); the scheduler (one call) says whether the limit
        killed it. The status is written before the scheduler has ended the job: while the
        job still runs (for at most the exit-file grace), its change waits for the
        scheduler's verdict."""
        jobs = [(wp.id, wp.job_id) for wp in failed if wp.job_id]
        states = self._call(self.scheduler.poll, [job_id for _, job_id in jobs])
        now = time.monotonic()
        grace = EXIT_FILE_GRACE[self.scheduler.local]
        timed_out: dict[int, str] = {}
        waiting: set[int] = set()
        for wp_id, job_id in jobs:
            state = status.state if (status := states.get(job_id)) is not None else None
            running = state is not None and not state.finished
            if running and now - self.active.since_failed.setdefault(wp_id, now) < grace:
                waiting.add(wp_id)
                continue
            self.active.since_failed.pop(wp_id, None)
            if state is JobState.TIMEOUT:
                timed_out[wp_id] = job_id
        changes = [c for c in changes if c[0] not in waiting]
        return [
            (
                c[0],
                c[1],
                c[2],
                c[3],
                f"time limit exceeded: the scheduler killed job {timed_out[c[0]]}",
            )
            if c[0] in timed_out
            else c
            for c in changes
        ]

    def _polled(self, unknown: list[Workpackage]) -> list[Change]:
        """What one scheduler call says about the jobs that wrote no exit status yet."""
        ids = dict.fromkeys(wp.job_id for wp in unknown if wp.job_id)
        states = self._call(self.scheduler.poll, list(ids))
        now = time.monotonic()
        grace = EXIT_FILE_GRACE[self.scheduler.local]
        changes: list[Change] = []
        for wp in unknown:
            status = states.get(wp.job_id) if wp.job_id else None
            if status is not None and not status.state.finished:
                continue
            if status is not None and status.exit_code == ALREADY_CLAIMED:
                changes.append(self._adopt(wp))
                continue
            admin = admin_dir(self.wps.wp_dir(wp))
            code = read_exit(admin)
            failed_parent = self.wps.failed_parent(wp)
            if code is not None:
                changes.append(self._final(wp, code))
            elif self.wps.pack_size(wp) > 1 and read_owner(admin) != wp.job_id:
                if now - self.active.since_finished.setdefault(wp.id, now) >= grace:
                    changes.append(self._left_by_pack(wp, admin))
            elif failed_parent and read_owner(admin) is None:
                # submitted behind its parent, which failed: the scheduler dropped it unrun
                self.active.since_finished.pop(wp.id, None)
                changes.append((wp.id, SKIPPED, None, None, failed_parent))
            elif now - self.active.since_finished.setdefault(wp.id, now) >= grace:
                changes.append(self._vanished(wp, status))
        return changes

    def _final(self, wp: Workpackage, code: int) -> Change:
        self.active.since_finished.pop(wp.id, None)
        if code == 0:
            return (wp.id, DONE, None, 0, "")
        reason = f"exit status {code}"
        if code == 124 and self.wps.time_limit(wp):
            reason = f"time limit of {self.wps.time_limit(wp):.0f} s exceeded"
        return (wp.id, FAILED, None, code, reason)

    def _vanished(self, wp: Workpackage, status: JobStatus | None) -> Change:
        self.active.since_finished.pop(wp.id, None)
        state = status.state if status else None
        if state is JobState.CANCELLED:
            return (wp.id, CANCELLED, None, None, "cancelled by the scheduler")
        if state is JobState.TIMEOUT:
            reason = f"time limit exceeded: the scheduler killed job {wp.job_id}"
            return (wp.id, FAILED, None, None, reason)
        what = f"ended as {state.value}" if state else "vanished from the scheduler"
        return (wp.id, FAILED, None, None, f"job {wp.job_id} {what} without writing an exit status")

    def _left_by_pack(self, wp: Workpackage, admin: Path) -> Change:
        """A member its pack job did not run: queued again when unclaimed, else followed.

        The pack ended (its time limit, a failed node) before it came to this member, or a
        second copy of it found the member claimed by another job.
        """
        self.active.since_finished.pop(wp.id, None)
        if read_owner(admin) is None and release(admin):
            return (wp.id, PLANNED, None, None, f"its pack job {wp.job_id} ended before it")
        return self._adopt(wp)

    def _adopt(self, wp: Workpackage) -> Change:
        """A second copy found the workpackage claimed: follow the copy that runs it.

        A job that finds its own claim was started again by the scheduler (requeued after
        a node failed) once its first run had begun: that run was lost, and it fails.
        """
        owner = read_owner(admin_dir(self.wps.wp_dir(wp)))
        if owner is None:
            return (wp.id, FAILED, None, None, "claimed by a copy that left no trace")
        job_id = self.wps.owner_job_id(owner)
        if job_id == wp.job_id:
            reason = f"job {job_id} was requeued after it had started; its first run was lost"
            return (wp.id, FAILED, None, None, reason)
        return (wp.id, SUBMITTED, job_id, None, "adopted a running copy")

    def _record(self, changes: list[Change], *, defer: bool = False) -> None:
        """Record changes; analyse the workpackages they finished."""
        self._change(changes, defer=defer)
        finished = [c[0] for c in changes if c[1] in FINAL_STATES]
        if finished:
            self.on_finished(self.wps.rows_of(finished))

    # -- after a crash ------------------------------------------------------------------

    def reconcile(self) -> None:
        """Settle what a previous jubex left queued: found, finished, running, or lost."""
        queued = [wp for wp in self.wps.in_states(QUEUED) if not wp.job_id]
        if not queued:
            return
        tasks = arrays.manifests(self.wps.run_dir) if any(map(self.wps.in_array, queued)) else {}
        packs = (
            packing.manifests(self.wps.run_dir)
            if any(self.wps.pack_size(wp) > 1 for wp in queued)
            else {}
        )
        names = {
            wp.id: tasks[wp.id][0] if wp.id in tasks else packs.get(wp.id, f"jx{self.uid}-{wp.id}")
            for wp in queued
        }
        # a job of the name that ended is an earlier attempt, or one whose files tell more
        found = self._found(sorted(set(names.values())))
        alive = {name: job_id for name, (job_id, ended) in found.items() if not ended}
        changes: list[Change] = []
        for wp in queued:
            admin = admin_dir(self.wps.wp_dir(wp))
            code = read_exit(admin)
            owner = read_owner(admin)
            job_id = alive.get(names[wp.id])
            if code is not None:
                changes.append(self._final(wp, code))
            elif job_id is not None:
                if wp.id in tasks:
                    job_id = self.scheduler.array_task_id(job_id, tasks[wp.id][1])
                changes.append((wp.id, SUBMITTED, job_id, None, "found in the queue"))
            elif owner is not None:
                changes.append((wp.id, SUBMITTED, self.wps.owner_job_id(owner), None, "adopted"))
            elif release(admin):
                changes.append((wp.id, PLANNED, None, None, "never reached the scheduler"))
            else:
                changes.append(self._adopt(wp))
        self._record(changes)

    def _found(self, names: list[str]) -> dict[str, tuple[str, bool]]:
        """Jobs of these names the scheduler knows: name -> (job id, whether it ended)."""
        if self.scheduler.local or not names:
            return {}
        known = self._call(self.scheduler.find, names)
        states = self._call(self.scheduler.poll, list(known.values())) if known else {}
        return {
            name: (job_id, job_id in states and states[job_id].state.finished)
            for name, job_id in known.items()
        }

    # -- helpers ------------------------------------------------------------------------

    def _change(self, changes: list[Change], *, defer: bool = False) -> None:
        """Apply changes in memory and record them, with any deferred before them.

        Deferred are only changes that the workpackages' files or the scheduler tell again
        (a crash loses them and ``continue`` reads them back), so the intent before a
        submission can carry the results of the previous ones in one transaction.
        """
        self.wps.apply(changes)
        self.pending += changes
        if self.pending and not defer:
            self.store.set_states(self.pending)
            self.pending = []

    def _call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Call the scheduler, retrying transient errors with bounded back-off."""
        for delay in (*TRANSIENT_RETRIES, None):
            try:
                return fn(*args, **kwargs)
            except SchedulerError as exc:
                if not exc.transient or delay is None:
                    raise JubexError(
                        f"the {self.scheduler.name} scheduler failed: {exc}",
                        hint="nothing is lost; `jubex continue` picks the run up again",
                    ) from None
                self.progress.note(f"scheduler busy ({exc}); retrying in {delay:.0f} s")
                time.sleep(delay)
        raise AssertionError("unreachable")


def _reason(exc: JubexError) -> str:
    """Why a workpackage could not be prepared or submitted, with the file and line to fix."""
    where = f"{exc.loc}: " if exc.loc else ""
    return where + exc.message + (f" ({exc.hint})" if exc.hint else "")
