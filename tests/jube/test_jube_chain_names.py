"""A JUBE file's result rows carry the parameters of the workpackages they depend on,
named ``<parameter>_<step>`` (``jube_wp_id_build``), as JUBE's result rows do."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from jubex.cli.main import main

CHAIN = """<?xml version="1.0" encoding="UTF-8"?>
<jube>
  <benchmark name="chain" outpath="runs">
    <parameterset name="p"><parameter name="size">4,8</parameter></parameterset>
    <parameterset name="q"><parameter name="mode">fast</parameter></parameterset>
    <patternset name="pat"><pattern name="t" type="int">t=$jube_pat_int</pattern></patternset>
    <step name="build" iterations="2"><use>p</use><do>echo build</do></step>
    <step name="bench" depend="build"><use>q</use><do>echo t=$size</do></step>
    <analyser name="a"><use>pat</use><analyse step="bench"><file>stdout</file></analyse>
    </analyser>
    <result><use>a</use>
      <table name="t" style="csv">
        <column>jube_wp_id_build</column><column>jube_wp_iteration_build</column>
        <column>size_build</column><column>mode_bench</column><column>jube_wp_id</column>
        <column>t</column>
      </table>
    </result>
  </benchmark>
</jube>
"""


def test_rows_name_the_parameters_of_the_workpackages_they_depend_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "chain.xml").write_text(CHAIN)
    assert main(["run", str(tmp_path / "chain.xml"), "-q", "--no-result"]) == 0
    capsys.readouterr()
    assert main(["result", str(tmp_path / "runs" / "000000"), "-T", "t", "-f", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [
        (r["jube_wp_id_build"], r["jube_wp_iteration_build"], r["size_build"], r["t"]) for r in rows
    ] == [("0", "0", "4", "4"), ("1", "1", "4", "4"), ("2", "0", "8", "8"), ("3", "1", "8", "8")]
    assert {r["mode_bench"] for r in rows} == {"fast"}
    assert [r["jube_wp_id"] for r in rows] == ["4", "5", "6", "7"]
