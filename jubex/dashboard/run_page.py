"""A run's page: its provenance, its failures and its results.

A site has a page a run, 100,000 of them for a large centre, so a run's page is not rendered
by Jinja2 each: ``run.html`` is rendered once a build with a mark in place of each text
(:func:`shell`), and each run's page is those parts with its own texts between them, each
escaped as Jinja2's autoescaping escapes it. The page is the one Jinja2 renders, byte for
byte (a run with failures, whose table is a loop of the template, is rendered by Jinja2).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup

from jubex.dashboard.jsontext import indented
from jubex.dashboard.model import Dashboard, Entry, RunInfo, Series
from jubex.dashboard.pages import Page, date, escaped, number, render

#: a text's place in the shell: private-use characters no escaping changes
_MARK = "\ue000{}\ue001"
_MARKS = re.compile("\ue000([0-9]+)\ue001")


@dataclass(frozen=True)
class Shell:
    """``run.html`` of a build cut at its texts: ``parts[i]``, then text ``slots[i]``, ..."""

    parts: tuple[str, ...]
    slots: tuple[int, ...]

    def fill(self, texts: Sequence[str]) -> str:
        out = [self.parts[0]]
        for slot, part in zip(self.slots, self.parts[1:], strict=True):
            out.append(texts[slot])
            out.append(part)
        return "".join(out)


@lru_cache(maxsize=4)
def shell(selector: str, fields: tuple[str, ...]) -> Shell:
    """``run.html`` of a run with no failures whose fields are named ``fields``, a mark in
    place of its title (0), created (1), file system (2), provenance (3), results (4) and
    each field's value (5 on)."""
    marks = [_MARK.format(i) for i in range(5 + len(fields))]
    run = RunInfo(0, "", "", "", marks[2], 0.0, dict(zip(fields, marks[5:], strict=True)), {})
    _, html = render(
        "run.html",
        "runs/0.html",
        selector,
        title=marks[0],
        run=run,
        created=marks[1],
        provenance=marks[3],
        failures=[],
        results=marks[4],
    )
    cut = _MARKS.split(html)
    return Shell(tuple(cut[0::2]), tuple(int(i) for i in cut[1::2]))


@dataclass(frozen=True)
class Shown:
    """What a run's page shows of a series, the same for each of its runs (made once): its
    results row's first cells (metric, point, unit) and its last (the link to its history)
    as HTML."""

    series: Series
    point: str
    page: str
    head: str
    tail: str

    @classmethod
    def of(cls, series: Series) -> Shown:
        point, page = series.point_text, series.page
        head = "".join(f"<td>{escaped(text)}</td>" for text in (series.metric, point, series.unit))
        return cls(series, point, page, head, f'<td><a href="../{escaped(page)}">history</a></td>')


def run_pages(site: Dashboard, series: Sequence[Series], runs: Sequence[int]) -> Iterator[Page]:
    """The pages of ``runs`` (of one group, whose ``series`` they are in)."""
    by_run: dict[int, list[tuple[Shown, Entry]]] = {}
    for s in series:
        shown = Shown.of(s)
        for e in s.entries:
            by_run.setdefault(e.run, []).append((shown, e))
    for run in runs:
        info = site.runs[run]
        found = by_run.get(run, [])
        # a loop, or a text of the shell itself like a mark: Jinja2's page
        if site.failures.get(run) or _MARKS.search(site.selector) or _marked(info.fields):
            yield render("run.html", info.page, site.selector, **run_view(site, info, found))
            continue
        texts = [
            escaped(_title(info)),
            escaped(date(info.created)),
            escaped(info.filesystem),
            escaped(_provenance(info)),
            "".join([_result_row(shown, e) for shown, e in found]),
            *(escaped(value) for value in info.fields.values()),
        ]
        yield info.page, shell(site.selector, tuple(info.fields)).fill(texts)


def _result_row(shown: Shown, entry: Entry) -> str:
    """A run's results row of a series, as HTML: made from the entry's numbers without a
    dictionary or a template's loop (a site of 100,000 runs has 5 million of these rows;
    the common one, of finite figures and no mark, is one ``%`` of a tuple)."""
    low, high = _extremes(entry.values) if entry.low is None else (entry.low, entry.high)
    mean, std, change = entry.mean, entry.std, entry.change
    if not entry.mark and type(mean) is type(std) is type(low) is type(high) is float:
        if change is None:
            return _PLAIN_ROW % (shown.head, len(entry.values), mean, std, low, high, shown.tail)
        if type(change) is float:
            return _CHANGED_ROW % (
                shown.head, len(entry.values), mean, std, low, high, change, shown.tail,
            )  # fmt: skip
    numbers = "".join([f"<td>{_cell(v)}</td>" for v in (mean, std, low, high)])
    shown_change = "" if change is None else f"{change:+.1f}%"
    if not entry.mark:
        return (
            f"<tr>{shown.head}<td>{len(entry.values)}</td>{numbers}<td>{shown_change}</td>"
            f"{shown.tail}</tr>\n"
        )
    mark = escaped(entry.mark)
    return (
        f'<tr class="{mark}">{shown.head}<td>{len(entry.values)}</td>{numbers}'
        f"<td>{shown_change} ({mark})</td>{shown.tail}</tr>\n"
    )


#: a results row of four finite figures and no mark: without a change, with one
_NUMBERS = "<tr>%s<td>%d</td>" + "<td>%.4g</td>" * 4
_PLAIN_ROW = _NUMBERS + "<td></td>%s</tr>\n"
_CHANGED_ROW = _NUMBERS + "<td>%+.1f%%</td>%s</tr>\n"


def _cell(value: object) -> str:
    """:func:`number` of a value, escaped: a float's text needs no escaping."""
    return f"{value:.4g}" if type(value) is float else escaped(number(value))


def _extremes(values: Sequence[float]) -> tuple[float | None, float | None]:
    """The least and the greatest value, as a sorted copy's ends are (of equal values, the
    first and the last); unsorted where every value is finite (a NaN has no order)."""
    if not values:
        return None, None
    if all(map(math.isfinite, values)):
        return min(values), max(reversed(values))
    ordered = sorted(values)
    return ordered[0], ordered[-1]


def _title(run: RunInfo) -> str:
    return f"Run {run.label} of {run.benchmark} at {run.site}"


def _provenance(run: RunInfo) -> str:
    return indented(run.provenance)


def run_view(
    site: Dashboard, run: RunInfo, found: Sequence[tuple[Shown, Entry]]
) -> dict[str, object]:
    """What a run's page shows: its provenance, its failures and its results (their rows'
    HTML, the same :func:`run_pages` fills its shell with)."""
    failures = [
        {**f, "point": ", ".join(f"{k}={v}" for k, v in _mapping(f["parameters"]).items())}
        for f in site.failures.get(run.id, [])
    ]
    return {
        "title": _title(run),
        "run": run,
        "created": date(run.created),
        "provenance": _provenance(run),
        "failures": failures,
        "results": Markup("".join([_result_row(shown, e) for shown, e in found])),
    }


def _marked(fields: Mapping[str, str]) -> bool:
    """Whether a field's name (a text of the shell) holds something like a mark."""
    return any(_MARKS.search(name) for name in fields)


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, dict) else {}
