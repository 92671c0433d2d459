"""A text table shows a measured value with no more decimals than the program printed:
IOR prints its rates from 3600 MiB/s on without decimals (3683, not 3683.00), so a column
format of ``.1f`` must not make that 3683.0. CSV keeps every value in full."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from jubex.api import load, run
from jubex.engine.driver import Options
from jubex.platform.load import load_platform
from jubex.results.presentation.report_html import render_report
from jubex.results.tables.columns import Header
from jubex.results.tables.formats import render
from jubex.results.tables.table import ResultTable
from jubex.results.tables.tabulate import tables_with_definitions
from jubex.space.spec import resolve_spec
from jubex.store.rundir import open_run

#: IOR 4.1 -i 3: read rows print 3683, 3934 (no decimals) and 3533.95
IOR = (
    Path(__file__).resolve().parents[2] / "data" / "outputs" / "ior" / "posix_fpp_t1m_b16m_np4.txt"
)


def _tables(tmp_path: Path):
    definition = tmp_path / "d.yaml"
    definition.write_text(
        "name: printed\n"
        f"steps:\n  s:\n    do: cat {IOR}\n    analyse: [ior]\n"
        "results:\n"
        "  rows:\n    columns:\n      - {name: read_bw, stats: [first, last], format: '.1f'}\n"
        "      - {name: write_bw, stats: [first], format: '.1f'}\n"
        "  points:\n    group_by: [jube_step_name]\n    columns:\n"
        "      - {name: read_bw, stats: [min, max, mean], format: '.2f'}\n"
    )
    spec = resolve_spec(load(definition), load_platform("local"), outpath=tmp_path / "runs")
    made, _ = run(spec, Options(progress="quiet"))
    return [table for _, table in tables_with_definitions([made])]


def _cells(text: str) -> list[str]:
    return text.split()


def test_a_rate_ior_printed_without_decimals_keeps_none(tmp_path: Path) -> None:
    rows, points = _tables(tmp_path)
    shown = render(rows, "aligned")
    assert "3683" in _cells(shown) and "3683.0" not in shown  # first
    assert "3533.9" in _cells(shown) or "3534.0" in _cells(shown)  # last: 3533.95, .1f
    assert "1011.8" in _cells(shown)  # printed 1011.75: the column's one decimal
    shown = render(points, "aligned")
    assert "3533.95" in _cells(shown)  # min, as printed
    assert "3934" in _cells(shown) and "3934.00" not in shown  # max, printed so
    assert "3716.98" in _cells(shown)  # the mean is worked out: the column's format


def test_the_html_report_shows_them_as_printed(tmp_path: Path) -> None:
    _tables(tmp_path)
    (made,) = [open_run(p) for p in sorted((tmp_path / "runs").iterdir()) if p.is_dir()]
    page = render_report([made])
    assert re.search(r">\s*3683\s*<", page) and not re.search(r">\s*3683\.0\s*<", page)
    assert re.search(r">\s*3934\s*<", page) and re.search(r">\s*3533\.95\s*<", page)


def test_csv_keeps_every_value_in_full(tmp_path: Path) -> None:
    _, points = _tables(tmp_path)
    text = render(points, "csv")
    assert not [line for line in text.splitlines() if line.startswith("#")]
    (record,) = [{k.split()[0]: v for k, v in r.items()} for r in csv.DictReader(io.StringIO(text))]
    assert float(record["read_bw_max"]) == 3934.0
    assert float(record["read_bw_mean"]) == (3683 + 3934 + 3533.95) / 3


def _decimals(text: str) -> int:
    return len(text.partition(".")[2])


@given(
    st.integers(0, 10**9),
    st.integers(0, 6),
    st.sampled_from([".1f", ".2f", ".4f", ">12,.3f", ".6f"]),
)
def test_a_printed_value_never_gains_decimals(whole: int, decimals: int, spec: str) -> None:
    printed = f"{whole / 10**decimals:.{decimals}f}"
    value = float(printed)
    header = Header("bw", "bw", "MiB/s", spec, printed=True)
    table = ResultTable("t", [header], [[value]])
    cell = render(table, "aligned").strip().splitlines()[-1].strip().replace(",", "")
    assert _decimals(cell) <= min(decimals, int(re.findall(r"(\d+)f", spec)[0]))
    assert float(cell) == float(format(value, spec.lstrip(">12,")))
