"""The site in a real browser: headless Chromium (driven by Playwright) opens its pages over
a loopback HTTP server, sees no console error and no request leaving the site, uses the
filters, draws the chart, and follows the feed's change point to its run.

Skipped where Playwright or Chromium is missing, except under CI (``CI=true``), where both
are installed (the test extra, Debian's chromium) and their absence is a failure.
``JUBEX_SCREENSHOTS=DIR`` keeps the screenshots there (docs/images/ holds those the docs show).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from jubex.dashboard.serve import server
from tests.dashboard.conftest import NOTE, STEP_RUN

ATOM = "{http://www.w3.org/2005/Atom}"
#: what the history chart draws, read from its BokehJS document: the points of each part
#: of the plot, the runs ringed as change points, the legend's entries and the notes
CHART = """() => {
  const plot = Bokeh.documents[0].roots()[0];
  const parts = plot.renderers.filter((r) => r.visible);
  const drawn = Object.fromEntries(parts.map((r) => [r.name, r.data_source.get_length()]));
  const change = parts.find((r) => r.name === "change point");
  const legend = [...plot.above, ...plot.center].find((m) => m.type === "Legend");
  return {
    drawn: Object.fromEntries(Object.entries(drawn).filter(([k, n]) => n && k !== "change point")),
    "change point": drawn["change point"],
    marked: change.data_source.data.run.join(" "),
    legend: legend.items.filter((i) => i.visible).map((i) => i.label.value),
    notes: plot.center.filter((m) => m.visible && (m.type === "Span" || m.type === "Label"))
      .map((m) => [m.type, m.type === "Label" ? m.text : ""]),
  };
}"""
#: where on the page the first change point's ring is drawn
RING = """() => {
  const plot = Bokeh.documents[0].roots()[0];
  const view = Bokeh.index.get_one(plot);
  const ring = plot.renderers.find((r) => r.name === "change point").data_source.data;
  const box = view.el.getBoundingClientRect();
  return [box.left + view.frame.x_scale.compute(ring.x[0]),
          box.top + view.frame.y_scale.compute(ring.y[0])];
}"""
#: the plot's frame (inside its axes) on the page
FRAME = """() => {
  const view = Bokeh.index.get_one(Bokeh.documents[0].roots()[0]);
  const box = view.el.getBoundingClientRect();
  const frame = view.frame.bbox;
  return { x: box.left + frame.x0 + 4, y: box.top + frame.y0 + 4,  // inside the axes' ticks
           width: frame.width - 8, height: frame.height - 8 };
}"""
#: whether an element shows exactly this text (BokehJS keeps its tooltips in shadow roots)
SHOWN = """(text) => {
  const inside = (node) => [...node.querySelectorAll("*")].some((e) =>
    (e.children.length === 0 && e.textContent === text) || (e.shadowRoot && inside(e.shadowRoot)));
  return inside(document.body);
}"""
#: the chart's performance marks, in the order the page set them
MARKS = """() => performance.getEntriesByType("mark")
  .filter((m) => m.name.startsWith("jubex-chart-"))
  .sort((a, b) => a.startTime - b.startTime).map((m) => m.name)"""
#: the rows of a page's listing
ROWS = "table#listing tbody tr"
REPETITIONS = "Bokeh.documents[0].roots()[0].renderers[1].data_source.get_length()"
#: the colours the chart draws its parts in: the dots and band (grey), the mean (blue),
#: the change points' rings (red), the annotations (ochre)
INKS = {
    "dots and band": (0x57, 0x60, 0x6A),
    "mean": (0x09, 0x69, 0xDA),
    "change": (0xCF, 0x22, 0x2E),
    "note": (0x9A, 0x67, 0x00),
}


def _missing(what: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} is missing under CI")
    pytest.skip(f"{what} is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (pip install playwright)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        _missing("chromium")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def url(site: Path) -> Iterator[str]:
    serving = server(site)
    thread = threading.Thread(target=serving.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{serving.server_address[1]}/"
    serving.shutdown()
    serving.server_close()


class Watched:
    """A page whose console errors, script errors and foreign requests are collected."""

    def __init__(self, browser: object, url: str) -> None:
        self.problems: list[str] = []
        self.page = browser.new_page(viewport={"width": 1000, "height": 640})  # type: ignore[attr-defined]
        self.page.set_default_timeout(60_000)  # a loaded machine is slow, never wrong
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"script: {error}"))
        self.page.on(
            "request",
            lambda r: (
                None if r.url.startswith((url, "blob:", "data:")) else self.problems.append(r.url)
            ),
        )

    def _console(self, message: object) -> None:
        if message.type in ("error", "warning"):  # type: ignore[attr-defined]
            self.problems.append(f"console {message.type}: {message.text}")  # type: ignore[attr-defined]


def shot(page: object, name: str) -> None:
    where = os.environ.get("JUBEX_SCREENSHOTS")
    if where:
        page.screenshot(path=str(Path(where) / f"{name}.png"))  # type: ignore[attr-defined]


def _inked(page: object) -> dict[str, bool]:
    """Whether each part's colour is on the chart's canvas: it was drawn, not only built."""
    from PIL import Image

    picture = Image.open(io.BytesIO(page.locator("#chart").screenshot())).convert("RGB")  # type: ignore[attr-defined]
    colours = {colour for _, colour in picture.getcolors(maxcolors=1 << 20) or []}

    def near(ink: tuple[int, int, int]) -> bool:
        return any(all(abs(a - b) <= 24 for a, b in zip(c, ink, strict=True)) for c in colours)

    return {part: near(ink) for part, ink in INKS.items()}


def _frame_inked(page: object) -> int:
    """How many pixels inside the plot's axes are darker than its grid lines: what the
    glyphs painted there (an empty frame holds only the light grid)."""
    from PIL import Image

    clip = page.evaluate(FRAME)  # type: ignore[attr-defined]
    picture = Image.open(io.BytesIO(page.screenshot(clip=clip))).convert("RGB")  # type: ignore[attr-defined]
    return sum(count for count, colour in picture.getcolors(1 << 20) or [] if min(colour) < 200)


def test_every_kind_of_page_opens_without_an_error_or_a_request_elsewhere(
    browser: object, url: str, site: Path
) -> None:
    watched = Watched(browser, url)
    pages = ["index.html", "regressions.html", "runs.html", "compare.html"]
    pages += [
        str(next((site / d).glob("*.html")).relative_to(site))
        for d in ("history", "runs", "compare")
    ]
    for page in pages:
        response = watched.page.goto(url + page)
        assert response is not None and response.ok, page
        watched.page.wait_for_load_state("load")
    assert watched.problems == []


def test_the_filters_narrow_the_overview_and_its_download(browser: object, url: str) -> None:
    watched = Watched(browser, url)
    page = watched.page
    page.goto(url + "index.html")
    assert page.inner_text(".shown") == "5"
    page.select_option("select[name=benchmark]", "sitestudy")
    assert page.inner_text(".shown") == "2"
    page.fill("input[name=parameter]", "point=b")
    assert page.inner_text(".shown") == "1"
    assert page.locator(ROWS).count() == 1
    with page.expect_download() as download:
        page.click("a.csv")
    lines = Path(download.value.path()).read_text().splitlines()
    assert lines[0].startswith("benchmark,site,file system,metric,point") and len(lines) == 2
    assert ",point=b," in lines[1]
    page.fill("input[name=parameter]", "")
    page.select_option("select[name=benchmark]", "")
    shot(page, "overview")
    assert watched.problems == []


def _scrolled(page: object, count: int) -> None:
    """Scroll down the listing until it holds ``count`` rows: its script builds the first
    hundred, and the next hundred each time the end of the table nears the sight."""
    built = page.locator(ROWS).count  # type: ignore[attr-defined]
    assert built() == min(count, 100)
    while built() < count:
        before = built()
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            f"() => document.querySelectorAll('{ROWS}').length > {before}"
        )
        assert built() - before <= 100
    assert built() == count


def _shown(page: object) -> tuple[list[list[str]], list[dict[str, object]], list[list[str]]]:
    """Every row the table shows, once scrolled to its end (their first cells), and the
    JSON and CSV downloads."""
    _scrolled(page, int(page.inner_text(".shown")))  # type: ignore[attr-defined]
    cells = page.eval_on_selector_all(  # type: ignore[attr-defined]
        ROWS, "rows => rows.map(r => r.cells[0].textContent)"
    )
    with page.expect_download() as json_download:  # type: ignore[attr-defined]
        page.click("a.json")  # type: ignore[attr-defined]
    with page.expect_download() as csv_download:  # type: ignore[attr-defined]
        page.click("a.csv")  # type: ignore[attr-defined]
    records = json.loads(Path(json_download.value.path()).read_text())
    lines = list(csv.reader(Path(csv_download.value.path()).read_text().splitlines()))
    return cells, records, lines


@pytest.mark.parametrize(
    ("control", "value", "keep"),
    [
        ("select[name=site]", "site00", lambda row: row["site"] == "site00"),
        ("select[name=benchmark]", "sitestudy", lambda row: row["benchmark"] == "sitestudy"),
        ("input[name=since]", "2026-02-01", lambda row: str(row["date"]) >= "2026-02-01"),
        ("input[name=until]", "2026-01-02", lambda row: str(row["date"])[:10] <= "2026-01-02"),
    ],
)
def test_each_filter_shows_the_rows_it_keeps_and_the_downloads_hold_exactly_those(
    browser: object, url: str, control: str, value: str, keep: object
) -> None:
    watched = Watched(browser, url)
    page = watched.page
    page.goto(url + "runs.html")
    data = json.loads(page.text_content("#listing-data"))
    every = [dict(zip(data["columns"], row, strict=True)) for row in data["rows"]]
    wanted = [row for row in every if keep(row)]  # type: ignore[operator]
    assert 0 < len(wanted) < len(every), "the filter must narrow the listing"
    if control.startswith("select"):
        page.select_option(control, value)
    else:
        page.fill(control, value)
    cells, records, lines = _shown(page)
    assert page.inner_text(".shown") == str(len(wanted))
    assert cells == [str(row["run"]) for row in wanted]
    assert records == wanted
    assert lines[0] == data["columns"] and [line[0] for line in lines[1:]] == cells
    assert watched.problems == []


def test_the_history_of_a_single_run_is_drawn_on_the_canvas(
    browser: object, url: str, site: Path
) -> None:
    """The shortest history (one run of two repetitions, no band): its chart is built from
    BokehJS's models alone, laid out and painted, not only created."""
    page_file = next(
        p for p in (site / "history").glob("*.html") if "point point=a;" in p.read_text()
    )
    watched = Watched(browser, url)
    page = watched.page
    page.goto(url + str(page_file.relative_to(site)))
    page.wait_for_selector("#chart[data-drawn]")
    chart = page.evaluate(CHART)
    assert chart["drawn"] == {"repetitions": 2, "mean": 1}
    assert chart["legend"] == ["repetitions", "mean of the run"]
    assert page.evaluate("typeof Bokeh.Plotting") == "undefined"  # BokehJS alone was run
    assert _frame_inked(page) > 0  # the two dots, painted inside the axes
    assert watched.problems == []


def test_the_feed_leads_to_the_run_of_the_change_and_its_history_draws_it(
    browser: object, url: str, site: Path
) -> None:
    feed = etree.parse(str(site / "feed.xml")).getroot()
    entry = feed.find(f"{ATOM}entry")
    assert entry is not None
    links = {link.get("rel"): link.get("href") for link in entry.findall(f"{ATOM}link")}
    watched = Watched(browser, url)
    page = watched.page
    page.goto(url + str(links["alternate"]))
    assert page.title().startswith(f"Run {STEP_RUN} of bench at site00")
    page.click("tr.worse a")  # the history of the metric that changed in this run
    page.wait_for_selector("#chart[data-drawn]")
    # the moments bench/bench_site_render.py reports, in their order; the chart's box laid
    # out apart, so that BokehJS's measurements of its views never lay out the table below
    assert page.evaluate(MARKS) == ["jubex-chart-library", "jubex-chart-built", "jubex-chart-drawn"]
    assert page.evaluate("getComputedStyle(document.getElementById('chart')).contain") == (
        "size layout"
    )
    # 1,000 runs of 5 repetitions: the spread of every run as a band (its least and its
    # greatest repetition), the newest 500 runs' repetitions as dots, means, change points
    chart = page.evaluate(CHART)
    assert chart["drawn"] == {"spread": 1000, "repetitions": 2500, "mean": 1000}
    assert chart["change point"] >= 1 and STEP_RUN in chart["marked"]
    assert chart["legend"] == [
        "spread (least to greatest repetition)",
        "repetitions (the newest 500 runs)",
        "mean of the run",
        "change point",
    ]
    assert chart["notes"] == [["Span", ""], ["Label", NOTE]]  # the note, as text
    assert _inked(page) == {"dots and band": True, "mean": True, "change": True, "note": True}
    page.mouse.move(*page.evaluate(RING))  # the hover names the run and its mark, as text
    page.wait_for_function(SHOWN, arg=f"{STEP_RUN}: worse")
    # the table of the 1,000 runs: its script builds a hundred rows at a time as it is
    # scrolled (the note of the rows written without a script is hidden), every one in the end
    page.wait_for_function("() => document.getElementById('listing-more').hidden")
    _scrolled(page, 1000)
    page.fill("input[name=since]", "2026-01-25")
    shown = int(page.inner_text(".shown"))
    assert 0 < shown < 500
    page.wait_for_function(f"() => {REPETITIONS} == {5 * shown}")
    chart = page.evaluate(CHART)
    assert chart["drawn"] == {"repetitions": 5 * shown, "mean": shown}  # no band: all dots
    assert chart["notes"] == []  # the note is before the dates shown
    assert chart["legend"] == ["repetitions", "mean of the run", "change point"]
    assert STEP_RUN in chart["marked"]  # the change (2026-01-26) is among the dates shown
    page.fill("input[name=since]", "")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "history")
    page.goto(url + "regressions.html")
    shot(page, "regressions")
    page.click(f"text={STEP_RUN}")
    assert page.title().startswith(f"Run {STEP_RUN}")
    assert watched.problems == []
