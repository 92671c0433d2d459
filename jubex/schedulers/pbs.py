"""The PBS backend: PBS Pro / OpenPBS, and Torque where it differs.

``qsub`` one job; ``qstat`` many jobs in one call (``-x -f -F json`` on PBS Pro and
OpenPBS, the text of ``qstat -f`` on Torque or when JSON is refused); ``qdel`` many in
one call. No PBS server runs in jubex's test suite: the parsers are tested on captured
outputs of real servers (``tests/data/pbs/SOURCES.md`` says which) and the command lines
on Slurm's PBS wrappers. See docs/platforms.md for exactly what was and was not tested.
"""

from __future__ import annotations

import getpass
import json
import math
import re
import subprocess
from collections.abc import Sequence

from jubex.schedulers.base import JobSpec, JobState, JobStatus, Scheduler, SchedulerError
from jubex.schedulers.command import failure, harmless, run_command, run_or_fail

#: PBS job-state letters mapped to the engine's states; the finished letters (C, F, X)
#: are refined by the exit status, see :func:`job_status`.
STATES: dict[str, JobState] = {
    "Q": JobState.PENDING,  # queued
    "H": JobState.PENDING,  # held
    "W": JobState.PENDING,  # waiting for its start time
    "T": JobState.PENDING,  # in transit to another queue
    "M": JobState.UNKNOWN,  # moved to another server
    "R": JobState.RUNNING,
    "B": JobState.RUNNING,  # array begun (PBS Pro)
    "E": JobState.RUNNING,  # exiting after having run
    "S": JobState.RUNNING,  # suspended by the server
    "U": JobState.RUNNING,  # suspended while the workstation is busy (PBS Pro)
    "C": JobState.COMPLETED,  # completed after having run (Torque)
    "F": JobState.COMPLETED,  # finished (PBS Pro)
    "X": JobState.COMPLETED,  # subjob finished (PBS Pro)
}

#: PBS's own negative exit statuses for jobs it killed over a limit of time.
WALLTIME_KILLED = {-29: "PBS Pro JOB_EXEC_KILL_WALLTIME", -11: "Torque JOB_EXEC_OVERLIMIT_WT"}

TRANSIENT = re.compile(
    r"cannot connect to (host|server)|Connection refused|Invalid credential|"
    r"Premature end of message|Communication failure|pbs_iff|End of File|"
    r"Server (is )?(busy|initializing)|Resources temporarily unavailable",
    re.IGNORECASE,
)
#: qsub refused because the user or queue has as many jobs as allowed
LIMIT = re.compile(
    r"would exceed .*limit|Maximum number of jobs already in queue|"
    r"Maximum number of jobs for .* already in queue",
    re.IGNORECASE,
)
#: qstat/qdel messages about ids the server does not (or no longer) know, which are not errors.
_GONE = re.compile(
    r"Unknown Job Id|Job has finished|Request invalid for state of job|job .* does not exist", re.I
)
_ATTRIBUTE = re.compile(r"^\s+([A-Za-z_][\w.\-]*) = ?(.*)$")


class PBSScheduler(Scheduler):
    """``qsub`` one, ``qstat`` many, ``qdel`` many; ``flavour`` is pro, torque or auto."""

    name = "pbs"
    arrays = True
    dependencies = True

    def __init__(
        self,
        *,
        qsub: str = "qsub",
        qstat: str = "qstat",
        qdel: str = "qdel",
        qselect: str = "qselect",
        flavour: str = "auto",
        submit_args: Sequence[str] = (),
        timeout: float = 60.0,
    ) -> None:
        if flavour not in ("auto", "pro", "torque"):
            raise SchedulerError(f"PBS flavour must be auto, pro or torque, not '{flavour}'")
        self.commands = {"qsub": qsub, "qstat": qstat, "qdel": qdel, "qselect": qselect}
        self.flavour = flavour
        self.submit_args = tuple(submit_args)
        self.timeout = float(timeout)
        self.json: bool | None = None if flavour != "torque" else False

    def submit(self, job: JobSpec) -> str:
        argv = [self.commands["qsub"], *submit_arguments(job, self._flavour()), *self.submit_args]
        argv.append(str(job.script))
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT, cwd=job.workdir)
        job_id = result.stdout.strip().splitlines()[-1].strip() if result.stdout.strip() else ""
        if result.returncode != 0 or not re.match(r"^\d+(\[\d*\])?(\.\S+)?$", job_id):
            raise failure(argv, result, TRANSIENT, LIMIT)
        return job_id

    def poll(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        if not job_ids:
            return {}
        jobs = self._qstat(job_ids)
        return {
            job_id: job_status(job_id, jobs[key])
            for job_id in job_ids
            if (key := match(job_id, jobs))
        }

    def cancel(self, job_ids: Sequence[str]) -> None:
        if not job_ids:
            return
        argv = [self.commands["qdel"], *job_ids]
        run_or_fail(argv, timeout=self.timeout, transient=TRANSIENT, gone=_GONE)

    def array_task_id(self, array_id: str, index: int) -> str:
        """``1234[].server`` -> ``1234[5].server`` (PBS Pro and Torque spell subjobs alike)."""
        return array_id.replace("[]", f"[{index}]", 1)

    def find(self, names: Sequence[str]) -> dict[str, str]:
        """Two calls whatever the count: ``qselect`` the user's jobs, one ``qstat`` of them."""
        if not names:
            return {}
        argv = [self.commands["qselect"], "-u", getpass.getuser()]
        argv += ["-x"] if self._flavour() == "pro" else []
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
        if result.returncode != 0:
            raise failure(argv, result, TRANSIENT)
        ids = result.stdout.split()
        found: dict[str, str] = {}
        for job_id, attributes in (self._qstat(ids) if ids else {}).items():
            if attributes.get("Job_Name") in names:
                found[str(attributes["Job_Name"])] = job_id
        return found

    def _flavour(self) -> str:
        """PBS Pro/OpenPBS or Torque, from ``qstat --version`` (asked once)."""
        if self.flavour == "auto":
            argv = [self.commands["qstat"], "--version"]
            result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
            self.flavour = "pro" if "pbs_version" in result.stdout + result.stderr else "torque"
            self.json = None if self.flavour == "pro" else False
        return self.flavour

    def _qstat(self, job_ids: Sequence[str]) -> dict[str, dict[str, object]]:
        # -t lists an array's subjobs; only asked for when an array is polled, since some
        # qstat look-alikes (Slurm's wrappers) refuse it
        expand = ["-t"] if any("[" in job_id for job_id in job_ids) else []
        if self._flavour() == "pro" and self.json is not False:
            argv = [self.commands["qstat"], "-x", *expand, "-f", "-F", "json", *job_ids]
            result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
            if result.stdout.lstrip().startswith("{"):
                self.json = True
                return parse_json(result.stdout)
            if (
                self.json is None
                and not TRANSIENT.search(result.stderr)
                and not harmless(result, _GONE)
            ):
                self.json = False  # an older server without JSON output: use the text form
            else:
                _check(argv, result)
                return {}
        argv = [self.commands["qstat"], "-f", *(["-x"] if self.flavour == "pro" else []), *expand]
        result = run_command([*argv, *job_ids], timeout=self.timeout, transient=TRANSIENT)
        _check(argv, result)
        return parse_text(result.stdout)


def submit_arguments(job: JobSpec, flavour: str) -> list[str]:
    """qsub options for a job: name, array (-J on PBS Pro, -t on Torque), dependency, limits."""
    argv = ["-N", job.name]
    if job.array_size:
        argv += ["-J" if flavour == "pro" else "-t", f"0-{job.array_size - 1}"]
    if job.depends_on:
        argv += ["-W", f"depend=afterok:{':'.join(job.depends_on)}"]
    if job.time_limit_s:
        seconds = math.ceil(job.time_limit_s)
        argv += [
            "-l",
            f"walltime={seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}",
        ]
    if job.exclusive:  # whole nodes: PBS Pro's placement, Torque's node-exclusive flag
        argv += ["-l", "place=scatter:excl"] if flavour == "pro" else ["-n"]
    for key, value in job.directives.items():
        argv += ["-l", f"{key}={value}" if value else key]
    return argv


def parse_json(text: str) -> dict[str, dict[str, object]]:
    """Jobs of ``qstat -f -F json`` output, keyed by their full id; no ``Jobs`` key means none."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SchedulerError(
            f"qstat printed JSON that cannot be read ({exc.msg} at line {exc.lineno}); "
            "PBS is known to emit broken JSON for jobs submitted with 'qsub -V' and shell "
            "functions in the environment"
        ) from None
    jobs = data.get("Jobs", {}) if isinstance(data, dict) else {}
    return {str(key): value for key, value in jobs.items() if isinstance(value, dict)}


def parse_text(text: str) -> dict[str, dict[str, object]]:
    """Jobs of ``qstat -f`` text (PBS Pro or Torque), wrapped lines joined, keyed by full id."""
    jobs: dict[str, dict[str, object]] = {}
    attributes: dict[str, object] = {}
    last = ""
    for line in text.splitlines():
        if line.startswith("Job Id:"):
            attributes = jobs.setdefault(line.split(":", 1)[1].strip(), {})
            last = ""
        elif attribute := _ATTRIBUTE.match(line):
            last = attribute.group(1)
            attributes[last] = attribute.group(2).strip()
        elif line.strip() and last:
            attributes[last] = f"{attributes[last]}{line.strip()}"
    return jobs


def match(job_id: str, jobs: dict[str, dict[str, object]]) -> str | None:
    """The key in ``jobs`` of an id as qsub printed it (``1234.server``) or short (``1234``)."""
    if job_id in jobs:
        return job_id
    short = job_id.split(".")[0]
    return next((key for key in jobs if key.split(".")[0] == short), None)


def job_status(job_id: str, attributes: dict[str, object]) -> JobStatus:
    """The engine's status of one job from its qstat attributes (JSON or text spelling)."""
    letter = str(attributes.get("job_state", "?"))
    state = STATES.get(letter, JobState.UNKNOWN)
    comment = str(attributes.get("comment", ""))
    if not state.finished:
        return JobStatus(job_id, state, reason=comment)
    raw = attributes.get("Exit_status", attributes.get("exit_status"))
    text = "" if raw is None else str(raw)
    status = int(text) if text.lstrip("-").isdigit() else None
    if status is None:
        if letter == "C":  # Torque: completed after having run, but no status reported
            return JobStatus(job_id, JobState.COMPLETED, None, "no exit status reported")
        return JobStatus(job_id, JobState.CANCELLED, None, comment or "finished without running")
    if status in WALLTIME_KILLED:
        return JobStatus(job_id, JobState.TIMEOUT, None, WALLTIME_KILLED[status])
    if status < 0:
        return JobStatus(
            job_id, JobState.FAILED, None, f"PBS could not run the job (status {status})"
        )
    if status > 256:  # killed by signal status-256; qdel sends SIGTERM, then SIGKILL
        signal = status - 256
        state = JobState.CANCELLED if signal in (9, 15) else JobState.FAILED
        return JobStatus(job_id, state, 128 + signal, f"killed by signal {signal}")
    return JobStatus(
        job_id, JobState.COMPLETED if status == 0 else JobState.FAILED, status, comment
    )


def _check(argv: Sequence[str], result: subprocess.CompletedProcess[str]) -> None:
    """Raise unless qstat succeeded or only complained about ids it does not know."""
    if result.returncode != 0 and not harmless(result, _GONE):
        raise failure(argv, result, TRANSIENT)
