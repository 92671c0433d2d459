"""An analyser's ``reduce``: the iterations of a parameter point as one result row.

Real runs on the local platform. Each iteration of a point prints other numbers, some several;
the expected rows are worked out by hand with JUBE's formulas (first, last, min, max, sum,
cnt, avg = sum / cnt, std = sqrt(|sum2 - sum^2 / cnt| / (cnt - 1))).
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest

from jubex.api import drive, load
from jubex.cli.main import main
from jubex.engine.driver import Options, new_run
from jubex.platform.load import load_platform
from jubex.results.samples.rows import result_rows
from jubex.results.tables.tabulate import tables_with_definitions
from jubex.space.spec import resolve_spec
from jubex.store.rundir import Run, open_run
from jubex.store.store import DONE, FAILED

DEFINITION = """
name: reduce
parameters:
  nodes: [1, 2]
patterns:
  out:
    bw: {regex: "^bw: $jube_pat_int", type: int}
    t: {regex: "^t: $jube_pat_fp", type: float}
    host: "^host: $jube_pat_wrd"
    opt: {regex: "^opt: $jube_pat_int", type: int, default: "99"}
    capped: {regex: "^opt: $jube_pat_int", type: int, default: "99", reduce: [max]}
    seen: {regex: "^seen: $jube_pat_int", type: int}
    missing: {regex: "^never: $jube_pat_int", type: int, default: "0"}
    spread: {expr: "bw_max / bw_min", type: float}
    per_node: {expr: "bw_sum / nodes", type: float}
steps:
  run:
    iterations: 3
    do: |
      case $jube_wp_iteration in
        0) echo "bw: 10"; echo "bw: 14"; echo "host: a";;
        1) echo "bw: 20"; echo "t: 2.5"; echo "opt: 5"; echo "host: b"
           [ $nodes = 2 ] && exit 4;;
        2) echo "bw: 6"; echo "bw: 30"; echo "seen: 3"; echo "host: c";;
      esac
      true
analysers:
  out: {use: [out], step: run{reduce}}
"""

BW = [10, 14, 20, 6, 30]


def run_with(tmp_path: Path, reduce: str) -> Run:
    path = tmp_path / "reduce.yaml"
    path.write_text(DEFINITION.replace("{reduce}", reduce))
    run = new_run(resolve_spec(load(path), load_platform("local"), outpath=tmp_path / "runs"))
    drive(run, Options(progress="quiet"))
    return open_run(run.dir)


@pytest.fixture(scope="module")
def reduced(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_with(tmp_path_factory.mktemp("reduced"), ", reduce: true")


def test_the_iterations_of_a_point_are_one_row_with_statistics_over_all_matches(
    reduced: Run,
) -> None:
    states = sorted(wp.state for wp in reduced.store.workpackages())
    assert states == [DONE] * 5 + [FAILED]
    rows = list(result_rows(reduced))
    assert [(r["nodes"], r["jube_wp_iteration"]) for r in rows] == [(1, 0), (2, 0)]
    first = reduced.store.workpackages()[0]
    assert rows[0]["jube_wp_id"] == first.id and first.iteration == 0
    mean = sum(BW) / len(BW)
    std = math.sqrt(abs(sum(v * v for v in BW) - sum(BW) ** 2 / len(BW)) / (len(BW) - 1))
    for row in rows:
        assert (row["bw"], row["bw_first"], row["bw_last"]) == (10, 10, 30)
        assert (row["bw_min"], row["bw_max"], row["bw_sum"], row["bw_cnt"]) == (6, 30, 80, 5)
        assert row["bw_avg"] == mean == 16
        assert row["bw_std"] == pytest.approx(std) and std == pytest.approx(math.sqrt(88))
        assert (row["t"], row["t_cnt"], row["t_std"], row["t_avg"]) == (2.5, 1, 0.0, 2.5)
        assert (row["host"], row["host_last"], row["host_cnt"]) == ("a", "c", 3)
        assert "host_max" not in row and "host_avg" not in row
        assert (row["seen"], row["seen_cnt"]) == (3, 1)


def test_a_default_counts_only_when_no_iteration_matched(reduced: Run) -> None:
    for row in result_rows(reduced):
        assert (row["opt"], row["opt_cnt"], row["opt_max"], row["opt_avg"]) == (5, 1, 5, 5)
        assert row["capped_max"] == 5
        assert (row["missing"], row["missing_cnt"], row["missing_std"]) == (0, 0, 0)
        assert (row["missing_min"], row["missing_max"], row["missing_avg"]) == (0, 0, 0)


def test_derived_patterns_are_computed_once_from_the_merged_values(reduced: Run) -> None:
    rows = list(result_rows(reduced))
    assert [row["spread"] for row in rows] == [5.0, 5.0]
    assert [row["per_node"] for row in rows] == [80.0, 40.0]


def test_a_failed_iteration_contributes_its_matches_and_makes_the_row_fail(
    reduced: Run,
) -> None:
    ok_row, failed_row = result_rows(reduced)
    assert ok_row["ok"] is True and ok_row["reason"] == ""
    assert failed_row["ok"] is False
    assert failed_row["reason"].startswith("iteration 1: ")
    assert "iteration 0" not in failed_row["reason"]
    assert failed_row["t"] == 2.5 and failed_row["opt"] == 5


def test_a_table_reads_only_the_names_it_needs_and_gets_the_same_values(reduced: Run) -> None:
    names = {"nodes", "bw_avg", "bw", "per_node"}
    rows = list(result_rows(reduced, names))
    assert [(r["bw"], r["bw_avg"], r["per_node"]) for r in rows] == [(10, 16, 80), (10, 16, 40)]
    assert "host" not in rows[0] and "t_cnt" not in rows[0]


def test_result_shows_one_line_per_point(reduced: Run, capsys: pytest.CaptureFixture[str]) -> None:
    command = ["result", str(reduced.dir), "--no-analyse", "-f", "csv", "--include-failed"]
    assert main(command) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    assert [(r["wp"], r["nodes"], r["per_node"]) for r in rows] == [
        ("0", "1", "80.0"),
        ("3", "2", "40.0"),
    ]


def test_without_reduce_every_iteration_is_a_row(tmp_path: Path) -> None:
    run = run_with(tmp_path, "")
    rows = list(result_rows(run))
    assert [(r["nodes"], r["jube_wp_iteration"]) for r in rows] == [
        (1, 0),
        (1, 1),
        (1, 2),
        (2, 0),
        (2, 1),
        (2, 2),
    ]
    assert [r["bw_cnt"] for r in rows[:3]] == [2, 1, 2]
    assert [r["opt"] for r in rows[:3]] == [99, 5, 99]
    assert [r["spread"] for r in rows[:3]] == [1.4, 1.0, 5.0]


def test_analysers_of_one_step_may_differ_in_reduce_and_a_table_takes_the_rows_it_names(
    tmp_path: Path,
) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(
        DEFINITION.replace("{reduce}", ", reduce: true")
        + "  again: {use: [out], step: run}\n"
        + "results:\n"
        + "  merged: {use: [out], columns: [jube_res_analyser, nodes, jube_wp_iteration, bw_sum]}\n"
        + "  kept: {use: [again], columns: [jube_res_analyser, nodes, jube_wp_iteration, bw]}\n"
        + "  both: {use: [again, out], columns: [jube_res_analyser, nodes, jube_wp_iteration]}\n"
        + "  plain: {columns: [nodes, jube_wp_iteration, bw]}\n"
    )
    assert main(["validate", str(path)]) == 0
    run = new_run(resolve_spec(load(path), load_platform("local"), outpath=tmp_path / "runs"))
    drive(run, Options(progress="quiet"))
    built = tables_with_definitions([open_run(run.dir)], include_failed=True)
    cells = {t.name: [[str(c) for c in row] for row in r.rows] for t, r in built}
    assert cells["merged"] == [["out", "1", "0", "80"], ["out", "2", "0", "80"]]
    per_iteration = [[n, str(i), bw] for n in "12" for i, bw in enumerate(("10", "20", "6"))]
    assert cells["kept"] == [["again", *row] for row in per_iteration]
    assert cells["both"] == [["again", n, i] for n, i, _ in per_iteration] + [
        ["out", "1", "0"],
        ["out", "2", "0"],
    ]
    assert cells["plain"] == per_iteration


def test_iterations_under_an_iterated_parent_merge_per_parent_workpackage(tmp_path: Path) -> None:
    path = tmp_path / "nested.yaml"
    path.write_text(
        """
name: nested
parameters: {n: [1, 2]}
patterns:
  out: {it: {regex: "^it: $jube_pat_int", type: int}}
steps:
  build: {iterations: 2, do: "true"}
  run:
    depend: [build]
    iterations: 3
    do: 'echo "it: $jube_wp_iteration"'
    analyse: [merge]
analysers:
  merge: {use: [out], reduce: true}
"""
    )
    run = new_run(resolve_spec(load(path), load_platform("local"), outpath=tmp_path / "runs"))
    drive(run, Options(progress="quiet"))
    rows = list(result_rows(open_run(run.dir)))
    # a child's iteration is parent iteration x 3 + own: 0, 1, 2 under the first build
    # workpackage of a point and 3, 4, 5 under the second
    assert [(r["n"], r["jube_wp_iteration"], r["it_sum"], r["it_cnt"]) for r in rows] == [
        (1, 0, 3, 3),
        (1, 3, 12, 3),
        (2, 0, 3, 3),
        (2, 3, 12, 3),
    ]
