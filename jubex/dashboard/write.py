"""Writing the site: a page is written only when its content changed.

A manifest (``.jubex-site.json``) keeps the SHA-256 of every file the site holds; a build
compares each file's new content with it, writes the ones that differ, and removes the
files an earlier build made that this one no longer makes. So after a few new runs only
their pages, the series they extend and the listings are written again, and a web server
or a sync to GitLab Pages moves only those.

A file that replaces another is written beside it and renamed into place, so that a web
server serving the site never sends half of one. A file that is new is written where it
belongs at once: nothing links to it before the pages that do are written after it (a
group writes its runs' pages and downloads before its histories, the listings come last).
The rename of every file was an eighth of the system time of a build of 10,000 runs on a
local disk, and is one more metadata operation on a parallel file system.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jubex.errors import UsageError

MANIFEST = ".jubex-site.json"


@dataclass
class SiteWriter:
    """Writes into ``root``; counts what it wrote, left alone and removed."""

    root: Path
    known: dict[str, str] = field(default_factory=dict)
    made: dict[str, str] = field(default_factory=dict)
    #: every path this build made, in the order it made them
    log: list[str] = field(default_factory=list)
    written: int = 0
    unchanged: int = 0
    removed: int = 0
    #: the directories this writer made or found, each made once
    _directories: set[Path] = field(default_factory=set)

    @classmethod
    def open(cls, root: Path) -> SiteWriter:
        """A writer into ``root``: a new directory, or one an earlier build made."""
        if root.exists() and not root.is_dir():
            raise UsageError(f"{root} is a file: expected a directory for the site")
        manifest = root / MANIFEST
        known: dict[str, str] = {}
        if manifest.exists():
            try:
                known = json.loads(manifest.read_text(encoding="utf-8"))
            except ValueError:
                known = {}
        elif root.exists() and any(root.iterdir()):
            raise UsageError(
                f"{root} holds files jubex did not write ({MANIFEST} is missing)",
                hint="give a new or empty directory, or the directory of an earlier jubex site",
            )
        return cls(root, known if isinstance(known, dict) else {})

    def put(self, path: str, content: str | bytes) -> None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        digest = hashlib.sha256(data).hexdigest()
        self.made[path] = digest
        self.log.append(path)
        target = self.root / path
        if self.known.get(path) == digest and target.exists():
            self.unchanged += 1
            return
        if target.parent not in self._directories:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._directories.add(target.parent)
        self.written += 1
        if path not in self.known and _created(target, data):
            return
        temporary = target.with_name(f".{target.name}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)

    def keep(self, paths: Sequence[str]) -> bool:
        """Keep the files an earlier build wrote, unread, as they are: False (and nothing
        kept) when one of them is missing from the manifest or from the directory."""
        if not all(path in self.known and (self.root / path).exists() for path in paths):
            return False
        for path in paths:
            self.made[path] = self.known[path]
            self.log.append(path)
        self.unchanged += len(paths)
        return True

    def merge(self, other: SiteWriter) -> None:
        """Count what ``other`` (a writer of a part of the site) made as made here."""
        self.made.update(other.made)
        self.log += other.log
        self.written += other.written
        self.unchanged += other.unchanged

    def close(self) -> None:
        """Remove what the last build made and this one did not; keep the manifest."""
        for path in set(self.known) - set(self.made):
            (self.root / path).unlink(missing_ok=True)
            self.removed += 1
        (self.root / MANIFEST).write_text(json.dumps(self.made, sort_keys=True), encoding="utf-8")


def _created(target: Path, data: bytes) -> bool:
    """``data`` written as the new file ``target``; False (nothing written) where a file
    of that name is there already."""
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return False
    with open(descriptor, "wb") as out:
        out.write(data)
    return True
