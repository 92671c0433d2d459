"""A definition file as bytes: read, told XML or not, and what tells one version of it from
another.

Below the loader and JUBE's reader, which both read files: the loader hands a JUBE file to
the reader, and the reader never calls back into the loader.
"""

from __future__ import annotations

from pathlib import Path

from jubex.errors import DefinitionError, no_such_file


def read_bytes(path: Path) -> tuple[bytes, bool]:
    """A definition file's bytes, and whether it is XML (told by content, as JUBE does)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise no_such_file(path) from None
    except OSError as exc:
        raise DefinitionError(f"cannot read '{path}': {exc.strerror or exc}") from None
    return data, data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def file_identity(path: Path) -> tuple[object, ...] | None:
    """What tells one version of a file from another (None: it cannot be looked at), so that
    a file holding N benchmarks is read once, not once per benchmark (N² at N = 1,000)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return (str(path.resolve()), stat.st_dev, stat.st_ino, stat.st_mtime_ns, stat.st_size)
