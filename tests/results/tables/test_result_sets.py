"""Result sets across runs: one table over runs of several platforms and sites, told apart
by ``run``, ``platform`` and ``site``, grouped or pivoted by them; runs that differ (an
override, a site, a benchmark) never pooled in a table, a plot or a report (real runs, real
CLI)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

DEFINITION = """\
name: sites
parameters:
  n: [1, 2]
patterns:
  bw:
    bw: {regex: "bw $jube_pat_fp", type: float, unit: MiB/s, better: higher}
steps:
  work:
    iterations: 2
    do: echo "bw $n.5"
    analyse: [bw]
results:
  bysite:
    group_by: [site, n]
    columns: [site, n, {name: bw, stats: [n, mean]}]
  turned:
    group_by: [site, n]
    pivot: site
    columns: [site, n, {name: bw, stats: [mean]}]
"""


def jubex(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )
    assert not check or done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same sweep on two platforms of two sites, each in an outpath of its own."""
    home = tmp_path_factory.mktemp("study")
    (home / "b.yaml").write_text(DEFINITION)
    (home / "alpha.yaml").write_text("name: alpha-local\nextends: local\nsite: Alpha\n")
    (home / "beta.yaml").write_text("name: beta-local\nextends: local\n")
    for site in ("alpha", "beta"):
        jubex(home, "run", "b.yaml", "-P", f"{site}.yaml", "--outpath", site, "-q", "--no-result")
    return home


def table(text: str) -> list[dict[str, str]]:
    """The CSV's rows, its notes (``#`` lines) left out."""
    return list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))


def test_rows_of_two_sites_carry_site_and_platform(study: Path) -> None:
    out = jubex(study, "result", "alpha/000000", "beta/000000", "-T", "bysite", "-f", "csv")
    assert table(out.stdout) == [
        {"site": "Alpha", "n": "1", "bw_n": "2", "bw_mean [MiB/s]": "1.5"},
        {"site": "Alpha", "n": "2", "bw_n": "2", "bw_mean [MiB/s]": "2.5"},
        {"site": "beta-local", "n": "1", "bw_n": "2", "bw_mean [MiB/s]": "1.5"},
        {"site": "beta-local", "n": "2", "bw_n": "2", "bw_mean [MiB/s]": "2.5"},
    ]


def test_a_pivoted_table_puts_the_sites_side_by_side(study: Path) -> None:
    out = jubex(study, "result", "alpha/000000", "beta/000000", "-T", "turned", "-f", "csv")
    assert table(out.stdout) == [
        {"n": "1", "Alpha: bw_mean [MiB/s]": "1.5", "beta-local: bw_mean [MiB/s]": "1.5"},
        {"n": "2", "Alpha: bw_mean [MiB/s]": "2.5", "beta-local: bw_mean [MiB/s]": "2.5"},
    ]


def test_the_command_line_pivots_any_table_by_a_column(study: Path) -> None:
    out = jubex(
        study,
        "result",
        "alpha/000000",
        "beta/000000",
        "-T",
        "bysite",
        "--pivot",
        "site",
        "-f",
        "csv",
    )
    assert next(csv.reader(io.StringIO(out.stdout))) == [
        "n",
        "Alpha: bw_n",
        "Alpha: bw_mean [MiB/s]",
        "beta-local: bw_n",
        "beta-local: bw_mean [MiB/s]",
    ]
    wrong = jubex(study, "result", "alpha/000000", "-T", "bysite", "--pivot", "sit", check=False)
    assert wrong.returncode == 2
    assert "'sit'" in wrong.stderr and "did you mean 'site'" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_runs_of_two_outpaths_with_the_same_id_are_told_apart(study: Path) -> None:
    from jubex import result

    (values,) = result(
        [study / "alpha" / "000000", study / "beta" / "000000"], ["bysite"], pivot_by=None
    )
    assert values.column("site") == ["Alpha", "Alpha", "beta-local", "beta-local"]
    (alone,) = result(study / "alpha" / "000000", ["bysite"])
    assert alone.column("site") == ["Alpha", "Alpha"]


def test_a_default_table_over_two_sites_shows_where_each_row_ran(study: Path) -> None:
    (study / "plain.yaml").write_text(
        "name: plain\nparameters:\n  n: [1]\npatterns:\n  bw:\n    bw: {regex: 'bw $jube_pat_fp'}\n"
        "steps:\n  work:\n    do: echo 'bw 3'\n    analyse: [bw]\n"
    )
    for site in ("alpha", "beta"):
        jubex(study, "run", "plain.yaml", "-P", f"{site}.yaml", "--outpath", f"p{site}", "-q")
    out = jubex(study, "result", "palpha/000000", "pbeta/000000", "-f", "csv")
    rows = table(out.stdout)
    assert [(r["site"], r["platform"], r["run"]) for r in rows] == [
        ("Alpha", "alpha-local", "palpha/000000"),
        ("beta-local", "beta-local", "pbeta/000000"),
    ]


def test_a_pivot_key_outside_group_by_is_refused_by_validate(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(DEFINITION.replace("pivot: site", "pivot: n2"))
    done = jubex(tmp_path, "validate", "b.yaml", check=False)
    assert done.returncode == 2
    assert "pivots by 'n2', which is not one of its group_by keys" in done.stdout
    assert "b.yaml:" in done.stdout


def test_all_and_the_latest_n_runs_of_an_outpath_are_one_set(study: Path) -> None:
    (study / "many").mkdir()
    for _ in range(3):
        jubex(study, "run", "b.yaml", "-P", "alpha.yaml", "--outpath", "many", "-q", "--no-result")

    def counts(*args: str) -> list[str]:
        out = jubex(study, "result", "--outpath", "many", "-T", "bysite", "-f", "csv", *args)
        return [row["bw_n"] for row in table(out.stdout)]

    assert counts("-i", "all") == ["6", "6"]
    assert counts("-n", "2") == ["4", "4"]
    assert counts("-i", "0,2") == ["4", "4"]
    assert counts() == ["2", "2"]
    wrong = jubex(study, "result", "--outpath", "many", "-n", "0", check=False)
    assert wrong.returncode == 2 and "expected a number of runs of at least 1" in wrong.stderr


# ------------------------------------------- runs that differ are never pooled

SCALED = """\
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


@pytest.fixture(scope="module")
def scaled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """runs/000000 as defined, 000001 with -p scale=3, 000002 as 000000; another benchmark."""
    top = tmp_path_factory.mktemp("pooling")
    (top / "b.yaml").write_text(SCALED)
    (top / "o.yaml").write_text(OTHER)
    for extra in ([], ["-p", "scale=3"], []):
        jubex(top, "run", "b.yaml", "-q", "--no-result", *extra)
    jubex(top, "run", "o.yaml", "-q", "--no-result", "--outpath", "others")
    return top


def test_runs_differing_in_an_override_are_a_column_never_pooled(scaled: Path) -> None:
    done = jubex(scaled, "result", "0", "1", "-T", "sums", "-f", "csv")
    assert table(done.stdout) == [
        {"scale": "1", "n": "1", "bw_n": "2", "bw_mean [MiB/s]": "11.0"},
        {"scale": "1", "n": "2", "bw_n": "2", "bw_mean [MiB/s]": "21.0"},
        {"scale": "3", "n": "1", "bw_n": "2", "bw_mean [MiB/s]": "13.0"},
        {"scale": "3", "n": "2", "bw_n": "2", "bw_mean [MiB/s]": "23.0"},
    ]
    # CSV is RFC 4180: a table's notes go to stderr
    assert "differ in scale: kept apart by it, never pooled" in done.stderr


def test_a_note_names_the_runs_each_row_pools(scaled: Path) -> None:
    """Runs 0 and 2 are one study, 1 differs in scale: the rows of scale 1 pool 0 and 2,
    and the note says so rather than "never pooled"."""
    for argv in (["0", "1", "2"], ["-i", "all"]):
        done = jubex(scaled, "result", *argv, "-T", "sums", "-f", "csv")
        assert [(r["scale"], r["bw_n"]) for r in table(done.stdout)] == [
            ("1", "4"),
            ("1", "4"),
            ("3", "2"),
            ("3", "2"),
        ]
        assert "runs 000000, 000002 pooled in the rows of scale 1" in done.stderr
        assert "never pooled" not in done.stderr


def test_a_table_naming_its_columns_gets_the_column_that_differs(scaled: Path) -> None:
    flat = json.loads(jubex(scaled, "result", "0", "1", "-T", "flat", "-f", "json").stdout)
    assert [(r["scale"], r["bw"]) for r in flat["rows"]][::2] == [
        (1, 11),
        (1, 21),
        (3, 13),
        (3, 23),
    ]
    turned = jubex(scaled, "result", "0", "1", "-T", "flat", "--pivot", "run", "-f", "csv")
    header = next(csv.reader(io.StringIO(turned.stdout)))
    assert "000000: bw [MiB/s]" in header and "000001: bw [MiB/s]" in header
    assert len(table(turned.stdout)) == 4


def test_identical_studies_pool_with_a_note_and_by_run_keeps_them_apart(scaled: Path) -> None:
    pooled = jubex(scaled, "result", "0", "2", "-T", "sums", "-f", "csv")
    assert [r["bw_n"] for r in table(pooled.stdout)] == ["4", "4"]
    assert "pooled as repetitions: their studies are identical" in pooled.stderr
    apart = jubex(scaled, "result", "0", "2", "-T", "sums", "--by", "run", "-f", "csv")
    assert [(r["run"], r["bw_n"]) for r in table(apart.stdout)] == [
        ("000000", "2"),
        ("000000", "2"),
        ("000002", "2"),
        ("000002", "2"),
    ]
    forced = jubex(scaled, "result", "0", "1", "-T", "sums", "--pool", "-f", "csv")
    assert [r["bw_n"] for r in table(forced.stdout)] == ["4", "4"]
    assert "pooled as repetitions (--pool): they differ in scale" in forced.stderr
    wrong = jubex(scaled, "result", "0", "1", "--by", "sclae", check=False)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert "--by sclae: the runs have no such key" in wrong.stderr
    assert "did you mean 'scale'" in wrong.stderr


def test_two_benchmarks_never_share_a_table(scaled: Path) -> None:
    from jubex import result

    tables = {t.name: t for t in result([scaled / "runs" / "000000", scaled / "others" / "000000"])}
    assert set(tables) == {"scaled: sums", "scaled: flat", "other: times"}
    assert tables["other: times"].column("t_mean") == [5]
    assert tables["scaled: sums"].column("n") == [1, 2]
    done = jubex(scaled, "result", "runs/000000", "others/000000", "-T", "times")
    assert "other: times" in done.stdout


def test_the_plot_draws_a_series_per_value_that_differs(scaled: Path) -> None:
    from jubex import open_runs
    from jubex.results.presentation.plotdata import plot_data

    runs = open_runs([scaled / "runs" / "000000", scaled / "runs" / "000001"])
    data = plot_data(runs, runs[0].benchmark.plots["curve"])
    assert [(s.label, s.ys) for s in data.series] == [("1", [11.0, 21.0]), ("3", [13.0, 23.0])]
    done = jubex(scaled, "plot", "0", "1", "-x", "n", "-y", "bw", "-o", "bw.svg")
    assert "differ in scale" in done.stderr
    heat = jubex(scaled, "plot", "0", "1", "-x", "n", "--rows", "n", "-y", "bw", check=False)
    assert heat.returncode == 2 and "Traceback" not in heat.stderr
    assert "the runs differ in scale, and a heatmap draws one study" in heat.stderr
    scaled_heat = jubex(scaled, "plot", "0", "1", "-x", "n", "--rows", "scale", "-y", "bw")
    assert "heatmap" not in scaled_heat.stderr


def test_the_report_keeps_the_runs_apart(scaled: Path) -> None:
    jubex(scaled, "report", "0", "1", "-o", "study.html")
    html = (scaled / "study.html").read_text()
    assert "<th>scale</th>" in html or ">scale<" in html
    assert "differ in scale: kept apart by it" in html


def test_the_studies_of_runs_are_those_of_each_run(scaled: Path) -> None:
    """Worked out once per spec, the studies are still those of every run: 0 and 2 are one
    study (their run.json is one text, opened as one spec), 1 another, 000000 of the
    other benchmark a third."""
    from jubex.results.tables.dimensions import studies, study_of
    from jubex.store.rundir import open_run

    paths = [scaled / "runs" / f"00000{i}" for i in range(3)] + [scaled / "others" / "000000"]
    runs = [open_run(path, follow=False) for path in paths]
    assert runs[0].spec is runs[2].spec
    assert studies(runs) == {study_of(run) for run in runs}
    assert len(studies(runs)) == 3
    assert len(studies([runs[0], runs[2]])) == 1
