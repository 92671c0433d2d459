"""What may reach a shell line or a path: one line of text, a shell name, a path that stays in.

A job-script directive (``#SBATCH``, ``#PBS``) is a comment to the shell, so its value cannot
be quoted: a newline in it starts a new line, which the shell runs. Values bound for
directives are therefore refused when they hold a control character. Paths a definition
names relative to a work directory are refused when they climb out of it (``..``) or are
absolute; :func:`inside` asks the file system, so a symbolic link that leads out is caught
too. A path longer than the system takes (:func:`too_long`) is refused before anything
resolves it, component by component, in time that grows with its length.
"""

from __future__ import annotations

import os
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NAMES = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab", "\0": "a NUL character"}


def control_character(text: str) -> str | None:
    """How to name the first character that breaks a line or is not printable, or None.

    Line and paragraph separators count: some readers split lines at them.
    """
    for char in text:
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            return _NAMES.get(char, f"the control character U+{ord(char):04X}")
    return None


def is_shell_name(name: str) -> bool:
    """Whether ``name`` can be exported by a POSIX shell (``export NAME=...``)."""
    return bool(_SHELL_NAME.match(name))


def escapes(path: str) -> str | None:
    """Why a path meant relative to a directory leads outside it, or None when it stays in.

    ``a/../b`` stays in; ``../b``, ``a/../../b`` and ``/b`` do not. Only the text is read:
    symbolic links are :func:`inside`'s concern.
    """
    if os.path.isabs(path):
        return "is an absolute path"
    depth = 0
    for part in path.split(os.sep):
        if part == "..":
            depth -= 1
            if depth < 0:
                return "climbs out with '..'"
        elif part not in ("", "."):
            depth += 1
    return None


def inside(path: Path, root: Path) -> bool:
    """Whether ``path``, every symbolic link on the way followed, lies in ``root``."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


@lru_cache(maxsize=1)
def _limits() -> tuple[int, int]:
    """The system's longest path and longest file name, in bytes (PATH_MAX, NAME_MAX)."""

    def ask(name: str, fallback: int) -> int:
        try:
            return os.pathconf("/", name)
        except (OSError, ValueError):
            return fallback

    return ask("PC_PATH_MAX", 4096), ask("PC_NAME_MAX", 255)


def too_long(path: str | os.PathLike[str]) -> str | None:
    """Why the operating system cannot take ``path``, or None: longer than PATH_MAX, or a
    part longer than NAME_MAX (both asked of the system with ``os.pathconf``)."""
    data = os.fspath(path).encode("utf-8", "surrogatepass")
    path_max, name_max = _limits()
    if len(data) >= path_max:
        return (
            f"is a path of {len(data):,} bytes, more than this system takes "
            f"({path_max - 1:,}, PATH_MAX)"
        )
    longest = max(data.split(os.sep.encode()), key=len)
    if len(longest) > name_max:
        return (
            f"has a part of {len(longest):,} bytes, more than this system takes in one "
            f"file name ({name_max:,}, NAME_MAX)"
        )
    return None
