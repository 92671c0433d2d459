"""A resource that would break a job-script line is refused, naming where it came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main

DEFINITION = """\
name: t
parameters:
  part: ["batch"]
  acct: ["a\\nb"]
steps:
  s:
    resources: {{partition: $part, {key}: {value}}}
    do: hostname
"""


def dry_run(tmp_path: Path, text: str, *args: str) -> int:
    (tmp_path / "d.yaml").write_text(text)
    return main(["run", str(tmp_path / "d.yaml"), "--dry-run", "-P", "slurm", *args])


def test_a_newline_given_by_p_is_refused_naming_the_step_and_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = DEFINITION.format(key="nodes", value=1)
    # allowed on the command line, the value is still refused where it would end a line
    assert dry_run(tmp_path, text, "-p", "part=x\ntouch pwned", "--allow-shell-syntax") == 2
    err = capsys.readouterr().err
    assert (
        f"{tmp_path / 'd.yaml'}:6:3: error: resource 'partition' of step 's' holds a newline" in err
    )
    assert "it comes from -p part" in err
    assert not (tmp_path / "pwned").exists()


def test_a_newline_from_a_parameter_names_the_parameter_and_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert dry_run(tmp_path, DEFINITION.format(key="account", value="$acct")) == 2
    err = capsys.readouterr().err
    assert "resource 'account' of step 's' holds a newline: 'a\\nb'" in err
    assert f"it comes from parameter 'acct' ({tmp_path / 'd.yaml'}:4:" in err


def test_an_ordinary_hostile_looking_value_stays_in_its_directive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "d.yaml").write_text(
        'name: t\nsteps:\n  s:\n    resources: {account: "x;`id`\'$$(id)"}\n    do: hostname\n'
    )
    assert main(["run", str(tmp_path / "d.yaml"), "--dry-run", "-P", "slurm"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "`id`" in line]
    assert [line.strip() for line in lines] == ["#SBATCH --account=x;`id`'$(id)"]
