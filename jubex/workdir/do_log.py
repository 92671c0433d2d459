"""JUBE's do log (``<step do_log_file>``): a shell script that mimics a workpackage.

JUBE appends each command to the log just before it runs it; jubex knows the commands when
it prepares the workpackage, so it writes the same text then: ``#!/bin/sh``, the
environment the commands start with as JUBE writes it (``set NAME='value'``), and for every
cycle a ``cd`` into the directory the commands run in (again whenever a command's
``work_dir`` changes it) followed by the commands, a shared one marked ``# shared
execution``. A command that fails or a ``break_file`` ends the workpackage before the
commands after it; the log still lists them, since it is written before anything runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from jubex.errors import DefinitionError, Loc
from jubex.language.template import template
from jubex.workdir.script import Command
from jubex.workdir.writer import Writer

#: the shell JUBE runs commands with, and so names in the log's first line
SHELL = "/bin/sh"


def log_path(name: str, wp_dir: Path, env: Mapping[str, object], loc: Loc | None) -> Path:
    """Where the log goes, by JUBE's rule: a plain name into the workpackage's directory, an
    absolute path as it is, any other path relative to where jubex was started."""
    text = os.path.expandvars(os.path.expanduser(template(name, loc).render(env)))
    if "$" in text:
        raise DefinitionError(
            f"do_log_file '{text}' names a parameter or environment variable that is not set",
            loc,
        )
    if text.endswith("/"):
        raise DefinitionError(f"do_log_file '{text}' ends with '/', which names no file", loc)
    if os.path.isabs(text):
        return Path(text)
    return wp_dir / text if "/" not in text else Path.cwd() / text


def header(environment: Mapping[str, str]) -> str:
    """The first lines JUBE writes: the shell, then every variable of the environment."""
    lines = [f"#!{SHELL}", ""]
    lines += [
        f"set {name}='" + value.replace("\n", "\\n") + "'" for name, value in environment.items()
    ]
    return "\n".join([*lines, "", ""])


def body(cycles: Sequence[Sequence[Command]], workdir: Path, shared: bool = False) -> str:
    """Each cycle's commands, each after a ``cd`` when it runs somewhere new in its cycle."""
    lines = []
    for commands in cycles:
        here = None
        for command in commands:
            text = command.text.strip(";")
            if not text.strip():
                continue
            where = os.path.abspath(command.work_dir or workdir)
            if where != here:
                lines.append(f"cd {where}")
                here = where
            lines.append(text + (" # shared execution" if shared else ""))
    return "".join(line + "\n" for line in lines)


def write_do_log(
    writer: Writer,
    path: Path,
    environment: Mapping[str, str],
    cycles: Sequence[Sequence[Command]],
    workdir: Path,
    *,
    shared: bool = False,
    fresh: bool = False,
) -> None:
    """Append the workpackage's part to the log, starting it with :func:`header` when new.

    ``fresh``: the log belongs to this workpackage alone, so a preparation that is repeated
    (after a crash) writes it anew instead of appending a second copy.
    """
    text = body(cycles, workdir, shared)
    if text:
        writer.append_log(path, header(environment), text, fresh=fresh)
