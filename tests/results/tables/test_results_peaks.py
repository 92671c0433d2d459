"""Values against the platform's peaks: their share, and a flag above what it can deliver."""

from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.definition.model import Column, Table
from jubex.errors import DefinitionError
from jubex.platform.model import Platform
from jubex.results.tables.peaks import platform_peaks
from jubex.results.tables.table import build_table

PLATFORM = """
name: box
extends: local
peaks:
  storage_bandwidth: 2GB/s
  memory_bandwidth_per_node: 20 GB/s
"""

#: one node writes about 1000 MiB/s, two about 2000: the second is above 2 GB/s
DEFINITION = r"""
name: peaks
parameters:
  nodes: [1, 2]
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
steps:
  run:
    iterations: 2
    do: 'echo "bw: $(( 1000 * $nodes + $jube_wp_iteration )) MiB/s"'
    analyse: [bw]
results:
  bw:
    group_by: [nodes]
    columns:
      - nodes
      - {name: bw, stats: [mean], unit: GB/s, peak: storage_bandwidth}
      - {name: bw, stats: [max], title: mem, peak: "memory_bandwidth_per_node * nodes"}
"""


def rows(*pairs):
    return [{"nodes": n, "bw": bw} for n, bw in pairs]


def test_peaks_are_read_in_base_units_and_a_wrong_kind_is_named():
    platform = Platform("box", peaks={"storage_bandwidth": "2GB/s", "storage_iops": "1.5e6 IOPS"})
    assert platform_peaks(platform) == {"storage_bandwidth": 2e9, "storage_iops": 1.5e6}
    with pytest.raises(DefinitionError, match="is a size \\('2GB'\\); expected a bandwidth"):
        platform_peaks(Platform("box", peaks={"storage_bandwidth": "2GB"}))
    with pytest.raises(DefinitionError, match="'fast'; expected a bandwidth such as 350GB/s"):
        platform_peaks(Platform("box", peaks={"storage_bandwidth": "fast"}))


def test_a_value_is_shown_as_a_share_of_its_peak_and_flagged_above_it():
    table = Table(
        "t",
        columns=[Column("bw", stats=("mean",), peak="storage_bandwidth * nodes")],
        group_by=("nodes",),
    )
    data = rows((1, 1000.0), (1, 1000.0), (2, 5000.0))
    result = build_table(data, table, {"bw": "MB/s"}, {}, peaks={"storage_bandwidth": 2e9})
    assert result.columns == ["nodes", "bw_mean", "bw_mean_peak", "flags"]
    one, two = result.records()
    assert one["bw_mean_peak"] == pytest.approx(0.5) and one["flags"] is None
    assert two["bw_mean_peak"] == pytest.approx(1.25)
    assert (
        two["flags"]
        == "above peak: bw_mean 125% of storage_bandwidth * nodes (likely a cache effect)"
    )
    assert result.notes[-1].startswith("1 row(s) above a peak of the platform")


def test_a_platform_without_the_peak_leaves_the_share_missing_and_says_so():
    table = Table(
        "t", columns=[Column("bw", stats=("mean",), peak="storage_iops")], group_by=("nodes",)
    )
    result = build_table(rows((1, 10.0)), table, {"bw": "IOPS"}, {})
    assert result.records() == [{"nodes": 1, "bw_mean": 10.0, "bw_mean_peak": None}]
    assert "bw_mean_peak: missing, the platform states no storage_iops" in result.notes[-1]


def test_a_bandwidth_against_an_iops_peak_is_refused():
    table = Table("t", columns=[Column("bw", stats=("mean",), peak="storage_iops")])
    with pytest.raises(
        DefinitionError, match="is a bandwidth \\(MB/s\\), its peak 'storage_iops' a rate"
    ):
        build_table(rows((1, 10.0)), table, {"bw": "MB/s"}, {})


def test_an_unknown_peak_is_an_error_with_a_suggestion():
    table = Table("t", columns=[Column("bw", stats=("mean",), peak="storage_bandwith")])
    with pytest.raises(DefinitionError, match="neither a peak") as raised:
        build_table(rows((1, 10.0)), table, {"bw": "MB/s"}, {})
    assert "storage_bandwidth" in (raised.value.hint or "")


def test_jubex_result_against_a_platform_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "box.yaml").write_text(PLATFORM)
    (tmp_path / "peaks.yaml").write_text(DEFINITION)
    argv = ["run", str(tmp_path / "peaks.yaml"), "-P", str(tmp_path / "box.yaml")]
    assert main([*argv, "--outpath", str(tmp_path / "runs"), "-q", "--no-result"]) == 0
    capsys.readouterr()
    assert main(["result", str(tmp_path / "runs"), "-f", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "nodes,bw_mean [GB/s],mem max [MiB/s],bw_mean of peak,mem max of peak,flags"
    # 1000.5 MiB/s of 2 GB/s; 1001 of 20; CSV gives every number in full
    assert lines[1] == "1,1.049100288,1001.0,0.524550144,0.0524812288,"
    assert lines[2].endswith(
        ",1.048838144,0.0524550144,"
        "above peak: bw_mean 105% of storage_bandwidth (likely a cache effect)"
    )


#: a definition whose tables set their values against peaks, rightly and wrongly
PEAKED = """
name: peaked
parameters:
  nodes: [1, 2]
patterns:
  bw:
    bw: {regex: 'bw=$jube_pat_fp', type: float, unit: MiB/s}
    ops: {regex: 'ops=$jube_pat_fp', type: float, unit: ops/s}
steps:
  run:
    do: echo bw=5 ops=7
    analyse: [bw]
results:
  right:
    group_by: [nodes]
    columns: [nodes, {name: bw, stats: [mean], peak: storage_bandwidth * nodes}]
  COLUMN
"""


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        (
            "{name: bw, stats: [mean], peak: storage_bandwith}",
            "uses 'storage_bandwith', which is neither a peak",
        ),
        (
            "{name: ops, stats: [mean], peak: storage_bandwidth}",
            "is a rate (ops/s), its peak 'storage_bandwidth' a bandwidth: they do not compare",
        ),
        ("{name: bw, peak: storage_iops}", "its peak 'storage_iops' a rate"),
    ],
)
def test_validate_checks_peaks_as_the_table_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str, expected: str
) -> None:
    path = tmp_path / "peaked.yaml"
    wrong = f"wrong:\n    group_by: [nodes]\n    columns: [nodes, {column}]"
    path.write_text(PEAKED.replace("COLUMN", wrong))
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"{path}:19:22:" in out and expected in out, out
    path.write_text(PEAKED.replace("COLUMN", ""))
    assert main(["validate", str(path)]) == 0
