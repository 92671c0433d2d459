"""Real benchmark outputs for the analysis tests, copied into the repository.

``tests/data/outputs`` holds captures of real IOR, mdtest, fio and IO500 runs (its README.md
gives the commands, SOURCES.md the origin of the others), so that the suite needs nothing
outside the repository.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jubex.analysis import builtin
from jubex.analysis.measurement import ParseResult

REPO = Path(__file__).resolve().parents[2]
OUTPUTS = REPO / "tests" / "data" / "outputs"


@pytest.fixture
def outputs() -> Path:
    return OUTPUTS


@pytest.fixture
def parse() -> Callable[[str, str], ParseResult]:
    """``parse("ior", "ior/x.txt")``: a built-in analyser applied to one captured output."""

    def run(analyser: str, relative: str) -> ParseResult:
        return builtin.get(analyser).parse((OUTPUTS / relative).read_text())

    return run


def values(result: ParseResult, record: int = 0) -> dict[str, list[object]]:
    """name -> every value of that name in one record, in order."""
    found: dict[str, list[object]] = {}
    for m in result.measurements:
        if m.record == record:
            found.setdefault(m.name, []).append(m.value)
    return found


def units(result: ParseResult) -> dict[str, str]:
    return {m.name: m.unit for m in result.measurements}


@pytest.fixture
def by_name() -> Callable[..., dict[str, list[object]]]:
    return values


@pytest.fixture
def units_of() -> Callable[[ParseResult], dict[str, str]]:
    return units
