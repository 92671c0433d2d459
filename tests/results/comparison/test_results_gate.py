"""A comparison for CI: JSON with the verdict, JUnit XML with a case per point and metric."""

import json
from xml.etree import ElementTree

import junitparser

from jubex.results.comparison.compare import compare
from jubex.results.comparison.gate import to_json, to_junit


def rows(api, *values, metric="bw"):
    return [{"api": api, metric: v} for v in values]


def mixed():
    """One regression, one point only the candidate has, one the candidate lost, one bad."""
    base = rows("A", 100, 101, 99) + rows("B", 100, 101, 99) + rows("C", 1, 2) + rows("D", 1, 2)
    cand = rows("A", 80, 81, 79) + rows("C", 1, 2) + rows("D", "x") + rows("E", 5, 6)
    return compare(base, cand, keys=["api"], metrics=["bw"], directions={"bw": True})


def test_junit_tells_failures_errors_and_skipped_cases_apart():
    suites = ElementTree.fromstring(to_junit(mixed()))
    suite = suites.find("testsuite")
    assert suite is not None
    counts = {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")}
    assert counts == {"tests": "5", "failures": "1", "errors": "2", "skipped": "1"}
    by_name = {case.get("name"): case for case in suite.iter("testcase")}
    assert by_name["bw [api=A]"].find("failure") is not None
    error = by_name["bw [api=D]"].find("error")
    assert error is not None and "holds 'x', not a number" in error.get("message", "")
    assert by_name["bw [api=B]"].find("error") is not None  # the candidate lost it
    assert by_name["bw [api=E]"].find("skipped") is not None  # new in the candidate
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["verdict"] == "failed"


def test_json_leads_with_the_verdict_and_keeps_the_rows():
    document = json.loads(to_json(mixed()))
    assert (document["verdict"], document["exit_status"]) == ("failed", 1)
    assert document["counts"] == {"worse": 1, "error": 1, "missing": 2, "inconclusive": 1}
    assert [r["verdict"] for r in document["rows"]][:2] == ["worse", "error"]
    assert document["summary"] == document["notes"][-1]


def test_junit_names_leave_out_keys_a_point_lacks_and_skip_an_unjudged_loss():
    """A key of another step's rows (mdtest's md_tasks beside IOR's points) is no part of
    the name; an inconclusive loss beyond the tolerance is skipped, saying what would
    decide it, and under strict a failure of its own type."""
    other = {"md_tasks": 4, "rate": 1.0}
    base = [{"api": "A", "bw": v} for v in (8093.9, 1684.8, 4903.6)] + [other]
    cand = [{"api": "A", "bw": v} for v in (878.6, 2900.9, 1877.5)] + [other]
    result = compare(base, cand, keys=["api", "md_tasks"], metrics=["bw"], directions={})
    cases = {c.get("name"): c for c in ElementTree.fromstring(to_junit(result)).iter("testcase")}
    assert set(cases) == {"bw [api=A]", "bw [md_tasks=4]"}
    skipped = cases["bw [api=A]"].find("skipped")
    assert skipped is not None and "smallest detectable change" in skipped.get("message", "")
    assert "repetitions a side would decide the tolerance" in skipped.get("message", "")
    result.strict = True
    failure = ElementTree.fromstring(to_junit(result)).find(".//testcase/failure")
    assert failure is not None and failure.get("type") == "inconclusive"


def test_junit_reads_as_ci_reads_it():
    """junitparser (what GitLab's and Jenkins' readers follow) sees a failure for the
    regression, an error for the lost value, skipped cases for a new point and for an
    undecided loss, and a pass for the rest; the suite's counts agree with the cases."""
    base = rows("A", 100, 101, 99) + rows("B", 100, 101, 99) + rows("C", 100, 130, 70)
    base += rows("D", 100, 101, 99) + rows("F", 100, 101, 99)
    cand = rows("A", 80, 81, 79) + rows("C", 90, 120, 60) + rows("D", "x") + rows("E", 5, 6)
    cand += rows("F", 100, 101, 99)
    result = compare(base, cand, keys=["api"], metrics=["bw"], directions={"bw": True})
    xml = junitparser.JUnitXml.fromstring(to_junit(result).encode())
    (suite,) = list(xml)
    outcome = {case.name: [type(r).__name__ for r in case.result] or ["passed"] for case in suite}
    assert outcome == {
        "bw [api=A]": ["Failure"],
        "bw [api=D]": ["Error"],
        "bw [api=B]": ["Error"],
        "bw [api=C]": ["Skipped"],
        "bw [api=E]": ["Skipped"],
        "bw [api=F]": ["passed"],
    }
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (6, 1, 2, 2)
    (undecided,) = [r for case in suite if case.name == "bw [api=C]" for r in case.result]
    assert "repetitions a side would decide the tolerance" in undecided.message
    assert {p.name: p.value for p in suite.properties()}["verdict"] == "failed"
