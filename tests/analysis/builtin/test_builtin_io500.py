"""The io500 analyser on a real (invalid, 2 s stonewall) IO500 run; values from its README."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.analysis.builtin import io500

PHASES = {  # phase -> (score, unit, time, valid), copied from run_np2_stdout.txt
    "ior_easy_write": (0.931990, "GiB/s", 3.041, False),
    "mdtest_easy_write": (49.342877, "kIOPS", 5.183, False),
    "ior_hard_write": (0.645572, "GiB/s", 2.991, False),
    "mdtest_hard_write": (40.873351, "kIOPS", 3.573, False),
    "find": (2067.548401, "kIOPS", 0.151, True),
    "ior_easy_read": (4.477966, "GiB/s", 0.634, True),
    "mdtest_easy_stat": (797.064764, "kIOPS", 1.260, True),
    "ior_hard_read": (3.146596, "GiB/s", 0.614, True),
    "mdtest_hard_stat": (837.061524, "kIOPS", 1.126, True),
    "mdtest_easy_delete": (206.996344, "kIOPS", 2.239, True),
    "mdtest_hard_read": (239.639740, "kIOPS", 1.440, True),
    "mdtest_hard_delete": (10.029171, "kIOPS", 11.544, True),
    "ior_rnd4k_easy_read": (5.891576, "GiB/s", 2.086, True),
}


@pytest.mark.parametrize(
    "relative", ["io500/run_np2_stdout.txt", "io500/run_np2/result_summary.txt"]
)
def test_every_phase_and_the_scores(parse, by_name, units_of, relative):
    result = parse("io500", relative)
    got, units = by_name(result), units_of(result)
    assert result.ok, result.reason
    for phase, (score, unit, time, valid) in PHASES.items():
        assert got[phase] == [score], phase
        assert units[phase] == unit
        assert got[f"{phase}_time"] == [time]
        assert got[f"{phase}_valid"] == [valid]
    assert "timestamp" not in got  # a dummy phase, printed as 0.000000 kIOPS
    assert got["score"] == [17.776944]
    assert got["score_bw"] == [1.706355]
    assert got["score_md"] == [185.201603]
    assert (units["score_bw"], units["score_md"]) == ("GiB/s", "kIOPS")
    assert got["valid"] == [False]
    assert got["version"] == ["io500-isc26_v2-26-g02091cf254d8"]
    assert got["mode"] == ["standard"]


def test_invalid_reason_quotes_io500(parse, by_name):
    reason = by_name(parse("io500", "io500/run_np2_stdout.txt"))["invalid_reason"][0]
    assert "stonewall-time 2s != 300s" in reason
    assert "Runtime is smaller than expected minimum runtime" in reason
    assert "ior-easy-write, mdtest-easy-write, ior-hard-write, mdtest-hard-write" in reason


def test_result_txt(parse, by_name):
    result = parse("io500", "io500/run_np2/result.txt")
    got = by_name(result)
    assert result.ok, result.reason
    assert got["score"] == [17.776944]
    assert (got["score_md"], got["score_bw"]) == ([185.201603], [1.706355])
    assert got["valid"] == [False]
    assert got["tasks"] == [2]
    assert got["config_hash"] == ["D603111B"]
    assert got["score_hash"] == ["EF3C3F3A"]
    assert got["ior_easy_write_stonewall"] == [1.41]
    assert got["mdtest_easy_write_stonewall"] == [98.235872]
    assert got["ior_hard_write_stonewall"] == [0.95]
    assert got["mdtest_hard_write_stonewall"] == [52.318675]
    assert (got["find_found"], got["find_total_files"]) == ([3080], [311507])
    assert got["mdtest_hard_delete"] == [10.029171]
    assert got["mdtest_hard_delete_time"] == [11.5439]
    assert got["ior_easy_write_valid"] == [False]
    assert got["find_valid"] == [True]
    assert "stonewall-time 2s != 300s" in got["invalid_reason"][0]


@pytest.mark.parametrize(
    "relative", ["io500/verify_np2_stdout.txt", "io500/io500-verify_np2_stdout.txt"]
)
def test_verifier_output(parse, by_name, relative):
    result = parse("io500", relative)
    got = by_name(result)
    assert result.ok
    assert got["verified"] == [True]
    assert got["valid"] == [False]
    assert got["config_hash"] == ["D603111B"]
    assert got["score_hash"] == ["EF3C3F3A"]
    assert got["invalid_reason"] == ["the verifier says: But this is an invalid run!"]


@pytest.mark.parametrize(
    "relative", ["io500/io500_list.txt", "io500/run_np2/config.ini", "io500/run_np2/timestampfile"]
)
def test_files_that_are_no_run_output(parse, relative):
    result = parse("io500", relative)
    assert not result.ok
    assert "not IO500 output" in result.reason


def test_run_that_stopped_before_the_score(outputs):
    text = (outputs / "io500/run_np2_stdout.txt").read_text()
    result = io500.parse(text[: text.index("[RESULT]   mdtest-easy-delete")])
    assert not result.ok
    assert "no [SCORE ] line" in result.reason
    assert [m.value for m in result.measurements if m.name == "find"] == [2067.548401]


EXTENDED = Path(__file__).parent / "data" / "io500_extended"


@pytest.mark.parametrize("name", ["stdout.txt", "result.txt"])
def test_extended_run(by_name, name):
    result = io500.parse((EXTENDED / name).read_text())
    got = by_name(result)
    assert result.ok, result.reason
    assert (got["valid"], got["valid_x"], got["mode"]) == ([True], [True], ["extended"])
    assert (got["score"], got["score_bw"], got["score_md"]) == (
        [31.626889],
        [6.807109],
        [146.943447],
    )
    assert (got["score_x"], got["score_x_md"]) == ([37.377191], [205.234599])
    assert got["mdworkbench_bench"] == [55.901234]
    assert got["find_hard"] == [1380.501177]
    assert "invalid_reason" not in got


def test_extended_result_txt_find_phases(by_name):
    got = by_name(io500.parse((EXTENDED / "result.txt").read_text()))
    assert (got["find_easy_found"], got["find_easy_total_files"]) == ([1190224], [29572051])
    assert (got["find_hard_found"], got["find_found"]) == ([10224], [317720])
    assert got["tasks"] == [64]


@pytest.mark.parametrize(
    "relative", ["io500/run_np2_stdout.txt", "io500/run_np2/result_summary.txt"]
)
@pytest.mark.parametrize("cut_at", [" [INVALID]\n", "6944 [INVALID]"])
def test_score_line_cut_short_is_not_ok(outputs, relative, cut_at):
    """Cut before ``[INVALID]`` (or inside the number) the line reads as a valid score."""
    text = (outputs / relative).read_text()
    result = io500.parse(text[: text.index(cut_at, text.index("[SCORE ]"))])
    assert not result.ok
    assert "the score line is cut short (truncated run?)" in result.reason


@pytest.mark.parametrize("cut_at", [" [INVALID]\nhash", "EF3C3F3A", "6944 [INVALID]"])
def test_result_txt_cut_in_its_score_section_is_not_ok(outputs, cut_at):
    text = (outputs / "io500/run_np2/result.txt").read_text()
    result = io500.parse(text[: text.index(cut_at) + 2])
    assert not result.ok
    assert result.reason == "the [SCORE] section is cut short"
    assert [m.value for m in result.measurements if m.name == "valid"] != [True]


def test_result_txt_cut_mid_line_in_a_phase_is_not_ok(outputs):
    text = (outputs / "io500/run_np2/result.txt").read_text()
    result = io500.parse(text[: text.index("score           = 0.931990") + 20])
    assert not result.ok
    assert "no [SCORE] section" in result.reason
    assert "ior_easy_write" not in {m.name for m in result.measurements}  # not 0.9


def test_a_phase_line_deleted_is_not_ok(outputs):
    text = (outputs / "io500/run_np2_stdout.txt").read_text()
    line = next(x for x in text.splitlines(keepends=True) if "mdtest-hard-stat" in x)
    result = io500.parse(text.replace(line, ""))
    assert not result.ok
    assert result.reason == "no result for the phase(s) mdtest-hard-stat"


@pytest.mark.parametrize(
    ("name", "end", "said"),
    [
        ("stdout.txt", "[SCOREX]", "an extended-mode run without its [SCOREX] line"),
        ("result.txt", "\n[SCOREX]", "an extended-mode run without its [SCOREX] section"),
    ],
)
def test_extended_run_cut_before_its_extended_score_is_not_ok(name, end, said):
    text = (EXTENDED / name).read_text()
    result = io500.parse(text[: text.index(end)])
    assert not result.ok
    assert result.reason == f"{said} (truncated run?)"


def test_extended_run_without_an_extended_phase_is_not_ok():
    text = (EXTENDED / "stdout.txt").read_text()
    line = next(x for x in text.splitlines(keepends=True) if "find-hard" in x)
    result = io500.parse(text.replace(line, ""))
    assert not result.ok
    assert result.reason == "an extended-mode run without the phase(s) find-hard"


def test_non_finite_score_is_flagged(outputs):
    text = (outputs / "io500/run_np2_stdout.txt").read_text()
    result = io500.parse(text.replace("TOTAL 17.776944", "TOTAL 1e400"))
    assert not result.ok
    assert result.reason == "line 21: score is '1e400': not finite"
    # a value of each run: a hole is left out, as statistics cannot be taken over it
    assert "score" not in {m.name for m in result.measurements}


def test_verifier_verdict_cut_short_is_not_ok(outputs):
    text = (outputs / "io500/verify_np2_stdout.txt").read_text()
    result = io500.parse(text[: text.index("But this is") + 4])
    assert not result.ok
    assert result.reason == "the verifier's verdict line is cut short (truncated run?)"
    assert "valid" not in {m.name for m in result.measurements}
