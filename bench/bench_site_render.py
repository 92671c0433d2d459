"""How long each kind of page of a built site takes to open in headless Chromium.

Serves SITE on the loopback interface, opens the first and the largest page of each kind
(overview, regressions, runs, comparisons, history, run, compare) REPEAT times each in a
fresh page of Chromium (Playwright, /usr/bin/chromium), and prints the median of the
browser's own timings: first contentful paint and the load event (the listing's table and
the filters are working by then: site.js runs before it) and, on a history page, the time
its chart is drawn (plotly.js is loaded after the load event), with each page's size.

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
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
            for page_file in chosen(args.site, pattern):
                timings = []
                for _ in range(args.repeat):
                    page = browser.new_page(viewport={"width": 1200, "height": 800})
                    page.goto(url + str(page_file.relative_to(args.site)), wait_until="load")
                    timing = page.evaluate(TIMING)
                    drawn = None
                    if page.locator("#chart[data-script]").count():
                        page.wait_for_selector("#chart .main-svg", timeout=120_000)
                        drawn = page.evaluate("performance.now()")
                    timings.append((*timing, drawn))
                    page.close()
                paint = statistics.median(t[0] or 0.0 for t in timings)
                load = statistics.median(t[1] for t in timings)
                worst = max(worst, load)
                chart = (
                    f"  chart drawn {statistics.median(t[2] for t in timings):6.0f} ms"
                    if timings[0][2] is not None
                    else ""
                )
                print(
                    f"{kind:12s} {page_file.stat().st_size / 1e6:6.2f} MB  first paint "
                    f"{paint:6.0f} ms  load {load:6.0f} ms{chart}  "
                    f"{page_file.relative_to(args.site)}"
                )
        browser.close()
    serving.shutdown()
    print(f"slowest load {worst:.0f} ms; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
