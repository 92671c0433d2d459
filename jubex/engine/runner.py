"""The state machine of a run: submit what is ready, poll, collect, analyse; repeat.

The polling policy lives here, once: the interval backs off while nothing changes (with
jitter), resets when something does, and the number of jobs in the queue is capped. A
backend only submits one job and polls or cancels many with one call each.

Order of every submission: record ``queued`` (the intent) → call the scheduler → record
``submitted`` with the job id. ``reconcile`` resolves what a crash left between those steps.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import FrameType

from jubex.engine.progress import Progress
from jubex.engine.rundir import Run
from jubex.engine.store import (
    CANCELLED,
    DONE,
    FAILED,
    FINAL_STATES,
    PLANNED,
    QUEUED,
    SKIPPED,
    SUBMITTED,
    WorkpackageRow,
)
from jubex.engine.workpackages import Workpackages
from jubex.errors import JubexError
from jubex.schedulers.base import JobState, Scheduler, SchedulerError
from jubex.workdir.script import ALREADY_CLAIMED, admin_dir, read_exit, read_started, reset

TRANSIENT_RETRIES = (1.0, 2.0, 4.0, 8.0, 16.0)
#: how long a finished job may take to show its exit-status file (shared file systems lag)
EXIT_FILE_GRACE = {True: 0.5, False: 10.0}


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


class Engine:
    """Drives one run until every workpackage is final (or, with no-wait, submitted)."""

    def __init__(
        self,
        run: Run,
        scheduler: Scheduler,
        policy: Policy,
        progress: Progress,
        on_finished: Callable[[Iterable[WorkpackageRow]], None] | None = None,
    ) -> None:
        self.run = run
        self.store = run.store
        self.scheduler = scheduler
        self.policy = policy
        self.progress = progress
        self.on_finished = on_finished or (lambda _wps: None)
        self.wps = Workpackages(run)
        self.active = _Active()
        self.stopping = False
        self.uid = run.store.meta().get("uid", "run")

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
        """Cancel every queued or submitted job with one scheduler call."""
        active = self.wps.in_states(QUEUED, SUBMITTED)
        ids = [wp.job_id for wp in active if wp.job_id]
        if ids:
            self._call(self.scheduler.cancel, ids)
        planned = self.wps.in_states(PLANNED)
        self._change([(wp.id, CANCELLED, None, None, "cancelled") for wp in active + planned])
        return len(active) + len(planned)

    # -- the loop -----------------------------------------------------------------------

    def _loop(self) -> None:
        interval = self.policy.interval
        while not self.stopping:
            submitted = self._submit_ready()
            active = self.wps.in_states(QUEUED, SUBMITTED)
            if not active and not self.wps.has_ready():
                break
            if not self.policy.wait and not self.scheduler.local:
                break
            self.progress.update(self.wps.counts())
            self.scheduler.wait(min(interval, 0.5) if self.scheduler.local else interval)
            changed = self._collect(active) or submitted
            if changed or self.scheduler.local:
                interval = self.policy.interval
            else:
                interval = min(interval * 1.5, self.policy.max_interval)
                interval *= random.uniform(0.9, 1.1)
            if self.policy.fail_fast and self.wps.in_states(FAILED):
                self.cancel()
                break

    def _stop(self, signum: int, _frame: FrameType | None) -> None:
        self.stopping = True
        raise KeyboardInterrupt

    def _submit_ready(self) -> int:
        self._skip_orphans()
        room = self.policy.capacity - len(self.wps.in_states(QUEUED, SUBMITTED))
        if room <= 0:
            return 0
        ready = self.wps.ready(room, self.policy.use_dependencies)
        if not ready:
            return 0
        self._change([(wp.id, QUEUED, None, None, "") for wp in ready])
        changes = []
        failures = []
        for wp in ready:
            try:
                spec = self.wps.job_spec(wp, f"jx{self.uid}-{wp.id}")
            except JubexError as exc:
                failures.append((wp.id, FAILED, None, None, exc.message))
                continue
            try:
                job_id = self._call(self.scheduler.submit, spec)
            except SchedulerError as exc:
                failures.append((wp.id, FAILED, None, None, f"submission failed: {exc}"))
                continue
            changes.append((wp.id, SUBMITTED, job_id, None, ""))
        self._change(changes + failures)
        if failures:
            self._finished([f[0] for f in failures])
        return len(ready)

    def _skip_orphans(self) -> None:
        orphans = self.wps.orphans()
        if orphans:
            self._change([(i, SKIPPED, None, None, reason) for i, reason in orphans])

    def _collect(self, active: list[WorkpackageRow]) -> bool:
        """Read exit files, poll the rest with one call, record what finished."""
        changes = []
        unknown = []
        for wp in active:
            code = read_exit(admin_dir(self.wps.wp_dir(wp)))
            if code is not None:
                changes.append(self._final(wp, code))
            elif wp.job_id:
                unknown.append(wp)
        if unknown:
            states = self._call(self.scheduler.poll, [wp.job_id for wp in unknown])
            now = time.monotonic()
            for wp in unknown:
                status = states.get(wp.job_id)  # type: ignore[arg-type]
                if status is not None and not status.state.finished:
                    continue
                if status is not None and status.exit_code == ALREADY_CLAIMED:
                    adopted = self._adopt(wp)
                    if adopted:
                        changes.append(adopted)
                    continue
                code = read_exit(admin_dir(self.wps.wp_dir(wp)))
                if code is not None:
                    changes.append(self._final(wp, code))
                    continue
                first = self.active.since_finished.setdefault(wp.id, now)
                if now - first >= EXIT_FILE_GRACE[self.scheduler.local]:
                    changes.append(self._vanished(wp, status.state if status else None))
        self._change(changes)
        finished = [c[0] for c in changes if c[1] in FINAL_STATES]
        self._finished(finished)
        return bool(changes)

    def _final(self, wp: WorkpackageRow, code: int) -> tuple[int, str, None, int, str]:
        self.active.since_finished.pop(wp.id, None)
        if code == 0:
            return (wp.id, DONE, None, 0, "")
        reason = f"exit status {code}"
        if code == 124 and self.wps.time_limit(wp):
            reason = f"time limit of {self.wps.time_limit(wp):.0f} s exceeded"
        return (wp.id, FAILED, None, code, reason)

    def _vanished(self, wp: WorkpackageRow, state: JobState | None) -> tuple:
        self.active.since_finished.pop(wp.id, None)
        if state is JobState.CANCELLED:
            return (wp.id, CANCELLED, None, None, "cancelled by the scheduler")
        what = f"ended as {state.value}" if state else "vanished from the scheduler"
        return (wp.id, FAILED, None, None, f"job {wp.job_id} {what} without writing an exit status")

    def _adopt(self, wp: WorkpackageRow) -> tuple | None:
        """A second copy found the workpackage claimed: follow the copy that runs it."""
        owner = read_started(admin_dir(self.wps.wp_dir(wp)))
        if owner is None:
            return (wp.id, FAILED, None, None, "claimed by a copy that left no trace")
        return (wp.id, SUBMITTED, self.wps.owner_job_id(owner), None, "adopted a running copy")

    def _finished(self, ids: list[int]) -> None:
        if ids:
            self.on_finished(self.wps.rows_of(ids))

    # -- after a crash ------------------------------------------------------------------

    def reconcile(self) -> None:
        """Settle what a previous jubex left queued: found, finished, running, or lost."""
        queued = [wp for wp in self.wps.in_states(QUEUED) if not wp.job_id]
        if not queued:
            return
        names = {f"jx{self.uid}-{wp.id}": wp for wp in queued}
        known = self._call(self.scheduler.find, list(names)) if not self.scheduler.local else {}
        changes = []
        for name, wp in names.items():
            admin = admin_dir(self.wps.wp_dir(wp))
            code = read_exit(admin)
            if code is not None:
                changes.append(self._final(wp, code))
            elif name in known:
                changes.append((wp.id, SUBMITTED, known[name], None, "found in the queue"))
            elif read_started(admin) is not None:
                owner = read_started(admin) or ""
                changes.append((wp.id, SUBMITTED, self.wps.owner_job_id(owner), None, "adopted"))
            else:
                reset(admin)
                changes.append((wp.id, PLANNED, None, None, "never reached the scheduler"))
        self._change(changes)
        self._finished([c[0] for c in changes if c[1] in FINAL_STATES])

    # -- helpers ------------------------------------------------------------------------

    def _change(self, changes: list[tuple]) -> None:
        if changes:
            self.store.set_states(changes)
            self.wps.apply(changes)

    def _call(self, fn: Callable, *args: object):  # type: ignore[no-untyped-def]
        """Call the scheduler, retrying transient errors with bounded back-off."""
        for delay in (*TRANSIENT_RETRIES, None):
            try:
                return fn(*args)
            except SchedulerError as exc:
                if not exc.transient or delay is None:
                    raise
                self.progress.note(f"scheduler busy ({exc}); retrying in {delay:.0f} s")
                time.sleep(delay)
        raise AssertionError("unreachable")
