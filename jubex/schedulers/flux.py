"""The Flux backend (flux-core 0.49 and later).

``flux batch`` one job; ``flux jobs -a`` every asked job in one call, in a format of its
own; ``flux cancel`` many in one call. Flux has no job arrays (each of ``--cc``'s copies is
a job of its own); a dependency is ``--dependency=afterok:ID``, which Flux never releases
when the parent failed. No Flux runs in jubex's test suite: the parsers are tested on
outputs in the forms flux-core's documentation and test suite give
(``tests/data/flux/SOURCES.md``), the command lines on stand-in clients.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from jubex.schedulers.base import JobSpec, JobState, JobStatus, Scheduler
from jubex.schedulers.command import failure, run_command, run_or_fail

#: ``{status}`` of ``flux jobs``: the state of an active job, the result of an inactive one
STATES: dict[str, JobState] = {
    "DEPEND": JobState.PENDING,
    "PRIORITY": JobState.PENDING,
    "SCHED": JobState.PENDING,
    "RUN": JobState.RUNNING,
    "CLEANUP": JobState.RUNNING,
    "COMPLETED": JobState.COMPLETED,
    "FAILED": JobState.FAILED,
    "CANCELED": JobState.CANCELLED,
    "TIMEOUT": JobState.TIMEOUT,
}
#: one job per line; ``returncode:h`` is ``-`` while a job is active
FORMAT = "{id.f58}|{status}|{returncode:h}|{name}"

TRANSIENT = re.compile(
    r"Connection refused|Unable to connect to Flux|Resource temporarily unavailable|"
    r"Connection reset|broker.*(not responding|restarting)|Interrupted system call",
    re.IGNORECASE,
)
#: flux refused the job because of a limit of jobs (a queue's or a user's)
LIMIT = re.compile(r"job limit|max(imum)? (number of )?(active )?jobs|too many jobs", re.I)
_JOB_ID = re.compile(r"^(ƒ|f)?[1-9A-HJ-NP-Za-km-z]+$|^\d+$")
#: what flux says of a job id it does not (or no longer) act on, which is no error
_GONE = re.compile(r"unknown job|job is inactive|already (inactive|finished)", re.I)


class FluxScheduler(Scheduler):
    """``flux batch`` one, ``flux jobs`` many, ``flux cancel`` many."""

    name = "flux"
    arrays = False
    dependencies = True

    def __init__(
        self, *, flux: str = "flux", submit_args: Sequence[str] = (), timeout: float = 60.0
    ) -> None:
        self.flux = flux
        self.submit_args = tuple(submit_args)
        self.timeout = float(timeout)

    def submit(self, job: JobSpec) -> str:
        argv = [self.flux, "batch", *submit_arguments(job), *self.submit_args, str(job.script)]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT, cwd=job.workdir)
        lines = result.stdout.strip().splitlines()
        job_id = lines[-1].strip() if lines else ""
        if result.returncode != 0 or not _JOB_ID.match(job_id):
            raise failure(argv, result, TRANSIENT, LIMIT)
        return job_id

    def poll(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        if not job_ids:
            return {}
        argv = [self.flux, "jobs", "-a", "--no-header", f"--format={FORMAT}", *job_ids]
        result = run_or_fail(argv, timeout=self.timeout, transient=TRANSIENT, gone=_GONE)
        found = parse_jobs(result.stdout)
        return {job_id: found[job_id] for job_id in job_ids if job_id in found}

    def cancel(self, job_ids: Sequence[str]) -> None:
        if not job_ids:
            return
        run_or_fail(
            [self.flux, "cancel", *job_ids], timeout=self.timeout, transient=TRANSIENT, gone=_GONE
        )

    def find(self, names: Sequence[str]) -> dict[str, str]:
        """The user's jobs Flux still lists, by name (one ``flux jobs``)."""
        argv = [self.flux, "jobs", "-a", "--no-header", f"--format={FORMAT}"]
        result = run_or_fail(argv, timeout=self.timeout, transient=TRANSIENT)
        wanted = set(names)
        found: dict[str, str] = {}
        for line in result.stdout.splitlines():
            parts = line.split("|", 3)
            if len(parts) == 4 and parts[3].strip() in wanted:
                found.setdefault(parts[3].strip(), parts[0].strip())
        return found


def submit_arguments(job: JobSpec) -> list[str]:
    """flux batch options: name, outputs, dependencies, time limit (whole minutes)."""
    argv = [f"--job-name={job.name}", f"--output={job.stdout}", f"--error={job.stderr}"]
    argv += [f"--dependency=afterok:{job_id}" for job_id in job.depends_on]
    if job.time_limit_s:
        argv.append(f"--time-limit={max(1, math.ceil(job.time_limit_s / 60))}m")
    if job.exclusive:
        argv.append("--exclusive")
    for key, value in job.directives.items():
        argv.append(f"--{key}={value}" if value else f"--{key}")
    return argv


def parse_jobs(text: str) -> dict[str, JobStatus]:
    """Jobs of ``flux jobs --format=FORMAT`` output, keyed by their id as Flux printed it."""
    found: dict[str, JobStatus] = {}
    for line in text.splitlines():
        parts = [part.strip() for part in line.split("|", 3)]
        if len(parts) != 4 or not _JOB_ID.match(parts[0]):
            continue
        found[parts[0]] = job_status(parts[0], parts[1], parts[2])
    return found


def job_status(job_id: str, status: str, returncode: str) -> JobStatus:
    """The engine's status from ``{status}`` and ``{returncode:h}``: a negative returncode
    is the signal that ended the job (``-15``: SIGTERM), as a shell gives 128 + N."""
    state = STATES.get(status, JobState.UNKNOWN)
    if not state.finished:
        reason = "" if status in STATES else f"Flux status {status}"
        return JobStatus(job_id, state, reason=reason)
    code = int(returncode) if re.fullmatch(r"-?\d+", returncode) else None
    if code is not None and code < 0:
        return JobStatus(job_id, state, 128 - code, f"ended by signal {-code}")
    return JobStatus(job_id, state, code)
