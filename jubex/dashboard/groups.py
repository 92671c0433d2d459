"""What a build keeps of each benchmark at each site, so that the next one need not read it.

A group's pages (its histories and their downloads, its runs' pages, its comparison) are
made from its runs, their failures, its site's annotations, the build's options and
jubex's code, nothing else: a published run never changes. A build stores a digest of
these beside the manifest (``.jubex-site-groups.json``) with the paths the group wrote and
what the listings and the feed show of it (its slimmed series, its comparison's verdict,
its notes). When the next build finds the same digest and those files as the manifest
has them, it keeps them and the stored summary and reads none of the group's samples: a
rebuild after a few new runs costs the groups they are in.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import jubex
from jubex.dashboard.jsontext import dumps
from jubex.dashboard.model import Compared, Dashboard, Entry, Series
from jubex.version import __version__

GROUPS = ".jubex-site-groups.json"

Group = tuple[str, str]


@dataclass
class Kept:
    """One group as a build left it: the digest of its inputs, its files, its summary."""

    digest: str
    files: list[str]
    series: list[Series]
    compared: list[Compared]
    notes: list[str]


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of jubex's own code and templates: another version may say other things
    of the same runs (a change point, a page's markup), so it builds every group again."""
    package = Path(jubex.__file__).parent
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".html", ".css", ".js") and path.is_file():
            digest.update(str(path.relative_to(package)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def digest_of(site: Dashboard, group: Group, options: Sequence[object]) -> str:
    """A digest of all a group's pages are made from (its samples are its runs')."""
    runs = site.groups[group]
    shown = [
        code_digest(),
        site.selector,
        list(group),
        list(options),
        site.annotations.get(group[1], []),
        [
            [r.id, r.label, r.created, r.fields, r.provenance, site.failures.get(r.id, [])]
            for r in (site.runs[run] for run in runs)
        ],
    ]
    text = dumps(shown, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def read(root: Path) -> dict[Group, Kept]:
    """The groups an earlier build kept; a missing, damaged or edited file keeps none (its
    summaries are shown unread, so a file whose checksum is not its content's is not used)."""
    try:
        found = json.loads((root / GROUPS).read_text(encoding="utf-8"))
        groups = found["groups"]
        if found["check"] != _checksum(groups):
            return {}
        return {(g["benchmark"], g["site"]): _kept(g) for g in groups}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _checksum(groups: object) -> str:
    return hashlib.sha256(json.dumps(groups, sort_keys=True).encode()).hexdigest()


def _kept(stored: dict[str, object]) -> Kept:
    series = []
    for s in stored["series"]:  # type: ignore[attr-defined]
        entries = [Entry(**e) for e in s.pop("entries")]
        series.append(Series(**s, entries=entries))
    return Kept(
        str(stored["digest"]),
        list(stored["files"]),  # type: ignore[call-overload]
        series,
        [Compared(**c) for c in stored["compared"]],  # type: ignore[attr-defined]
        list(stored["notes"]),  # type: ignore[call-overload]
    )


def write(root: Path, kept: dict[Group, Kept]) -> None:
    """Store what this build kept of each group, for the next one."""
    stored = [
        {
            "benchmark": benchmark,
            "site": site,
            "digest": k.digest,
            "files": k.files,
            "series": [asdict(s) for s in k.series],
            "compared": [
                {**asdict(c), "headers": [], "rows": []} for c in k.compared
            ],  # the listing shows its verdict; its table is on its own page
            "notes": k.notes,
        }
        for (benchmark, site), k in kept.items()
    ]
    temporary = root / f".{GROUPS}.tmp"
    document = {"check": _checksum(stored), "groups": stored}
    temporary.write_text(json.dumps(document), encoding="utf-8")
    os.replace(temporary, root / GROUPS)
