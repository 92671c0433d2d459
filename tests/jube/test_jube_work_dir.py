"""A step's ``work_dir``: where JUBE puts it, and the outputs analysed from there."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main

BENCHMARK = """<?xml version="1.0" encoding="UTF-8"?>
<jube>
  <benchmark name="wd" outpath="runs">
    <parameterset name="p"><parameter name="n">1,2</parameter></parameterset>
    <step name="run" work_dir="scratch/wp_$jube_wp_id">
      <use>p</use>
      <do>echo "value: $n"</do>
    </step>
    <step name="after" depend="run">
      <do>cat run/stdout</do>
    </step>
    <patternset name="pat">
      <pattern name="value" type="int">value: $jube_pat_int</pattern>
    </patternset>
    <analyser name="a"><use>pat</use><analyse step="run"><file>stdout</file></analyse></analyser>
    <result><use>a</use>
      <table name="t" style="csv"><column>n</column><column>value</column></table>
    </result>
  </benchmark>
</jube>
"""


def test_a_step_work_dir_is_beside_the_file_and_its_outputs_are_analysed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bench").mkdir()
    definition = tmp_path / "bench" / "wd.xml"
    definition.write_text(BENCHMARK)
    runs = tmp_path / "elsewhere"
    assert main(["run", str(definition), "--outpath", str(runs), "-q"]) == 0
    out = capsys.readouterr().out
    assert "n,value\n1,1\n2,2\n" in out
    scratch = tmp_path / "bench" / "scratch"
    assert sorted(p.name for p in scratch.iterdir()) == ["wp_0", "wp_1"]
    assert (scratch / "wp_0" / "stdout").read_text() == "value: 1\n"
    own = runs / "000000" / "000000_run" / "work"
    assert own.is_symlink() and own.resolve() == (scratch / "wp_0").resolve()
    child = next((runs / "000000").glob("*_after")) / "work" / "stdout"
    assert child.read_text() in ("value: 1\n", "value: 2\n")


SCRATCH_BENCHMARK = """<?xml version="1.0" encoding="UTF-8"?>
<jube>
  <benchmark name="wd" outpath="runs">
    <parameterset name="p"><parameter name="n">1,2</parameter></parameterset>
    <step name="run" work_dir="$SCRATCH/wd_$n">
      <use>p</use>
      <do work_dir="${SCRATCH}/cmd_$n">echo "value: $n"; pwd >where</do>
    </step>
  </benchmark>
</jube>
"""


def test_environment_variables_in_work_dirs_are_expanded_as_jube_expands_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    monkeypatch.setenv("SCRATCH", str(scratch))
    definition = tmp_path / "wd.xml"
    definition.write_text(SCRATCH_BENCHMARK)
    assert main(["run", str(definition), "--outpath", str(tmp_path / "runs"), "-q"]) == 0
    assert sorted(p.name for p in scratch.iterdir()) == ["cmd_1", "cmd_2", "wd_1", "wd_2"]
    assert (scratch / "wd_2" / "stdout").read_text() == "value: 2\n"
    assert (scratch / "cmd_1" / "where").read_text() == f"{scratch / 'cmd_1'}\n"
    assert not list(tmp_path.glob("$SCRATCH*"))
