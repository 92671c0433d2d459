"""The Grid Engine backend (Son of Grid Engine, Open Grid Scheduler, Debian's gridengine).

``qsub -terse`` one job (an array with ``-t 1-N``); ``qstat -xml`` every job of the user in
one call; ``qdel`` many in one call. A job Grid Engine no longer lists has ended: its
wrapper's exit-status file says how, and where there is none (a job killed at its ``h_rt``,
deleted, or refused by its host), ``qacct`` says why, for at most a few such jobs per poll.

Grid Engine's ``-hold_jid`` waits for a job to *end*, however it ended, so a child held on a
failed parent would still run: the engine submits children only once their parents are
done (``dependencies = False``). Tested against a real Grid Engine that the test suite
starts (``ci/start-local-sge.sh``); see docs/platforms.md.
"""

from __future__ import annotations

import getpass
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence

from jubex.schedulers.base import JobSpec, JobState, JobStatus, Scheduler, SchedulerError
from jubex.schedulers.command import failure, run_command, run_or_fail

#: qstat's state letters, by their most telling letter (``hqw``: held, ``Eqw``: error)
STATES: tuple[tuple[str, JobState], ...] = (
    ("E", JobState.FAILED),  # the job could not be started (Eqw): it waits for a user
    ("d", JobState.CANCELLED),  # being deleted
    ("r", JobState.RUNNING),
    ("t", JobState.RUNNING),  # being transferred to its host
    ("s", JobState.RUNNING),  # suspended
    ("S", JobState.RUNNING),
    ("T", JobState.RUNNING),
    ("R", JobState.RUNNING),  # restarted
    ("q", JobState.PENDING),
    ("h", JobState.PENDING),
    ("w", JobState.PENDING),
)

TRANSIENT = re.compile(
    r"unable to contact qmaster|failed receiving gdi request|unable to send message to qmaster|"
    r"commlib error|got send error|can't find connection|qmaster is not alive",
    re.IGNORECASE,
)
#: qsub refused because the user (or the cluster) has as many jobs as allowed
LIMIT = re.compile(
    r"only \d+ jobs are allowed per user|max_u_jobs|max_jobs|job rejected: .*limit",
    re.IGNORECASE,
)
_GONE = re.compile(r'job "?[\d.]+"? does not exist|has deleted|registered the job', re.I)
#: qacct's ``failed`` codes that mean a limit of time was enforced, or a deletion
_TIME_LIMIT = ("37", "38")
#: finished jobs without an exit status asked of qacct per poll (each call reads the log)
ACCOUNTING_PER_POLL = 10
_TERSE = re.compile(r"^(\d+)(\.\d+-\d+:\d+)?$")


class SGEScheduler(Scheduler):
    """``qsub`` one, ``qstat`` many, ``qdel`` many (``qacct`` for jobs that left no status)."""

    name = "sge"
    arrays = True
    dependencies = False

    def __init__(
        self,
        *,
        qsub: str = "qsub",
        qstat: str = "qstat",
        qdel: str = "qdel",
        qacct: str = "qacct",
        submit_args: Sequence[str] = (),
        timeout: float = 60.0,
        exclusive_complex: str | None = None,
    ) -> None:
        self.commands = {"qsub": qsub, "qstat": qstat, "qdel": qdel, "qacct": qacct}
        self.submit_args = tuple(submit_args)
        self.timeout = float(timeout)
        self.exclusive_complex = exclusive_complex

    def submit(self, job: JobSpec) -> str:
        options = submit_arguments(job, self.exclusive_complex)
        argv = [self.commands["qsub"], *options, *self.submit_args, str(job.script)]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT, cwd=job.workdir)
        lines = result.stdout.strip().splitlines()
        found = _TERSE.match(lines[-1].strip() if lines else "")
        if result.returncode != 0 or found is None:
            raise failure(argv, result, TRANSIENT, LIMIT)
        return found.group(1)

    def poll(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        if not job_ids:
            return {}
        listed = self._qstat()
        found = {job_id: listed[job_id] for job_id in job_ids if job_id in listed}
        ended = [job_id for job_id in job_ids if job_id not in listed]
        for job_id in ended[:ACCOUNTING_PER_POLL]:
            status = self._accounting(job_id)
            if status is not None:
                found[job_id] = status
        return found

    def cancel(self, job_ids: Sequence[str]) -> None:
        if not job_ids:
            return
        argv = [self.commands["qdel"], *job_ids]
        run_or_fail(argv, timeout=self.timeout, transient=TRANSIENT, gone=_GONE)

    def array_task_id(self, array_id: str, index: int) -> str:
        """Grid Engine numbers an array's tasks from 1: jubex's task 0 is ``ID.1``."""
        return f"{array_id}.{index + 1}"

    def find(self, names: Sequence[str]) -> dict[str, str]:
        """The user's jobs Grid Engine still lists, by name (one ``qstat``)."""
        wanted = set(names)
        argv = [self.commands["qstat"], "-u", getpass.getuser(), "-xml"]
        found: dict[str, str] = {}
        for entry in _job_lists(self._run_qstat(argv)):
            name = entry.findtext("JB_name") or ""
            if name in wanted:
                found.setdefault(name, entry.findtext("JB_job_number") or "")
        return found

    def _qstat(self) -> dict[str, JobStatus]:
        argv = [self.commands["qstat"], "-u", getpass.getuser(), "-xml"]
        return parse_qstat(self._run_qstat(argv))

    def _run_qstat(self, argv: list[str]) -> str:
        return run_or_fail(argv, timeout=self.timeout, transient=TRANSIENT).stdout

    def _accounting(self, job_id: str) -> JobStatus | None:
        """How an ended job ended, by ``qacct`` (None: not accounted yet, as it lags)."""
        argv = [self.commands["qacct"], "-j", job_id.split(".")[0]]
        result = run_command(argv, timeout=self.timeout, transient=TRANSIENT)
        if result.returncode != 0:
            return None
        task = job_id.split(".")[1] if "." in job_id else None
        for record in parse_qacct(result.stdout):
            if task is None or record.get("taskid") == task:
                return accounted_status(job_id, record)
        return None


def submit_arguments(job: JobSpec, exclusive_complex: str | None = None) -> list[str]:
    """qsub options for a job: terse id, name, outputs, directory, array, time limit.

    Grid Engine has no flag for a whole host: sites define a boolean complex of relation
    ``EXCL`` (sge_complex(5)) and attach it to their hosts; ``exclusive_complex`` names it,
    and a job of an ``exclusive`` step requests it (``-l exclusive=true``)."""
    argv = ["-terse", "-N", job.name, "-o", str(job.stdout), "-e", str(job.stderr)]
    argv += ["-wd", str(job.workdir)]
    if job.array_size:
        argv += ["-t", f"1-{job.array_size}"]
    if job.depends_on:  # held until they end; the engine submits children of done parents
        argv += ["-hold_jid", ",".join(job.depends_on)]
    if job.time_limit_s:
        seconds = math.ceil(job.time_limit_s)
        argv += ["-l", f"h_rt={seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"]
    if job.exclusive and exclusive_complex:
        argv += ["-l", f"{exclusive_complex}=true"]
    for key, value in job.directives.items():
        argv += ["-l", f"{key}={value}" if value else key]
    return argv


def parse_qstat(text: str) -> dict[str, JobStatus]:
    """Every job and array task ``qstat -xml`` lists, keyed as jubex names them: ``ID``, or
    ``ID.TASK`` for a task (pending tasks come as ranges, ``5,6`` or ``1-9:2``)."""
    found: dict[str, JobStatus] = {}
    for entry in _job_lists(text):
        number = entry.findtext("JB_job_number") or ""
        letters = entry.findtext("state") or ""
        state = next((s for letter, s in STATES if letter in letters), JobState.UNKNOWN)
        reason = f"Grid Engine state {letters}" if state is JobState.FAILED else ""
        tasks = entry.findtext("tasks")
        keys = [f"{number}.{task}" for task in task_ids(tasks)] if tasks else [number]
        for key in keys:
            found[key] = JobStatus(key, state, reason=reason)
    return found


def task_ids(text: str) -> Iterator[int]:
    """The task numbers of qstat's ``tasks`` field: ``3``, ``5,6``, ``1-9:2``."""
    for part in text.split(","):
        span, _, step = part.strip().partition(":")
        first, _, last = span.partition("-")
        if not first.isdigit():
            continue
        end = int(last) if last.isdigit() else int(first)
        yield from range(int(first), end + 1, int(step) if step.isdigit() and int(step) else 1)


def _job_lists(text: str) -> list[ET.Element]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise SchedulerError(f"qstat printed XML that cannot be read: {exc}") from None
    return root.findall(".//job_list")


def parse_qacct(text: str) -> list[dict[str, str]]:
    """The records of ``qacct -j`` (one per job or task, separated by a line of ``=``)."""
    records: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("=" * 10):
            if current:
                records.append(current)
            current = {}
            continue
        key, _, value = line.partition(" ")
        if key:
            current[key] = value.strip()
    if current:
        records.append(current)
    return records


def accounted_status(job_id: str, record: dict[str, str]) -> JobStatus:
    """The engine's status of an ended job from its qacct record."""
    failed = record.get("failed", "0")
    code_text = failed.split(":")[0].strip()
    why = failed.partition(":")[2].strip()
    exit_text = record.get("exit_status", "").split()[0] if record.get("exit_status") else ""
    exit_code = int(exit_text) if exit_text.isdigit() else None
    if code_text in _TIME_LIMIT:
        return JobStatus(job_id, JobState.TIMEOUT, exit_code, why or "time limit")
    if code_text == "100" and exit_code in (137, 143):
        return JobStatus(job_id, JobState.CANCELLED, exit_code, "deleted (qdel)")
    if code_text != "0":
        return JobStatus(job_id, JobState.FAILED, exit_code, f"Grid Engine: {why or failed}")
    state = JobState.COMPLETED if exit_code == 0 else JobState.FAILED
    return JobStatus(job_id, state, exit_code)
