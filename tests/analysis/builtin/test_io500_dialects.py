"""The io500 analyser on IO500 submissions of every year (tests/data/outputs/SOURCES.md).

The expected values are read off the files: each dialect's phase lines, its units (the bash
harness and ISC20 print "GB/s" for GiB/s) and its score rule (the 2017-2018 harness printed
bandwidth x IOPS as its TOTAL; the IO500 score is their geometric mean).
"""

from __future__ import annotations

import math
import shutil

import pytest

from jubex.analysis.harvest import Harvester
from jubex.definition.model import Benchmark, Step

BASH_2018 = {  # io500/bash2018_result_summary.txt: phase -> (score, time)
    "ior_easy_write": (4.430, 322.45),
    "mdtest_easy_write": (103.110, 389.29),
    "ior_hard_write": (3.907, 343.64),
    "mdtest_hard_write": (7.937, 319.18),
    "find": (11.770, 1812.57),
    "ior_easy_read": (3.069, 465.40),
    "mdtest_easy_stat": (87.089, 248.72),
    "ior_hard_read": (1.395, 962.56),
    "mdtest_hard_stat": (38.780, 24.32),
    "mdtest_easy_delete": (60.609, 343.78),
    "mdtest_hard_read": (11.880, 90.36),
    "mdtest_hard_delete": (5.376, 165.28),
}


def test_bash_harness_2018_gb_meaning_gib(parse, by_name, units_of):
    result = parse("io500", "io500/bash2018_result_summary.txt")
    got, units = by_name(result), units_of(result)
    assert result.ok, result.reason
    for phase, (score, time) in BASH_2018.items():
        assert got[phase] == [score], phase
        assert got[f"{phase}_time"] == [time], phase
        assert got[f"{phase}_valid"] == [True]
        assert units[phase] == ("GiB/s" if phase.startswith("ior") else "kIOPS")
    assert got["score_bw"] == [2.93392] and units["score_bw"] == "GiB/s"
    assert got["score_md"] == [24.4074] and units["score_md"] == "kIOPS"
    assert got["score"] == [8.46223]  # printed as the geometric mean already
    assert got["valid"] == [True]


@pytest.mark.parametrize(
    ("relative", "bw", "md", "printed"),
    [
        ("io500/bash2017_total_product_result_summary.txt", 4.56736, 128.614, 587.42643),
        ("io500/bash2018_total_product_result_summary.txt", 2.85287, 12.6425, 36.06740),
    ],
)
def test_old_total_is_read_as_printed_and_the_geometric_mean_is_computed_beside_it(
    parse, by_name, relative, bw, md, printed
):
    result = parse("io500", relative)
    got = by_name(result)
    assert result.ok, result.reason
    assert printed == pytest.approx(bw * md, rel=1e-5)  # what that harness printed
    assert got["score"] == [printed]
    assert got["score_computed"] == [pytest.approx(math.sqrt(bw * md), rel=1e-12)]
    assert (got["score_bw"], got["score_md"]) == ([bw], [md])
    (note,) = got["score_note"]
    assert f"printed score {printed:.12g} (bandwidth x IOPS)" in note
    assert f"score_computed, is {math.sqrt(bw * md):.6g}" in note


def test_a_score_printed_as_the_geometric_mean_has_no_note(parse, by_name):
    got = by_name(parse("io500", "io500/bash2018_result_summary.txt"))
    assert got["score"] == [8.46223]
    assert got["score_computed"] == [pytest.approx(math.sqrt(2.93392 * 24.4074))]
    assert "score_note" not in got


def test_cannot_be_official_warning_makes_the_phase_and_the_run_invalid(parse, by_name):
    result = parse("io500", "io500/bash2018_warning_not_official_summary.txt")
    got = by_name(result)
    assert result.ok, result.reason  # the run finished; it is not an official one
    assert got["valid"] == [False]
    assert got["mdtest_easy_write_valid"] == [False]  # the phase the warning precedes
    assert got["mdtest_easy_write"] == [43.244] and got["mdtest_easy_write_time"] == [299.70]
    assert got["ior_easy_write_valid"] == [True] and got["mdtest_hard_write_valid"] == [True]
    (reason,) = got["invalid_reason"]
    assert "This cannot be official score. The runtime of 299.7035 seconds" in reason
    assert "invalid phases: mdtest_easy_write" in reason
    assert got["score"] == [1.97421] and "score_note" not in got


def test_bash_harness_2020_log_with_its_summary_printed_again(parse, by_name, units_of):
    result = parse("io500", "io500/bash2020_summary.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["ior_easy_write"] == [114.583]  # once, though the log prints it twice
    assert got["ior_easy_write_time"] == [461.11]
    assert got["mdtest_hard_delete"] == [2357.160]
    assert got["find"] == [2969.300]
    assert units_of(result)["ior_hard_read"] == "GiB/s"
    assert (got["score_bw"], got["score_md"], got["score"]) == ([108.188], [2668.57], [537.315])


def test_bash_harness_trace_cut_short_is_a_failed_run(parse, by_name):
    result = parse("io500", "io500/err_bash2019_trace_cut_short.txt")
    assert not result.ok
    assert "no [SCORE ] line" in result.reason
    assert by_name(result)["ior_hard_write"] == [4.287]


def test_isc20_summary(parse, by_name, units_of):
    result = parse("io500", "io500/isc20_result_summary.txt")
    got, units = by_name(result), units_of(result)
    assert result.ok, result.reason
    assert got["version"] == ["io500-isc20_v4-22"]
    assert "mode" not in got  # ISC20 does not print it
    assert got["ior_easy_write"] == [101.038894] and units["ior_easy_write"] == "GiB/s"
    assert got["ior_easy_write_time"] == [426.716]
    assert got["mdtest_hard_stat"] == [3430.205288] and units["mdtest_hard_stat"] == "kIOPS"
    assert got["score_bw"] == [102.538088] and units["score_bw"] == "GiB/s"
    assert (got["score_md"], got["score"], got["valid"]) == ([2280.052351], [483.520638], [True])


def test_isc20_result_txt_without_a_run_section(parse, by_name):
    result = parse("io500", "io500/isc20_result.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["version"] == ["io500-isc20_v4-22"]
    assert got["config_hash"] == ["C095E7AF"]
    assert got["ior_easy_write"] == [101.038894]
    assert got["ior_easy_write_stonewall"] == [42271.79]
    assert got["mdtest_easy_write_stonewall"] == [4318.818381]
    assert (got["find_found"], got["find_total_files"]) == ([213024], [493308279])
    scores = (got["score"], got["score_bw"], got["score_md"])
    assert scores == ([483.520638], [102.538088], [2280.052351])
    assert got["score_hash"] == ["5CC2B7F1"]


def test_sc21_extended_result_txt_without_procs(parse, by_name):
    result = parse("io500", "io500/sc21_extended_result.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert (got["version"], got["mode"]) == (["io500-sc21"], ["extended"])
    assert "tasks" not in got
    assert got["ior_easy_write"] == [3.261078]
    assert got["mdtest_hard_delete"] == [12.372046]
    scores = (got["score"], got["score_bw"], got["score_md"])
    assert scores == ([12.549643], [2.631452], [59.850429])
    assert (got["score_x"], got["score_x_bw"], got["score_x_md"]) == (
        [12.662357],
        [1.958556],
        [81.864024],
    )


def test_sc21_extended_summary_has_the_random_phases(parse, by_name, units_of):
    result = parse("io500", "io500/sc21_extended_result_summary.txt")
    got, units = by_name(result), units_of(result)
    assert result.ok, result.reason
    assert got["ior_rnd4k_write"] == [0.266235] and units["ior_rnd4k_write"] == "GiB/s"
    assert got["ior_rnd1mb_read"] == [6.661937]
    assert got["mdworkbench_bench"] == [112.565760]
    assert got["score_x"] == [12.662357]


def test_2024_summary_and_result_agree(parse, by_name):
    summary = by_name(parse("io500", "io500/v2024_result_summary.txt"))
    result = by_name(parse("io500", "io500/v2024_result.txt"))
    assert summary["ior_easy_write"] == [352.803032]
    for name in ("score", "score_bw", "score_md", "ior_easy_write", "mdtest_easy_write"):
        assert summary[name] == result[name], name


def test_a_failed_phase_is_explained_by_its_own_output(tmp_path, outputs):
    """A run that stopped in mdtest-hard-write: its stdout ends in the launcher's chatter,
    its result directory holds the phase's own output, which says why."""
    stdout = (outputs / "io500/run_np2_stdout.txt").read_text()
    stdout = stdout[: stdout.index("[RESULT]    mdtest-hard-write")]
    stdout += "mpirun detected that one or more processes exited with non-zero status\n"
    (tmp_path / "stdout").write_text(stdout)
    results = tmp_path / "results" / "2026.11.21-23.45.04"
    results.mkdir(parents=True)
    for phase in ("ior-easy-write", "mdtest-easy-write", "ior-hard-write"):
        shutil.copy(outputs / f"io500/run_np2/{phase}.txt", results)
    shutil.copy(outputs / "mdtest/err_unknown_option_np1.txt", results / "mdtest-hard-write.txt")
    benchmark = Benchmark("t", file="bench.yaml")
    benchmark.steps["run"] = Step("run", analyse=["io500"])
    result = Harvester(benchmark, "run").harvest(tmp_path, {})
    assert not result.ok
    assert result.reason == (
        "io500: stdout: the mdtest-hard-write phase failed "
        "(results/2026.11.21-23.45.04/mdtest-hard-write.txt): "
        "Error invalid argument: --no-such-option"
    )
