"""A comparison as continuous integration reads it: JSON with the verdict, or JUnit XML.

JUnit XML is what CI systems (GitLab, Jenkins, GitHub's test reporters) show as test
results: every point and metric is a test case; a regression is a failure, a comparison
that could not be made an error, a point only the candidate has a skipped case, and so is
a metric the noise leaves undecided with a loss beyond the tolerance (a failure under
``strict``): a CI page then shows it apart from both a pass and a regression.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from jubex.results.comparison.compare import Comparison, PointComparison
from jubex.results.tables.formats import render

#: the outcome of each exit status, as JSON names it
OUTCOMES = {0: "passed", 1: "failed", 2: "error", 4: "inconclusive"}


def to_json(comparison: Comparison) -> str:
    """The comparison table as ``render`` writes it in JSON, with the gate's verdict."""
    document = json.loads(render(comparison.to_table(), "json"))
    head = {
        "verdict": OUTCOMES[comparison.status],
        "exit_status": comparison.status,
        "summary": comparison.verdict_line(),
        "test": comparison.test,
        "correction": comparison.correction,
        "alpha": comparison.alpha,
        "tolerance": comparison.tolerance,
        "keys": list(comparison.keys),
        "counts": comparison.counts(),
    }
    return json.dumps({**head, **document}, indent=2, ensure_ascii=False) + "\n"


def to_junit(comparison: Comparison) -> str:
    """One ``testsuite`` of one ``testcase`` per point and metric."""
    cases = [_case(comparison, item) for item in comparison.items]
    counts = {
        "tests": str(len(cases)),
        "failures": str(sum(c.find("failure") is not None for c in cases)),
        "errors": str(sum(c.find("error") is not None for c in cases)),
        "skipped": str(sum(c.find("skipped") is not None for c in cases)),
    }
    suites = ET.Element("testsuites", {"name": "jubex compare", **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": "comparison", **counts})
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("verdict", OUTCOMES[comparison.status]),
        ("method", comparison.method()),
        *((f"note {i}", note) for i, note in enumerate(comparison.notes, 1)),
    ):
        ET.SubElement(properties, "property", {"name": name, "value": value})
    suite.extend(cases)
    ET.SubElement(suite, "system-out").text = comparison.verdict_line()
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _case(comparison: Comparison, item: PointComparison) -> ET.Element:
    point = ", ".join(  # a key the point's rows lack (another step's parameter) is left out
        f"{k}={v}" for k, v in zip(comparison.keys, item.point, strict=True) if v is not None
    )
    case = ET.Element(
        "testcase",
        {"classname": f"jubex.compare.{item.metric}", "name": f"{item.metric} [{point}]"},
    )
    detail = _detail(comparison, item)
    if item.verdict == "worse":
        ET.SubElement(case, "failure", {"type": "regression", "message": detail})
    elif item in comparison.unresolved and comparison.strict:
        ET.SubElement(case, "failure", {"type": "inconclusive", "message": detail})
    elif item in comparison.unresolved:
        ET.SubElement(case, "skipped", {"message": f"undecided: {detail}"})
    elif item in comparison.unusable:
        ET.SubElement(case, "error", {"type": item.verdict, "message": detail})
    elif item.verdict == "missing":
        ET.SubElement(case, "skipped", {"message": detail})
    ET.SubElement(case, "system-out").text = detail
    return case


def _detail(comparison: Comparison, item: PointComparison) -> str:
    unit = comparison.units.get(item.metric, "")
    parts = [item.verdict]
    if item.baseline and item.candidate and item.change is not None:
        parts.append(
            f"{item.baseline.mean:.6g} -> {item.candidate.mean:.6g} {unit}".rstrip()
            + f" ({item.change:+.1f}%)"
        )
    if item.p_adjusted is not None:
        parts.append(f"p adj {item.p_adjusted:.3g}")
    if item.verdict == "inconclusive" and item.detectable is not None:
        parts.append(f"smallest detectable change {item.detectable:.1f}%")
    if item.needed is not None:
        parts.append(f"{item.needed} repetitions a side would decide the tolerance")
    if item.note:
        parts.append(item.note)
    return "; ".join(parts)
