"""The pages of the site, one function per kind: each returns its path and its HTML.

Every page is rendered by Jinja2 with autoescaping on, so a text from a run (a parameter
value, a failure's cause, a comment) is shown and never run; the data a page's script reads
is embedded as JSON that cannot close its ``<script>`` element (as ``tojson`` embeds it:
:func:`~jubex.dashboard.jsontext.script_json`).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from jubex.dashboard.assets import CHART_SCRIPTS
from jubex.dashboard.jsontext import script_json
from jubex.dashboard.model import Compared, Dashboard, Series
from jubex.results.statistics.stats import summarize
from jubex.version import __version__

#: rows of a listing rendered without a script (the filters show all of them)
LIMIT = 100
#: rows of a listing on one page: a longer listing is continued on more pages, so that no
#: page grows past a size a browser opens at once (2,000 rows are some 0.5 MB)
PAGE_ROWS = 2000
#: runs a history's chart draws: the newest, so that a page of a long history stays small
#: (5,000 runs of 5 repetitions are some 0.4 MB of chart data)
CHART_RUNS = 5000
#: how many runs back the trend of the overview looks
TREND_RUNS = 5

Page = tuple[str, str]
#: the links of a listing's row: column index -> page
Links = dict[int, str]


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("jubex.dashboard", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["number"] = number
    env.globals["body_rows"] = body_rows
    env.globals["listing_data"] = listing_data
    return env


def body_rows(rows: Sequence[Sequence[object]], hrefs: Sequence[Links], root: str) -> Markup:
    """A listing's rows as HTML, each cell escaped and its link kept: built here, not by a
    template loop, because a site has millions of cells and Jinja2 spends some 5 µs on each."""
    lines = []
    base = escape(root)
    for row, links in zip(rows, hrefs, strict=False):
        cells = []
        for index, cell in enumerate(row):
            # a number's text holds nothing to escape: the most common cells, spared the calls
            kind = type(cell)
            shown = (
                f"{cell:.4g}"
                if kind is float
                else str(cell)
                if kind is int
                else ""
                if cell is None
                else escaped(number(cell))
            )
            href = links.get(index) if links else None
            cells.append(
                f'<td><a href="{base}{escaped(href)}">{shown}</a></td>'
                if href is not None
                else f"<td>{shown}</td>"
            )
        lines.append(f"<tr>{''.join(cells)}</tr>\n")
    return Markup("".join(lines))


def listing_data(
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    hrefs: Sequence[Links],
    filters: Mapping[str, int],
    root: str,
) -> Markup:
    """What a listing's script reads, as JSON that cannot close its ``<script>`` element
    (each row's links by their columns' numbers as texts, as JSON names them)."""
    links = [{str(column): page for column, page in row.items()} for row in hrefs]
    data = {"columns": columns, "rows": rows, "hrefs": links, "filters": filters, "root": root}
    return Markup(script_json(data))


def escaped(text: str) -> str:
    """``text`` as HTML shows it: escaped as Jinja2 escapes, by a look for the five
    characters first (most cells hold none, and ``escape`` costs ten times that look)."""
    return str(escape(text)) if _SPECIAL(text) else text


_SPECIAL = re.compile("[&<>\"']").search


def number(value: object) -> str:
    """A cell as shown: numbers to 4 significant digits, nothing for a missing value."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def finite(value: object) -> object:
    """A number JSON can hold: an infinity or NaN (a failed measurement) as its text."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def date(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(seconds))


def render(template: str, path: str, selector: str, **values: object) -> Page:
    """A page of the site of the runs ``selector`` names."""
    root = "../" * path.count("/")
    html = (
        environment()
        .get_template(template)
        .render(root=root, version=__version__, selector=selector, **values)
    )
    return path, html


def _listing(
    path: str,
    site: Dashboard,
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    hrefs: Sequence[Links],
    *,
    intro: str = "",
    notes: Sequence[str] = (),
) -> list[Page]:
    """A listing's pages: ``path`` holds its first PAGE_ROWS rows, ``NAME-2.html`` and on
    the rows after them; the filters choose among the rows of a page, the downloads named
    ``data/NAME`` hold every row."""
    filters = {
        name: columns.index(column)
        for name, column in (
            ("site", "site"), ("benchmark", "benchmark"), ("parameter", "point"), ("date", "date")
        )
        if column in columns
    }  # fmt: skip
    choices = {
        name: sorted({str(row[index]) for row in rows})
        for name, index in filters.items()
        if name in ("site", "benchmark")
    }
    stem = Path(path).stem
    starts = range(0, max(len(rows), 1), PAGE_ROWS)
    names = [path, *(f"{stem}-{n}.html" for n in range(2, len(starts) + 1))]
    return [
        render(
            "listing.html",
            name,
            site.selector,
            title=title if number == 1 else f"{title} (page {number})",
            intro=intro,
            notes=list(notes),
            table_id="listing",
            columns=list(columns),
            rows=[[finite(c) for c in row] for row in rows[start : start + PAGE_ROWS]],
            hrefs=list(hrefs[start : start + PAGE_ROWS]),
            filters=filters,
            choices=choices,
            limit=LIMIT,
            download=f"data/{stem}",
            pager=[(n, other) for n, other in enumerate(names, 1)] if len(names) > 1 else [],
            current=number,
        )
        for number, (name, start) in enumerate(zip(names, starts, strict=True), 1)
    ]


OVERVIEW = ("benchmark", "site", "file system", "metric", "point", "unit", "date")
OVERVIEW_TAIL = ("latest mean", "std", "trend %", "runs", "open regression")


def overview_rows(site: Dashboard) -> tuple[list[str], list[list[object]], list[Links]]:
    """Each benchmark × site × file system × metric × point: its latest figures and trend."""
    columns = [
        "benchmark",
        "site",
        "file system",
        "metric",
        "point",
        "unit",
        "date",
        *OVERVIEW_TAIL,
    ]
    rows: list[list[object]] = []
    hrefs: list[Links] = []
    for s in site.series:
        latest = [e for e in s.entries if e.mean is not None]
        last = latest[-1]
        before = [e.mean for e in latest[-1 - TREND_RUNS : -1] if e.mean is not None]
        level = summarize(before).mean if before else None
        trend = round((last.mean / level - 1) * 100, 2) if level and last.mean is not None else None
        regression = s.open_regression()
        rows.append(
            [
                s.benchmark, s.site, s.filesystem, s.metric, s.point_text, s.unit,
                date(last.created), last.mean, last.std, trend, s.count or len(s.entries),
                f"{regression.change:+.1f}% at {date(regression.created)}"
                if regression and regression.change is not None
                else "",
            ]
        )  # fmt: skip
        hrefs.append({0: s.page})
    return columns, rows, hrefs


def overview(site: Dashboard) -> list[Page]:
    columns, rows, hrefs = overview_rows(site)
    intro = (
        f"{len(site.runs)} run(s), {len(site.series)} series (a metric at a point of a "
        "benchmark at a site). The trend is the latest mean against the mean of the "
        f"{TREND_RUNS} runs before it; an open regression is a change point for the worse "
        "that no later change point undid."
    )
    return _listing(
        "index.html", site, "Overview", columns, rows, hrefs, intro=intro, notes=site.notes
    )


def regression_rows(site: Dashboard) -> tuple[list[str], list[list[object]], list[Links]]:
    """Every change point, newest first: for the worse, for the better, or either way."""
    columns = [
        "metric",
        "benchmark",
        "site",
        "point",
        "date",
        "run",
        "change %",
        "p adj",
        "mark",
        "open",
    ]
    found = []
    for s in site.series:
        opened = s.open_regression()
        for e in s.entries:
            if e.mark:
                run = site.runs[e.run]
                found.append((e.created, s, e, run, e is opened))
    found.sort(key=lambda item: -item[0])
    rows: list[list[object]] = [
        [s.metric, s.benchmark, s.site, s.point_text, date(e.created), run.label, e.change,
         e.p_adjusted, e.mark, "open" if opened else ""]
        for _, s, e, run, opened in found
    ]  # fmt: skip
    return columns, rows, [{0: s.page, 5: run.page} for _, s, _, run, _ in found]


def regressions(site: Dashboard) -> list[Page]:
    columns, rows, hrefs = regression_rows(site)
    intro = (
        "Change points as jubex history finds them, newest first: 'worse' and 'better' where "
        "the metric has a better direction, 'up' and 'down' where it has none."
    )
    return _listing(
        "regressions.html",
        site,
        "Regressions and other change points",
        columns,
        rows,
        hrefs,
        intro=intro,
    )


def runs_page(site: Dashboard) -> list[Page]:
    columns = ["run", "benchmark", "site", "file system", "date", "user", "failures"]
    ordered = sorted(site.runs.values(), key=lambda r: -r.created)
    rows: list[list[object]] = [
        [r.label, r.benchmark, r.site, r.filesystem, date(r.created), r.fields["user_name"],
         len(site.failures.get(r.id, []))]
        for r in ordered
    ]  # fmt: skip
    return _listing("runs.html", site, "Runs", columns, rows, [{0: r.page} for r in ordered])


def compare_index(site: Dashboard) -> list[Page]:
    columns = ["benchmark", "site", "baseline", "candidate", "date", "verdict"]
    rows: list[list[object]] = []
    for c in site.compared:
        candidate = site.runs[c.candidate]
        rows.append([c.benchmark, c.site, site.runs[c.baseline].label, candidate.label,
                     date(candidate.created), c.verdict])  # fmt: skip
    return _listing(
        "compare.html", site, "Comparisons of the two latest runs", columns, rows,
        [{0: c.page, 2: site.runs[c.baseline].page, 3: site.runs[c.candidate].page}
         for c in site.compared],
    )  # fmt: skip


#: the columns of a history's listing: a row a run
HISTORY_COLUMNS = ("run", "date", "n", "mean", "std", "change %", "p adj", "change point", "values")


class Dates(dict[float, str]):
    """Moments and their texts, each formatted the first time it is asked for."""

    def __missing__(self, moment: float) -> str:
        shown = self[moment] = date(moment)
        return shown


def history_pages(site: Dashboard, series: Sequence[Series], charts: bool) -> Iterator[Page]:
    dates = Dates()  # the runs of a group are in each of its series
    for s in series:
        yield history_page(site, s, charts, dates)


def history_page(site: Dashboard, series: Series, charts: bool, dates: Dates | None = None) -> Page:
    """A series' page: its table (the newest PAGE_ROWS runs) and its chart (the newest
    CHART_RUNS); ``dates``: each moment's text, kept from page to page."""
    columns = list(HISTORY_COLUMNS)
    rows: list[list[object]] = []
    hrefs: list[Links] = []
    dates = Dates() if dates is None else dates  # the table's and the chart's, formatted once
    texts: dict[int, str] = {}  # the values' texts of the table's entries, for the chart
    for e in list(reversed(series.entries))[:PAGE_ROWS]:
        run = site.runs[e.run]
        texts[id(e)] = values = _SPACED[len(e.values)] % tuple(e.values)
        shown_date = dates[e.created]
        numbers: list[object] = [e.mean, e.std, e.change, e.p_adjusted]
        mean, std, change, p = e.mean, e.std, e.change, e.p_adjusted
        # a finite sum: all four are finite, as most are (finite() spared four calls)
        if (
            mean is None
            or std is None
            or change is None
            or p is None
            or not math.isfinite(mean + std + change + p)
        ):
            numbers = [finite(n) for n in numbers]
        rows.append([run.label, shown_date, len(e.values), *numbers, e.mark or "", values])
        hrefs.append({0: run.page})
    notes = [
        {"date": date(moment), "text": text, "moment": moment}
        for moment, text in site.annotations.get(series.site, [])
    ]
    shown = series.entries[-CHART_RUNS:]
    chart = _chart(
        {
            "metric": series.metric,
            "unit": series.unit,
            "run": [site.runs[e.run].label for e in shown],
            "date": [dates[e.created] for e in shown],
            "mark": [e.mark or "" for e in shown],
            "annotations": notes,
        },
        [_drawn(e.mean) for e in shown],
        [_drawn_values(e.values, texts.get(id(e))) for e in shown],
    )
    notes_shown = [
        f"The {what} holds the newest {limit} of {len(series.entries)} runs; the downloads "
        "hold every run."
        for what, limit in (("table", PAGE_ROWS), ("chart", CHART_RUNS))
        if len(series.entries) > limit
    ]
    direction = (
        "no better direction known"
        if series.higher_is_better is None
        else "higher is better"
        if series.higher_is_better
        else "lower is better"
    )
    page = series.page
    return render(
        "history.html",
        page,
        site.selector,
        title=f"{series.metric} · {series.benchmark} · {series.site}",
        series=series,
        direction=direction,
        notes=notes_shown,
        charts=charts,
        chart_scripts=CHART_SCRIPTS,
        annotations=notes,
        chart=chart,
        table_id="listing",
        columns=columns,
        rows=rows,  # each number that can be infinite made finite above
        hrefs=hrefs,
        filters={"date": 1},
        choices={},
        limit=LIMIT,
        download=f"data/history/{Path(page).stem}",
        pager=[],
        current=1,
    )


def _chart(texts: dict[str, object], means: Sequence[str], values: Sequence[str]) -> Markup:
    """The chart's data as JSON that cannot close its ``<script>`` element (as ``tojson``
    writes it), its numbers written as the 6-digit texts they were drawn from: each a JSON
    number, none parsed and written again."""
    head = script_json(texts)
    return Markup(f'{head[:-1]},"mean":[{",".join(means)}],"values":[{",".join(values)}]}}')


class _Formats(dict[int, str]):
    """The format of a run's values to 6 significant digits, one a count of values, made the
    first time it is asked for (one ``%`` of a run's values formats them all in one call)."""

    def __init__(self, head: str, between: str, tail: str) -> None:
        super().__init__()
        self.head, self.between, self.tail = head, between, tail

    def __missing__(self, count: int) -> str:
        made = self[count] = f"{self.head}{self.between.join(['%.6g'] * count)}{self.tail}"
        return made


#: a run's values as the table shows them, and as a JSON list
_SPACED, _LISTED = _Formats("", " ", ""), _Formats("[", ",", "]")


def _drawn_values(values: Sequence[float], texts: str | None) -> str:
    """A run's finite values as the chart draws them, to 6 significant digits, as a JSON
    list: the texts of the table where it has them (``texts``), not formatted again."""
    if not math.isfinite(sum(values)):  # a NaN or an infinity, or so large a sum: left out
        finite = [v for v in values if math.isfinite(v)]
        return _LISTED[len(finite)] % tuple(finite)
    if texts is None:
        return _LISTED[len(values)] % tuple(values)
    return f"[{texts.replace(' ', ',')}]"


def _drawn(value: float | None) -> str:
    """A value as the chart draws it: to 6 significant digits (``null``: none)."""
    return "null" if value is None or not math.isfinite(value) else f"{value:.6g}"


def compare_pages(
    site: Dashboard, series: Sequence[Series], compared: Sequence[Compared]
) -> Iterator[Page]:
    pages = {(s.benchmark, s.site, s.metric, s.point_text): s.page for s in series}
    for c in compared:
        yield compare_page(site, c, pages)


def compare_page(
    site: Dashboard, compared: Compared, pages: Mapping[tuple[str, str, str, str], str]
) -> Page:
    """The comparison's table, each row beside the history of its metric at its point."""
    metric = compared.headers.index("metric")
    rows = []
    for row in compared.rows:
        keys = compared.headers[:metric]
        point = ", ".join(f"{k}={v}" for k, v in zip(keys, row, strict=False)) or "(one point)"
        page = pages.get((compared.benchmark, compared.site, str(row[metric]), point))
        rows.append(([number(cell) for cell in row], page))
    return render(
        "compare.html",
        compared.page,
        site.selector,
        title=f"{compared.benchmark} at {compared.site}: the latest run against the one before",
        compared=compared,
        baseline=site.runs[compared.baseline],
        candidate=site.runs[compared.candidate],
        rows=rows,
    )
