"""A ReFrame run report as jubex records: every case's values, as ReFrame reported them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from jubex.records.record import RecordError, check_record
from jubex.records.reframe import read_reframe_report

REPORT = Path(__file__).resolve().parents[1] / "data" / "reframe" / "report-4.10.4.json"


def _by_name(records: list[dict]) -> dict[str, dict]:
    return {record["benchmark"]: record for record in records}


def test_each_test_is_one_record_with_its_points_and_repetitions() -> None:
    records = _by_name(read_reframe_report(REPORT))
    assert sorted(records) == ["Broken", "DdWrite", "Unreachable"]
    report = json.loads(REPORT.read_text())
    dd = records["DdWrite"]
    assert dd["site"] == "generic" and dd["harness"]["version"] == "4.10.4"
    assert dd["metrics"] == {
        "write_bw": {"unit": "MB/s", "better": "higher"},  # a lower bound only
        "elapsed": {"unit": "s", "better": "lower"},  # no bound: the unit says
    }
    for point in dd["points"]:
        block = point["parameters"]["block"]
        assert point["parameters"] == {"block": block, "partition": "default", "environ": "builtin"}
        wanted = [
            case["perfvalues"]["generic:default:write_bw"][0]
            for case in report["runs"][0]["testcases"]
            if case["display_name"].startswith(f"DdWrite %block={block} ")
        ]
        assert [r["values"]["write_bw"] for r in point["repetitions"]] == wanted
        assert len(wanted) == 3
        assert point["references"] == {"write_bw": {"value": 50.0, "lower": -0.9, "upper": None}}
    for record in records.values():
        check_record(record, "made")


def test_a_failed_reference_keeps_its_values_and_a_failed_sanity_check_is_a_failure() -> None:
    records = _by_name(read_reframe_report(REPORT))
    [unreachable] = records["Unreachable"]["points"]
    assert [r["values"]["rate"] for r in unreachable["repetitions"]] == [42.5] * 3
    assert all(r["ok"] for r in unreachable["repetitions"])
    assert unreachable["references"]["rate"]["value"] == 1e9
    [broken] = records["Broken"]["points"]
    assert [r["ok"] for r in broken["repetitions"]] == [False] * 3
    assert all(
        r["reason"].startswith("ReFrame: sanity: sanity error") for r in broken["repetitions"]
    )
    assert all(r["values"] == {"elapsed": None} for r in broken["repetitions"])


def test_a_retry_replaces_the_attempt_before_it(tmp_path: Path) -> None:
    report = json.loads(REPORT.read_text())
    retry = copy.deepcopy(report["runs"][1])
    for case in retry["testcases"]:
        if case["display_name"].startswith("Broken"):
            case.update(result="pass", fail_phase=None, fail_reason=None)
            case["perfvalues"]["generic:default:elapsed"][0] = 0.5
    report["runs"][1] = retry
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    [broken] = _by_name(read_reframe_report(path))["Broken"]["points"]
    assert [(r["ok"], r["values"]["elapsed"]) for r in broken["repetitions"]] == [(True, 0.5)] * 3


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[]", "is not a ReFrame run report"),
        ('{"session_info": {"data_version": "9.0"}, "runs": []}', "data version '9.0'"),
        ('{"session_info": {"data_version": "4.2"}, "runs": [{}]}', "without its 'testcases'"),
        ("{", "is not JSON"),
    ],
)
def test_what_is_not_a_report_is_refused_naming_the_file(tmp_path: Path, text, said) -> None:
    path = tmp_path / "report.json"
    path.write_text(text)
    with pytest.raises(RecordError) as caught:
        read_reframe_report(path)
    assert said in str(caught.value) and str(path) in str(caught.value)
