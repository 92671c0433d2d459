"""Noisy points and outliers are marked in every grouped table, never dropped."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.cli.main import main
from jubex.definition.model import Column, Table
from jubex.results.samples.rows import GroupSamples
from jubex.results.statistics.flags import (
    _executions,
    _plain_executions,
    _split_executions,
    flag,
    side_warnings,
)
from jubex.results.statistics.stats import summarize
from jubex.results.tables.table import build_table

#: three points of six iterations: quiet, noisy (cv 13 %), and one with an outlier
DEFINITION = r"""
name: flags
parameters:
  point: [quiet, noisy, odd]
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
steps:
  run:
    iterations: 6
    do: |
      case $point in
        quiet) v=$((1000 + $jube_wp_iteration)) ;;
        noisy) v=$((1000 + 100 * $jube_wp_iteration)) ;;
        odd) v=$((1000 + $jube_wp_iteration + ($jube_wp_iteration == 3) * 500)) ;;
      esac
      echo "bw: $v MiB/s"
    analyse: [bw]
results:
  bw:
    group_by: [point]
    columns: [point, {name: bw, stats: [n, mean, cv, hmean, gmean], format: ".1f"}]
"""


def rows(point, *values):
    return [{"point": point, "bw": v, "jube_wp_iteration": i} for i, v in enumerate(values)]


def test_a_group_is_flagged_for_its_spread_and_its_outliers():
    marks = flag(rows("p", 1000, 1001, 1002, 1003, 1004, 1503), ["bw"])
    assert marks.text() == "noisy: bw cv 18.8%; outlier: bw 1503 (iteration 5)"
    assert flag(rows("p", 1000, 1001, 1002), ["bw"]).text() is None
    # three values have no outlier, nor have ties alone (fio's bucketed percentiles)
    assert flag(rows("p", 878.6, 1516.2, 875.2), ["bw"], cv_limit=1).text() is None
    ties = rows("p", 1105.92, 1155.072, 1155.072, 1155.072, 1155.072, 1155.072, 1155.072)
    assert flag(ties, ["bw"]).text() is None
    assert flag(rows("p", 1000, 1100, 1200), ["bw"], cv_limit=0.10).text() is None


def test_the_outlier_stays_in_every_statistic():
    data = rows("odd", 1000, 1001, 1002, 1003, 1004, 1503) + rows("quiet", 1000, 1001)
    table = Table("t", columns=[Column("bw", stats=("n", "mean"))], group_by=("point",))
    result = build_table(data, table, {"bw": "MiB/s"}, {})
    odd, quiet = result.records()
    assert odd["bw_n"] == 6 and odd["bw_mean"] == pytest.approx(1085.5)
    assert odd["flags"] == "noisy: bw cv 18.8%; outlier: bw 1503 (iteration 5)"
    assert quiet["flags"] is None
    assert result.notes[-1].startswith("flags: 1 noisy point(s) (coefficient of variation")
    assert "1 outlier(s)" in result.notes[-1]


def test_tables_without_flags_or_without_groups_have_no_flags_column():
    data = rows("quiet", 1000, 1001) + rows("noisy", 1000, 1500)
    quiet = Table("t", columns=[Column("bw", stats=("mean",))], group_by=("point",))
    assert "flags" not in build_table(data[:2], quiet, {}, {}).columns
    ungrouped = Table("t", columns=[Column("point"), Column("bw")])
    assert "flags" not in build_table(data, ungrouped, {}, {}).columns
    looser = build_table(data, quiet, {}, {}, cv_limit=0.5)
    assert "flags" not in looser.columns


def test_a_comparison_notes_a_noisy_side_and_an_outlier():
    values = [1000.0, 1001.0, 1002.0, 1003.0, 1004.0, 1503.0]
    assert side_warnings("baseline", values, summarize(values)) == [
        "noisy baseline (cv 18.8%)",
        "outlier in the baseline: 1503",
    ]


def test_jubex_result_shows_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "flags.yaml").write_text(DEFINITION)
    out = tmp_path / "runs"
    assert main(["run", str(tmp_path / "flags.yaml"), "--outpath", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["result", str(out), "-f", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "point,bw_n,bw_mean [MiB/s],bw_cv,bw_hmean [MiB/s],bw_gmean [MiB/s],flags"
    assert lines[1] == "quiet,6,1002.5,0.0018661632851740355,1002.4970906006405,1002.4985453008081,"
    assert lines[2].startswith("noisy,6,1250.0,0.1496662954709576")
    assert lines[2].endswith(",noisy: bw cv 15.0%")
    assert lines[3].endswith(",noisy: bw cv 18.8%; outlier: bw 1503 (iteration 3)")
    assert len(lines) == 4  # the flags are a column; no notes in CSV
    assert main(["result", str(out), "-f", "aligned"]) == 0
    assert "flags: 2 noisy point(s)" in capsys.readouterr().out


def test_a_table_sets_when_it_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = DEFINITION.replace(
        "group_by: [point]", "group_by: [point]\n    flags: {cv: 15%, outliers: false}"
    )
    (tmp_path / "flags.yaml").write_text(text)
    out = tmp_path / "runs"
    assert main(["run", str(tmp_path / "flags.yaml"), "--outpath", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["result", str(out), "-f", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].endswith(",")  # cv 15.0 %: not noisy above 15 %
    assert lines[3].endswith(",noisy: bw cv 18.8%")  # and no outlier test
    assert main(["result", str(out), "-f", "aligned"]) == 0
    notes = capsys.readouterr().out
    assert "above 15%" in notes and "0 outlier(s)" in notes


@pytest.mark.parametrize(
    ("flags", "expected"),
    [("{cv: 150%}", "a share such as 5% or 0.05"), ("{outlier: 1%}", "outlier")],
)
def test_a_wrong_flags_setting_is_refused_with_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: str, expected: str
) -> None:
    text = DEFINITION.replace("group_by: [point]", f"group_by: [point]\n    flags: {flags}")
    (tmp_path / "flags.yaml").write_text(text)
    assert main(["validate", str(tmp_path / "flags.yaml")]) != 0
    err = capsys.readouterr()
    message = err.out + err.err
    assert "flags.yaml:22:" in message and expected in message, message


_SAMPLE = st.one_of(
    st.floats(allow_nan=False, width=64),
    st.floats(),
    st.integers(-5, 5),
    st.booleans(),
    st.none(),
    st.text(max_size=2),
)


@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "bw": _SAMPLE,
                "samples": st.dictionaries(
                    st.sampled_from(["bw", "iops"]), st.lists(_SAMPLE, max_size=4).map(tuple)
                ),
            },
            optional={"executions": st.sampled_from([{}, {"bw": ((0, 1), (1, 1))}])},
        ),
        max_size=6,
    )
)
def test_a_group_of_float_samples_gives_the_executions_row_by_row_gives(
    rows: list[dict[str, object]],
) -> None:
    """The executions of rows of float samples, taken as the rows keep them, are those the
    row-by-row split gives: the same values, of the same types, in the same order."""
    plain = _plain_executions(GroupSamples(rows), "bw")
    if plain is not None:
        split = _split_executions(rows, "bw")
        assert [list(e) for e in plain] == split
        assert [[type(v) for v in e] for e in plain] == [[type(v) for v in e] for e in split]
    assert [list(e) for e in _executions(GroupSamples(rows), "bw")] == _split_executions(rows, "bw")
