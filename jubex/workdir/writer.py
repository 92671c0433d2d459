"""What rendering a workpackage does to the file system, done or only recorded.

Rendering is one function for the real run and the dry run; it asks a writer for every
directory, link, copy, prepare command, substitution and script. :class:`DiskWriter` does
them; :class:`DryWriter` records them so that a dry run shows exactly what a run would do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from jubex.definition.model import FileOp
from jubex.errors import DefinitionError, DefinitionWarning, JubexError, Loc, warn
from jubex.language.confine import inside

#: how a dry run notes what would stop a run (a file an operation needs is missing)
STOPS = " (a run stops here)"


@dataclass(frozen=True)
class Confine:
    """Where a file operation must stay, following symbolic links: ``root`` (a work
    directory). ``strict``: refuse a path that leads out; else (a JUBE file, which writes
    wherever it is told) warn and go on."""

    root: Path
    loc: Loc | None = None
    strict: bool = True

    def check(self, path: Path) -> None:
        if inside(path, self.root):
            return
        message = (
            f"{path} leads outside the work directory {self.root} "
            f"(to {os.path.realpath(path)}, through a symbolic link)"
        )
        if self.strict:
            raise DefinitionError(message, self.loc, "set outside: true on the entry to allow it")
        warn(DefinitionWarning(message, self.loc))


class Writer(Protocol):
    """The file-system effects of rendering one workpackage."""

    def make_dirs(self, *dirs: Path, within: Confine | None = None) -> None: ...

    def symlink(self, source: Path, link: Path, *, within: Confine | None = None) -> None: ...

    def copy(self, source: Path, target: Path, *, within: Confine | None = None) -> None: ...

    def run_prepare(self, command: str, where: Path, out: Path, err: Path, op: FileOp) -> None: ...

    def substitute(
        self,
        source: Path,
        target: Path,
        replace: Sequence[tuple[str, str, bool]],
        mode: str,
        *,
        within: Confine | None = None,
    ) -> None: ...

    def write(self, path: Path, text: str) -> None: ...

    def missing(self, problem: JubexError) -> None:
        """A file an operation needs is not there: a run stops, a dry run notes it."""
        ...

    def append_log(self, path: Path, header: str, text: str, *, fresh: bool) -> None: ...


class DiskWriter:
    """Makes what rendering asks for."""

    def make_dirs(self, *dirs: Path, within: Confine | None = None) -> None:
        """Create directories with as few system calls as the common case needs."""
        for path in dirs:
            if within:
                within.check(path)
            try:
                os.mkdir(path)
            except FileExistsError:
                pass
            except FileNotFoundError:
                path.mkdir(parents=True, exist_ok=True)

    def symlink(self, source: Path, link: Path, *, within: Confine | None = None) -> None:
        if link.is_symlink() or link.exists():
            return
        if within:
            within.check(link.parent)
        link.symlink_to(os.path.relpath(source, link.parent))

    def copy(self, source: Path, target: Path, *, within: Confine | None = None) -> None:
        """Copy a file or a tree; with ``within``, every file written is checked first (a
        link an earlier operation placed in the work directory may lead out)."""

        def checked(src: str, dst: str) -> object:
            if within:
                within.check(Path(dst))
            return shutil.copy2(src, dst)

        if source.is_dir():
            if within:
                within.check(target)
            shutil.copytree(
                source, target, symlinks=True, dirs_exist_ok=True, copy_function=checked
            )
        else:
            checked(str(source), str(target))

    def run_prepare(self, command: str, where: Path, out: Path, err: Path, op: FileOp) -> None:
        """Run a prepare command as JUBE does, its output appended to ``out`` and ``err``."""
        try:
            where.mkdir(parents=True, exist_ok=True)
            with open(out, "a") as stdout, open(err, "a") as stderr:
                done = subprocess.run(
                    ["/bin/sh", "-c", command], cwd=where, stdout=stdout, stderr=stderr, check=False
                )
            text = err.read_text(errors="replace") if done.returncode else ""
        except OSError as exc:
            raise DefinitionError(
                f"prepare command '{command}' could not run: {exc}", op.loc
            ) from None
        if done.returncode != 0:
            last = text.strip().splitlines()[-1:]
            raise DefinitionError(
                f"prepare command '{command}' failed with exit status {done.returncode}"
                + (f": {last[0]}" if last else ""),
                op.loc,
                f"its output is in {out} and {err}",
            )

    def substitute(
        self,
        source: Path,
        target: Path,
        replace: Sequence[tuple[str, str, bool]],
        mode: str,
        *,
        within: Confine | None = None,
    ) -> None:
        """Replace placeholders: literally, or by pattern where the third item is true."""
        if within:
            within.check(target)
        try:
            text = source.read_text()
        except OSError as exc:
            raise JubexError(
                f"substitution source '{source}' cannot be read: {exc.strerror}"
            ) from None
        for old, new, regex in replace:
            text = re.sub(old, _literal(new), text) if regex else text.replace(old, new)
        with open(target, mode if mode in ("w", "a") else "w") as out:
            out.write(text)

    def write(self, path: Path, text: str) -> None:
        """Write a whole file with one system call where it fits (a wrapper script per
        workpackage: the text layers of ``open`` cost more than the write)."""
        data = text.encode()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
            try:
                while data:
                    data = data[os.write(fd, data) :]
            finally:
                os.close(fd)
        except OSError as exc:
            raise JubexError(f"cannot write {path}: {exc.strerror}") from None

    def append_log(self, path: Path, header: str, text: str, *, fresh: bool) -> None:
        """Append to a log, ``header`` first when it is new; ``fresh`` starts it anew."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if fresh:
                path.unlink(missing_ok=True)
            with open(path, "a") as log:
                if log.tell() == 0:
                    log.write(header)
                log.write(text)
        except OSError as exc:
            raise JubexError(f"cannot write the do log {path}: {exc.strerror}") from None

    def missing(self, problem: JubexError) -> None:
        raise problem


class DryWriter:
    """Records what rendering would do, one line per effect, and writes nothing."""

    def __init__(self) -> None:
        self.actions: list[str] = []
        self.files: dict[Path, str] = {}

    def make_dirs(self, *dirs: Path, within: Confine | None = None) -> None:
        self.actions += [f"mkdir {d}" for d in dirs]

    def symlink(self, source: Path, link: Path, *, within: Confine | None = None) -> None:
        self.actions.append(f"link {link} -> {source}")

    def copy(self, source: Path, target: Path, *, within: Confine | None = None) -> None:
        self.actions.append(f"copy {source} -> {target}")

    def run_prepare(self, command: str, where: Path, out: Path, err: Path, op: FileOp) -> None:
        self.actions.append(f"prepare (in {where}): {command}")

    def substitute(
        self,
        source: Path,
        target: Path,
        replace: Sequence[tuple[str, str, bool]],
        mode: str,
        *,
        within: Confine | None = None,
    ) -> None:
        pairs = ", ".join(f"{old!r} -> {new!r}" for old, new, _ in replace)
        self.actions.append(f"substitute {source} -> {target}: {pairs}")

    def write(self, path: Path, text: str) -> None:
        self.actions.append(f"write {path}")
        self.files[path] = text

    def append_log(self, path: Path, header: str, text: str, *, fresh: bool) -> None:
        self.actions.append(f"append to the do log {path}")

    def missing(self, problem: JubexError) -> None:
        self.actions.append(f"{problem.message}{STOPS}")


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` replacement that puts ``text`` in as it is (no group references)."""
    return lambda _match: text
