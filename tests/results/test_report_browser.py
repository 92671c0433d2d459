"""The report as a browser shows it: headless Chromium renders the file (offline, no
script), and the screenshot has the plots and the table where they belong.

Skipped where Chromium is missing — except under CI (``CI=true``), where ``.ci/run``
installs it and its absence is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("chromium is missing under CI: .ci/run installs Debian's chromium package")
    pytest.skip("chromium is not installed (apt-get install chromium); CI runs this test")


def browse(browser: str, page: Path, *args: str) -> str:
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args,
         page.as_uri()],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "HOME": str(page.parent)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


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


def test_the_rendered_page_has_the_plots_and_the_table(report: Path) -> None:
    dom = browse(chromium(), report, "--dump-dom")
    assert dom.count("<svg") == 2
    assert "write_bw_mean [MiB/s]" in dom and ">MPIIO</td>" in dom
    assert "write_bw (mean) [MiB/s]" in dom  # the heatmap's colour bar, SVG text


def test_the_screenshot_shows_the_plots_above_the_table(report: Path) -> None:
    shot = report.with_suffix(".png")
    browse(chromium(), report, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}")
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (HEIGHT, WIDTH)
    colourful = pixels.max(axis=2) - pixels.min(axis=2) > 0.3  # bars, heatmap cells
    plot_rows = np.flatnonzero(colourful.sum(axis=1) > 100)
    assert len(plot_rows) > 300, "no plot with large coloured areas is visible"
    border = np.abs(pixels - BORDER).max(axis=2) < 0.03
    lines = np.flatnonzero(border.sum(axis=1) > 300)  # the table's horizontal rules
    below = lines[lines > plot_rows.max()]
    assert len(below) >= 9, "the table's rows are not visible below the plots"
