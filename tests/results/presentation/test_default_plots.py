"""Default plots: a definition without plots (a JUBE file, whose format has none) gets one
per measured column of each table, against the parameter taking the most values, one line
per value of the next."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.api import load
from jubex.cli.main import main
from jubex.results.presentation.default_plots import default_plots
from jubex.results.tables.tabulate import rows_of
from jubex.store.rundir import open_run

BENCHMARK = """<jube><benchmark name="plots" outpath="runs">
  <parameterset name="p">
    <parameter name="size" type="int">1,2,4</parameter>
    <parameter name="mode">a,b</parameter>
    <parameter name="label">fixed</parameter>
  </parameterset>
  <patternset name="pat">
    <pattern name="bw" type="float" unit="MiB/s">bw=$jube_pat_fp</pattern>
    <pattern name="lat" type="float">lat=$jube_pat_fp</pattern>
    <pattern name="api" type="string">api=$jube_pat_wrd</pattern>
  </patternset>
  <step name="run" iterations="2"><use>p</use>
    <do>echo "bw=$size.5 lat=0.$size api=POSIX"</do></step>
  <analyser name="ana"><use>pat</use><analyse step="run"><file>stdout</file></analyse>
  </analyser>
  <result><use>ana</use>
    <table name="t"><column>label</column><column>mode</column><column>size</column>
      <column>bw_avg</column><column>bw_max</column><column>lat</column>
      <column>api</column></table>
  </result>
</benchmark></jube>"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("plots")
    (home / "plots.xml").write_text(BENCHMARK)
    argv = ["run", str(home / "plots.xml"), "--outpath", str(home / "runs"), "-q", "--no-result"]
    assert main(argv) == 0
    return home / "runs" / "000000"


def test_each_measured_column_against_the_most_varying_parameter_grouped_by_the_next(
    run_dir: Path,
) -> None:
    """Text a pattern reads (``api``, as IOR prints it) has no mean and gets no plot."""
    run = open_run(run_dir)
    plots = default_plots(run.benchmark, rows_of([run]))
    assert {n: (p.x, p.y, p.group) for n, p in plots.items()} == {
        "t_bw": ("size", "bw", ("mode",)),
        "t_lat": ("size", "lat", ("mode",)),
    }


def test_the_report_of_a_jube_files_run_holds_its_default_plots(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "report.html"
    assert main(["report", str(run_dir), "-o", str(out)]) == 0
    html = out.read_text()
    assert html.count("<svg") == 2
    assert "t: bw" in html and "t: lat" in html


def test_a_parameter_an_analyser_reads_back_is_an_axis_not_a_plot(tmp_path: Path) -> None:
    """IOR prints its task count, so the built-in analyser reads ``tasks`` as a value: drawn
    as a plot of the table it was an empty 'bandwidth: tasks' frame atop the report."""
    (tmp_path / "d.yaml").write_text(
        "name: d\nparameters: {tasks: [1, 2], transfer: [64k, 1m]}\n"
        "patterns:\n  p:\n    tasks: {regex: 'tasks=$jube_pat_int', type: int}\n"
        "    bw: {regex: 'bw=$jube_pat_fp', type: float}\n"
        "steps:\n  run: {do: echo, analyse: [p]}\n"
        "results:\n  bandwidth:\n    group_by: [tasks, transfer]\n"
        "    columns: [tasks, transfer, bw]\n"
    )
    rows = [{"tasks": t, "transfer": x, "bw": 1.0 * t} for t in (1, 2) for x in ("64k", "1m")]
    assert list(default_plots(load(tmp_path / "d.yaml"), rows)) == ["bandwidth_bw"]
