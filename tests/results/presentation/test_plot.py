"""Plots: the data they draw (from a real run), the files they make, the plots a definition
declares, and bad input refused in one paragraph with nothing written."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from jubex.definition.model import Plot
from jubex.errors import UsageError
from jubex.results.presentation.plot import draw, save, svg
from jubex.results.presentation.plotdata import _log2, plot_data
from jubex.results.statistics.stats import t_quantile
from jubex.store.rundir import Run, open_run

pytest.importorskip("matplotlib")

#: iteration i of a point writes nodes * 100 * factor * (1 + i/10): mean 1.1x, std 0.1x
DEFINITION = """\
name: plots
parameters:
  layout:
    zip:
      api: [POSIX, MPIIO]
      factor: [1, 2]
  transfer: [4KiB, 1MiB]
  nodes: [1, 2, 4]
patterns:
  bw:
    write_bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s, better: higher}
steps:
  run:
    iterations: 3
    do: "echo bw: ${nodes * 100 * factor * (1 + jube_wp_iteration / 10)} MiB/s"
    analyse: [bw]
plots:
  scaling: {x: nodes, y: write_bw, group: [api, transfer], error: ci95}
  heat: {x: nodes, rows: transfer, y: write_bw, format: png, filter: "api == 'POSIX'"}
"""


def jubex(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of the definition; its plots are drawn as it finishes."""
    where = tmp_path_factory.mktemp("plots")
    (where / "plots.yaml").write_text(DEFINITION)
    done = jubex(where, "run", "plots.yaml", "-q", "--outpath", "runs")
    assert done.returncode == 0, done.stderr
    return where


@pytest.fixture(scope="module")
def run(home: Path) -> Run:
    return open_run(home / "runs" / "000000")


def test_a_run_draws_its_declared_plots_into_its_plots_directory(home: Path) -> None:
    plots = home / "runs" / "000000" / "plots"
    assert sorted(p.name for p in plots.iterdir()) == ["heat.png", "scaling.svg"]
    assert (plots / "heat.png").read_bytes().startswith(b"\x89PNG")
    assert (plots / "heat.png").stat().st_mode & 0o777 == 0o644
    assert "<svg" in (plots / "scaling.svg").read_text()


def test_a_series_per_group_with_the_mean_and_the_ci95_of_the_repetitions(run: Run) -> None:
    data = plot_data([run], run.benchmark.plots["scaling"])
    assert data.kind == "line" and data.logx  # 1, 2, 4: powers of two
    series = {s.label: s for s in data.series}
    assert sorted(series) == [
        "api=MPIIO, transfer=1MiB",
        "api=MPIIO, transfer=4KiB",
        "api=POSIX, transfer=1MiB",
        "api=POSIX, transfer=4KiB",
    ]
    mpiio = series["api=MPIIO, transfer=4KiB"]
    assert [int(x) for x in mpiio.xs] == [1, 2, 4]
    assert mpiio.ys == pytest.approx([220.0, 440.0, 880.0])
    half_width = [t_quantile(2) * 20.0 * n / math.sqrt(3) for n in (1, 2, 4)]
    assert mpiio.errors == pytest.approx(half_width)
    assert mpiio.ns == [3, 3, 3]
    assert data.y_label == "write_bw (mean ± ci95) [MiB/s]" and data.x_label == "nodes"
    # factor varies with api (zipped), three repetitions: only the table's noise flags,
    # since the repetitions spread by 10 % of their mean
    (note,) = [note for note in data.notes if not note.startswith("concurrent:")]
    assert note.startswith("flags: 12 noisy point(s)")


def test_std_error_bars_and_a_pooled_parameter_is_named(run: Run) -> None:
    plot = Plot("p", x="nodes", y="write_bw", group=("api",))
    data = plot_data([run], plot)
    posix = next(s for s in data.series if s.label == "POSIX")
    assert posix.errors == pytest.approx([math.sqrt(400 / 5) * n for n in (1, 2, 4)])
    assert posix.ns == [6, 6, 6]  # two transfer sizes pooled
    assert any("'transfer' varies (2 values)" in note for note in data.notes)


def test_sizes_along_x_are_log2_and_keep_their_written_form(run: Run) -> None:
    data = plot_data([run], Plot("p", x="transfer", y="write_bw", group=("api",)))
    assert data.logx and [str(x) for x in data.x_values] == ["4KiB", "1MiB"]
    flat = plot_data([run], Plot("p", x="transfer", y="write_bw", logx=False))
    assert not flat.logx


def test_log2_only_for_sizes_or_three_powers_of_two() -> None:
    assert _log2([1, 2, 4, 8])
    assert not _log2([1, 2, 3])
    assert not _log2([2, 4])  # two values: nothing to gain
    assert not _log2([0.5, 1.0, 2.0])


def test_text_along_x_makes_bars_and_a_line_of_text_is_refused(run: Run) -> None:
    data = plot_data([run], Plot("p", x="api", y="write_bw", group=("nodes",)))
    assert data.kind == "bar" and data.x_values == ["MPIIO", "POSIX"]
    with pytest.raises(UsageError, match="a line needs numbers along x"):
        plot_data([run], Plot("p", x="api", y="write_bw", kind="line"))


def test_a_heatmap_has_a_cell_per_x_and_row(run: Run) -> None:
    data = plot_data([run], run.benchmark.plots["heat"])
    assert data.kind == "heatmap" and [str(r) for r in data.row_values] == ["4KiB", "1MiB"]
    cells = {(s.label, int(x)): y for s in data.series for x, y in zip(s.xs, s.ys, strict=True)}
    assert cells[("1MiB", 4)] == pytest.approx(440.0)  # POSIX only (the filter)
    assert len(cells) == 6


def test_a_parameter_that_does_not_exist_is_named_with_a_suggestion(run: Run) -> None:
    with pytest.raises(UsageError) as caught:
        plot_data([run], Plot("p", x="nodez", y="write_bw"))
    assert "'nodez' is not a parameter of run 000000" in str(caught.value)
    assert "did you mean 'nodes'" in str(caught.value)


def test_a_metric_without_values_is_refused(run: Run) -> None:
    with pytest.raises(UsageError) as caught:
        plot_data([run], Plot("p", x="nodes", y="read_bw"))
    assert "has no values of 'read_bw' (its values: write_bw)" in str(caught.value)


@pytest.mark.parametrize(
    "suffix, magic", [("svg", b"<?xml"), ("png", b"\x89PNG"), ("pdf", b"%PDF")]
)
def test_the_suffix_chooses_the_format(run: Run, tmp_path: Path, suffix: str, magic: bytes) -> None:
    figure = draw(plot_data([run], run.benchmark.plots["scaling"]))
    path = save(figure, tmp_path / f"out.{suffix}")
    assert path.read_bytes().startswith(magic)
    assert [p.name for p in tmp_path.iterdir()] == [f"out.{suffix}"]  # no temporary left


def test_an_unknown_suffix_writes_nothing(run: Run, tmp_path: Path) -> None:
    figure = draw(plot_data([run], run.benchmark.plots["scaling"]))
    with pytest.raises(UsageError, match=r"must be one of \.svg, \.png, \.pdf"):
        save(figure, tmp_path / "out.txt")
    assert list(tmp_path.iterdir()) == []


def test_inline_svg_has_no_address_and_salted_ids(run: Run) -> None:
    figure = draw(plot_data([run], run.benchmark.plots["scaling"]))
    one, two = svg(figure, "a"), svg(figure, "b")
    assert one.startswith("<svg") and "<metadata>" not in one and "matplotlib.org" not in one
    clips = [part.split('"')[0] for part in one.split('clipPath id="')[1:]]
    assert clips and all(clip not in two for clip in clips)


def test_cli_draws_a_plot_with_flags(home: Path) -> None:
    done = jubex(
        home, "plot", "runs/000000", "-x", "nodes", "-y", "write_bw", "-g", "api",
        "--error", "none", "-o", "flags.pdf",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "flags.pdf"
    assert (home / "flags.pdf").read_bytes().startswith(b"%PDF")
    assert "'transfer' varies" in done.stderr  # the pooled parameter, as a note


def test_cli_redraws_one_declared_plot(home: Path) -> None:
    done = jubex(home, "plot", "runs/000000", "--plot", "heat", "-o", "heat.svg")
    assert done.returncode == 0, done.stderr
    assert "<svg" in (home / "heat.svg").read_text()


@pytest.mark.parametrize(
    "args, message",
    [
        (["-x", "nodez", "-y", "write_bw"], "'nodez' is not a parameter of run 000000"),
        (["-x", "nodes", "-y", "read_bw"], "has no values of 'read_bw'"),
        (["-x", "nodes"], "a plot needs both -x PARAM and -y VALUE"),
        (["-x", "nodes", "-y", "write_bw", "--kind", "heatmap"], "needs --rows PARAM"),
        (["-x", "nodes", "--rows", "api", "-y", "write_bw", "-g", "api"], "takes no --group"),
        (["--plot", "nope"], "the definition has no plot 'nope' (it has: scaling, heat)"),
    ],
)
def test_cli_bad_input_is_one_paragraph_and_writes_nothing(
    home: Path, args: list[str], message: str
) -> None:
    before = sorted(p.name for p in home.iterdir())
    done = jubex(home, "plot", "runs/000000", *args, "-o", "bad.svg")
    assert done.returncode != 0
    assert message in done.stderr and "Traceback" not in done.stderr
    said, *error = done.stderr.strip().splitlines()
    assert said == "reading runs/ 000000" and len(error) == 1
    assert sorted(p.name for p in home.iterdir()) == before


def test_validate_checks_what_a_plot_names(tmp_path: Path) -> None:
    bad = DEFINITION.replace("x: nodes, rows", "x: nodez, rows").replace(
        "y: write_bw, group: [api", "y: read_bw, group: [api"
    )
    (tmp_path / "bad.yaml").write_text(bad)
    done = jubex(tmp_path, "validate", "bad.yaml")
    assert done.returncode != 0
    out = done.stdout + done.stderr
    assert "plot 'heat': 'nodez' is neither a parameter nor a meta key" in out
    assert "did you mean 'nodes'" in out
    assert "plot 'scaling': 'read_bw' is neither a parameter nor a pattern" in out
    assert "bad.yaml:18" in out and "bad.yaml:19" in out


def test_validate_refuses_a_heatmap_without_rows_and_rows_without_a_heatmap(
    tmp_path: Path,
) -> None:
    bad = DEFINITION.replace("error: ci95}", "error: ci95, kind: heatmap}").replace(
        "rows: transfer, y: write_bw,", "rows: transfer, kind: bar, y: write_bw,"
    )
    bad += "  grouped: {x: nodes, rows: transfer, y: write_bw, group: api}\n"
    (tmp_path / "bad.yaml").write_text(bad)
    out = jubex(tmp_path, "validate", "bad.yaml").stdout
    assert "plot 'scaling' is a heatmap: it needs rows" in out
    assert "plot 'heat' has rows, which only a heatmap has (kind: bar)" in out
    assert "plot 'grouped' is a heatmap, whose colour is its value: it takes no group" in out


def test_a_plot_switched_off_by_its_tag_is_not_drawn(run: Run) -> None:
    from jubex.definition.tags import apply_tags

    benchmark = run.benchmark
    benchmark.plots["heat"] = replace(benchmark.plots["heat"], tag="detail")
    assert sorted(apply_tags(benchmark, []).plots) == ["scaling"]
    assert sorted(apply_tags(benchmark, ["detail"]).plots) == ["heat", "scaling"]


def test_nothing_imports_matplotlib_before_a_plot_is_drawn() -> None:
    modules = (
        "jubex.cli.plot, jubex.cli.report, jubex.cli.run, jubex.results.presentation.report_html"
    )
    done = subprocess.run(
        [sys.executable, "-c", f"import sys, {modules}; print('matplotlib' in sys.modules)"],
        capture_output=True,
        text=True,
    )
    assert done.stdout.strip() == "False", done.stderr


def test_several_runs_are_one_result_set_told_apart_by_run(home: Path, run: Run) -> None:
    done = jubex(home, "run", "plots.yaml", "-q", "--outpath", "more", "-p", "nodes=1,2")
    assert done.returncode == 0, done.stderr
    other = open_run(home / "more" / "000000")
    data = plot_data([run, other], Plot("p", x="nodes", y="write_bw", group=("run",)))
    series = {s.label: [int(x) for x in s.xs] for s in data.series}
    assert series == {"runs/000000": [1, 2, 4], "more/000000": [1, 2]}


def test_a_plot_without_data_is_an_error_naming_why_and_writes_nothing(home: Path) -> None:
    args = ["plot", "runs", "-x", "nodes", "-y", "write_bw", "-o", "empty.png"]
    done = jubex(home, *args, "--filter", "transfer == '2m'")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    # a filter true for no row names the values the rows have
    assert "is true for none of the 36 row(s): transfer is 4KiB, 1MiB" in done.stderr
    assert not (home / "empty.png").exists()
    # a size compares with the size a text writes: 1MiB is '1m'
    assert jubex(home, *args, "--filter", "transfer == '1m'").returncode == 0
    assert (home / "empty.png").stat().st_size > 0


def test_a_declared_plot_without_data_is_an_error_naming_why(tmp_path: Path) -> None:
    declared = DEFINITION + "  empty: {x: nodes, y: write_bw, filter: \"api == 'HDF5'\"}\n"
    (tmp_path / "empty.yaml").write_text(declared.replace("iterations: 3", "iterations: 1"))
    assert jubex(tmp_path, "run", "empty.yaml", "-q", "--outpath", "runs").returncode == 0
    done = jubex(tmp_path, "plot", "runs", "--plot", "empty", "-o", "empty.svg")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "is true for none of the 12 row(s): api is POSIX, MPIIO" in done.stderr
    assert not (tmp_path / "empty.svg").exists()


def test_a_declared_plot_with_no_value_to_draw_is_an_error_naming_why(tmp_path: Path) -> None:
    # read_bw is declared but no output has it: the filter can decide no row
    declared = DEFINITION.replace(
        "steps:\n", "    read_bw: {regex: '^rd: $jube_pat_fp', type: float}\nsteps:\n"
    )
    declared += '  unread: {x: nodes, y: write_bw, filter: "read_bw > 0"}\n'
    (tmp_path / "unread.yaml").write_text(declared.replace("iterations: 3", "iterations: 1"))
    done = jubex(tmp_path, "run", "unread.yaml", "-q", "--outpath", "runs")
    assert done.returncode == 0, done.stderr
    assert "plots not drawn: plot 'unread' has no data to draw" in done.stderr
    done = jubex(tmp_path, "plot", "runs", "--plot", "unread", "-o", "unread.svg")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "plot 'unread' has no data to draw, and nothing is written: 12 row(s)" in done.stderr
    assert not (tmp_path / "unread.svg").exists()
