"""docs/analysers.md documents every name each built-in analyser produces, with its unit."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from jubex.analysis import builtin
from jubex.analysis.builtin import darshan, fio, mdtest

DOC = Path(__file__).resolve().parents[2] / "docs" / "analysers.md"
PLACEHOLDERS = {
    "ior": {"op": ["write", "read"]},
    "mdtest": {"op": [m.removesuffix("_max") for m in mdtest.METRICS if m.endswith("_time_max")]},
    "fio": {"dir": ["read", "write", "trim"], "lat": ["slat", "clat", "lat"]},
    "io500": {},
    "darshan": {
        "module": ["posix", "mpiio", "stdio"],
        "op": ["read", "write"],
        "bin": [b.lower() for b in darshan.BINS],
    },
}
PLACEHOLDERS["mdtest"]["op"] = [op.removesuffix("_time") for op in PLACEHOLDERS["mdtest"]["op"]]
PLACEHOLDERS["fio"]["p"] = sorted({m.rpartition("_p")[2] for m in fio.METRICS if "_clat_p" in m})


def section(name: str) -> str:
    text = DOC.read_text()
    start = text.index(f"### `{name}`")
    end = text.find("\n### ", start + 1)
    return text[start : end if end > 0 else len(text)]


def documented(name: str) -> dict[str, str]:
    """Every name of the section's tables (placeholders expanded) -> the unit column."""
    found: dict[str, str] = {}
    places = dict(PLACEHOLDERS[name])
    if name == "io500":
        phases = section(name).split("`<phase>` is")[1].split("|")[0]
        places["phase"] = re.findall(r"`([a-z][a-z0-9_]*)`", phases)
    rows = [line.strip("|").split("|") for line in section(name).splitlines() if line[:1] == "|"]
    for row in (tuple(cell.strip() for cell in cells) for cells in rows):
        for token in re.findall(r"`([^`]+)`", row[0]):
            keys = re.findall(r"<(\w+)>", token)
            for combo in itertools.product(*(places[k] for k in keys)):
                expanded = token
                for key, value in zip(keys, combo, strict=True):
                    expanded = expanded.replace(f"<{key}>", value)
                found[expanded] = row[1]
    return found


@pytest.mark.parametrize("name", ["ior", "mdtest", "fio", "io500", "darshan"])
def test_every_metric_is_documented_with_its_unit(name):
    docs = documented(name)
    for metric, spec in builtin.get(name).metrics.items():
        assert metric in docs, f"{name}: {metric} is not in docs/analysers.md"
        if spec.unit and "(" not in docs[metric]:
            assert spec.unit in docs[metric].split(" or ") or docs[metric].startswith(spec.unit), (
                metric,
                docs[metric],
            )


def test_darshan_flags_are_documented_with_their_thresholds():
    text = section("darshan")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line[:3] == "| `"}
    for flag in darshan.INSIGHTS:
        assert f"`{flag}`" in rows, flag
    for flag, limit in darshan.THRESHOLDS.items():
        assert f"{limit:.0%}".replace("%", " %") in rows[f"`{flag}`"], flag
    assert f"at least {darshan.MIN_REQUESTS} POSIX requests" in text
    assert f"at least {darshan.MIN_IMBALANCE_SECONDS:g} s in I/O" in text
