"""A listing longer than a page is continued on more pages, each with its own rows."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jubex.dashboard import pages
from jubex.dashboard.model import Dashboard, Entry, RunInfo, Series
from jubex.dashboard.run_page import Shown, _result_row, run_pages, run_view


def runs(count: int) -> Dashboard:
    made = {
        i: RunInfo(i, f"{i:06d}", "bench", "site00", "lustre", 1.0e9 + i, {"user_name": "u"}, {})
        for i in range(count)
    }
    return Dashboard("db:", made, [], [], {}, {}, [])


def rows_of(html: str) -> list[str]:
    data = json.loads(re.search(r'id="listing-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    return [row[0] for row in data["rows"]]


def test_a_long_listing_is_continued_on_pages_that_link_each_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pages, "PAGE_ROWS", 2)
    made = pages.runs_page(runs(5))
    assert [path for path, _ in made] == ["runs.html", "runs-2.html", "runs-3.html"]
    shown = [rows_of(html) for _, html in made]
    assert shown == [["000004", "000003"], ["000002", "000001"], ["000000"]]
    names = [path for path, _ in made]
    for path, html in made:  # each page links every other page
        pager = re.search(r'<p class="pager">(.*?)</p>', html, re.S).group(1)  # type: ignore[union-attr]
        assert all((f'href="{other}"' in pager) == (other != path) for other in names)
    assert "(page 2)" in made[1][1] and "<b>2</b>" in made[1][1]


def test_a_short_listing_is_one_page_without_a_pager() -> None:
    (path, html), *more = pages.runs_page(runs(3))
    assert path == "runs.html" and not more and 'class="pager"' not in html
    assert len(rows_of(html)) == 3


def test_a_long_history_charts_its_newest_runs_and_stays_small(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pages, "CHART_RUNS", 300)
    site = runs(1000)
    series = Series("bench", "site00", "lustre", "bw", "MiB/s", True, {})
    series.entries = [
        Entry(i, 1.0e9 + i, [1000.0 + i, 1001.0 + i], 1000.5 + i, 0.7) for i in range(1000)
    ]
    _, html = pages.history_page(site, series, charts=True)
    chart = json.loads(re.search(r'id="series-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    assert chart["run"] == [f"{i:06d}" for i in range(700, 1000)]  # the newest 300, in order
    assert "The chart holds the newest 300 of 1000 runs" in html
    assert len(html) < 2_000_000


def test_a_run_page_changes_only_when_what_it_shows_changed() -> None:
    site = runs(2)
    series = Series("bench", "site00", "lustre", "bw", "MiB/s", True, {})
    series.entries = [Entry(i, 1.0e9 + i, [1.0, 2.0], 1.5, 0.7) for i in range(2)]
    first = dict(run_pages(site, [series], [0, 1]))
    series.entries[1].mark, series.entries[1].change = "worse", -20.0
    again = dict(run_pages(site, [series], [0, 1]))
    assert first["runs/0.html"] == again["runs/0.html"]
    assert first["runs/1.html"] != again["runs/1.html"]
    assert 'class="worse"' in again["runs/1.html"]


@pytest.mark.parametrize(
    ("failed", "selector", "name"),
    [
        (False, "db:", "tags"),
        (True, "db:", "tags"),
        (False, "\ue0003\ue001", "tags"),
        (False, "db:", "t\ue0002\ue001"),
    ],
)
def test_a_run_page_from_its_shell_is_the_page_jinja_renders(
    failed: bool, selector: str, name: str
) -> None:
    """Every text of the run (its fields, its provenance, its results) in the place the
    template has it and escaped as the template escapes it, byte for byte."""
    site = runs(1)
    site.selector = selector
    nasty = "<script>alert('x')</script> & \"q\" \ue0000\ue001"
    run = site.runs[0]
    run.fields = {**run.fields, "comment": nasty, name: "a&b"}
    run.provenance = {"note": nasty}
    if failed:
        site.failures[0] = [{"step": nasty, "parameters": {"a": nasty}, "repetition": 0,
                             "workpackage": 1, "reason": nasty}]  # fmt: skip
    series = Series("bench", "site00", nasty, nasty, nasty, True, {"k": nasty})
    series.entries = [Entry(0, 1.0e9, [2.0, float("nan"), 1.0], 1.5, 0.7, 3.0, 0.01, "worse")]
    ((path, html),) = run_pages(site, [series], [0])
    found = [(Shown.of(series), series.entries[0])]
    assert (path, html) == pages.render(
        "run.html", path, site.selector, **run_view(site, run, found)
    )
    assert "<script>" not in html and "&lt;script&gt;" in html


@given(
    st.lists(st.floats(), min_size=4, max_size=4),
    st.none() | st.floats(),
    st.sampled_from([None, "worse", "better"]),
    st.integers(1, 7),
)
def test_a_results_row_shows_each_figure_to_4_digits_and_the_change_to_1(
    figures: list[float], change: float | None, mark: str | None, count: int
) -> None:
    """Mean, spread, least and greatest value as ``.4g`` writes them, finite or not, the
    change with its sign and its mark: the row of finite figures and no mark (one ``%``)
    is the row of any other."""
    mean, std, low, high = figures
    entry = Entry(0, 1.0e9, [1.0] * count, mean, std, change, None, mark, low, high)
    shown = Shown.of(Series("bench", "site00", "lustre", "bw", "MiB/s", True, {"k": "1"}))
    cells = "".join(f"<td>{v:.4g}</td>" for v in figures)
    said = ("" if change is None else f"{change:+.1f}%") + (f" ({mark})" if mark else "")
    row = f'<tr class="{mark}">' if mark else "<tr>"
    assert _result_row(shown, entry) == (
        f"{row}{shown.head}<td>{count}</td>{cells}<td>{said}</td>{shown.tail}</tr>\n"
    )


def test_listing_cells_show_numbers_as_number_does_and_escape_every_text() -> None:
    row = [1234.5678, 7, True, None, "<b>&'\"", float("nan")]
    html = str(pages.body_rows([row], [{0: "x&y.html"}], "../"))
    cells = [pages.number(c) for c in row]
    assert html == (
        f'<tr><td><a href="../x&amp;y.html">{cells[0]}</a></td><td>7</td><td>True</td>'
        "<td></td><td>&lt;b&gt;&amp;&#39;&#34;</td><td>nan</td></tr>\n"
    )


def test_a_history_page_holds_each_non_finite_number_as_its_text() -> None:
    """Means, spreads, changes and p-values that are infinite, NaN or missing, each alone
    and as finite values whose sum is not: the table's data holds the text of each
    non-finite one, every other as it is; the chart draws no mean it cannot place."""
    site = runs(4)
    series = Series("bench", "site00", "lustre", "bw", "MiB/s", True, {})
    inf, nan = float("inf"), float("nan")
    series.entries = [
        Entry(0, 1.0e9, [1.0, inf], inf, nan, None, None, None),
        Entry(1, 1.0e9 + 1, [2.0], 2.0, 0.0, -inf, 1.0, "worse"),
        Entry(2, 1.0e9 + 2, [3.0], 1e308, 1e308, 1.0, 0.5, None),
        Entry(3, 1.0e9 + 3, [4.0], 4.0, 0.5, 100.0, 0.01, None),
    ]
    _, html = pages.history_page(site, series, True)
    data = json.loads(re.search(r'id="listing-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    assert [row[3:7] for row in data["rows"]] == [
        [4.0, 0.5, 100.0, 0.01],
        [1e308, 1e308, 1.0, 0.5],
        [2.0, 0.0, "-inf", 1.0],
        ["inf", "nan", None, None],
    ]
    chart = json.loads(re.search(r'id="series-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    assert chart["mean"] == [None, 2.0, 1e308, 4.0]
    assert chart["values"] == [[1.0], [2.0], [3.0], [4.0]]
    assert "<td>inf</td><td>nan</td><td></td><td></td>" in html


def test_a_run_page_shows_the_least_and_greatest_value_as_a_sorted_copy_has_them() -> None:
    """Of equal values (0.0 and -0.0) the least is the first, the greatest the last, as at
    the ends of a sorted copy; the page from the shell is the one Jinja2 renders."""
    site = runs(1)
    series = Series("bench", "site00", "lustre", "bw", "MiB/s", True, {})
    series.entries = [Entry(0, 1.0e9, [0.0, -0.0], 0.0, 0.0)]
    ((path, html),) = run_pages(site, [series], [0])
    assert "<td>2</td><td>0</td><td>0</td><td>0</td><td>-0</td>" in html
    found = [(Shown.of(series), series.entries[0])]
    assert html == pages.render("run.html", path, "db:", **run_view(site, site.runs[0], found))[1]


def test_the_history_pages_of_a_group_are_each_series_page_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The dates and value texts one page keeps for the next change none of them; the chart
    draws each finite value to 6 digits, whether the table shows its run or not (read back
    from the table's texts of a run of finite values, and of one with an infinity)."""
    monkeypatch.setattr(pages, "PAGE_ROWS", 2)
    monkeypatch.setattr(pages, "CHART_RUNS", 4)
    site = runs(5)
    inf = float("inf")
    made = []
    for metric, scale, extra in (("bw", 1.0, inf), ("iops", 3.0, 2.5)):
        series = Series("bench", "site00", "lustre", metric, "MiB/s", True, {})
        series.entries = [
            Entry(i, 1.0e9 + 86400 * i, [scale / 7 + i, extra, 1234567.891 * i], 1.5, 0.7)
            for i in range(5)
        ]
        made.append(series)
    together = list(pages.history_pages(site, made, True))
    assert together == [pages.history_page(site, s, True) for s in made]
    for (_, html), series in zip(together, made, strict=True):
        chart = json.loads(re.search(r'id="series-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
        assert chart["values"] == [
            [float(f"{v:.6g}") for v in e.values if v != inf] for e in series.entries[1:]
        ]
    assert chart["values"][-1] == [4.42857, 2.5, 4938270.0]


hostile = st.text(alphabet="ab<>&'\"/\u2028é", max_size=8)
drawn = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.integers(-9, 9)


@settings(max_examples=200, deadline=None)
@given(
    labels=st.lists(hostile, min_size=3, max_size=3),
    entries=st.lists(
        st.tuples(
            st.integers(0, 2),
            st.lists(drawn, max_size=4),
            st.none() | st.floats(allow_nan=True, allow_infinity=True),
            st.sampled_from([None, "worse", "<b>"]),
        ),
        max_size=6,
    ),
    note=hostile,
    table_rows=st.integers(0, 6),
)
def test_a_chart_holds_each_finite_number_to_6_digits_and_every_text_inert(
    labels: list[str],
    entries: list[tuple[int, list[float], float | None, str | None]],
    note: str,
    table_rows: int,
) -> None:
    """The chart's JSON, read back, is the series' texts and its finite numbers rounded to
    6 significant digits (whether the table formatted them first or not), and holds no
    character that could end its script element; the table shows every value to 6 digits."""
    pages.PAGE_ROWS, kept = table_rows, pages.PAGE_ROWS
    try:
        site = runs(3)
        for i, label in enumerate(labels):
            site.runs[i].label = label
        site.annotations = {"site00": [(1.0e9, note)]}
        series = Series("bench", "site00", "lustre", "bw", label, True, {})
        series.entries = [
            Entry(run, 1.0e9 + run, values, mean, None, mark=mark)
            for run, values, mean, mark in entries
        ]
        _, html = pages.history_page(site, series, charts=True)
    finally:
        pages.PAGE_ROWS = kept
    text = re.search(r'id="series-data">(.*?)</script>', html, re.S).group(1)  # type: ignore[union-attr]
    assert not set("<>&'") & set(text)
    chart = json.loads(text)
    six = lambda v: float(f"{v:.6g}")  # noqa: E731
    assert chart["run"] == [site.runs[e.run].label for e in series.entries]
    assert chart["mark"] == [e.mark or "" for e in series.entries]
    assert chart["unit"] == label and chart["annotations"][0]["text"] == note
    assert chart["mean"] == [
        None if e.mean is None or not math.isfinite(e.mean) else six(e.mean) for e in series.entries
    ]
    assert chart["values"] == [
        [six(v) for v in e.values if math.isfinite(v)] for e in series.entries
    ]
    listing = json.loads(re.search(r'id="listing-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    assert [row[-1] for row in listing["rows"]] == [
        " ".join(f"{v:.6g}" for v in e.values) for e in series.entries[::-1][:table_rows]
    ]
