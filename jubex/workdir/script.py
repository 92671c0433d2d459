"""The wrapper script of a workpackage: the same on every platform.

It claims the workpackage by writing who runs it into ``claim``, created exclusively under
the shell's ``noclobber`` (a second copy of the same job exits 97 at once, so no job runs
twice even if it was submitted twice), runs the ``do`` commands in order (stopping at the
first failure), and writes its exit status — the engine's first source of truth. The status
is one line written by one ``write``; a reader takes it only once the newline is there, so a
half-written file is never read as a status. The wrapper starts no program of its own (no
``mkdir``, no ``mv``): on the local platform its cost is that of the user's commands plus
one shell.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from jubex.errors import DefinitionError
from jubex.language.confine import is_shell_name
from jubex.plain import dataclass

#: exit status of a wrapper that found its workpackage already claimed
ALREADY_CLAIMED = 97
CLAIM, EXIT, BODY, JOB, DO = "claim", "exit", "body.sh", "job.sh", "do.sh"
#: "1" while the wrapper only waits for a done file (it then holds no local slot), else "0"
WAITING = "waiting"
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


def _command(cmd: Command, admin: Path) -> str:
    q = shlex.quote
    text = cmd.text.rstrip("\n")
    redirect = ""
    if cmd.stdout:
        redirect += f" >>{q(cmd.stdout)}"
    if cmd.stderr:
        redirect += f" 2>>{q(cmd.stderr)}"
    if cmd.work_dir:
        # created when missing, as JUBE creates a command's work_dir
        text = f"mkdir -p {q(cmd.work_dir)} && cd {q(cmd.work_dir)} || exit $?\n{text}"
        lines = [f"(\n{text}\n){redirect} || exit $?"]
    else:
        lines = [f"{{\n{text}\n}}{redirect} || exit $?"]
    error = q(cmd.error_file) if cmd.error_file else None
    if cmd.done_file:
        wait_for = f"[ ! -e {q(cmd.done_file)} ]" + (f" && [ ! -e {error} ]" if error else "")
        waiting = q(str(admin / WAITING))
        lines.append(f"echo 1 > {waiting}")
        lines.append(f"while {wait_for}; do sleep {MARKER_POLL}; done")
        lines.append(f"echo 0 > {waiting}")
    if error:
        lines.append(
            f'if [ -e {error} ]; then echo "error file {cmd.error_file} found" >&2; exit 1; fi'
        )
    if cmd.break_file:
        lines.append(f"if [ -e {q(cmd.break_file)} ]; then exit 0; fi")
    return "\n".join(lines)


def commands_block(commands: Sequence[Command], admin: Path) -> str:
    """The commands as one shell block: each runs only if all before it succeeded."""
    return "\n".join(_command(c, admin) for c in commands) + "\n" if commands else ":\n"


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
    setup: Sequence[str] = (),
) -> tuple[str, str | None]:
    """The wrapper's text, and the text of a separate do-script when a time limit applies.

    ``inherit`` lists the environment files of exporting parents, read first; with
    ``export`` the environment the commands leave behind is saved for dependent steps.
    ``setup`` lines open the block of commands (a failure among them fails the block).
    """
    q = shlex.quote
    for name, value in environment.items():
        if not is_shell_name(name):
            raise DefinitionError(f"cannot export {name!r} in step '{step}': not a shell name")
        if "\0" in str(value):
            raise DefinitionError(
                f"cannot export {name} in step '{step}': its value holds a NUL character"
            )
    sources = "".join(f". {q(str(path))}\n" for path in inherit)
    exports = sources + "".join(f"export {k}={q(str(v))}\n" for k, v in environment.items())
    block = "".join(f"{line}\n" for line in setup) + commands_block(commands, admin)
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
    text = (
        f"#!/bin/sh\n# jubex workpackage {wp_id} (step {step})\n"
        f"cd {q(str(workdir))} || exit 1\n"
        f"{_owner(local)}set -C\n"
        f'{{ echo "$jubex_owner" > {q(str(admin / CLAIM))}; }} 2>/dev/null'
        f" || exit {ALREADY_CLAIMED}\n"
        "set +C\n"
        f"{exports}{run}\n"
        "jubex_rc=$?\n"
        f"echo $jubex_rc > {q(str(admin / EXIT))}\n"
        "exit $jubex_rc\n"
    )
    return text, do_script


def _owner(local: bool) -> str:
    """How the wrapper names who runs it: its pid locally (even inside a batch allocation,
    whose job id would name the allocation), else the batch job (an array task as
    ``<array id>_<index>``)."""
    if local:
        return "jubex_owner=$$\n"
    return (
        "jubex_owner=${SLURM_ARRAY_JOB_ID:+${SLURM_ARRAY_JOB_ID}_$SLURM_ARRAY_TASK_ID}\n"
        "jubex_owner=${jubex_owner:-${SLURM_JOB_ID:-${PBS_JOBID:-$$}}}\n"
    )


def _read(admin: Path, name: str) -> str | None:
    """One of the wrapper's one-line files, or None when it is not there (yet).

    Read without pathlib: the engine asks for these for every running workpackage, every loop.
    """
    try:
        fd = os.open(f"{admin}/{name}", os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, 256).decode(errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def read_exit(admin: Path) -> int | None:
    """The exit status the wrapper wrote, or None when it has not (completely, yet)."""
    text = _read(admin, EXIT)
    if text is None or not text.endswith("\n"):
        return None
    try:
        return int(text)
    except ValueError:
        return None


def is_waiting(admin: Path) -> bool:
    """Whether the wrapper is waiting for a done file (and nothing else) right now."""
    return _read(admin, WAITING) == "1\n"


def read_owner(admin: Path) -> str | None:
    """Who claimed the workpackage (a pid or a batch job id), or None before the claim."""
    return (_read(admin, CLAIM) or "").strip() or None


def reset(admin: Path) -> None:
    """Forget a previous attempt so that the workpackage can run again."""
    for name in (EXIT, WAITING, CLAIM):
        (admin / name).unlink(missing_ok=True)


def release(admin: Path) -> bool:
    """Free a workpackage whose submission is in doubt; False if a copy holds its claim.

    The claim is taken first, exclusively, as a wrapper takes it: only a claim nobody holds
    is removed. A copy still on its way finds it taken (and exits 97) or, once it is gone,
    wins it against the fresh submission — either way one copy runs.
    """
    try:
        os.close(os.open(admin / CLAIM, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    except FileNotFoundError:
        return True  # never prepared (a crash right after the intent): nothing can run it
    (admin / EXIT).unlink(missing_ok=True)
    (admin / CLAIM).unlink()
    return True
