"""Looking at a definition runs none of its code: validate, info, the dry run and convert
show shell and python values as not evaluated unless the user allows it; run evaluates
them (the real CLI, real processes; a payload that ran leaves a file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

JUBE = """\
<?xml version="1.0"?>
<jube>
  <benchmark name="b" outpath="runs">
    <parameterset name="p">
      <parameter name="x" mode="python">__import__('os').system('touch DIR/PY') or 3</parameter>
      <parameter name="h" mode="shell">touch DIR/SH; echo host</parameter>
      <parameter name="y" mode="python">${x} * 2</parameter>
      <parameter name="n">1,2</parameter>
    </parameterset>
    <step name="s"><use>p</use><do>echo $x $h $y $n</do></step>
  </benchmark>
</jube>
"""

YAML = """\
name: b
parameters:
  x: {python: "__import__('os').system('touch DIR/PY') or 3"}
  h: {shell: "touch DIR/SH; echo host"}
  n: [1, 2]
where: ["h != 'none'"]
steps:
  s:
    do: echo $x $h $n
"""

LOOKING = {
    "validate": ["validate"],
    "info": ["info"],
    "dry run": ["run", "--dry-run"],
    "convert": ["convert", "-o", "out.yaml"],
}


def jubex(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done


def ran(where: Path) -> set[str]:
    """The payloads that ran (the python worker runs in a scratch directory: paths are
    absolute)."""
    return {name for name in ("PY", "SH") if (where / name).exists()}


@pytest.mark.parametrize(
    ("command", "spelling"),
    [
        (command, spelling)
        for command in sorted(LOOKING)
        for spelling in ("jube.xml", "jubex.yaml")
        if command != "convert" or spelling == "jube.xml"  # convert reads JUBE files
    ],
)
def test_looking_runs_no_code(command: str, spelling: str, tmp_path: Path) -> None:
    text = JUBE if spelling == "jube.xml" else YAML
    (tmp_path / spelling).write_text(text.replace("DIR", str(tmp_path)))
    done = jubex(tmp_path, *LOOKING[command][:1], spelling, *LOOKING[command][1:])
    assert ran(tmp_path) == set()
    if command in ("info", "dry run"):
        assert "<not evaluated>" in done.stdout
        assert "2 point(s)" in done.stdout or "2 workpackage(s)" in done.stdout


def test_a_converted_file_keeps_the_code_not_its_value(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(JUBE.replace("DIR", str(tmp_path)))
    jubex(tmp_path, "convert", "j.xml", "-o", "out.yaml")
    text = (tmp_path / "out.yaml").read_text()
    assert "PY')" in text and "SH;" in text and "not evaluated" not in text


@pytest.mark.parametrize(
    "how",
    [
        {"args": ["--allow-code"]},
        {"env": {"JUBEX_ALLOW_CODE": "1"}},
        {"config": "allow_code: true\n"},
    ],
    ids=["flag", "environment", "config"],
)
def test_the_user_may_allow_inspection_to_run_code(how: dict, tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(JUBE.replace("DIR", str(tmp_path)))
    env = dict(how.get("env", {}))
    if "config" in how:
        (tmp_path / "cfg" / "jubex").mkdir(parents=True)
        (tmp_path / "cfg" / "jubex" / "config.yaml").write_text(how["config"])
        env["XDG_CONFIG_HOME"] = str(tmp_path / "cfg")
    done = jubex(tmp_path, "info", "j.xml", *how.get("args", []), env=env)
    assert ran(tmp_path) == {"PY", "SH"}
    assert "not evaluated" not in done.stdout and "host" in done.stdout


def test_run_evaluates_code_as_jube_does_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "j.xml").write_text(JUBE.replace("DIR", str(tmp_path)))
    done = jubex(tmp_path, "run", "j.xml", "-q")
    assert ran(tmp_path) == {"PY", "SH"}
    assert "evaluated by a separate Python interpreter" in done.stderr
