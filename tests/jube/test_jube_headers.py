"""A JUBE file's table headers as JUBE 2.7.1 writes them: ``title[unit]``, the unit of a
pattern or a parameter, whether the title holds a unit of its own or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main

BENCHMARK = """<?xml version="1.0" encoding="UTF-8"?>
<jube>
  <benchmark name="units" outpath="bench_run">
    <parameterset name="p"><parameter name="size" unit="MiB">1,2</parameter></parameterset>
    <patternset name="pat">
      <pattern name="bw" type="float" unit="MiB/s">bw=$jube_pat_fp</pattern>
    </patternset>
    <step name="run"><use>p</use><do>echo "bw=$size.5"</do></step>
    <analyser name="ana"><use>pat</use><analyse step="run"><file>stdout</file></analyse>
    </analyser>
    <result><use>ana</use>
      <table name="t" style="csv">
        <column>size</column>
        <column title="RDbwmax[MiB/s]">bw_max</column>
        <column>bw</column>
        <column title="avg">bw_avg</column>
      </table>
    </result>
  </benchmark>
</jube>
"""

# ``jube run units.xml; jube result -a bench_run -s csv`` with JUBE 2.7.1, byte for byte
JUBE_TABLE = """size[MiB],RDbwmax[MiB/s][MiB/s],bw[MiB/s],avg[MiB/s]
1,1.5,1.5,1.5
2,2.5,2.5,2.5
"""


def test_headers_are_title_then_unit_in_brackets_as_jube_writes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    definition = tmp_path / "units.xml"
    definition.write_text(BENCHMARK)
    runs = tmp_path / "runs"
    assert main(["run", str(definition), "--outpath", str(runs), "-q", "--no-result"]) == 0
    capsys.readouterr()
    assert main(["result", str(runs / "000000"), "-f", "csv"]) == 0
    assert capsys.readouterr().out == JUBE_TABLE
    assert (runs / "000000" / "result" / "t.csv").read_text() == JUBE_TABLE
