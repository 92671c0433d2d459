"""docs/sharing.md as written: its YAML is schema-valid, its flags exist, its library
example runs on a real run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jubex.cli.main import build_parser, main
from jubex.definition.schema_check import check_tree
from jubex.definition.yaml_tree import read_yaml

pytest.importorskip("matplotlib")

DOC = Path(__file__).resolve().parents[2] / "docs" / "sharing.md"
STUDY = """\
name: doc
parameters:
  transfer: [64k, 1m]
  tasks: [1, 2]
patterns:
  bw:
    write_bw: {regex: '^bw: $jube_pat_fp MiB/s', type: float, unit: MiB/s}
steps:
  run:
    iterations: 2
    do: "echo bw: ${tasks * 100 + jube_wp_iteration} MiB/s"
    analyse: [bw]
"""


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOC.read_text(), re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("text", blocks("yaml"))
def test_the_yaml_is_schema_valid(text: str) -> None:
    tree, errors = read_yaml(text, "doc.yaml")
    assert errors == [] and check_tree(tree, fragment=True) == []


def test_every_flag_in_the_table_exists() -> None:
    parser = build_parser("plot")
    options = {o for action in parser._subparsers._group_actions[0].choices["plot"]._actions
               for o in action.option_strings}  # fmt: skip
    documented = set(re.findall(r"^\| `(-[-\w]+)[` ]", DOC.read_text(), re.MULTILINE))
    documented |= {"--no-logx", "--group"}
    assert documented and documented <= options


def test_the_library_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("doc.yaml").write_text(STUDY)
    assert main(["run", "doc.yaml", "-q", "--no-result", "--outpath", "runs"]) == 0
    (example,) = blocks("python")
    exec(compile(example, str(DOC), "exec"), {})
    assert Path("scaling.pdf").read_bytes().startswith(b"%PDF")
    assert "<svg" not in Path("study.html").read_text()  # the definition declares no plots
    assert "64k" in Path("study.html").read_text()
