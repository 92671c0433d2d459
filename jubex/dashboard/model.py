"""What the dashboard shows, as plain values: runs, series of a metric at a point, changes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


def slug(*parts: object) -> str:
    """A file name for a page of these parts: short, safe on every file system, stable."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:16]


@dataclass
class RunInfo:
    """One published run: the ``runs`` row's fields the pages show."""

    id: int
    label: str
    benchmark: str
    site: str
    filesystem: str
    created: float
    fields: dict[str, str]
    provenance: dict[str, object]

    @property
    def page(self) -> str:
        return f"runs/{self.id}.html"


@dataclass(slots=True)
class Entry:
    """One run of a series: its repetitions and what ``jubex history`` said of it (with
    their least and greatest where it worked them out: None, not known)."""

    run: int
    created: float
    values: list[float]
    mean: float | None
    std: float | None
    change: float | None = None
    p_adjusted: float | None = None
    mark: str | None = None
    low: float | None = None
    high: float | None = None


@dataclass
class Series:
    """A metric at one point of a benchmark at a site, oldest run first."""

    benchmark: str
    site: str
    filesystem: str
    metric: str
    unit: str
    higher_is_better: bool | None
    point: dict[str, str]
    entries: list[Entry] = field(default_factory=list)
    #: how many runs the series holds (its entries may be kept in part: :meth:`slim`)
    count: int = 0

    @property
    def page(self) -> str:
        name = slug(self.benchmark, self.site, self.metric, sorted(self.point.items()))
        return f"history/{name}.html"

    @property
    def point_text(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.point.items()) or "(one point)"

    def slim(self, latest: int) -> None:
        """Keep only what the listings and the feed read once the series' own pages are
        written: its ``latest`` runs with a mean and its change points, without their
        repetitions (a build of many runs holds one history's samples at a time)."""
        self.count = len(self.entries)
        newest: list[int] = []  # the indices of the ``latest`` runs with a mean, newest first
        for index in range(len(self.entries) - 1, -1, -1):
            if len(newest) == latest:
                break
            if self.entries[index].mean is not None:
                newest.append(index)
        kept = set(newest)
        self.entries = [e for i, e in enumerate(self.entries) if i in kept or e.mark]
        for e in self.entries:
            e.values, e.low, e.high = [], None, None

    def open_regression(self) -> Entry | None:
        """The last change point when it went the bad way: nothing better came after it."""
        marked = [e for e in self.entries if e.mark]
        return marked[-1] if marked and marked[-1].mark == "worse" else None


@dataclass
class Compared:
    """``jubex compare`` of a benchmark's two latest runs at a site: its table and verdict."""

    benchmark: str
    site: str
    baseline: int
    candidate: int
    headers: list[str]
    rows: list[list[object]]
    verdict: str
    status: int

    @property
    def page(self) -> str:
        return f"compare/{slug(self.benchmark, self.site)}.html"


@dataclass
class Dashboard:
    """All a site shows."""

    selector: str
    runs: dict[int, RunInfo]
    series: list[Series]
    compared: list[Compared]
    annotations: dict[str, list[tuple[float, str]]]
    failures: dict[int, list[dict[str, object]]]
    notes: list[str]
    #: each benchmark at each site: its runs, oldest first
    groups: dict[tuple[str, str], list[int]] = field(default_factory=dict)
