"""The report as a browser shows it: headless Chromium renders the file (offline, no
script), and the screenshot has the plots and the table where they belong.

Skipped where Chromium is missing — except under CI (the ``browse`` fixture says so).
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
image = pytest.importorskip("matplotlib.image")

DEFINITION = """\
name: browser
parameters:
  api: [POSIX, MPIIO]
  nodes: [1, 2, 4, 8]
  transfer: [4KiB, 1MiB]
patterns:
  bw:
    write_bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
steps:
  run:
    iterations: 2
    do: "echo bw: ${nodes * 100 * (1 + jube_wp_iteration / 10)} MiB/s"
    analyse: [bw]
results:
  bandwidth:
    group_by: [api, nodes]
    columns: [api, nodes, {name: write_bw, stats: [n, mean, std]}]
plots:
  bars: {x: api, y: write_bw, group: nodes}
  heat: {x: nodes, rows: transfer, y: write_bw}
"""

#: the table's border colour (#d0d7de in the report's style)
BORDER = np.array([208, 215, 222]) / 255
WIDTH, HEIGHT = 1200, 2600


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("browser")
    (home / "b.yaml").write_text(DEFINITION)
    for args in (["run", "b.yaml", "-q", "--outpath", "runs"], ["report", "-o", "b.html"]):
        done = subprocess.run(
            [sys.executable, "-m", "jubex", *args, *(["runs/000000"] if "report" in args else [])],
            cwd=home, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    return home / "b.html"


def test_the_rendered_page_has_the_plots_and_the_table(
    report: Path, browse: Callable[..., str]
) -> None:
    dom = browse(report, "--dump-dom")
    assert dom.count("<svg") == 2
    assert "write_bw_mean [MiB/s]" in dom and ">MPIIO</td>" in dom
    assert "write_bw (mean) [MiB/s]" in dom  # the heatmap's colour bar, SVG text


def test_the_screenshot_shows_the_plots_above_the_table(
    report: Path, browse: Callable[..., str]
) -> None:
    shot = report.with_suffix(".png")
    browse(report, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}")
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (HEIGHT, WIDTH)
    colourful = pixels.max(axis=2) - pixels.min(axis=2) > 0.3  # bars, heatmap cells
    plot_rows = np.flatnonzero(colourful.sum(axis=1) > 100)
    assert len(plot_rows) > 300, "no plot with large coloured areas is visible"
    border = np.abs(pixels - BORDER).max(axis=2) < 0.03
    lines = np.flatnonzero(border.sum(axis=1) > 300)  # the table's horizontal rules
    below = lines[lines > plot_rows.max()]
    assert len(below) >= 9, "the table's rows are not visible below the plots"


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs that differ in one override (-p nodes=...), reported together."""
    home = tmp_path_factory.mktemp("study")
    (home / "b.yaml").write_text(DEFINITION)
    for args in (
        ["run", "b.yaml", "-q", "--no-result", "-p", "nodes=1,2", "-p", "transfer=4KiB"],
        ["run", "b.yaml", "-q", "--no-result", "-p", "nodes=4,8", "-p", "transfer=4KiB"],
        ["report", "runs/000000", "runs/000001", "-o", "study.html"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "jubex", *args], cwd=home, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    return home / "study.html"


def section(dom: str, name: str) -> str:
    start = dom.index(f'<section id="{name}">')
    return dom[start : dom.index("</section>", start)]


def test_a_report_of_two_runs_compares_them_side_by_side(
    study: Path, browse: Callable[..., str]
) -> None:
    dom = browse(study, "--dump-dom")
    compared = section(dom, "comparison")
    assert "000000 (baseline) → 000001" in compared and "write_bw" in compared
    # no point of one is a point of the other: said as an error, in red
    assert '<p class="verdict bad">ERROR: 4 comparison(s) could not be made' in compared
    sides = section(dom, "sides")
    assert 'aria-label="nodes 1/2"' in sides and 'aria-label="nodes 4/8"' in sides
    assert sides.count("<svg") == 4 and sides.count('<table class="result">') == 2
    changed = section(dom, "changed")
    assert "store.overrides" in changed and "nodes" in changed
    tables = section(dom, "tables")
    assert "<th>nodes</th>" in tables and "differ in nodes" in tables
    assert section(dom, "plots").count("<svg") == 2  # nodes, what differs, is on their axes


#: the report's geometry as Chromium lays it out: each table's and figure's box, the
#: window's width (a probe copy of the page; the report itself runs no script)
PROBE = """<script>
for (const e of document.querySelectorAll('table, figure, th, section')) {
  const r = e.getBoundingClientRect();
  e.setAttribute('data-box', [r.left, r.top, r.right, r.bottom].map(Math.round).join(','));
}
document.body.setAttribute('data-width', String(window.innerWidth));
</script></body>"""


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs that differ in a setting that is no axis (-p transfer=...), reported."""
    home = tmp_path_factory.mktemp("pair")
    (home / "b.yaml").write_text(DEFINITION.replace("plots:", "unused:").split("unused:")[0])
    for args in (
        ["run", "b.yaml", "-q", "--no-result", "-p", "transfer=4KiB"],
        ["run", "b.yaml", "-q", "--no-result", "-p", "transfer=1MiB"],
        ["report", "runs/000000", "runs/000001", "-o", "pair.html"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "jubex", *args], cwd=home, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    return home / "pair.html"


def boxes(dom: str, tag: str, where: str = "") -> list[tuple[int, ...]]:
    pattern = rf'<{tag}\b[^>]*{where}[^>]*data-box="([-\d,]+)"'
    return [tuple(map(int, m.group(1).split(","))) for m in re.finditer(pattern, dom)]


def test_the_report_answers_first_and_every_table_fits_the_window(
    pair: Path, browse: Callable[..., str]
) -> None:
    """The verdict and what differs come before any plot, every table and its verdict
    column lie within a 1,280 px window (the comparison's was at 1,460 px of a 1,050 px
    box), and no plot is an empty frame."""
    probe = pair.with_name("probe.html")
    probe.write_text(pair.read_text().replace("</body>", PROBE))
    dom = browse(probe, "--window-size=1280,2000", "--virtual-time-budget=2000", "--dump-dom")
    assert re.search(r'data-width="1280"', dom)
    start = dom.index('<section id="comparison"')
    compared = dom[start : dom.index("</section>", start)]
    assert "what differs: transfer 4KiB → 1MiB" in compared
    assert re.search(r'<p class="verdict \w+">(PASSED|FAILED|INCONCLUSIVE): ', compared)
    (comparison_top,) = [box[1] for box in boxes(dom, "section", 'id="comparison"')]
    assert comparison_top < min(box[1] for box in boxes(dom, "figure"))
    tables = boxes(dom, "table", 'class="result"')
    assert tables and max(box[2] for box in tables) <= 1280
    verdict = re.search(r'<th[^>]*data-box="[-\d]+,[-\d]+,(\d+),[^"]*"[^>]*>verdict</th>', compared)
    assert verdict and int(verdict.group(1)) <= 1280  # on the first screen, beside the keys
    assert all("<svg" in figure for figure in re.findall(r"<figure.*?</figure>", dom, re.S))
    shot = pair.with_suffix(".png")
    browse(pair, f"--screenshot={shot}", "--window-size=1280,1000")
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (1000, 1280)
    border = np.abs(pixels - BORDER).max(axis=2) < 0.03
    assert border[:, 1240:].sum() == 0, "a table runs past the page's right margin"
