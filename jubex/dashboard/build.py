"""``jubex site``: the whole site from the results database, only changed files written."""

from __future__ import annotations

import csv
import gc
import io
import json
import math
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from jubex.collector import paused
from jubex.dashboard import groups, pages
from jubex.dashboard.assets import chart_scripts, own
from jubex.dashboard.collect import collect, history_of
from jubex.dashboard.feed import feed
from jubex.dashboard.floats import finite_texts
from jubex.dashboard.model import Compared, Dashboard, Series
from jubex.dashboard.parallel import cores, in_order
from jubex.dashboard.run_page import run_pages
from jubex.dashboard.write import SiteWriter
from jubex.resultsdb.connect import Database


@dataclass(frozen=True)
class Built:
    """What a build did: files written, left as they were, removed; what the site shows."""

    root: Path
    written: int
    unchanged: int
    removed: int
    runs: int
    series: int
    change_points: int


def build(
    selector: str,
    root: Path,
    *,
    database: Database,
    charts: bool = True,
    base_url: str = "",
    tolerance: float = 0.05,
    alpha: float = 0.05,
    all_metrics: bool = False,
    jobs: int | None = None,
) -> Built:
    """Write the site of the runs ``selector`` names into ``root``.

    Each benchmark at each site is read, judged and written in turn (its histories, its
    runs' pages, its comparison), then only what the listings and the feed show of it is
    kept: the memory of a build is one group's samples, not the whole selection's. The
    groups are made by ``jobs`` processes at once (by default one a core), the site the
    same whatever their number."""
    scripts = chart_scripts() if charts else {}  # their absence is said before any work
    with _collected_per_group():
        return _build(selector, root, database, scripts, charts, base_url, tolerance, alpha,
                      all_metrics, jobs)  # fmt: skip


@contextmanager
def _collected_per_group() -> Iterator[None]:
    """Python's cycle collector stopped while a group is read and written, and run once
    after each: a group's millions of samples, rows and cells are freed by their counts,
    and the collector, which a build of 10,000 runs otherwise set off every few hundred
    objects over the same growing heap, spent a tenth of the build finding no cycle. The
    runs all groups share are frozen once read (:func:`gc.freeze`), so that each
    collection looks only at what the group left."""
    with paused():
        try:
            yield
        finally:
            gc.unfreeze()


def _build(
    selector: str,
    root: Path,
    database: Database,
    scripts: dict[str, bytes],
    charts: bool,
    base_url: str,
    tolerance: float,
    alpha: float,
    all_metrics: bool,
    jobs: int | None,
) -> Built:
    site = collect(selector, database)
    gc.freeze()  # the runs, kept to the end: no collection need look at them again
    writer = SiteWriter.open(root)
    writer.put("assets/site.css", own("site.css"))
    writer.put("assets/site.js", own("site.js"))
    for name, script in scripts.items():
        writer.put(f"assets/{name}", script)
    earlier = groups.read(root) if writer.known else {}
    kept: dict[groups.Group, groups.Kept] = {}
    options = (charts, tolerance, alpha, all_metrics)
    for group in site.groups:  # a group an earlier build made of the same is kept
        last = earlier.get(group)
        if (
            last is not None
            and last.digest == groups.digest_of(site, group, options)
            and writer.keep(last.files)
        ):
            kept[group] = last
    global _JOB
    _JOB = _Job(site, root, writer.known, database, options)
    todo = [group for group in site.groups if group not in kept]
    try:
        for group, made in zip(todo, in_order(_made, todo, jobs or cores(), _forked), strict=True):
            writer.merge(made.writer)
            kept[group] = groups.Kept(
                made.digest, made.writer.log, made.series, made.compared, made.notes
            )
    finally:
        _JOB = None
    kept = {group: kept[group] for group in site.groups}  # stored in the groups' order
    for group in site.groups:
        site.series += kept[group].series
        site.compared += kept[group].compared
        site.notes += kept[group].notes
    for page in (
        *pages.overview(site),
        *pages.regressions(site),
        *pages.runs_page(site),
        *pages.compare_index(site),
    ):
        writer.put(*page)
    for name, (columns, rows, _) in (
        ("index", pages.overview_rows(site)),
        ("regressions", pages.regression_rows(site)),
    ):
        _downloads(writer, f"data/{name}", columns, rows)
    writer.put("feed.xml", feed(site, base_url))
    writer.close()
    groups.write(root, kept)
    marked = sum(bool(e.mark) for s in site.series for e in s.entries)
    return Built(
        root,
        writer.written,
        writer.unchanged,
        writer.removed,
        len(site.runs),
        len(site.series),
        marked,
    )


@dataclass(frozen=True)
class _Job:
    """What every group of a build is made from besides its name: set before the worker
    processes are forked, so that they share it unsent."""

    site: Dashboard
    root: Path
    known: dict[str, str]
    database: Database
    #: charts, tolerance, alpha, all_metrics
    options: tuple[bool, float, float, bool]


_JOB: _Job | None = None


@dataclass(frozen=True)
class _Made:
    """What making a group left: the digest of what it was made from, the files it wrote
    (its writer, without their content) and what the listings and the feed show of it."""

    digest: str
    writer: SiteWriter
    series: list[Series]
    compared: list[Compared]
    notes: list[str]


def _job() -> _Job:
    if _JOB is None:
        raise RuntimeError("a group of the site is made outside a build")
    return _JOB


def _forked() -> None:
    """A worker's start: the database connections of the process it was forked from left."""
    _job().database.forked()


def _made(group: groups.Group) -> _Made:
    """One group's history read and judged, its pages written (in a worker process or in
    the build's own): its series slimmed to what the listings show."""
    job = _job()
    site = job.site
    charts, tolerance, alpha, all_metrics = job.options
    digest = groups.digest_of(site, group, job.options)
    noted = len(site.notes)
    series, compared = history_of(
        site, group, job.database, tolerance=tolerance, alpha=alpha, all_metrics=all_metrics
    )
    writer = SiteWriter(job.root, job.known)
    _group_pages(writer, site, series, compared, site.groups[group], charts)
    writer.known = {}  # the manifest, which the build has: not sent back
    for s in series:
        s.slim(pages.TREND_RUNS + 1)
    notes = site.notes[noted:]
    del site.notes[noted:]
    gc.collect()  # the cycles of this group's pages, if any
    return _Made(digest, writer, series, compared, notes)


def _group_pages(
    writer: SiteWriter,
    site: Dashboard,
    series: Sequence[Series],
    compared: Sequence[Compared],
    runs_of_group: Sequence[int],
    charts: bool,
) -> None:
    """The pages of one benchmark at one site: its runs' pages, its histories' downloads,
    its histories, its comparison; each file before the pages that link to it (a new file
    is written in place: :mod:`~jubex.dashboard.write`)."""
    for page in run_pages(site, series, runs_of_group):
        writer.put(*page)
    runs: dict[int, RunStarts] = {}
    for s in series:
        _history_downloads(writer, site, s, runs)
    for page in pages.history_pages(site, series, charts):
        writer.put(*page)
    for page in pages.compare_pages(site, series, compared):
        writer.put(*page)


#: a run's starts of a history download's rows: of a JSON record and of a CSV line, up to
#: its ``n``
RunStarts = tuple[str, str]


def _history_downloads(
    writer: SiteWriter,
    site: Dashboard,
    series: Series,
    runs: dict[int, RunStarts] | None = None,
) -> None:
    """Every run of a series as its page's listing shows it (the same columns, newest
    first), as CSV and as JSON records: what the page's own downloads hold of the rows
    shown, for the whole history and at full precision (each repetition's value, where the
    page writes 6 digits). A site of 100,000 runs has 5 million of these rows, so each
    run's start of a row is encoded once for all the series of its group (``runs``, kept
    from series to series), each mark once, each row one f-string, the numbers of all
    rows at once (:func:`~jubex.dashboard.floats.finite_texts`)."""
    names = [json.dumps(c) for c in pages.HISTORY_COLUMNS]
    keys = [f",{name}:" for name in names[3:]]
    marks: dict[str | None, tuple[str, str]] = {}  # a mark as JSON and as a CSV cell
    starts = {} if runs is None else runs
    csv_rows = [_csv_line(pages.HISTORY_COLUMNS)]
    json_rows: list[str] = []
    newest = series.entries[::-1]
    figures_of = finite_texts(list(map(_FIGURES, newest)))
    values_of = finite_texts(list(map(_VALUES, newest)))
    for e, figures, texts in zip(newest, figures_of, values_of, strict=True):
        start = starts.get(e.run)
        if start is None:
            start = starts[e.run] = _run_starts(site.runs[e.run].label, e.created, names)
        mark = marks.get(e.mark)
        if mark is None:
            shown_mark = e.mark or ""
            mark = marks[e.mark] = (json.dumps(shown_mark), _csv_cell(shown_mark))
        values, count = e.values, len(e.values)
        if figures is not None and texts is not None:  # finite numbers: written as they are
            csv_rows.append(f"{start[1]}{count},{figures},{mark[1]},{texts.replace(',', ' ')}\n")
            m, sd, c, q = figures.split(",")
            json_rows.append(
                f"{start[0]}{count}{keys[0]}{m}{keys[1]}{sd}{keys[2]}{c}{keys[3]}{q}"
                f"{keys[4]}{mark[0]}{keys[5]}[{texts}]}}"
            )
            continue
        listed = " ".join(map(repr, values))
        numbers = (e.mean, e.std, e.change, e.p_adjusted)
        cells = ["" if v is None else repr(v) for v in numbers]
        shown = [_json(v) for v in numbers]
        csv_rows.append(
            f"{start[1]}{count},{cells[0]},{cells[1]},{cells[2]},{cells[3]},{mark[1]},{listed}\n"
        )
        json_rows.append(
            f"{start[0]}{count}{keys[0]}{shown[0]}{keys[1]}{shown[1]}{keys[2]}{shown[2]}"
            f"{keys[3]}{shown[3]}{keys[4]}{mark[0]}{keys[5]}[{','.join(map(_json, values))}]}}"
        )
    stem = f"data/history/{Path(series.page).stem}"
    writer.put(f"{stem}.csv", "".join(csv_rows))
    writer.put(f"{stem}.json", f"[{','.join(json_rows)}]")


_FIGURES = attrgetter("mean", "std", "change", "p_adjusted")
_VALUES = attrgetter("values")


def _run_starts(label: str, created: float, names: Sequence[str]) -> RunStarts:
    """A run's starts of the rows of a history download: its label and date encoded for
    JSON and for CSV, up to the row's ``n``."""
    shown = pages.date(created)
    head = f"{{{names[0]}:{json.dumps(label)},{names[1]}:{json.dumps(shown)},{names[2]}:"
    return head, f"{_csv_cell(label)},{_csv_cell(shown)},"


def _csv_line(cells: Sequence[object]) -> str:
    """One row as :mod:`csv` writes it."""
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerow(cells)
    return text.getvalue()


def _csv_cell(text: str) -> str:
    """A text cell of a row of several as :mod:`csv` writes it (quoted where it must be)."""
    if _PLAIN.fullmatch(text):  # the common cell: nothing csv quotes
        return text
    return _csv_line([text, ""])[:-2]


_PLAIN = re.compile(r'[^,"\r\n]*')


def _json(value: float | None) -> str:
    """A number as ``json.dumps`` writes it, a non-finite one as its text (:func:`finite`)."""
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    return json.dumps(pages.finite(value), allow_nan=False, default=str)


def _downloads(
    writer: SiteWriter,
    stem: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
) -> None:
    """All rows of a listing as CSV and as JSON records (the page offers what is shown)."""
    text = io.StringIO()
    table = csv.writer(text, lineterminator="\n")
    table.writerow(columns)
    table.writerows(rows)
    writer.put(f"{stem}.csv", text.getvalue())
    records = [dict(zip(columns, map(pages.finite, row), strict=True)) for row in rows]
    writer.put(
        f"{stem}.json", json.dumps(records, separators=(",", ":"), allow_nan=False, default=str)
    )
