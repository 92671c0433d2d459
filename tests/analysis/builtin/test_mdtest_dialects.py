"""The mdtest analyser on mdtest outputs of other sites (tests/data/outputs/SOURCES.md).

Job logs with several mdtest runs appended give one record per run, as IOR's tests do; the
stonewall row of mdtest 3.3+ is kept; mdtest's lower-case ``error`` lines fail the run.
"""

from __future__ import annotations

import pytest

from jubex.analysis.builtin import mdtest

#: v1.9.3_io500_job_log_7_runs.txt: run -> (files, operation -> (max, min, mean, std))
JOB_LOG = {
    0: (3840000, {"file_creation": (20196.126, 20196.120, 20196.124, 0.002)}),
    1: (576000, {"file_creation": (211.642, 211.642, 211.642, 0.0)}),
    2: (3840000, {"file_stat": (159780.774, 159588.030, 159779.969, 10.747)}),
    3: (576000, {"file_stat": (154503.553, 154487.952, 154496.220, 4.509)}),
    4: (3840000, {"file_removal": (19247.220, 19247.173, 19247.178, 0.004)}),
    5: (576000, {"file_read": (81326.378, 81321.585, 81323.806, 1.195)}),
    6: (576000, {"file_removal": (221.957, 221.957, 221.957, 0.0)}),
}


def test_a_job_log_of_seven_runs_gives_seven_records(parse, by_name):
    result = parse("mdtest", "mdtest/v1.9.3_io500_job_log_7_runs.txt")
    assert result.ok, result.reason
    assert {m.record for m in result.measurements} == set(JOB_LOG)
    for record, (files, rows) in JOB_LOG.items():
        got = by_name(result, record)
        assert got["version"] == ["mdtest-1.9.3"]
        assert (got["tasks"], got["nodes"], got["files"]) == ([320], [10], [files])
        for op, stats in rows.items():
            for stat, value in zip(("max", "min", "mean", "std"), stats, strict=True):
                assert got[f"{op}_{stat}"] == [value], (record, op, stat)
        others = {n for n in got if n.endswith("_mean")} - {f"{op}_mean" for op in rows}
        assert others <= {"tree_creation_mean", "tree_removal_mean"}, record


def test_three_appended_runs_keep_their_own_tasks_and_rates(parse, by_name):
    result = parse("mdtest", "mdtest/v1.x_io500_mdt_easy_3_runs.txt")
    assert result.ok, result.reason
    runs = [by_name(result, record) for record in range(3)]
    assert [run["tasks"] for run in runs] == [[16384]] * 3
    assert runs[0]["file_creation_max"] == [28320.444]
    assert runs[1]["file_stat_mean"] == [53517.350]
    assert runs[2]["file_removal_mean"] == [36291.654]
    assert runs[2]["tree_removal_mean"] == [0.209]
    assert "file_creation_max" not in runs[1]  # not pooled with the first run's


def test_the_stonewall_row_is_kept(parse, by_name, units_of):
    result = parse("mdtest", "mdtest/isc20_hard_write_stonewall.txt")
    got, units = by_name(result), units_of(result)
    assert result.ok, result.reason
    assert got["file_creation_stonewall"] == [810555.174]
    assert units["file_creation_stonewall"] == "ops/s"
    assert got["file_creation_stonewall_time"] == [299.992]
    assert units["file_creation_stonewall_time"] == "s"
    assert got["file_creation_mean"] == [813603.686]
    assert got["file_creation_time_mean"] == [312.298]
    assert (got["tasks"], got["files"]) == ([544], [816000000])


def test_lower_case_error_lines_fail_the_run_with_the_first_one(parse):
    result = parse("mdtest", "mdtest/err_v3.3.0_4096_error_could_not_create.txt")
    assert not result.ok
    assert result.reason == (
        "error could not create directory '/ccc/t1kf/io-500-dev-hpcx/datafiles/"
        "io500.2019.11.06-06.13.20/mdt_easy/#test-dir.0-0/mdtest_tree.4.0/'"
    )
    assert any(m.name == "file_creation_mean" for m in result.measurements)  # still kept


@pytest.mark.parametrize("name", ["file_creation_stonewall", "file_creation_stonewall_time"])
def test_stonewall_names_are_documented_metrics(name):
    assert name in mdtest.METRICS
