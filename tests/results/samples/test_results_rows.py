"""Rows of result tables: a JUBE file's parameters show as JUBE's tables show them."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main

# Checked with JUBE 2.7.1: its run echoes "[ tail][head ][head\n]", its table shows
# "tail,head,head" (the values read back from its store are stripped at both ends).
JUBE_FILE = """\
<?xml version="1.0" encoding="UTF-8"?>
<jube>
  <benchmark name="ends" outpath="runs">
    <parameterset name="p">
      <parameter name="empty"></parameter>
      <parameter name="lead">${empty} tail</parameter>
      <parameter name="trail">head ${empty}</parameter>
      <parameter name="nl">head
${empty}
      </parameter>
    </parameterset>
    <step name="s">
      <use>p</use>
      <do>echo "[$lead][$trail][$nl]" > o.txt</do>
    </step>
    <patternset name="pat"><pattern name="v">(\\w+)</pattern></patternset>
    <analyser name="a"><use>pat</use><analyse step="s"><file>o.txt</file></analyse></analyser>
    <result><use>a</use>
      <table name="t" style="csv">
        <column>lead</column><column>trail</column><column>nl</column>
      </table>
    </result>
  </benchmark>
</jube>
"""


def test_jube_table_strips_parameter_ends_but_the_run_keeps_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    definition = tmp_path / "ends.xml"
    definition.write_text(JUBE_FILE)
    runs = tmp_path / "runs"
    assert main(["run", str(definition), "--outpath", str(runs), "-q", "--no-result"]) == 0
    echoed = next(runs.glob("*/*_s/work/o.txt")).read_text()
    assert echoed == "[ tail][head ][head\n]\n"
    capsys.readouterr()
    assert main(["result", str(runs / "000000"), "-T", "t", "-f", "csv"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln and ln[0] != "#"]
    assert lines == ["lead,trail,nl", "tail,head,head"]
