"""The shell lines that run a workpackage's commands under Darshan.

They open the block of commands the wrapper runs (so a module that fails to load fails the
workpackage, its status recorded): load the module, place the log in the work directory
(``DARSHAN_LOGFILE``, one fixed name the ``darshan`` analyser reads), instrument programs
without MPI too (``DARSHAN_ENABLE_NONMPI``, for the bundled kernels and fio, unless a
program needs libmpi: an MPI program told so keeps one rank's log) and preload the
library. Darshan creates the log exclusively at a program's end, so the first instrumented
program to end writes it: the launchers, shells and small tools a step runs around the
benchmark are left out (``DARSHAN_APP_EXCLUDE``). A program already linked against
libdarshan (IOR's ``--enable-darshan``) is not preloaded as well: two copies of the same
wrappers clash.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from jubex.definition.darshan import Darshan
from jubex.workdir.elf import needed
from jubex.workdir.script import Command

#: each workpackage's log, in its work directory
LOG_NAME = "darshan.log"
#: programs around a benchmark that must not write the log (Darshan matches argv[0])
SKIPPED = (
    *("mpirun", "mpiexec", "orterun", "prterun", "prted", "orted", "hydra_pmi_proxy"),
    *("srun", "aprun", "jsrun", "flux", "timeout", "env", "sh", "bash", "dash"),
    *("cat", "echo", "mkdir", "rm", "cp", "mv", "ln", "touch", "ls", "sleep", "tee", "sync"),
    "darshan-parser",
)
APP_EXCLUDE = f"(^|/)({'|'.join(SKIPPED)})$"


def darshan_lines(darshan: Darshan, workdir: Path, commands: Sequence[Command]) -> list[str]:
    """The lines, each value shell-quoted, that put this workpackage's commands under Darshan."""
    q = shlex.quote
    programs = [(path, _needed(path)) for path in _programs(commands, workdir)]
    linked = darshan.linked or any(_is_darshan(lib) for _, libs in programs for lib in libs)
    mpi = any(lib.startswith("libmpi") for _, libs in programs for lib in libs)
    lines = [f"module load {q(darshan.module)} || exit $?"] if darshan.module else []
    log = q(str(workdir / LOG_NAME))
    # Darshan leaves a log that is there already as it was: a work directory set by the
    # step may hold an earlier one
    lines += [f"rm -f {log}", f"export DARSHAN_LOGFILE={log}"]
    if not mpi:
        # an MPI program told this keeps one rank's records of many (measured: half the
        # bytes of two ranks), so it is said only where no program needs libmpi
        lines.append("export DARSHAN_ENABLE_NONMPI=1")
    lines.append(f"export DARSHAN_APP_EXCLUDE={q(APP_EXCLUDE)}")
    if darshan.library and not linked:
        lines.append(f'export LD_PRELOAD={q(darshan.library)}"${{LD_PRELOAD:+:$LD_PRELOAD}}"')
    return lines


def linked_program(commands: Sequence[Command], workdir: Path) -> Path | None:
    """A program the commands start that is linked against libdarshan, if one is there now."""
    return next(
        (p for p in _programs(commands, workdir) if any(map(_is_darshan, _needed(p)))), None
    )


def _programs(commands: Sequence[Command], workdir: Path) -> Iterator[Path]:
    """The programs the commands start that are there now, launchers and shells left out.

    A word of a command is a program when it names an executable file (a path from the
    work directory, or a name on ``PATH``). A program a parent step has yet to build is not
    there yet when the workpackage is rendered before the parent ran (a batch job that
    waits on it): such a step says ``darshan: linked`` itself where it must.
    """
    skipped = re.compile(APP_EXCLUDE)
    for command in commands:
        for word in _words(command.text):
            program = _program(word, str(command.work_dir or workdir))
            if program is not None and not skipped.search(str(program)):
                yield program


def _is_darshan(library: str) -> bool:
    """libdarshan.so itself (``libdarshan-util.so``, which darshan-parser needs, is not)."""
    return library == "libdarshan.so" or library.startswith("libdarshan.so.")


def _words(text: str) -> Iterable[str]:
    try:
        words = shlex.split(text, comments=True)
    except ValueError:  # unbalanced quotes: the shell will say so
        words = text.split()
    return (w for w in words if w and not w.startswith("-") and "=" not in w)


def _program(word: str, where: str) -> Path | None:
    if "/" in word:
        path = Path(where, word)
        return path if path.is_file() else None
    found = _which(word)
    return Path(found) if found else None


@lru_cache(maxsize=4096)
def _which(word: str) -> str | None:
    return shutil.which(word)


def _needed(path: Path) -> tuple[str, ...]:
    try:
        stat = path.stat()
    except OSError:
        return ()
    return _needed_of(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=1024)
def _needed_of(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """Read once per version of a program (many workpackages start the same one)."""
    return needed(Path(path))
