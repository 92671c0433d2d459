"""The local platform: job scripts run as processes of this machine.

Each job runs in its own session so that it outlives a killed jubex, like a batch job
outlives its submitter; ``continue`` then adopts it by pid. A job id is ``pid:starttime``
(the kernel's start time of the process), so a recycled pid is never mistaken for the job.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from jubex.schedulers.base import JobSpec, JobState, JobStatus, Scheduler, SchedulerError


def process_start_time(pid: int) -> str | None:
    """The start time of a live (non-zombie) process, or None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):
        return None
    return fields[19]


def job_id_of(pid: int) -> str:
    return f"{pid}:{process_start_time(pid) or 0}"


class LocalScheduler(Scheduler):
    name = "local"
    local = True

    def __init__(self, **_options: object) -> None:
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.pidfds: dict[str, int] = {}

    def submit(self, job: JobSpec) -> str:
        try:
            proc = subprocess.Popen(
                ["/bin/sh", str(job.script)],
                cwd=job.workdir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            raise SchedulerError(f"cannot start {job.script}: {exc}") from None
        job_id = job_id_of(proc.pid)
        self.children[job_id] = proc
        self._watch(job_id, proc.pid)
        return job_id

    def poll(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        found: dict[str, JobStatus] = {}
        for job_id in job_ids:
            proc = self.children.get(job_id)
            if proc is not None:
                code = proc.poll()
                if code is None:
                    found[job_id] = JobStatus(job_id, JobState.RUNNING)
                    continue
                self._forget(job_id)
                state = JobState.COMPLETED if code == 0 else JobState.FAILED
                if code < 0:
                    state = JobState.CANCELLED
                found[job_id] = JobStatus(job_id, state, code)
                continue
            pid, _, start = job_id.partition(":")
            if pid.isdigit() and process_start_time(int(pid)) == start:
                self._watch(job_id, int(pid))
                found[job_id] = JobStatus(job_id, JobState.RUNNING)
            else:
                self._forget(job_id)
        return found

    def cancel(self, job_ids: Sequence[str]) -> None:
        for job_id in job_ids:
            pid, _, start = job_id.partition(":")
            if pid.isdigit() and process_start_time(int(pid)) == start:
                try:
                    os.killpg(int(pid), signal.SIGTERM)
                except ProcessLookupError:
                    pass

    def wait(self, timeout: float) -> None:
        """Sleep until a job ends (a pidfd becomes readable) or the timeout passes."""
        if not self.pidfds:
            select.select([], [], [], timeout)
            return
        select.select(list(self.pidfds.values()), [], [], timeout)

    def _watch(self, job_id: str, pid: int) -> None:
        if job_id in self.pidfds:
            return
        try:
            self.pidfds[job_id] = os.pidfd_open(pid)
        except (OSError, AttributeError):
            pass

    def _forget(self, job_id: str) -> None:
        self.children.pop(job_id, None)
        fd = self.pidfds.pop(job_id, None)
        if fd is not None:
            os.close(fd)
