"""How long each kind of page of a built site takes to open in headless Chromium.

Serves SITE on the loopback interface, opens the first and the largest page of each kind
(overview, regressions, runs, comparisons, history, run, compare; or those of --kind)
REPEAT times each in Chromium (Playwright, /usr/bin/chromium), and prints the median of
the browser's own timings: first contentful paint and the load event (the filters are
working by then: site.js runs before it) and, on a history page, the time its charting
library has run, the time the chart's models and data are built, and the time it is drawn
(the moment site.js marks the chart ``data-drawn``, once BokehJS has painted it; the bench
waits for that mark, and prints too when it saw it, which adds its own round trips to the
browser), with each page's size, and last the heaviest page of the whole site.
Each page is opened twice: in a fresh browser context (nothing cached) and again in one
context kept for the kind (the scripts in the browser's cache, as when a person follows
links from page to page). With --cpu each load is traced (Chromium's own tracing) and the
CPU time of the page's main thread until the chart is drawn (the load event on a page
without a chart) is printed too: on a shared machine it moves far less with the load than
the wall-clock figures, which wait for the cores the other processes hold.

Chromium builds its own omnibox popup (two WebUI pages, 0.3-0.5 s of CPU in a renderer of
its own) for every new browser context, that is for every load here, on the same cores and
at the same moment as the page; a person who opens a page does not pay that. Those features
are off unless --browser-ui keeps them (as the figures measured before 2026-11-28's
"History pages in Chromium: what the browser itself was doing" did).

    python bench/bench_site.py --runs 10000 --keep /tmp/site-bench   # builds /tmp/site-bench/site
    python bench/bench_site_render.py /tmp/site-bench/site
    # a history of 1 run and one of 1,010 runs (the site's only series)
    python bench/bench_site.py --runs 1000 --metrics 3 --series 1 --keep /tmp/site-1k
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import threading
from pathlib import Path
from typing import Any

from jubex.dashboard.serve import server

KINDS = {
    "overview": "index*.html",
    "regressions": "regressions*.html",
    "runs": "runs*.html",
    "comparisons": "compare*.html",
    "history": "history/*.html",
    "run": "runs/*.html",
    "compare": "compare/*.html",
}
VIEWPORT = {"width": 1200, "height": 800}
#: when site.js saw the charting library's scripts run, and when it marked the chart drawn
#: (marks it sets; none on an old site)
MARKS = """() => ["jubex-chart-library", "jubex-chart-built", "jubex-chart-drawn"].map((name) => {
  const mark = performance.getEntriesByName(name)[0];
  return mark ? mark.startTime : null;
})"""
#: first paint, load event, charting library run, chart's models built, chart drawn, seen,
#: main thread's CPU until drawn (or loaded)
Timing = tuple[float, float, float | None, float | None, float | None, float | None, float | None]
#: what a trace records: tasks with their thread time, and the page's marks
TRACED = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing"]
#: Chromium's own omnibox popup, built as WebUI pages for each new context (the bench's
#: every load), which the page's figures would otherwise include
WITHOUT_BROWSER_UI = "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup"
TIMING = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  return [paint ? paint.startTime : null, nav.loadEventEnd];
}"""


def chosen(site: Path, pattern: str) -> list[Path]:
    """The first page of a kind and its largest (one page where they are the same)."""
    found = sorted(site.glob(pattern))
    if not found:
        return []
    return list(dict.fromkeys([found[0], max(found, key=lambda p: p.stat().st_size)]))


def main_thread_cpu(trace: bytes, until: str) -> float | None:
    """The CPU time (ms) of the tasks the page's main thread started before the mark
    ``until`` (``loadEventEnd``, ``jubex-chart-drawn``), from a Chromium trace."""
    events = json.loads(trace)
    events = events["traceEvents"] if isinstance(events, dict) else events
    parsed = [e for e in events if e.get("name") == "ParseHTML"]
    ends = [e["ts"] for e in events if e.get("name") == until]
    if not parsed or not ends:
        return None
    thread = (parsed[0]["pid"], parsed[0]["tid"])
    return (
        sum(
            e.get("tdur", 0)
            for e in events
            if e.get("name") == "RunTask" and (e["pid"], e["tid"]) == thread and e["ts"] < ends[0]
        )
        / 1000
    )


def opened(context: Any, address: str, drawn_at: str, cpu: bool = False) -> Timing:
    """First paint, load event, charting library run, chart's models built, chart drawn and
    the chart seen drawn by this bench (None on a page without a chart, or a mark an older
    site does not set), in ms from the navigation's start, of ``address`` opened in a new
    page of ``context``. A site without the mark of its chart drawn has the time the bench
    saw it as its drawing time. With ``cpu``, the load is traced for the main thread's CPU."""
    page = context.new_page()
    if cpu:
        context.browser.start_tracing(page=page, categories=TRACED)
    page.goto(address, wait_until="load")
    paint, load = page.evaluate(TIMING)
    library = built = drawn = seen = None
    if page.locator("#chart").count():
        page.wait_for_selector(drawn_at, timeout=120_000)
        seen = page.evaluate("performance.now()")
        library, built, drawn = page.evaluate(MARKS)
        drawn = seen if drawn is None else drawn
    used = None
    if cpu:
        page.wait_for_timeout(100)  # the mark's task ends and reaches the trace
        until = "loadEventEnd" if drawn is None else "jubex-chart-drawn"
        used = main_thread_cpu(context.browser.stop_tracing(), until)
    page.close()
    return paint or 0.0, load, library, built, drawn, seen, used


def _median(taken: list[Timing], field: int) -> float | None:
    found = [t[field] for t in taken if t[field] is not None]
    return statistics.median(found) if found else None


def _drawn(taken: list[Timing]) -> str:
    library, built, drawn, seen, used = (_median(taken, field) for field in (2, 3, 4, 5, 6))
    cpu = f"  main-thread CPU {used:5.0f} ms" if used is not None else ""
    if drawn is None or seen is None:
        return cpu
    ran = f"  library run {library:6.0f} ms" if library is not None else ""
    ran += f"  built {built:6.0f} ms" if built is not None else ""
    return f"{ran}  chart drawn {drawn:6.0f} ms (seen {seen:6.0f} ms){cpu}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kind", choices=KINDS, action="append", help="only these kinds")
    parser.add_argument(
        "--cpu", action="store_true", help="trace each load for its main thread's CPU time"
    )
    parser.add_argument(
        "--drawn",
        default="#chart[data-drawn]",
        help="what a drawn chart has (of a site whose chart plotly.js draws: '#chart .main-svg')",
    )
    parser.add_argument(
        "--browser-ui",
        action="store_true",
        help="let Chromium build its omnibox popup for each context, as the older figures did",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    serving = server(args.site)
    threading.Thread(target=serving.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{serving.server_address[1]}/"
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    flags = ["--no-sandbox"] if args.browser_ui else ["--no-sandbox", WITHOUT_BROWSER_UI]
    print(
        f"{args.site}: median of {args.repeat}; Chromium {' '.join(flags)}; "
        f"load {os.getloadavg()[0]:.1f}"
    )
    worst = 0.0
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=flags)
        for kind, pattern in KINDS.items():
            if args.kind and kind not in args.kind:
                continue
            for page_file in chosen(args.site, pattern):
                address = url + str(page_file.relative_to(args.site))
                warm = browser.new_context(viewport=VIEWPORT)
                opened(warm, address, args.drawn)  # its scripts are cached from here on
                timings: dict[str, list[Timing]] = {"fresh": [], "cached": []}
                for _ in range(args.repeat):
                    fresh = browser.new_context(viewport=VIEWPORT)
                    timings["fresh"].append(opened(fresh, address, args.drawn, args.cpu))
                    fresh.close()
                    timings["cached"].append(opened(warm, address, args.drawn, args.cpu))
                warm.close()
                for how, taken in timings.items():
                    load = statistics.median(t[1] for t in taken)
                    worst = max(worst, load)
                    print(
                        f"{kind:12s} {how:6s} {page_file.stat().st_size / 1e6:6.2f} MB  first "
                        f"paint {statistics.median(t[0] for t in taken):6.0f} ms  load {load:6.0f}"
                        f" ms{_drawn(taken)}  {page_file.relative_to(args.site)}"
                    )
        browser.close()
    serving.shutdown()
    heaviest = max(args.site.rglob("*.html"), key=lambda p: p.stat().st_size)
    print(
        f"slowest load {worst:.0f} ms; heaviest page {heaviest.stat().st_size / 1e6:.2f} MB"
        f" ({heaviest.relative_to(args.site)}); load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    sys.exit(main())
