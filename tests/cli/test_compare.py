"""``jubex compare`` on real runs whose values are constructed, so that every verdict is known.

The definition prints ``bw: <level x (1 + spread x (i - 1))> MiB/s`` for iteration i of 0, 1,
2: three repetitions with mean ``level`` and sample standard deviation ``level x spread``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jubex.cli.compare import fraction
from jubex.cli.main import main

DEFINITION = r"""
name: synthetic
parameters:
  point: [a, b]
  level: 1000
  spread: 0.01
patterns:
  bw:
    bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s, better: higher}
steps:
  run:
    iterations: 3
    do: "echo bw: ${level * (1 + spread * (jube_wp_iteration - 1))} MiB/s"
    analyse: [bw]
results:
  bandwidth:
    group_by: [point]
    columns: [point, {name: bw, stats: [n, mean, std]}]
"""

#: run id -> the -p overrides it was made with
RUNS = {
    "000000": [],
    "000001": [],
    "000002": ["level=800"],
    "000003": ["spread=0.1"],
    "000004": ["level=980", "spread=0.1"],
}


@pytest.fixture(scope="module")
def outpath(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("compare")
    definition = base / "synthetic.yaml"
    definition.write_text(DEFINITION)
    out = base / "runs"
    for overrides in RUNS.values():
        argv = ["run", str(definition), "--outpath", str(out), "-q", "--no-result"]
        assert main(argv + [a for o in overrides for a in ("-p", o)]) == 0
    assert sorted(p.name for p in out.iterdir()) == list(RUNS)
    return out


def compare(
    outpath: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, dict[str, object]]:
    code = main(["compare", *args, "--outpath", str(outpath), "-f", "json"])
    return code, json.loads(capsys.readouterr().out)


def verdicts(result: dict[str, object]) -> list[tuple[str, str, str]]:
    return [(r["point"], r["metric"], r["verdict"]) for r in result["rows"]]  # type: ignore[index,union-attr]


def test_identical_result_sets_are_the_same(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = compare(outpath, capsys, "0", "1")
    assert code == 0
    assert verdicts(result) == [("a", "bw", "equivalent"), ("b", "bw", "equivalent")]
    assert result["verdict"] == "passed" and result["exit_status"] == 0
    assert result["summary"].startswith("PASSED: no regression")  # type: ignore[union-attr]
    assert result["notes"][-1] == result["summary"]  # type: ignore[index]


def test_a_drop_of_20_percent_in_1_percent_spread_fails(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = compare(outpath, capsys, "0", "2", "--tolerance", "5%")
    assert code == 1
    assert verdicts(result) == [("a", "bw", "worse"), ("b", "bw", "worse")]
    row = result["rows"][0]  # type: ignore[index]
    assert row["baseline_mean"] == pytest.approx(1000)
    assert row["candidate_mean"] == pytest.approx(800)
    assert row["change"] == pytest.approx(-20)
    assert row["p_value"] < 0.001
    # the parameter that differs between the runs (level) is no key; the one that varies is
    assert "points by point" in result["notes"][0]  # type: ignore[index]


def test_the_last_line_says_the_verdict_counts(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", "0", "2", "--outpath", str(outpath)]) == 1
    last = capsys.readouterr().out.strip().splitlines()[-1].strip()
    assert last == (
        "FAILED: 2 regression(s) beyond the noise and the tolerance (2 compared: 2 worse; "
        "one-sided Welch t-test, Holm-corrected over 2 test(s) at alpha 0.05; tolerance 5.0%)"
    )


def test_a_drop_within_a_wider_tolerance_passes(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = compare(outpath, capsys, "0", "2", "--tolerance", "0.25")
    assert code == 0
    assert {v for _, _, v in verdicts(result)} == {"within tolerance"}


def test_a_shift_of_2_percent_in_10_percent_spread_is_noise(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = compare(outpath, capsys, "3", "4")
    assert code == 0
    assert verdicts(result) == [("a", "bw", "inconclusive"), ("b", "bw", "inconclusive")]
    assert all(r["detectable"] > 2 for r in result["rows"])  # type: ignore[index,union-attr]
    assert result["rows"][0]["change"] == pytest.approx(-2)  # type: ignore[index]
    assert result["rows"][0]["p_value"] > 0.25  # type: ignore[index]  # one-sided


def test_a_rise_beyond_the_noise_is_better(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = compare(outpath, capsys, "2", "0")
    assert code == 0
    assert {v for _, _, v in verdicts(result)} == {"better"}


def test_keys_and_metrics_from_a_table(outpath: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, result = compare(outpath, capsys, "0", "2", "--table", "bandwidth")
    assert code == 1
    assert [c["name"] for c in result["columns"]][:2] == ["point", "metric"]  # type: ignore[index]
    assert verdicts(result) == [("a", "bw", "worse"), ("b", "bw", "worse")]


def test_without_keys_all_repetitions_of_a_run_form_one_point(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = compare(outpath, capsys, "0", "2", "--keys", "level", "--metric", "bw")
    assert code == 2  # level differs between the runs: no point exists on both sides
    assert {r["verdict"] for r in result["rows"]} == {"missing"}  # type: ignore[index,union-attr]
    assert result["verdict"] == "error"


def test_junit_for_ci(outpath: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "0", "2", "--outpath", str(outpath), "-f", "junit"]) == 1
    suites = ElementTree.fromstring(capsys.readouterr().out)
    assert (suites.tag, suites.get("tests"), suites.get("failures")) == ("testsuites", "2", "2")
    cases = suites.findall("testsuite/testcase")
    assert [c.get("name") for c in cases] == ["bw [point=a]", "bw [point=b]"]
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("type") == "regression"
    assert failure.get("message", "").startswith("worse; 1000 -> 800 MiB/s (-20.0%); p adj ")
    assert main(["compare", "0", "1", "--outpath", str(outpath), "-f", "junit"]) == 0
    passed = ElementTree.fromstring(capsys.readouterr().out)
    assert passed.get("failures") == "0" and passed.find(".//failure") is None
    # --junit FILE writes the same XML beside the table a log shows
    junit = outpath / "compare.xml"
    assert main(["compare", "0", "2", "--outpath", str(outpath), "--junit", str(junit)]) == 1
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith("FAILED: 2 regression")
    assert ElementTree.parse(junit).getroot().get("failures") == "2"


def test_mann_whitney_and_benjamini_hochberg_on_request(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, result = compare(outpath, capsys, "0", "2", "--test", "mannwhitney")
    # 3 against 3 repetitions: the smallest rank p is 1/20, not below 0.05/2, and it says so;
    # the loss of 20 % it cannot judge is inconclusive (4): a failure under --strict, a
    # pass when the user allows it
    assert code == 4 and result["test"] == "mannwhitney"
    assert result["verdict"] == "inconclusive"
    assert "Mann-Whitney's U cannot show a difference" in result["notes"][-2]  # type: ignore[index]
    assert {r["verdict"] for r in result["rows"]} == {"inconclusive"}  # type: ignore[index,union-attr]
    allowed = ["--test", "mannwhitney", "--allow-inconclusive"]
    code, result = compare(outpath, capsys, "0", "2", *allowed)
    assert code == 0 and result["verdict"] == "passed"
    code, result = compare(outpath, capsys, "0", "2", "--test", "mannwhitney", "--strict")
    assert code == 1 and result["verdict"] == "failed"
    code, result = compare(outpath, capsys, "0", "2", "--correction", "bh")
    assert code == 1 and result["correction"] == "bh"


def test_a_run_compared_with_itself_is_refused(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", "1", str(outpath / "000001"), "--outpath", str(outpath)]) == 2
    assert "the baseline and the candidate are the same run" in capsys.readouterr().err


def test_the_format_is_table_json_or_junit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["compare", "0", "1", "-f", "csv"])
    assert exit_.value.code == 2
    assert "invalid choice: 'csv'" in capsys.readouterr().err


def test_as_a_user_runs_it(outpath: Path, jubex: Callable[..., CompletedProcess[str]]) -> None:
    done = jubex(outpath, "compare", "0", "2", "--outpath", str(outpath))
    assert done.returncode == 1
    assert done.stdout.rstrip().splitlines()[-1].startswith("FAILED: 2 regression(s)")
    done = jubex(outpath, "compare", "0", "2", "--outpath", str(outpath), "--keys", "level")
    assert done.returncode == 2 and done.stdout.rstrip().splitlines()[-1].startswith("ERROR: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--keys", "pont"], "key 'pont' is in neither result set (did you mean 'point'?)"),
        (["--metric", "bq"], "metric 'bq' is in neither result set"),
        (["--table", "bandwith"], "no result table 'bandwith'"),
    ],
)
def test_wrong_names_are_usage_errors(
    outpath: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["compare", "0", "1", "--outpath", str(outpath), *args]) == 2
    assert message in capsys.readouterr().err


def test_a_run_that_does_not_exist_is_named(
    outpath: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", "0", "7", "--outpath", str(outpath)]) == 2
    assert "no run '7'" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["5", "120%", "-1%", "five", "1.5"])
def test_a_tolerance_must_say_percent_or_fraction(
    capsys: pytest.CaptureFixture[str], text: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["compare", "0", "1", f"--tolerance={text}"])
    assert exit_.value.code == 2
    assert "percentage such as 5%" in capsys.readouterr().err


@given(st.floats(min_value=0, max_value=99.99, allow_nan=False))
def test_percentages_and_fractions_read_alike(percent: float) -> None:
    assert fraction(f"{percent!r}%", name="tolerance", upper=1) == pytest.approx(percent / 100)
    assert fraction(repr(percent / 100), name="tolerance", upper=1) == pytest.approx(percent / 100)
