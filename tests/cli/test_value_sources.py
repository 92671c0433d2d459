"""Where a value comes from, in jubex's own format: the command line over the platform
file over the definition's default; ``pinned: true`` keeps the definition's; JUBE files keep
JUBE's rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

SITE = """\
name: site
extends: local
parameters: {ior: /opt/ior/bin/ior, label: from-site}
"""

DEFINITION = """\
name: values
parameters:
  ior: ior
  label: {values: [from-definition], pinned: true}
steps:
  run:
    do: echo $ior $label
"""

JUBE = """\
<jube>
  <benchmark name="values" outpath="runs">
    <parameterset name="p"><parameter name="ior">ior</parameter></parameterset>
    <step name="run"><use>p</use><do>echo $ior</do></step>
  </benchmark>
</jube>
"""


def jubex(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "jubex", *args], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done.stdout


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "site.yaml").write_text(SITE)
    (tmp_path / "values.yaml").write_text(DEFINITION)
    (tmp_path / "values.xml").write_text(JUBE)
    return tmp_path


def test_the_platform_files_value_replaces_the_definitions_default(home: Path) -> None:
    out = jubex(home, "run", "values.yaml", "-P", "site.yaml", "--dry-run")
    assert "$ echo /opt/ior/bin/ior from-definition" in out  # label is pinned


def test_the_command_line_wins_over_the_platform_file(home: Path) -> None:
    out = jubex(home, "run", "values.yaml", "-P", "site.yaml", "--dry-run", "-p", "ior=mine")
    assert "$ echo mine from-definition" in out
    out = jubex(home, "run", "values.yaml", "-P", "site.yaml", "--dry-run", "-p", "label=x")
    assert "$ echo /opt/ior/bin/ior x" in out


def test_info_says_where_each_value_comes_from(home: Path) -> None:
    out = jubex(home, "info", "values.yaml", "-P", "site.yaml", "-p", "label=x")
    assert "values from the command line (-p): label" in out
    assert "values from the platform site.yaml:3:14: ior" in out
    out = jubex(home, "info", "values.yaml", "-P", "site.yaml")
    assert "values from the definition (pinned: the platform's value is not used): label" in out


def test_a_jube_file_keeps_jubes_rule_its_parameter_wins(home: Path) -> None:
    out = jubex(home, "run", "values.xml", "-P", "site.yaml", "--dry-run")
    assert "$ echo ior" in out and "/opt/ior" not in out


def test_the_ska_sweep_takes_ior_and_its_directory_from_the_platform(home: Path) -> None:
    (home / "lustre.yaml").write_text(
        SITE + "filesystems:\n  scratch: {path: /lustre/ska, kind: lustre, default: true}\n"
    )
    out = jubex(home, "run", str(REPO / "examples/ska-ior.yaml"), "-P", "lustre.yaml", "--dry-run")
    assert "/opt/ior/bin/ior -a POSIX -F -C -w -r -b 4096m -t 4k -o /lustre/ska/ior." in out
    out = jubex(
        home, "run", str(REPO / "examples/ska-mdtest.yaml"), "-P", "lustre.yaml", "--dry-run"
    )
    assert "-d /lustre/ska/mdtest." in out and "/work/mdtest" not in out
