"""Writing the site: a page is written only when its content changed.

A manifest (``.jubex-site.json``) keeps the SHA-256 of every file the site holds; a build
compares each file's new content with it, writes the ones that differ, and removes the
files an earlier build made that this one no longer makes. A page of which there are many
(a run's) is not even rendered when a digest of what it shows (``.jubex-site-inputs.json``)
is the one it was written from. So after a few new runs only
their pages, the series they extend and the listings are written again, and a web server
or a sync to GitLab Pages moves only those.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jubex.errors import UsageError

MANIFEST = ".jubex-site.json"
#: the digest of what each page rendered only when it changed was made from
INPUTS = ".jubex-site-inputs.json"


@dataclass
class SiteWriter:
    """Writes into ``root``; counts what it wrote, left alone and removed."""

    root: Path
    known: dict[str, str] = field(default_factory=dict)
    made: dict[str, str] = field(default_factory=dict)
    known_inputs: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    #: every path this build made, in the order it made them
    log: list[str] = field(default_factory=list)
    written: int = 0
    unchanged: int = 0
    removed: int = 0

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
        inputs = _read(root / INPUTS) if known else {}
        return cls(root, known if isinstance(known, dict) else {}, known_inputs=inputs)

    def put(self, path: str, content: str | bytes) -> None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        digest = hashlib.sha256(data).hexdigest()
        self.made[path] = digest
        self.log.append(path)
        target = self.root / path
        if self.known.get(path) == digest and target.exists():
            self.unchanged += 1
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)
        self.written += 1

    def put_rendered(self, path: str, inputs: str, render: Callable[[], str]) -> None:
        """A page rendered only when ``inputs`` (a digest of all it shows) differs from
        the one its file was written from: else the file is left as it is, unread."""
        self.inputs[path] = inputs
        if (
            self.known_inputs.get(path) == inputs
            and path in self.known
            and (self.root / path).exists()
        ):
            self.made[path] = self.known[path]
            self.log.append(path)
            self.unchanged += 1
            return
        self.put(path, render())

    def keep(self, paths: Sequence[str]) -> bool:
        """Keep the files an earlier build wrote, unread, as they are: False (and nothing
        kept) when one of them is missing from the manifest or from the directory."""
        if not all(path in self.known and (self.root / path).exists() for path in paths):
            return False
        for path in paths:
            self.made[path] = self.known[path]
            if path in self.known_inputs:
                self.inputs[path] = self.known_inputs[path]
            self.log.append(path)
        self.unchanged += len(paths)
        return True

    def close(self) -> None:
        """Remove what the last build made and this one did not; keep the manifest."""
        for path in set(self.known) - set(self.made):
            (self.root / path).unlink(missing_ok=True)
            self.removed += 1
        (self.root / INPUTS).write_text(json.dumps(self.inputs, sort_keys=True), encoding="utf-8")
        (self.root / MANIFEST).write_text(json.dumps(self.made, sort_keys=True), encoding="utf-8")


def _read(path: Path) -> dict[str, str]:
    """A manifest as an earlier build left it; a missing or damaged one is an empty one
    (every page is then rendered again)."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}
