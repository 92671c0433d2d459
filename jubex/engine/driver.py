"""Start, continue and cancel runs: the engine's entry points for the CLI and the library."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from jubex.engine import provenance
from jubex.engine.progress import Progress
from jubex.engine.runner import Engine, Policy
from jubex.errors import JubexError
from jubex.platform.model import Platform
from jubex.schedulers.base import Scheduler, SchedulerError
from jubex.schedulers.registry import scheduler_for
from jubex.space.plan import Workpackage, plan
from jubex.space.spec import RunSpec
from jubex.store.jobs import job_records, save_job_records
from jubex.store.rundir import LOCK, Run, create_run, wp_dir_of
from jubex.store.store import CANCELLED, FAILED, FINAL_STATES, PLANNED, SKIPPED
from jubex.workdir.prepare import set_aside
from jubex.workdir.render import constants_for
from jubex.workdir.script import admin_dir, reset

PLAN_BATCH = 5000
#: what the driver of a detached run prints, and its process id, in the run directory
DRIVER_LOG = "driver.log"
DRIVER_PID = "driver.pid"
#: seconds a cancel waits for a detached driver to let go of the run after its TERM
DRIVER_STOP_WAIT = 60
#: job ids per accounting call
ACCOUNTING_BATCH = 500


@dataclass
class Options:
    """How to drive a run (the CLI's flags)."""

    jobs: int | None = None
    wait: bool = True
    progress: str | None = None
    fail_fast: bool = False


@contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """One jubex at a time per run: a second one refuses at once instead of corrupting it."""
    lock = FileLock(str(run_dir / LOCK), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise JubexError(
            f"the run {run_dir} is being driven by another jubex right now",
            hint="wait for it to finish, or stop it first; the run is not changed",
        ) from None
    except OSError as exc:
        raise JubexError(f"cannot lock the run {run_dir}: {exc.strerror}") from None
    try:
        yield
    finally:
        lock.release()


def new_run(spec: RunSpec) -> Run:
    """Create the run directory, record its provenance and plan every workpackage into its
    store."""
    run = create_run(spec)
    facts = provenance.collect(spec, run.dir)
    provenance.write(run.dir, facts)
    _plan_into(run)
    points = (wp.point for wp in run.store.workpackages())
    facts["targets"] = provenance.target_facts(spec, run.dir, points)
    provenance.write(run.dir, facts)
    return run


def detach(run: Run, options: Options, *, retry_failed: bool = False) -> int:
    """Drive a planned run in a process of its own that outlives the caller: ``--no-wait``
    where no scheduler holds the jobs (the local platform), so the call returns at once as
    on a batch platform. The process is ``jubex continue RUN`` in a session of its own (a
    closed terminal does not stop it), printing into ``RUN/driver.log``; its id is returned."""
    argv = [sys.executable, "-m", "jubex", "continue", str(run.dir.resolve()), "-q"]
    argv += ["-j", str(options.jobs)] if options.jobs else []
    argv += ["--fail-fast"] if options.fail_fast else []
    argv += ["--retry-failed"] if retry_failed else []
    with open(run.dir / DRIVER_LOG, "ab") as log:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=run.dir,
            start_new_session=True,
        )
    (run.dir / DRIVER_PID).write_text(f"{process.pid}\n")
    return process.pid


def _stop_detached(run: Run) -> None:
    """Stop the detached driver of a run (``--no-wait`` on the local platform) that still
    holds it, so that a cancel can take the run: TERM, as Ctrl-C stops a driver, then wait
    for the lock. Only a live process whose command line names the run is signalled."""
    lock = FileLock(str(run.dir / LOCK), timeout=0)
    try:
        lock.acquire()
        lock.release()
        return  # nobody drives it
    except Timeout:
        pass
    try:
        pid = int((run.dir / DRIVER_PID).read_text())
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):
        return
    if str(run.dir.resolve()).encode() not in command:
        return
    os.kill(pid, signal.SIGTERM)
    with suppress(Timeout), FileLock(str(run.dir / LOCK), timeout=DRIVER_STOP_WAIT):
        pass  # let go of; else run_lock says who holds it


def _plan_into(run: Run) -> None:
    """Plan in batches; the run counts as planned only once the last batch is in."""
    spec = run.spec
    constants = constants_for(spec, run.dir.resolve())
    batch: list[Workpackage] = []
    for wp in plan(spec.benchmark, overrides=spec.overrides, tags=spec.tags, constants=constants):
        batch.append(wp)
        if len(batch) >= PLAN_BATCH:
            run.store.add_workpackages(batch)
            batch = []
    run.store.add_workpackages(batch)
    run.store.set_meta({"planned": "yes"})


def finish_planning(run: Run) -> None:
    """A run interrupted while it was being planned is planned again from its frozen files."""
    meta = run.store.meta()
    if meta.get("planned") == "yes":
        return
    run.store.delete_workpackages([wp.id for wp in run.store.workpackages()])
    _plan_into(run)


def policy_for(platform: Platform, scheduler: Scheduler, options: Options) -> Policy:
    """How the engine drives this scheduler: capacity, polling, dependencies."""
    opts = platform.scheduler_options
    if scheduler.local:
        capacity = options.jobs or os.cpu_count() or 1
    else:
        capacity = int(str(opts.get("max_queued", 1000)))
        if options.jobs:
            capacity = min(capacity, options.jobs)
    return Policy(
        capacity=capacity,
        interval=float(str(opts.get("poll_interval", 0.05 if scheduler.local else 2))),
        max_interval=float(str(opts.get("poll_max_interval", 30))),
        fail_fast=options.fail_fast,
        wait=options.wait,
        use_dependencies=scheduler.dependencies and bool(opts.get("dependencies", True)),
    )


def drive(
    run: Run,
    options: Options,
    *,
    retry_failed: bool = False,
    on_finished: Callable[[Iterable[Workpackage]], None] | None = None,
) -> dict[str, int]:
    """Run (or continue) until done; ``on_finished`` hears of each workpackage that ends
    (the analyse stage hooks in here without the engine knowing it)."""
    _refuse_imported(run, "continued")
    with run_lock(run.dir):
        finish_planning(run)
        if retry_failed:
            _reset_failed(run)
        progress = Progress(run.benchmark.name, options.progress)
        scheduler = scheduler_for(run.platform)
        engine = Engine(
            run, scheduler, policy_for(run.platform, scheduler, options), progress, on_finished
        )
        if "started" not in run.meta:
            run.store.set_meta({"started": f"{time.time():.3f}"})
        counts = engine.go()
        if not scheduler.local:
            _record_accounting(run, scheduler)
        if all(state in FINAL_STATES for _, state in run.store.counts()):
            run.store.set_meta({"finished": f"{time.time():.3f}"})
        return counts


def _record_accounting(run: Run, scheduler: Scheduler) -> None:
    """Ask the scheduler, once per ACCOUNTING_BATCH jobs, for the records of finished jobs
    that have none yet (after the engine's loop: it costs the loop no scheduler call)."""
    known = job_records(run.store)
    finished = sorted(
        {
            wp.job_id
            for wp in run.store.workpackages(states=sorted(FINAL_STATES))
            if wp.job_id and wp.job_id not in known
        }
    )
    for start in range(0, len(finished), ACCOUNTING_BATCH):
        chunk = finished[start : start + ACCOUNTING_BATCH]
        try:
            save_job_records(run.store, scheduler.accounting_records(chunk))
        except SchedulerError:
            return


def _refuse_imported(run: Run, what: str) -> None:
    """An imported run's jobs ran elsewhere: it is tabulated here, never run or cancelled."""
    if run.meta.get("imported_from"):
        raise JubexError(
            f"the run {run.dir} was imported from {run.meta['imported_from']}: its jobs ran "
            f"elsewhere, so it can be tabulated, plotted and compared, not {what}",
            hint="run its definition (run.json, source/) here for a run of your own",
        )


def cancel(run: Run) -> int:
    _refuse_imported(run, "cancelled")
    _stop_detached(run)
    with run_lock(run.dir):
        engine = Engine(run, scheduler_for(run.platform), Policy(), Progress("", "quiet"))
        return engine.cancel()


def _reset_failed(run: Run) -> None:
    """Failed, cancelled and skipped workpackages go back to planned; the rest stays."""
    again = run.store.workpackages(states=[FAILED, CANCELLED, SKIPPED])
    for wp in again:
        wp_dir = wp_dir_of(run.dir, wp)
        reset(admin_dir(wp_dir))
        set_aside(wp_dir)
    run.store.set_states((wp.id, PLANNED, None, None, "retry") for wp in again)
