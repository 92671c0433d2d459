"""The LSF backend (IBM Spectrum LSF 10.1, and OpenLava where it spells alike).

``bsub`` one job, its script on standard input so that LSF reads its ``#BSUB`` lines (an
array as ``-J "name[1-N]"``); ``bjobs -a -o ...`` every asked job in one call; ``bkill``
many in one call. No LSF runs in jubex's test suite: the parsers are tested on outputs in
the forms LSF's documentation and other tools' parsers give (``tests/data/lsf/SOURCES.md``
says which), the command lines on stand-in clients. See docs/platforms.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from jubex.schedulers.base import JobSpec, JobState, JobStatus, Scheduler
from jubex.schedulers.command import failure, run_command, run_or_fail

#: bjobs' STAT values; EXIT is refined by the exit reason (a run limit, a bkill)
STATES: dict[str, JobState] = {
    "PEND": JobState.PENDING,
    "PSUSP": JobState.PENDING,  # suspended while pending (bsub -H, bstop)
    "WAIT": JobState.PENDING,  # a chunk job's member waiting its turn
    "PROV": JobState.PENDING,  # dispatched, its host still being provisioned
    "RUN": JobState.RUNNING,
    "USUSP": JobState.RUNNING,
    "SSUSP": JobState.RUNNING,
    "DONE": JobState.COMPLETED,
    "PDONE": JobState.COMPLETED,
    "EXIT": JobState.FAILED,
    "PERR": JobState.FAILED,
    "UNKWN": JobState.UNKNOWN,  # mbatchd lost contact with the job's host
    "ZOMBI": JobState.UNKNOWN,
}
#: the custom output bjobs prints, one job or array element per line
FIELDS = "jobid jobindex stat exit_code exit_reason delimiter='|'"

TRANSIENT = re.compile(
    r"LSF is down|batch system daemon not responding|Failed in an LSF library call|"
    r"Cannot connect to LSF|mbatchd.*(not responding|busy)|Please wait|try again later",
    re.IGNORECASE,
)
#: bsub refused because the user (or queue) has as many jobs as allowed
LIMIT = re.compile(r"threshold reached|limit reached|maximum number of jobs", re.IGNORECASE)
_NONE = re.compile(r"No (unfinished )?job found", re.IGNORECASE)
_SUBMITTED = re.compile(r"Job <(\d+)> is submitted")
#: what bjobs and bkill say of ids that ended (and of the others bkill stops), no error
_GONE = re.compile(
    r"is not found|has already finished|No matching job|is being terminated", re.IGNORECASE
)


class LSFScheduler(Scheduler):
    """``bsub`` one, ``bjobs`` many, ``bkill`` many."""

    name = "lsf"
    arrays = True
    dependencies = True

    def __init__(
        self,
        *,
        bsub: str = "bsub",
        bjobs: str = "bjobs",
        bkill: str = "bkill",
        submit_args: Sequence[str] = (),
        timeout: float = 60.0,
    ) -> None:
        self.commands = {"bsub": bsub, "bjobs": bjobs, "bkill": bkill}
        self.submit_args = tuple(submit_args)
        self.timeout = float(timeout)

    def submit(self, job: JobSpec) -> str:
        argv = [self.commands["bsub"], *submit_arguments(job), *self.submit_args]
        result = run_command(
            argv,
            timeout=self.timeout,
            transient=TRANSIENT,
            cwd=job.workdir,
            stdin=job.script.read_text(),
        )
        found = _SUBMITTED.search(result.stdout)
        if result.returncode != 0 or found is None:
            raise failure(argv, result, TRANSIENT, LIMIT)
        return found.group(1)

    def poll(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        if not job_ids:
            return {}
        asked = list(dict.fromkeys(job_id.split("[")[0] for job_id in job_ids))
        argv = [self.commands["bjobs"], "-a", "-noheader", "-o", FIELDS, *asked]
        result = run_or_fail(argv, timeout=self.timeout, transient=TRANSIENT, gone=_GONE)
        found = parse_bjobs(result.stdout)
        return {job_id: found[job_id] for job_id in job_ids if job_id in found}

    def cancel(self, job_ids: Sequence[str]) -> None:
        if not job_ids:
            return
        argv = [self.commands["bkill"], *job_ids]
        run_or_fail(argv, timeout=self.timeout, transient=TRANSIENT, gone=_GONE)

    def array_task_id(self, array_id: str, index: int) -> str:
        """LSF numbers an array's elements from 1: jubex's task 0 is ``ID[1]``."""
        return f"{array_id}[{index + 1}]"

    def find(self, names: Sequence[str]) -> dict[str, str]:
        """The user's jobs LSF still knows, by name (one ``bjobs``)."""
        argv = [self.commands["bjobs"], "-a", "-noheader", "-o", "jobid job_name delimiter='|'"]
        result = run_or_fail(argv, timeout=self.timeout, transient=TRANSIENT, gone=_NONE)
        wanted = set(names)
        found: dict[str, str] = {}
        for line in result.stdout.splitlines():
            job_id, _, name = line.partition("|")
            base = name.split("[")[0]
            if base in wanted:
                found.setdefault(base, job_id.strip())
        return found


def submit_arguments(job: JobSpec) -> list[str]:
    """bsub options: name (with the array's range), outputs, directory, dependency, limit."""
    name = f"{job.name}[1-{job.array_size}]" if job.array_size else job.name
    argv = ["-J", name, "-o", str(job.stdout), "-e", str(job.stderr), "-cwd", str(job.workdir)]
    if job.depends_on:
        argv += ["-w", " && ".join(f"done({job_id})" for job_id in job.depends_on)]
    if job.time_limit_s:
        argv += ["-W", str(max(1, math.ceil(job.time_limit_s / 60)))]  # minutes
    if job.exclusive:
        argv.append("-x")
    for key, value in job.directives.items():
        argv += [f"-{key}", value] if value else [f"-{key}"]
    return argv


def parse_bjobs(text: str) -> dict[str, JobStatus]:
    """Jobs of ``bjobs -o FIELDS`` output, keyed ``ID`` or, for array elements, ``ID[I]``."""
    found: dict[str, JobStatus] = {}
    for line in text.splitlines():
        parts = [part.strip() for part in line.split("|")]
        if len(parts) != 5 or not parts[0].isdigit():
            continue
        job_id, index, stat, code, reason = parts
        key = f"{job_id}[{index}]" if index not in ("", "0", "-") else job_id
        found[key] = job_status(key, stat, code, reason)
    return found


def job_status(job_id: str, stat: str, code: str, reason: str) -> JobStatus:
    """The engine's status of one job from its STAT, EXIT_CODE and EXIT_REASON."""
    state = STATES.get(stat, JobState.UNKNOWN)
    exit_code = int(code) if code.isdigit() else None
    why = "" if reason == "-" else reason
    if stat == "EXIT":
        if re.search(r"RUNLIMIT|run ?limit", why, re.IGNORECASE):
            return JobStatus(job_id, JobState.TIMEOUT, exit_code, why)
        if re.search(r"TERM_OWNER|killed by owner|TERM_ADMIN|killed by .*admin", why, re.I):
            return JobStatus(job_id, JobState.CANCELLED, exit_code, why)
        return JobStatus(job_id, JobState.FAILED, exit_code if exit_code else None, why)
    if state is JobState.COMPLETED:
        return JobStatus(job_id, state, 0, why)
    if stat not in STATES:
        return JobStatus(job_id, JobState.UNKNOWN, reason=f"LSF state {stat}")
    return JobStatus(job_id, state, reason=why)
