"""How long each kind of page of a built site takes to open in headless Chromium.

Serves SITE on the loopback interface, opens the first and the largest page of each kind
(overview, regressions, runs, comparisons, history, run, compare; or those of --kind)
REPEAT times each in Chromium (Playwright, /usr/bin/chromium), and prints the median of
the browser's own timings: first contentful paint and the load event (the listing's table
and the filters are working by then: site.js runs before it) and, on a history page, the
time its charting library has run (BokehJS is loaded after the load event) and the time
its chart is drawn, with each page's size.
Each page is opened twice: in a fresh browser context (nothing cached) and again in one
context kept for the kind (the scripts in the browser's cache, as when a person follows
links from page to page).

    python bench/bench_site.py --runs 10000 --keep /tmp/site-bench   # builds /tmp/site-bench/site
    python bench/bench_site_render.py /tmp/site-bench/site
"""

from __future__ import annotations

import argparse
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
#: when site.js saw the charting library's scripts run (a mark it sets; none on an old site)
LIBRARY = """() => {
  const mark = performance.getEntriesByName("jubex-chart-library")[0];
  return mark ? mark.startTime : null;
}"""
Timing = tuple[float, float, float | None, float | None]
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


def opened(context: Any, address: str, drawn_at: str) -> Timing:
    """First paint, load event, charting library run and chart drawn (None on a page
    without a chart), in ms from the navigation's start, of ``address`` opened in a new
    page of ``context``."""
    page = context.new_page()
    page.goto(address, wait_until="load")
    paint, load = page.evaluate(TIMING)
    library = drawn = None
    if page.locator("#chart").count():
        page.wait_for_selector(drawn_at, timeout=120_000)
        drawn = page.evaluate("performance.now()")
        library = page.evaluate(LIBRARY)
    page.close()
    return paint or 0.0, load, library, drawn


def _drawn(taken: list[Timing]) -> str:
    library = [t[2] for t in taken if t[2] is not None]
    drawn = [t[3] for t in taken if t[3] is not None]
    if not drawn:
        return ""
    ran = f"  library run {statistics.median(library):6.0f} ms" if library else ""
    return f"{ran}  chart drawn {statistics.median(drawn):6.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kind", choices=KINDS, action="append", help="only these kinds")
    parser.add_argument(
        "--drawn",
        default="#chart[data-drawn]",
        help="what a drawn chart has (of a site whose chart plotly.js draws: '#chart .main-svg')",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    serving = server(args.site)
    threading.Thread(target=serving.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{serving.server_address[1]}/"
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    print(f"{args.site}: median of {args.repeat}; load {os.getloadavg()[0]:.1f}")
    worst = 0.0
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
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
                    timings["fresh"].append(opened(fresh, address, args.drawn))
                    fresh.close()
                    timings["cached"].append(opened(warm, address, args.drawn))
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
    print(f"slowest load {worst:.0f} ms; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
