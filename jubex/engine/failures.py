"""Why workpackages failed, grouped: one line per cause instead of one block per failure.

A failed workpackage's cause is its reason (exit status, time limit, vanished job) and the
one line of its output that explains it: the first error-looking line of ``stderr``, else
of ``stdout`` (a program banner or an MPI abort trailer is not the explanation), quoted
whole when the program wrapped it over lines; a launcher's warning that it ignores something
is not it, and a full file system named anywhere is. Thirty-six workpackages failing on
``ior: not found`` are one cause, counted; so are causes that differ only in a path or a
number (a process id, a rank, a directory of each workpackage).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from jubex.language.messages import NOISE, ROOT_CAUSES, masked, whole_sentence
from jubex.store.rundir import Run, wp_dir_of
from jubex.store.store import FAILED

#: words of a line that says what went wrong
_ERROR = re.compile(
    r"\b(error|errors|not found|no such|cannot|can't|could not|couldn't|unable|failed|fatal|"
    r"denied|invalid|unknown|abort(ed)?|killed|segmentation|exception|traceback|"
    r"out of memory|oom|refused|timed? ?out|undefined|unrecognized|missing)\b",
    re.IGNORECASE,
)
#: the shell's prefix of its own messages: ``/path/do.sh: 3: `` or ``sh: line 1: ``
_SHELL_PREFIX = re.compile(r"^(?:/\S+|-?(?:ba|da|z)?sh): (?:line )?\d+: ")
#: the longest explaining line kept
WIDTH = 400
#: the bytes of an output file read from its end (a huge log is not read whole)
READ = 256 * 1024


@dataclass
class Cause:
    """Workpackages of one step that failed for the same reason with the same line."""

    step: str
    reason: str
    line: str
    ids: list[int] = field(default_factory=list)
    workdir: str = ""

    @property
    def text(self) -> str:
        return f"{self.reason}: {self.line}" if self.line else self.reason


def _lines(path: Path) -> list[str]:
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - READ))
            return handle.read().decode(errors="replace").splitlines()
    except OSError:
        return []


def explaining_line(stderr: Iterable[str], stdout: Iterable[str] = ()) -> str:
    """The first error-looking line of stderr, else of stdout, else stderr's last line;
    with the lines that finish its sentence; a line naming a root cause before all."""
    err = [line.strip() for line in stderr if line.strip()]
    out = [line.strip() for line in stdout if line.strip()]
    for lines in (err, out):
        for line in lines:
            if any(cause in line for cause in ROOT_CAUSES):
                return _short(line)
    for lines in (err, out):
        for index, line in enumerate(lines):
            if _ERROR.search(line) and not NOISE.search(line):
                return _short(" ".join(whole_sentence(lines, index)))
    return _short(err[-1]) if err else ""


def _short(line: str) -> str:
    """The line without the shell's prefix, cut at its last sentence within :data:`WIDTH`."""
    line = _SHELL_PREFIX.sub("", line)
    if len(line) <= WIDTH:
        return line
    end = line.rfind(". ", 0, WIDTH - 3)
    return line[: end + 1] if end > WIDTH // 2 else line[: WIDTH - 3] + "..."


def failure_causes(run: Run) -> list[Cause]:
    """The run's failed workpackages grouped by step, reason and explaining line (paths and
    numbers masked: the first workpackage's line stands for the group); the largest first."""
    causes: dict[tuple[str, str, str], Cause] = {}
    # a JUBE run's reasons are JUBE's messages, which name each workpackage's directory
    imported = bool(run.meta.get("imported_from"))
    for wp in run.store.workpackages(states=[FAILED]):
        work = wp_dir_of(run.dir, wp) / "work"
        line = explaining_line(_lines(work / "stderr"), _lines(work / "stdout"))
        key = (wp.step, masked(wp.reason) if imported else wp.reason, masked(line))
        cause = causes.setdefault(key, Cause(wp.step, wp.reason, line, workdir=str(work)))
        cause.ids.append(wp.id)
    return sorted(causes.values(), key=lambda c: (-len(c.ids), c.step, min(c.ids)))


def id_list(ids: list[int], shown: int = 8) -> str:
    """``3, 7, 11 and 33 more``: a list of ids that stays one line."""
    text = ", ".join(str(i) for i in sorted(ids)[:shown])
    return text + (f" and {len(ids) - shown} more" if len(ids) > shown else "")
