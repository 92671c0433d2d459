"""Runs that differ are never pooled: two runs differing in one override, two sites, two
benchmarks, told apart in every table, plot and report (real runs, real CLI)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

DEFINITION = """\
name: scaled
parameters:
  n: [1, 2]
  scale: [1]
patterns:
  bw:
    bw: {regex: "bw $jube_pat_fp", type: float, unit: MiB/s, better: higher}
steps:
  work:
    iterations: 2
    do: echo "bw ${n}${scale}"
    analyse: [bw]
results:
  sums:
    group_by: [n]
    columns: [n, {name: bw, stats: [n, mean]}]
  flat:
    columns: [n, bw]
plots:
  curve: {x: n, y: bw}
"""

OTHER = """\
name: other
parameters:
  m: [7]
patterns:
  t:
    t: {regex: "t $jube_pat_fp", type: float}
steps:
  go:
    do: echo "t 5"
    analyse: [t]
results:
  times:
    group_by: [m]
    columns: [m, {name: t, stats: [n, mean]}]
"""


def jubex(cwd: Path, *args: str, check: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == check, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """runs/000000 as defined, 000001 with -p scale=3, 000002 as 000000; another benchmark."""
    top = tmp_path_factory.mktemp("pooling")
    (top / "b.yaml").write_text(DEFINITION)
    (top / "o.yaml").write_text(OTHER)
    for extra in ([], ["-p", "scale=3"], []):
        jubex(top, "run", "b.yaml", "-q", "--no-result", *extra)
    jubex(top, "run", "o.yaml", "-q", "--no-result", "--outpath", "others")
    return top


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))


def test_runs_differing_in_an_override_are_a_column_never_pooled(home: Path) -> None:
    done = jubex(home, "result", "0", "1", "-T", "sums", "-f", "csv")
    assert rows(done.stdout) == [
        {"scale": "1", "n": "1", "bw_n": "2", "bw_mean [MiB/s]": "11"},
        {"scale": "1", "n": "2", "bw_n": "2", "bw_mean [MiB/s]": "21"},
        {"scale": "3", "n": "1", "bw_n": "2", "bw_mean [MiB/s]": "13"},
        {"scale": "3", "n": "2", "bw_n": "2", "bw_mean [MiB/s]": "23"},
    ]
    assert "differ in scale: kept apart by it, never pooled" in done.stdout


def test_a_table_naming_its_columns_gets_the_column_that_differs(home: Path) -> None:
    flat = json.loads(jubex(home, "result", "0", "1", "-T", "flat", "-f", "json").stdout)
    assert [(r["scale"], r["bw"]) for r in flat["rows"]][::2] == [
        (1, 11),
        (1, 21),
        (3, 13),
        (3, 23),
    ]
    turned = jubex(home, "result", "0", "1", "-T", "flat", "--pivot", "run", "-f", "csv")
    header = next(csv.reader(io.StringIO(turned.stdout)))
    assert "000000: bw [MiB/s]" in header and "000001: bw [MiB/s]" in header
    assert len(rows(turned.stdout)) == 4


def test_identical_studies_pool_with_a_note_and_by_run_keeps_them_apart(home: Path) -> None:
    pooled = jubex(home, "result", "0", "2", "-T", "sums", "-f", "csv")
    assert [r["bw_n"] for r in rows(pooled.stdout)] == ["4", "4"]
    assert "pooled as repetitions: their studies are identical" in pooled.stdout
    apart = jubex(home, "result", "0", "2", "-T", "sums", "--by", "run", "-f", "csv")
    assert [(r["run"], r["bw_n"]) for r in rows(apart.stdout)] == [
        ("000000", "2"),
        ("000000", "2"),
        ("000002", "2"),
        ("000002", "2"),
    ]
    forced = jubex(home, "result", "0", "1", "-T", "sums", "--pool", "-f", "csv")
    assert [r["bw_n"] for r in rows(forced.stdout)] == ["4", "4"]
    assert "pooled as repetitions (--pool): they differ in scale" in forced.stdout


def test_two_benchmarks_never_share_a_table(home: Path) -> None:
    from jubex import result

    tables = {t.name: t for t in result([home / "runs" / "000000", home / "others" / "000000"])}
    assert set(tables) == {"scaled: sums", "scaled: flat", "other: times"}
    assert tables["other: times"].column("t_mean") == [5]
    assert tables["scaled: sums"].column("n") == [1, 2]
    done = jubex(home, "result", "runs/000000", "others/000000", "-T", "times")
    assert "other: times" in done.stdout


def test_the_plot_draws_a_series_per_value_that_differs(home: Path) -> None:
    from jubex import open_runs
    from jubex.results.plotdata import plot_data

    runs = open_runs([home / "runs" / "000000", home / "runs" / "000001"])
    data = plot_data(runs, runs[0].benchmark.plots["curve"])
    assert [(s.label, s.ys) for s in data.series] == [("1", [11.0, 21.0]), ("3", [13.0, 23.0])]
    done = jubex(home, "plot", "0", "1", "-x", "n", "-y", "bw", "-o", "bw.svg")
    assert "differ in scale" in done.stderr


def test_the_report_keeps_the_runs_apart(home: Path) -> None:
    jubex(home, "report", "0", "1", "-o", "study.html")
    html = (home / "study.html").read_text()
    assert "<th>scale</th>" in html or ">scale<" in html
    assert "differ in scale: kept apart by it" in html
