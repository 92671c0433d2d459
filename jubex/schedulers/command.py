"""Running a batch scheduler's client commands, and telling passing trouble from real failure.

The Slurm and PBS backends call their clients (``sbatch``, ``qstat`` ...) through
:func:`run_command`. A controller that is restarting or overloaded answers with errors
that go away by themselves; those become ``SchedulerError(transient=True)`` so that the
engine retries them with its back-off (:data:`jubex.engine.runner.TRANSIENT_RETRIES`)
instead of failing the run.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from jubex.schedulers.base import SchedulerError


def run_command(
    argv: Sequence[str],
    *,
    timeout: float,
    transient: re.Pattern[str],
    cwd: Path | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a client command and return it whatever its exit code; raise only when it could not run.

    A command that times out counts as transient (the controller is busy); a command that
    does not exist is a permanent error naming it. ``stdin`` is fed to it (LSF reads a
    job script's directives only there).
    """
    try:
        return subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            check=False,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise SchedulerError(
            f"'{argv[0]}' did not answer within {timeout:g} s", transient=True
        ) from None
    except FileNotFoundError:
        raise SchedulerError(
            f"command '{argv[0]}' not found; is the scheduler's client installed and on PATH, "
            "or set its path in the platform's scheduler_options?"
        ) from None
    except OSError as exc:
        raise SchedulerError(f"cannot run '{argv[0]}': {exc}") from None


def failure(
    argv: Sequence[str],
    result: subprocess.CompletedProcess[str],
    transient: re.Pattern[str],
    limit: re.Pattern[str] | None = None,
) -> SchedulerError:
    """The error for a command that exited non-zero, transient or a submission limit when
    its message says so."""
    text = (result.stderr.strip() or result.stdout.strip() or "(no message)").splitlines()
    message = " / ".join(line.strip() for line in text[:5])
    said = result.stderr + result.stdout
    return SchedulerError(
        f"'{' '.join(argv[:2])} ...' failed (exit {result.returncode}): {message}",
        transient=bool(transient.search(said)),
        limit=bool(limit and limit.search(said)),
    )


def harmless(result: subprocess.CompletedProcess[str], gone: re.Pattern[str]) -> bool:
    """Whether a command that failed only said it does not know some of the ids it was
    given (jobs that ended and were forgotten): what it complained on, stderr (else
    stdout), holds nothing else."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    lines = lines or [line for line in result.stdout.splitlines() if line.strip()]
    return bool(lines) and all(gone.search(line) for line in lines)


def run_or_fail(
    argv: Sequence[str],
    *,
    timeout: float,
    transient: re.Pattern[str],
    gone: re.Pattern[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a client command; a failure is an error unless it only named forgotten ids."""
    result = run_command(argv, timeout=timeout, transient=transient)
    if result.returncode != 0 and not (gone is not None and harmless(result, gone)):
        raise failure(argv, result, transient)
    return result
