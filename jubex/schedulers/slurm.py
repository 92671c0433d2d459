"""The Slurm backend: ``sbatch`` one job, ``squeue`` many in one call, ``scancel`` many in one.

Finished jobs stay visible to ``squeue -t all`` for Slurm's MinJobAge (300 s by default).
After that, one ``sacct`` call answers for the jobs squeue no longer knows: the accounting
database when there is one, else the job-completion log (``sacct -c``), detected once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from jubex.schedulers.base import JobSpec, JobState, JobStatus, Scheduler, SchedulerError
from jubex.schedulers.command import failure, run_command

#: Slurm's job states (squeue long names and sacct's) mapped to the engine's states.
STATES: dict[str, JobState] = {
    "PENDING": JobState.PENDING,
    "CONFIGURING": JobState.PENDING,
    "REQUEUED": JobState.PENDING,
    "REQUEUE_FED": JobState.PENDING,
    "REQUEUE_HOLD": JobState.PENDING,
    "RESV_DEL_HOLD": JobState.PENDING,
    "RUNNING": JobState.RUNNING,
    "COMPLETING": JobState.RUNNING,
    "SUSPENDED": JobState.RUNNING,
    "STOPPED": JobState.RUNNING,
    "SIGNALING": JobState.RUNNING,
    "STAGE_OUT": JobState.RUNNING,
    "RESIZING": JobState.RUNNING,
    "COMPLETED": JobState.COMPLETED,
    "FAILED": JobState.FAILED,
    "NODE_FAIL": JobState.FAILED,
    "BOOT_FAIL": JobState.FAILED,
    "OUT_OF_MEMORY": JobState.FAILED,
    "SPECIAL_EXIT": JobState.FAILED,
    "TIMEOUT": JobState.TIMEOUT,
    "DEADLINE": JobState.TIMEOUT,
    "CANCELLED": JobState.CANCELLED,
    "PREEMPTED": JobState.CANCELLED,
    "REVOKED": JobState.CANCELLED,
}

#: Messages of a controller that is busy, restarting or briefly unreachable.
TRANSIENT = re.compile(
    r"Socket timed out|Unable to contact slurm controller|slurm_load_jobs error: "
    r"(?!Invalid job id)|temporarily unable|Resource temporarily unavailable|"
    r"Zero Bytes were transmitted|Connection refused|Communication connection failure|"
    r"Transport endpoint is not connected|Slurm backup controller in standby",
    re.IGNORECASE,
)
#: sbatch refused because the user, account or QOS has as many jobs as allowed
LIMIT = re.compile(
    r"MaxSubmitJob|GrpSubmitJob|Job violates accounting/QOS policy",
    re.IGNORECASE,
)
_FINISHED_OR_UNKNOWN = re.compile(r"Invalid job id|already completing or completed", re.I)
_SQUEUE_FIELDS = "JobArrayID:|,State:|,Reason:|,exit_code:|,Name:"
_ACCOUNTING_FIELDS = "JobID,NodeList,Elapsed,State,ExitCode,Start,End"
_SQUEUE_ACCOUNTING_FIELDS = (
    "JobArrayID:|,NodeList:|,TimeUsed:|,State:|,exit_code:|,StartTime:|,EndTime:"
)
_RECORD_KEYS = ("nodes", "elapsed", "state", "exit_code", "start", "end")
_ARRAY_RANGE = re.compile(r"^(\d+)_\[([^\]]*)\]$")


class SlurmScheduler(Scheduler):
    """Submit with ``sbatch --parsable``; poll with one ``squeue`` (then one ``sacct``)."""

    name = "slurm"
    arrays = True
    dependencies = True

    def __init__(
        self,
        *,
        sbatch: str = "sbatch",
        squeue: str = "squeue",
        sacct: str = "sacct",
        scancel: str = "scancel",
        submit_args: Sequence[str] = (),
        timeout: float = 60.0,
        accounting: str = "auto",
    ) -> None:
        if accounting not in ("auto", "sacct", "jobcomp", "none"):
            raise SchedulerError(
                f"accounting must be auto, sacct, jobcomp or none, not '{accounting}'"
            )
        self.commands = {"sbatch": sbatch, "squeue": squeue, "sacct": sacct, "scancel": scancel}
        self.submit_args = tuple(submit_args)
        self.timeout = float(timeout)
        self.accounting = accounting

    def submit(self, job: JobSpec) -> str:
        argv = [self.commands["sbatch"], "--parsable", f"--job-name={job.name}"]
        if job.array_size:
            argv.append(f"--array=0-{job.array_size - 1}")
        if job.depends_on:
            argv += [
                f"--dependency=afterok:{':'.join(job.depends_on)}",
                "--kill-on-invalid-dep=yes",
            ]
        if job.time_limit_s:
            argv.append(f"--time={max(1, math.ceil(job.time_limit_s / 60))}")
        if job.exclusive:
            argv.append("--exclusive")
        argv += [
            f"--{key}={value}" if value else f"--{key}" for key, value in job.directives.items()
        ]
        argv += [*self.submit_args, str(job.script)]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT, cwd=job.workdir)
        job_id = result.stdout.strip().split(";")[0]
        if result.returncode != 0 or not job_id.isdigit():
            raise failure(argv, result, TRANSIENT, LIMIT)
        return job_id

    def poll(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        if not job_ids:
            return {}
        argv = [
            self.commands["squeue"],
            "-h",
            "-t",
            "all",
            "-j",
            ",".join(_query_ids(job_ids)),
            "-O",
            _SQUEUE_FIELDS,
        ]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
        if result.returncode != 0 and not _FINISHED_OR_UNKNOWN.search(result.stderr):
            raise failure(argv, result, TRANSIENT)
        statuses = parse_squeue(result.stdout if result.returncode == 0 else "")
        answer = collect(job_ids, statuses)
        missing = [job_id for job_id in job_ids if job_id not in answer]
        if missing and self._accounting() != "none":
            answer.update(collect(missing, self._sacct(missing)))
        return answer

    def cancel(self, job_ids: Sequence[str]) -> None:
        if not job_ids:
            return
        argv = [self.commands["scancel"], *job_ids]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
        if result.returncode != 0 and not _all_lines_match(result.stderr, _FINISHED_OR_UNKNOWN):
            raise failure(argv, result, TRANSIENT)

    def find(self, names: Sequence[str]) -> dict[str, str]:
        if not names:
            return {}
        argv = [self.commands["squeue"], "-h", "-t", "all", "--me", f"--name={','.join(names)}"]
        argv += ["-O", "JobArrayID:|,Name:"]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
        if result.returncode != 0:
            raise failure(argv, result, TRANSIENT)
        found: dict[str, str] = {}
        for line in result.stdout.splitlines():
            job_id, _, name = line.partition("|")
            job_id = job_id.strip().split("_")[0]
            if name in names and job_id.isdigit() and int(job_id) > int(found.get(name, "0")):
                found[name] = job_id
        return found

    def accounting_records(self, job_ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """``sacct`` where Slurm keeps accounting (or a completion log), else ``squeue``,
        which still knows jobs that ended less than MinJobAge ago."""
        if not job_ids:
            return {}
        if self._accounting() != "none":
            source = ["-X"] if self.accounting == "sacct" else ["-c"]
            argv = [self.commands["sacct"], "-n", "-P", *source, "-j", ",".join(job_ids)]
            argv += ["-o", _ACCOUNTING_FIELDS]
        else:
            argv = [self.commands["squeue"], "-h", "-t", "all", "-j", ",".join(job_ids)]
            argv += ["-O", _SQUEUE_ACCOUNTING_FIELDS]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
        if result.returncode != 0:
            return {}
        return parse_accounting(result.stdout, set(job_ids))

    def _accounting(self) -> str:
        """Which of sacct's sources answers here; asked once per backend instance."""
        if self.accounting == "auto":
            self.accounting = "none"
            for mode, extra in (("sacct", ["-X"]), ("jobcomp", ["-c"])):
                argv = [self.commands["sacct"], "-n", "-P", *extra, "-j", "1", "-o", "JobID"]
                if run_command(argv, timeout=self.timeout, transient=TRANSIENT).returncode == 0:
                    self.accounting = mode
                    break
        return self.accounting

    def _sacct(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        source = ["-X"] if self.accounting == "sacct" else ["-c"]
        argv = [self.commands["sacct"], "-n", "-P", *source, "-j", ",".join(job_ids)]
        argv += ["-o", "JobID,State,ExitCode"]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
        if result.returncode != 0:
            raise failure(argv, result, TRANSIENT)
        return parse_sacct(result.stdout)


def parse_squeue(text: str) -> dict[str, JobStatus]:
    """Statuses from ``squeue -O JobArrayID:|,State:|,Reason:|,exit_code:|,Name:`` lines.

    A collapsed line of pending array tasks (``12_[4-9]``) yields one status per task.
    """
    statuses: dict[str, JobStatus] = {}
    for line in text.splitlines():
        fields = line.split("|", 4)
        if len(fields) < 4:
            continue
        job_id, state, reason, raw_exit = (field.strip() for field in fields[:4])
        exit_code = _wait_status(raw_exit) if STATES.get(state, JobState.UNKNOWN).finished else None
        for one_id in _expand(job_id):
            statuses[one_id] = _status(one_id, state, reason, exit_code)
    return statuses


def parse_sacct(text: str) -> dict[str, JobStatus]:
    """Statuses from ``sacct -n -P -o JobID,State,ExitCode`` lines (``CANCELLED by 0`` included)."""
    statuses: dict[str, JobStatus] = {}
    for line in text.splitlines():
        fields = line.strip().split("|")
        if len(fields) < 3 or "." in fields[0]:
            continue
        job_id, state, exit_text = fields[:3]
        words = state.split()
        code, _, signal = exit_text.partition(":")
        # a signal number past 64 is not a signal (OUT_OF_MEMORY shows 0:125)
        killed = signal.isdigit() and 0 < int(signal) <= 64
        exit_code = 128 + int(signal) if killed else _int(code)
        detail = " ".join(words[1:])
        for one_id in _expand(job_id):
            statuses[one_id] = _status(
                one_id, words[0].rstrip("+") if words else "", detail, exit_code
            )
    return statuses


def parse_accounting(text: str, wanted: set[str]) -> dict[str, dict[str, str]]:
    """Records from ``sacct -P -o JobID,NodeList,Elapsed,State,ExitCode,Start,End`` lines
    (or squeue's lines of the same fields), for the jobs asked for; job steps are left out."""
    records: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        fields = [field.strip() for field in line.split("|")]
        if len(fields) < 1 + len(_RECORD_KEYS) or fields[0] not in wanted:
            continue
        records[fields[0]] = dict(zip(_RECORD_KEYS, fields[1:], strict=False))
    return records


def collect(job_ids: Iterable[str], statuses: dict[str, JobStatus]) -> dict[str, JobStatus]:
    """The statuses asked for: a plain id as is; an array's id as one summary plus its tasks."""
    answer: dict[str, JobStatus] = {}
    for job_id in job_ids:
        if job_id in statuses:
            answer[job_id] = statuses[job_id]
            continue
        tasks = {key: value for key, value in statuses.items() if key.startswith(f"{job_id}_")}
        if tasks:
            answer.update(tasks)
            answer[job_id] = summarise(job_id, tasks.values())
    return answer


def summarise(job_id: str, tasks: Iterable[JobStatus]) -> JobStatus:
    """One status for a whole array: running while any task is unfinished, else the worst end."""
    states = [task.state for task in tasks]
    for state in (JobState.RUNNING, JobState.PENDING, JobState.UNKNOWN):
        if state in states:
            return JobStatus(job_id, state)
    for state in (JobState.FAILED, JobState.TIMEOUT, JobState.CANCELLED):
        if state in states:
            return JobStatus(job_id, state, reason=f"{states.count(state)} task(s) {state.value}")
    return JobStatus(job_id, JobState.COMPLETED, exit_code=0)


def _status(job_id: str, slurm_state: str, reason: str, exit_code: int | None) -> JobStatus:
    state = STATES.get(slurm_state, JobState.UNKNOWN)
    notes = [slurm_state] if slurm_state.lower() != state.value else []
    notes += [reason] if reason and reason not in ("None", "(null)") else []
    return JobStatus(job_id, state, exit_code, "; ".join(notes))


def _expand(job_id: str) -> list[str]:
    """``12_[1,4-6%2]`` -> ``12_1 12_4 12_5 12_6``; any other id stays as it is."""
    match = _ARRAY_RANGE.match(job_id)
    if not match:
        return [job_id]
    base, spec = match.groups()
    ids: list[str] = []
    for part in spec.split("%")[0].split(","):
        first, _, last = part.partition("-")
        if first.isdigit() and (not last or last.isdigit()):
            ids += [f"{base}_{i}" for i in range(int(first), int(last or first) + 1)]
    return ids


def _query_ids(job_ids: Sequence[str]) -> list[str]:
    """The ids to ask squeue for: an array's id once instead of each of its tasks (``12_3``).

    squeue answers an array's id with every task, so the command line stays short however
    many tasks the engine tracks.
    """
    return list(dict.fromkeys(job_id.split("_")[0] for job_id in job_ids))


def _wait_status(raw: str) -> int | None:
    """squeue's exit_code is a wait status: the code in the high byte, a signal in the low."""
    value = _int(raw)
    if value is None:
        return None
    return 128 + (value & 0x7F) if value & 0x7F else value >> 8


def _int(text: str) -> int | None:
    return int(text) if text.strip().lstrip("-").isdigit() else None


def _all_lines_match(text: str, pattern: re.Pattern[str]) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return all(pattern.search(line) for line in lines)
