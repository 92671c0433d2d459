"""The one interface every scheduler backend implements.

A backend knows how to submit one job, and how to poll and cancel *many* jobs with one
call to the scheduler. Everything else — when to poll, how often, how many jobs may be
queued, what a state change means for a workpackage — is the engine's business, decided
once in :mod:`jubex.engine`.
"""

from __future__ import annotations

import enum
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


class JobState(enum.Enum):
    """The engine's view of a job; each backend maps its scheduler's states onto these."""

    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    UNKNOWN = "unknown"

    @property
    def finished(self) -> bool:
        return self in (JobState.COMPLETED, JobState.FAILED, JobState.CANCELLED, JobState.TIMEOUT)


@dataclass(frozen=True)
class JobSpec:
    """What the engine hands a backend: a rendered script and where it runs."""

    name: str
    script: Path
    workdir: Path
    stdout: Path
    stderr: Path
    directives: dict[str, str] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()
    array_size: int = 0
    time_limit_s: float | None = None
    #: whole nodes, shared with no other job (a step's ``exclusive: true``)
    exclusive: bool = False


@dataclass(frozen=True)
class JobStatus:
    job_id: str
    state: JobState
    exit_code: int | None = None
    reason: str = ""


class SchedulerError(Exception):
    """A scheduler command failed; ``transient`` errors are retried by the engine.

    ``limit``: a submission refused because the user (or QOS, account, queue) already has
    as many jobs as a site limit allows; the engine holds the job back until some end.
    """

    def __init__(self, message: str, *, transient: bool = False, limit: bool = False) -> None:
        super().__init__(message)
        self.transient = transient
        self.limit = limit


class Scheduler(ABC):
    """Submit one, poll many, cancel many."""

    name: str = ""
    #: True when jobs run as children of jubex (the engine may wait on them directly):
    #: they run without a job template, with the time limit the wrapper enforces
    local: bool = False
    #: True when the scheduler runs job arrays (one submission, many workpackages)
    arrays: bool = False
    #: True when the scheduler holds a job until the jobs it depends on succeeded
    dependencies: bool = False

    @abstractmethod
    def submit(self, job: JobSpec) -> str:
        """Submit a job and return its id; raise :class:`SchedulerError` on failure."""

    @abstractmethod
    def poll(self, job_ids: Sequence[str]) -> dict[str, JobStatus]:
        """The state of every given job, with a single scheduler call. Unknown ids are absent."""

    @abstractmethod
    def cancel(self, job_ids: Sequence[str]) -> None:
        """Cancel all given jobs with a single scheduler call."""

    def array_task_id(self, array_id: str, index: int) -> str:
        """The id of one task of an array job, as :meth:`poll` reports it."""
        return f"{array_id}_{index}"

    def find(self, names: Sequence[str]) -> dict[str, str]:
        """Job ids of jobs the scheduler still knows by name (reconciliation after a crash)."""
        return {}

    def accounting_records(self, job_ids: Sequence[str]) -> dict[str, dict[str, str]]:
        """The accounting record of finished jobs (``nodes``, ``elapsed``, ``state``,
        ``exit_code``, ``start``, ``end``), with one scheduler call; none where the scheduler
        keeps no accounting (then the run just lacks them)."""
        return {}

    def wait(self, timeout: float) -> None:
        """Block until some job may have changed state, or ``timeout`` seconds passed."""
        time.sleep(timeout)
