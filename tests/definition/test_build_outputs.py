"""jubex's own spellings say what JUBE's do about where output goes: prepare output files,
do logs, shell-derived patterns, result directories and syslog targets."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.api import load
from jubex.definition.model import FileOp, Pattern, Syslog
from jubex.errors import DefinitionError, ErrorList

YAML = """
name: outputs
files:
  build:
    - {prepare: make, work_dir: src, stdout: make.out, stderr: make.err}
patterns:
  p:
    bw: "bw=$jube_pat_fp"
    per_node: {shell: "echo $bw", type: float, default: "0"}
steps:
  run:
    files: [build]
    do_log_file: logs/run_$n.sh
    do: echo bw=1
results:
  t:
    columns: [bw]
    result_dir: out
  log:
    columns: [bw]
    syslog: {host: loghost, port: 1514}
  local:
    columns: [bw]
    syslog: {address: /dev/log, format: "bench: %(message)s"}
"""

XML = """<jubex name="outputs">
  <fileset name="build">
    <prepare work_dir="src" stdout="make.out" stderr="make.err">make</prepare>
  </fileset>
  <patternset name="p">
    <pattern name="bw">bw=$jube_pat_fp</pattern>
    <pattern name="per_node" mode="shell" type="float" default="0">echo $bw</pattern>
  </patternset>
  <step name="run" files="build" do_log_file="logs/run_$n.sh"><do>echo bw=1</do></step>
  <table name="t" result_dir="out"><column>bw</column></table>
  <table name="log"><column>bw</column><syslog host="loghost" port="1514"/></table>
  <table name="local"><column>bw</column>
    <syslog address="/dev/log" format="bench: %(message)s"/></table>
</jubex>
"""


@pytest.mark.parametrize(("name", "text"), [("b.yaml", YAML), ("b.xml", XML)])
def test_both_spellings_give_the_same_outputs(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(text)
    b = load(path)
    (op,) = b.filesets["build"].ops
    assert (op.kind, op.source, op.directory, op.stdout, op.stderr) == (
        "prepare",
        "make",
        "src",
        "make.out",
        "make.err",
    )
    assert isinstance(op, FileOp)
    per_node = b.patternsets["p"].patterns["per_node"]
    assert isinstance(per_node, Pattern)
    assert (per_node.mode, per_node.regex, per_node.type, per_node.default) == (
        "shell",
        "echo $bw",
        "float",
        "0",
    )
    assert b.steps["run"].do_log_file == "logs/run_$n.sh"
    assert (b.tables["t"].result_dir, b.tables["t"].syslog) == ("out", None)
    assert b.tables["log"].syslog == Syslog(host="loghost", port=1514)
    assert b.tables["local"].syslog == Syslog(address="/dev/log", format="bench: %(message)s")


@pytest.mark.parametrize(
    "syslog",
    ["{host: a, address: /dev/log}", "{port: 514}", "{host: a, port: 0}", "{host: a, to: b}"],
)
def test_a_syslog_target_names_one_daemon(syslog: str, tmp_path: Path) -> None:
    path = tmp_path / "b.yaml"
    path.write_text(f"name: b\nresults:\n  t:\n    columns: [x]\n    syslog: {syslog}\n")
    with pytest.raises((DefinitionError, ErrorList)):
        load(path)
