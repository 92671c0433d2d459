"""IO500 before the 2018 harness: the pre-release scripts and the first C application (2017).

The expected values are read off the files (tests/data/outputs/SOURCES.md): the scripts
print bandwidth in MB/s (IOR's MB/sec, powers of 1000) and rates in operations per second,
eleven scored phases, and their score as bandwidth x IOPS; the C application prints GiB/s
and kIOPS per phase and no score.
"""

from __future__ import annotations

import math

import pytest

MB = 1e6 / 2**30  # one MB/s in GiB/s

PRERELEASE_JOB = {  # io500/prerelease2017_job_out.txt: phase -> (printed value, time)
    "ior_easy_write": (794393.97 * MB, 420),
    "mdtest_easy_write": (28.320444, 313),
    "ior_hard_write": (687956.26 * MB, 331),
    "mdtest_hard_write": (4.140437, 101),
    "ior_easy_read": (476671.16 * MB, 637),
    "mdtest_easy_stat": (53.517350, 175),
    "ior_hard_read": (281533.86 * MB, 684),
    "mdtest_hard_stat": (61.442918, 27),
    "find": (5.020, 10),
    "mdtest_easy_delete": (36.291654, 253),
    "mdtest_hard_delete": (1.393784, 258),
}


def test_prerelease_job_output_of_eleven_phases(parse, by_name, units_of):
    result = parse("io500", "io500/prerelease2017_job_out.txt")
    got, units = by_name(result), units_of(result)
    assert result.ok, result.reason
    for phase, (value, time) in PRERELEASE_JOB.items():
        assert got[phase] == [pytest.approx(value, rel=1e-12)], phase
        assert got[f"{phase}_time"] == [time], phase
        assert units[phase] == ("GiB/s" if phase.startswith("ior") else "kIOPS")
    assert "mdtest_hard_read" not in got  # that harness had no such phase
    assert got["score"] == [7209139386.9]  # as printed: bandwidth in MB/s x IOPS
    assert got["score_bw"] == [pytest.approx(520399 * MB)]
    assert got["score_md"] == [pytest.approx(13.8531)]
    computed = math.sqrt(520399 * MB * 13.8531)
    assert got["score_computed"] == [pytest.approx(computed)]
    assert "bandwidth in MB/s x IOPS" in got["score_note"][0]
    assert "valid" not in got  # the harness judged no validity


def test_prerelease_results_with_the_unscored_md_real_io(parse, by_name):
    result = parse("io500", "io500/prerelease2017_results.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["mdreal_io"] == [pytest.approx(72.5912)] and got["mdreal_io_time"] == [164]
    assert got["ior_hard_read"] == [pytest.approx(40027.87 * MB)]
    assert got["score"] == [5676387178]


def test_prerelease_summary_with_warnings_and_a_serial_find(parse, by_name):
    result = parse("io500", "io500/prerelease2017_summary_warnings.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["find"] == [pytest.approx(10.769)] and got["find_time"] == [232]
    assert got["mdtest_easy_stat"] == [pytest.approx(77.345686)]  # bw3=... lines not read
    assert got["score"] == [20418638.16]


def test_prerelease_output_cut_before_its_score_fails(parse, outputs):
    from jubex.analysis import builtin

    text = (outputs / "io500/prerelease2017_job_out.txt").read_text()
    result = builtin.get("io500").parse(text[: text.index("IO-500 bw score")])
    assert not result.ok and "no 'IO-500 score:' line" in result.reason


def test_c_application_submission_block(parse, by_name, units_of):
    result = parse("io500", "io500/capp2017_submission.txt")
    got, units = by_name(result), units_of(result)
    assert result.ok, result.reason
    assert got["ior_easy_write"] == [118.047] and units["ior_easy_write"] == "GiB/s"
    assert got["ior_easy_write_time"] == [1084.3]
    assert got["ior_hard_read"] == [1.158]  # printed only in the submission block
    assert got["mdtest_easy_write"] == [17.917] and units["mdtest_easy_write"] == "kIOPS"
    assert got["mdtest_hard_write"] == [17.499] and got["mdtest_hard_read"] == [14.309]
    assert (got["find_easy"], got["find_easy_found"]) == ([1715.941], [0])
    assert (got["find_hard"], got["find_hard_total_files"]) == ([895.001], [5795001])
    assert len(got["ior_easy_write"]) == 1  # once, though printed twice
    assert not {"score", "score_computed", "valid"} & set(got)  # it printed none


def test_c_application_kioops_and_a_single_find(parse, by_name):
    result = parse("io500", "io500/capp2017_kioops_run.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["mdtest_easy_write"] == [18.146] and got["mdtest_easy_delete"] == [7.740]
    assert got["ior_hard_read"] == [6.790] and got["ior_hard_read_time"] == [96.7]
    assert (got["find"], got["find_found"], got["find_total_files"]) == (
        [912.855],
        [159678],
        [16369007],
    )


def test_c_application_refusing_its_directory_is_a_failed_run(parse):
    result = parse("io500", "io500/err_capp2017_refused_workdir.txt")
    assert not result.ok
    assert result.reason.startswith("IO500 error: I will not delete the directory")


def test_c_application_cut_inside_its_submission_block_fails(outputs):
    from jubex.analysis import builtin

    text = (outputs / "io500/capp2017_submission.txt").read_text()
    cut = text[: text.index("[Result] find-hard", text.index("=== IO-500 submission"))]
    result = builtin.get("io500").parse(cut)
    assert not result.ok and "no result for find_hard" in result.reason
