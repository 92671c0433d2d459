"""``jubex report``: one self-contained HTML file of a study, every text escaped, written
whole or not at all (real runs, real CLI)."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from jubex.results.presentation.report_html import noise_notes
from jubex.results.tables.table import Header, ResultTable

pytest.importorskip("matplotlib")

#: a value that would be markup if it were not escaped, in a parameter, a title and a plot
HOSTILE = "<script>alert(1)</script>"

DEFINITION = f"""\
name: study
parameters:
  api: [POSIX, '{HOSTILE}']
  nodes: [1, 2, 4]
patterns:
  bw:
    write_bw: {{regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s, better: higher}}
steps:
  run:
    iterations: 2
    do:
      - "echo bw: ${{nodes * 100 * (1 + jube_wp_iteration / 10)}} MiB/s"
      - test $nodes != 4 -o $jube_wp_iteration = 0
    analyse: [bw]
results:
  bandwidth:
    group_by: [api, nodes]
    columns: [api, nodes, {{name: write_bw, stats: [n, mean, std], title: "<b>bw</b>"}}]
plots:
  scaling: {{x: nodes, y: write_bw, group: api, title: "</svg><img src=x onerror=alert(1)>"}}
"""

#: namespace names in the inline SVG: identifiers, never fetched
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def jubex(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with a hostile parameter value and a failing iteration, and its report."""
    where = tmp_path_factory.mktemp("report")
    (where / "study.yaml").write_text(DEFINITION)
    done = jubex(where, "run", "study.yaml", "-q", "--outpath", "runs")
    assert done.returncode == 1, done.stderr  # the failing iterations
    done = jubex(where, "report", "runs/000000", "-o", "study.html")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "study.html"
    return where


@pytest.fixture(scope="module")
def html(home: Path) -> str:
    return (home / "study.html").read_text()


class Elements(HTMLParser):
    """Every element's tag and attributes, and the page's text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(html: str) -> Elements:
    elements = Elements()
    elements.feed(html)
    return elements


def test_the_report_holds_plots_tables_provenance_and_failures(html: str) -> None:
    text = " ".join(parsed(html).text)
    assert html.count("<svg") == 1
    assert "write_bw (mean ± std) [MiB/s]" in html  # the plot's axis, as SVG text
    assert "<b>bw</b> n" in text and "<b>bw</b> mean [MiB/s]" in text  # the table's head
    assert '<td class="num">105</td>' in html  # the mean of 100 and 110
    assert "definition.sha256" in text and "machine.cpus" in text and "store.started" in text
    assert "api=POSIX, nodes=4" in text and "exit status 1" in text  # why the iterations failed
    assert "analysers found nothing" not in text  # a failed one is counted once
    assert "2 failed workpackage(s) left out" in text
    assert "coefficient of variation median 6.7%" in text  # 7.07107 / 105
    assert "6 point(s) with fewer than 3 repetitions" in text


def test_every_text_is_escaped(html: str) -> None:
    elements = parsed(html)
    tags = [tag for tag, _ in elements.tags]
    assert "script" not in tags and "img" not in tags and "b" not in tags
    assert HOSTILE in " ".join(elements.text)  # shown as text, in the table and legend
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert not any(name.startswith("on") for _, attributes in elements.tags for name in attributes)


def test_the_file_stands_alone(html: str) -> None:
    elements = parsed(html)
    assert not [tag for tag, _ in elements.tags if tag in ("script", "link", "iframe", "object")]
    assert not [a for _, a in elements.tags if "src" in a]
    assert all(a["href"].startswith("#") for t, a in elements.tags if t == "a" and a.get("href"))
    assert set(re.findall(r"https?://[^\"'<> )]+", html)) <= NAMESPACES
    assert "@import" not in html and "url(" not in html.replace("url(#", "")


def test_noise_notes_name_the_spread_and_few_repetitions() -> None:
    headers = [Header(n, n) for n in ("p", "bw_n", "bw_mean", "bw_std")]
    table = ResultTable("t", headers, [["a", 3, 100.0, 5.0], ["b", 2, 200.0, 40.0]])
    assert noise_notes(table) == [
        "table 't', bw: coefficient of variation median 20.0%, largest 20.0%;"
        " 1 of 2 point(s) above 10%",
        "table 't', bw: 1 point(s) with fewer than 3 repetitions",
    ]


def test_a_report_that_cannot_be_made_leaves_the_old_file_alone(home: Path) -> None:
    broken = home / "broken"
    broken.mkdir()
    never = "    never: {regex: 'never $jube_pat_fp', type: float}\n"
    definition = DEFINITION.replace("y: write_bw, group", "y: never, group")
    (broken / "study.yaml").write_text(definition.replace("  bw:\n", f"  bw:\n{never}", 1))
    jubex(broken, "run", "study.yaml", "-q", "--outpath", "runs", "--no-result")
    (broken / "old.html").write_text("old")
    done = jubex(broken, "report", "runs/000000", "-o", "old.html")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "has no values of 'never'" in done.stderr
    assert sorted(p.name for p in broken.iterdir()) == ["old.html", "runs", "study.yaml"]
    assert (broken / "old.html").read_text() == "old"


def test_the_report_goes_into_the_run_by_default(home: Path) -> None:
    done = jubex(home, "report", "runs/000000", "--no-analyse")
    assert done.returncode == 0, done.stderr
    assert (home / "runs" / "000000" / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_without_matplotlib_the_report_has_its_tables_and_says_why_no_plots(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from jubex.results.presentation.report_html import render_report
    from jubex.store.rundir import open_run

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name)
    )
    html = render_report([open_run(home / "runs" / "000000")])
    assert "<svg" not in html and '<td class="num">105</td>' in html
    assert "The plots scaling are not drawn: they need matplotlib" in html
