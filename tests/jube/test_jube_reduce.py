"""JUBE's analyser ``reduce``: a run of a JUBE file gives JUBE's lines, before and after
``jubex convert`` (the expected tables are in ``corpus/iterations.expected.yaml``)."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
import yaml

from jubex.api import load
from jubex.cli.main import main
from jubex.definition.jube.convert import convert_file

CORPUS = Path(__file__).resolve().parent / "corpus"
EXPECTED = yaml.safe_load((CORPUS / "iterations.expected.yaml").read_text())["table"]


def tables(definition: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, list[dict]]:
    """Run ``definition`` and read each of its tables back as csv."""
    runs = definition.parent / "runs"
    command = ["run", str(definition), "--outpath", str(runs), "-q", "--no-result"]
    assert main(command) == 0
    capsys.readouterr()
    found = {}
    for name in EXPECTED:
        assert main(["result", str(runs / "000000"), "-T", name, "-f", "csv"]) == 0
        lines = [line for line in capsys.readouterr().out.splitlines() if line[:1] != "#"]
        rows = csv.DictReader(io.StringIO("\n".join(lines)))
        found[name] = [
            {key.split("[")[0].rstrip(): value for key, value in row.items()} for row in rows
        ]
    return found


def same(got: str, want: str) -> bool:
    """The same value; a converted file's CSV gives it in full, JUBE to its digits."""
    try:
        number = float(got)
        digits = len(want.partition(".")[2])
        return number == float(want) or round(number, digits) == float(want)
    except ValueError:
        return got == want


def assert_jubes_lines(found: dict[str, list[dict]]) -> None:
    for name, expected in EXPECTED.items():
        assert len(found[name]) == len(expected), name
        for row, want in zip(found[name], expected, strict=True):
            for column, value in want.items():
                assert same(row[column], value), (name, column, row[column], value)


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    shutil.copy(CORPUS / "iterations.xml", tmp_path)
    return tmp_path / "iterations.xml"


def test_reducing_analyser_gives_one_line_per_point_and_reduce_false_one_per_iteration(
    corpus_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_jubes_lines(tables(corpus_copy, capsys))


def test_reduce_is_read_with_jubes_default_true() -> None:
    analysers = load(CORPUS / "iterations.xml").analysers
    assert {n: a.reduce for n, a in analysers.items()} == {
        "reducing": True,
        "per_iteration": False,
    }


def test_convert_keeps_reduce_and_the_converted_file_gives_the_same_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "iterations.yaml"
    out.write_text(convert_file(CORPUS / "iterations.xml", out))
    written = yaml.safe_load(out.read_text())["analysers"]
    assert written["reducing"]["reduce"] is True
    assert "reduce" not in written["per_iteration"]
    analysers = load(out).analysers
    assert {n: a.reduce for n, a in analysers.items()} == {
        "reducing": True,
        "per_iteration": False,
    }
    assert_jubes_lines(tables(out, capsys))


def test_analysers_of_one_step_disagreeing_on_reduce_are_accepted_as_jube_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JUBE gives each its own rows (test_jube_lenient.py checks the table)."""
    text = (CORPUS / "iterations.xml").read_text()
    text = text.replace('<analyse step="kept">', '<analyse step="merged">')
    path = tmp_path / "both.xml"
    path.write_text(text)
    assert main(["validate", str(path)]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out
