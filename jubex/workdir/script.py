"""The wrapper script of a workpackage: the same on every platform.

It claims the workpackage (an atomic ``mkdir``: a second copy of the same job exits 97 at
once, so no job runs twice even if it was submitted twice), records who runs it, runs the
``do`` commands in order (stopping at the first failure), and writes its exit status
atomically (write, then rename) — the engine's first source of truth.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: exit status of a wrapper that found its workpackage already claimed
ALREADY_CLAIMED = 97
CLAIM, STARTED, EXIT, BODY, JOB, DO = "claim", "started", "exit", "body.sh", "job.sh", "do.sh"
#: where an exporting step leaves its environment for the steps that depend on it
ENVIRONMENT = "environment"


@dataclass(frozen=True)
class Command:
    """A rendered ``do``: the shell text, where its output goes, and JUBE's marker files.

    ``done_file``: the command only started something (a batch job, a server); the
    workpackage is done once that file appears. ``error_file``: the workpackage failed if it
    appears. ``break_file``: once it exists, no further command or cycle runs. Marker paths
    are absolute (the commands may change directory).
    """

    text: str
    stdout: str | None = None
    stderr: str | None = None
    work_dir: str | None = None
    done_file: str | None = None
    error_file: str | None = None
    break_file: str | None = None


#: how often a wrapper looks for a done or error file, in seconds
MARKER_POLL = 1


def admin_dir(wp_dir: Path) -> Path:
    """Where jubex's own files of a workpackage live: beside its ``work/`` directory."""
    return wp_dir


def _command(cmd: Command) -> str:
    q = shlex.quote
    text = cmd.text.rstrip("\n")
    redirect = ""
    if cmd.stdout:
        redirect += f" >>{q(cmd.stdout)}"
    if cmd.stderr:
        redirect += f" 2>>{q(cmd.stderr)}"
    if cmd.work_dir:
        text = f"cd {q(cmd.work_dir)} || exit $?\n{text}"
        lines = [f"(\n{text}\n){redirect} || exit $?"]
    else:
        lines = [f"{{\n{text}\n}}{redirect} || exit $?"]
    error = q(cmd.error_file) if cmd.error_file else None
    if cmd.done_file:
        wait_for = f"[ ! -e {q(cmd.done_file)} ]" + (f" && [ ! -e {error} ]" if error else "")
        lines.append(f"while {wait_for}; do sleep {MARKER_POLL}; done")
    if error:
        lines.append(
            f'if [ -e {error} ]; then echo "error file {cmd.error_file} found" >&2; exit 1; fi'
        )
    if cmd.break_file:
        lines.append(f"if [ -e {q(cmd.break_file)} ]; then exit 0; fi")
    return "\n".join(lines)


def commands_block(commands: Sequence[Command]) -> str:
    """The commands as one shell block: each runs only if all before it succeeded."""
    return "\n".join(_command(c) for c in commands) + "\n" if commands else ":\n"


def wrapper(
    *,
    wp_id: int,
    step: str,
    workdir: Path,
    admin: Path,
    commands: Sequence[Command],
    environment: Mapping[str, str],
    stdout: str = "stdout",
    stderr: str = "stderr",
    time_limit_s: float | None = None,
    inherit: Sequence[Path] = (),
    export: bool = False,
    local: bool = False,
) -> tuple[str, str | None]:
    """The wrapper's text, and the text of a separate do-script when a time limit applies.

    ``inherit`` lists the environment files of exporting parents, read first; with
    ``export`` the environment the commands leave behind is saved for dependent steps.
    """
    q = shlex.quote
    sources = "".join(f". {q(str(path))}\n" for path in inherit)
    exports = sources + "".join(f"export {k}={q(str(v))}\n" for k, v in environment.items())
    block = commands_block(commands)
    if export:
        block += f"export -p > {q(str(admin / ENVIRONMENT))}\n"
    out = f">>{q(stdout)} 2>>{q(stderr)} </dev/null"
    if time_limit_s:
        limit = max(1, round(time_limit_s))
        run = f"timeout -k 10 {limit} /bin/sh {q(str(admin / DO))} {out}"
        do_script = "#!/bin/sh\n" + block
    else:
        run = f"(\n{block}) {out}"
        do_script = None
    exit_tmp, exit_file = q(str(admin / (EXIT + ".tmp"))), q(str(admin / EXIT))
    text = (
        f"#!/bin/sh\n# jubex workpackage {wp_id} (step {step})\n"
        f"cd {q(str(workdir))} || exit 1\n"
        f"mkdir {q(str(admin / CLAIM))} 2>/dev/null || exit {ALREADY_CLAIMED}\n"
        f"{_owner(local)} > {q(str(admin / STARTED))}\n"
        f"{exports}{run}\n"
        "jubex_rc=$?\n"
        f"echo $jubex_rc > {exit_tmp} && mv {exit_tmp} {exit_file}\n"
        "exit $jubex_rc\n"
    )
    return text, do_script


def _owner(local: bool) -> str:
    """How the wrapper names who runs it: its pid locally (even inside a batch allocation,
    whose job id would name the allocation), else the batch job (an array task as
    ``<array id>_<index>``)."""
    if local:
        return 'echo "$$"'
    return (
        "jubex_job=${SLURM_ARRAY_JOB_ID:+${SLURM_ARRAY_JOB_ID}_$SLURM_ARRAY_TASK_ID}\n"
        'echo "${jubex_job:-${SLURM_JOB_ID:-${PBS_JOBID:-$$}}}"'
    )


def read_exit(admin: Path) -> int | None:
    """The exit status the wrapper wrote, or None when it has not (yet)."""
    try:
        return int((admin / EXIT).read_text().strip())
    except (OSError, ValueError):
        return None


def read_started(admin: Path) -> str | None:
    try:
        return (admin / STARTED).read_text().strip() or None
    except OSError:
        return None


def reset(admin: Path) -> None:
    """Forget a previous attempt so that the workpackage can run again."""
    for name in (EXIT, STARTED, EXIT + ".tmp"):
        (admin / name).unlink(missing_ok=True)
    claim = admin / CLAIM
    if claim.is_dir():
        claim.rmdir()
