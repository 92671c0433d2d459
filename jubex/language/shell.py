"""Snippets a definition asks the shell to evaluate: shell-mode parameters and patterns.

JUBE's ``shell`` mode runs the snippet with ``/bin/sh -c`` and takes what it prints; its
``perl`` mode runs ``perl -e "print SNIPPET"`` the same way (:func:`perl_command`). A
snippet that fails is a definition error naming the snippet and what the interpreter said.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from jubex.errors import DefinitionError, Loc
from jubex.language.inspection import NOT_EVALUATED, inspecting

#: seconds a snippet may run before it counts as failed
SHELL_TIMEOUT = 300
#: lines of the interpreter's error output a message shows (JUBE shows five)
MESSAGE_LINES = 5


def perl_command(snippet: str) -> str:
    """The shell command JUBE runs for a perl-mode snippet."""
    return f'perl -e "print {snippet}"'


def run_snippet(command: str, what: str, loc: Loc | None, cwd: Path | None = None) -> str:
    """What ``/bin/sh -c command`` prints; ``what`` names the owner in a failure's message.
    Nothing runs when the command only looks (:mod:`jubex.language.inspection`)."""
    if inspecting():
        return NOT_EVALUATED
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            capture_output=True,
            text=True,
            timeout=SHELL_TIMEOUT,
            cwd=cwd if cwd is not None and cwd.is_dir() else None,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DefinitionError(f"{what}: command '{command}' could not run: {exc}", loc) from None
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        said = "; ".join(line.strip() for line in lines[:MESSAGE_LINES])
        raise DefinitionError(
            f"{what}: command '{command}' failed with exit status {done.returncode}"
            + (f": {said}" if said else ""),
            loc,
        )
    return done.stdout
