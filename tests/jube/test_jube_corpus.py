"""The corpus of JUBE files: the workpackages jubex plans are the ones JUBE 2.7 creates.

Each expectation (``corpus/*.expected.yaml``) was worked out by hand from JUBE's documented
rules; the test compares the planned workpackages of every step as a multiset of points.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from jubex.api import load
from jubex.cli.main import main
from jubex.space.plan import plan

CORPUS = Path(__file__).resolve().parent / "corpus"


def _expected_for(path: Path) -> Path | None:
    """``NAME.yaml.expected.yaml`` for one spelling, else ``NAME.expected.yaml`` for both."""
    if path.name.endswith(".expected.yaml"):
        return None
    for candidate in (
        path.with_name(path.name + ".expected.yaml"),
        path.with_suffix(".expected.yaml"),
    ):
        if candidate.is_file():
            return candidate
    return None


CASES = [
    (path, case)
    for path in sorted(CORPUS.rglob("*"))
    if path.suffix in (".xml", ".yaml") and (expected := _expected_for(path)) is not None
    for case in yaml.safe_load(expected.read_text())["cases"]
]


def planned(path: Path, tags: list[str]) -> dict[str, Counter]:
    """Per step: how many workpackages each point (values as texts) gets."""
    benchmark = load(path, tags=tags)
    steps: dict[str, Counter] = {}
    for wp in plan(benchmark, tags=tags):
        key = json.dumps({k: str(v) for k, v in wp.point.items()}, sort_keys=True)
        steps.setdefault(wp.step, Counter())[key] += 1
    return steps


def expected(case: dict) -> dict[str, Counter]:
    return {
        step: Counter(
            {json.dumps(entry["point"], sort_keys=True): entry["count"] for entry in entries}
        )
        for step, entries in case["steps"].items()
    }


@pytest.mark.parametrize(
    ("path", "case"),
    CASES,
    ids=[f"{p.relative_to(CORPUS)}-{'+'.join(c['tags']) or 'notags'}" for p, c in CASES],
)
def test_planned_workpackages_are_jubes(path: Path, case: dict) -> None:
    assert planned(path, case["tags"]) == expected(case)


def test_every_corpus_file_has_an_expectation_or_is_an_include() -> None:
    helpers = {
        "common.xml",
        "common.yaml",
        "machine.xml",
        "tags_from_sets.xml",
        "tags_from_steps.xml",
    }
    files = [p for p in CORPUS.rglob("*") if p.suffix in (".xml", ".yaml")]
    files = [p for p in files if "bad" not in p.parts and not p.name.endswith(".expected.yaml")]
    assert {p.name for p in files if _expected_for(p) is None} <= helpers
    assert len(CASES) >= 15


def test_jubex_info_counts_the_same_workpackages(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "dependencies.xml"
    assert main(["info", str(path), "-f", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["name"] == "dependencies"
    assert shown["workpackages"] == {"compile": 2, "execute": 12, "postprocess": 24}


def test_jubex_info_takes_tags_as_jube_run_does(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "tagging.xml"
    assert main(["info", str(path), "-f", "json", "--tag", "eng,few", "-t", "many"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["workpackages"] == {"greet": 1, "count": 5}
