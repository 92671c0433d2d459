"""Where and how a JUBE run was made, as far as its run directory tells.

JUBE records little of it: its version (``configuration.xml``'s ``<jube version>``, and
each command's ``Version:`` line in ``parse.log``), its command lines (``Command:`` in
``parse.log``), when it started (``timestamps``) and the directory it ran in (the value of
``jube_benchmark_rundir`` in ``run.log``, and the paths in a failed workpackage's ``error``
file). It records neither the host nor the user. Logs are often deleted, and may be
large, so each is read only from its start, and whatever is missing is left unknown:
an imported run never names the machine that imports it as the one it ran on.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

#: bytes of a log read from its start (the facts sit in its first lines)
HEAD = 64 * 1024
_COMMAND = re.compile(r"^\[[^\]]*\]:\w+: Command: (.+)$", re.MULTILINE)
_VERSION = re.compile(r"^\[[^\]]*\]:\w+: Version: (\S+)$", re.MULTILINE)
#: a row of the parameter tables of ``run.log``: ``| name | value |`` (a value wrapped
#: over the next rows, whose name cell is empty, as Python's textwrap wraps it)
_ROW = re.compile(r"^\[[^\]]*\]:\w+:\s+\|\s*(\S*)\s*\|\s?(.*?)\s*\|$")
#: the width JUBE wraps a table cell at (its ``MAX_TABLE_CELL_WIDTH``)
CELL = 40
_ERROR_DIR = re.compile(r'in directory "(/[^"]+)/\d{6}_[^/"]+/work"')


@dataclass(frozen=True)
class JubeOrigin:
    """What the run directory says of where and how JUBE made the run ('' = not recorded)."""

    version: str = ""
    #: the first ``jube`` command line of ``parse.log``: the one that made the run
    command: str = ""
    #: the absolute directory the run ran in, and the file that says so
    directory: str = ""
    directory_from: str = ""
    #: seconds since the epoch JUBE started the run; 0 when not recorded
    started: float = 0.0


def read_origin(run: Path, version: str, failed_dirs: list[Path]) -> JubeOrigin:
    """The origin of the run directory ``run``; ``version`` is configuration.xml's and
    ``failed_dirs`` the directories of failed workpackages (their ``error`` files)."""
    parse_log = _head(run / "parse.log")
    commands = _COMMAND.findall(parse_log)
    versions = _VERSION.findall(parse_log)
    directory, said = _directory(run, failed_dirs)
    return JubeOrigin(
        version=(version or (versions[0] if versions else ""))[:40],
        command=commands[0].strip()[:400] if commands else "",
        directory=directory,
        directory_from=said,
        started=_started(run),
    )


def _directory(run: Path, failed_dirs: list[Path]) -> tuple[str, str]:
    logged = _table_value(_head(run / "run.log"), "jube_benchmark_rundir")
    if logged.startswith("/") and logged.endswith(f"/{run.name}"):
        return logged[:1000], "run.log"
    for folder in failed_dirs:
        found = _ERROR_DIR.search(_head(folder / "error"))
        if found:
            return found.group(1)[:1000], f"{folder.name}/error"
    return "", ""


def _table_value(log: str, name: str) -> str:
    """The value of ``name`` in the first parameter table of a JUBE log, its wrapped
    parts joined: directly after a hyphen or a full cell (textwrap broke a word there),
    else with the blank textwrap took away."""
    parts: list[str] = []
    for line in log.splitlines():
        row = _ROW.match(line)
        if parts and row and not row.group(1):
            joint = "" if parts[-1].endswith("-") or len(parts[-1]) >= CELL else " "
            parts.append(joint + row.group(2))
        elif parts:
            break
        elif row and row.group(1) == name:
            parts.append(row.group(2))
    return "".join(parts)


def _head(path: Path) -> str:
    """The start of a plain file as text; '' for a file that is not there or not plain."""
    if path.is_symlink() or not path.is_file():
        return ""
    try:
        with path.open("rb") as f:
            return f.read(HEAD).decode("utf-8", "replace")
    except OSError:
        return ""


def _started(run: Path) -> float:
    """When JUBE started the run (its ``timestamps`` file: ``start: 2026-11-26 20:47:29``)."""
    for line in _head(run / "timestamps").splitlines():
        key, _, when = line.partition(":")
        if key.strip() == "start":
            try:
                return time.mktime(time.strptime(when.strip(), "%Y-%m-%d %H:%M:%S"))
            except (ValueError, OverflowError):
                return 0.0
    return 0.0
