"""The local platform: job scripts run as processes of this machine.

Each job runs in its own session so that it outlives a killed jubex, like a batch job
outlives its submitter; ``continue`` then adopts it by pid. A job id is ``pid:starttime``
(the kernel's start time of the process), so a recycled pid is never mistaken for the job.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from collections.abc import Sequence

from jubex.schedulers.base import JobSpec, JobState, JobStatus, Scheduler, SchedulerError


def process_start_time(pid: int) -> str | None:
    """The start time of a live (non-zombie) process, or None when it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        stat = os.read(fd, 4096).decode()
    except OSError:
        return None
    finally:
        os.close(fd)
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):
        return None
    return fields[19]


def job_id_of(pid: int) -> str:
    return f"{pid}:{process_start_time(pid) or 0}"


#: nanoseconds of one clock tick, the unit of a process's start time in ``/proc/PID/stat``
TICK_NS = 10**9 // os.sysconf("SC_CLK_TCK")


def boot_ns() -> int:
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)


class LocalScheduler(Scheduler):
    name = "local"
    local = True

    def __init__(self, **_options: object) -> None:
        #: taken once: converting ``os.environ`` for every job costs more than the spawn
        self.environment = dict(os.environ)
        self.children: dict[str, int] = {}
        self.pidfds: dict[int, str] = {}
        self.ended: dict[str, int | None] = {}
        #: whether a start time may be taken from the clock around the spawn (see _job_id)
        self.clock_ok: bool | None = None

    def submit(self, job: JobSpec) -> str:
        before = boot_ns()
        try:
            pid = os.posix_spawn(
                "/bin/sh",
                ["/bin/sh", str(job.script)],
                self.environment,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_DUP2, 1, 2),
                ],
                setsid=True,
            )
        except OSError as exc:
            raise SchedulerError(f"cannot start {job.script}: {exc}") from None
        job_id = self._job_id(pid, before // TICK_NS, boot_ns() // TICK_NS)
        self.children[job_id] = pid
        self._watch(job_id, pid)
        return job_id

    def poll(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        found: dict[str, JobStatus] = {}
        for job_id in job_ids:
            if job_id in self.children:
                self._reap(job_id)
            if job_id in self.ended:
                code = self.ended.pop(job_id)
                if code is not None:
                    state = JobState.COMPLETED if code == 0 else JobState.FAILED
                    found[job_id] = JobStatus(
                        job_id, JobState.CANCELLED if code < 0 else state, code
                    )
                continue
            if job_id in self.children or self._alive(job_id):
                found[job_id] = JobStatus(job_id, JobState.RUNNING)
        return found

    def cancel(self, job_ids: Sequence[str]) -> None:
        for job_id in job_ids:
            if self._alive(job_id):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(int(job_id.partition(":")[0]), signal.SIGTERM)

    def wait(self, timeout: float) -> None:
        """Sleep until a job ends (its pidfd becomes readable) or the timeout passes."""
        ready, _, _ = select.select(list(self.pidfds), [], [], timeout)
        for fd in ready:
            job_id = self.pidfds.pop(fd)
            os.close(fd)
            if job_id in self.children:
                self._reap(job_id)
            else:
                self.ended[job_id] = None

    def _job_id(self, pid: int, first: int, last: int) -> str:
        """The job id of a process just spawned between the clock ticks ``first`` and
        ``last``. The kernel stamps a process's start when it forks it, in ticks of the boot
        clock: when no tick passed during the spawn, that is the start time, and reading
        ``/proc`` (about 0.1 ms of CPU for a process new to it) is saved. Until one spawn
        has shown that this kernel counts as the clock does, ``/proc`` is read anyway."""
        if first != last or not self.clock_ok:
            job_id = job_id_of(pid)
            if first == last and self.clock_ok is None and not job_id.endswith(":0"):
                self.clock_ok = job_id == f"{pid}:{first}"
            return job_id
        return f"{pid}:{first}"

    def _alive(self, job_id: str) -> bool:
        """Whether a job this process did not start (adopted after a crash) still runs."""
        pid, _, start = job_id.partition(":")
        if not pid.isdigit() or process_start_time(int(pid)) != start:
            return False
        self._watch(job_id, int(pid))
        return True

    def _reap(self, job_id: str) -> None:
        pid = self.children[job_id]
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            del self.children[job_id]
            self.ended[job_id] = os.waitstatus_to_exitcode(status)

    def _watch(self, job_id: str, pid: int) -> None:
        if job_id in self.pidfds.values():
            return
        with contextlib.suppress(OSError):
            self.pidfds[os.pidfd_open(pid)] = job_id
