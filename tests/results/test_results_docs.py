"""docs/results.md's library examples run as written, on the runs its commands make."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from jubex.cli.main import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "results.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOC.read_text(), re.MULTILINE | re.DOTALL)


def test_every_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (definition,) = [b for b in blocks("yaml") if b.startswith("# synthetic.yaml\n")]
    Path("synthetic.yaml").write_text(definition)
    commands = [line.split("#")[0] for b in blocks("sh") for line in b.splitlines()]
    runs = [shlex.split(c)[1:] for c in commands if c.startswith("jubex run synthetic.yaml")]
    assert len(runs) == 2
    for argv in runs:
        assert main([*argv, "-q", "--no-result"]) == 0
    examples = blocks("python")
    assert len(examples) == 3  # the gate's figures, then the library's two steps
    namespace: dict[str, object] = {}
    for example in examples:
        exec(compile(example, str(DOC), "exec"), namespace)
