"""A path longer than the system takes is refused, at its file and line, before it is resolved.

Resolving a path of 100,000 parts takes tens of seconds (one ``lstat`` a part) only to fail
with ENAMETOOLONG; each case must be refused by the dry run, quickly, naming the entry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main

DEFINITION = """\
name: t
parameters:
  p: ["{value}"]
files:
  f:
    - copy: input.txt
      to: {to}
steps:
  s:
    {work_dir}
    files: [f]
    do:
      - {{cmd: "true", work_dir: "{do_dir}"}}
"""
DEEP = "x/" * 100_000
WIDE = "y" * 300


@pytest.mark.parametrize(
    ("fields", "line", "what"),
    [
        ({"work_dir": f"work_dir: {DEEP}w"}, 9, "work_dir"),
        ({"work_dir": "work_dir: $p", "value": DEEP}, 9, "work_dir"),
        ({"work_dir": f"work_dir: a/{WIDE}"}, 9, "work_dir"),
        ({"to": f"{DEEP}copy.txt"}, 6, "copy target"),
        ({"to": "$p", "value": WIDE}, 6, "copy target"),
        ({"do_dir": DEEP}, 13, "work_dir of a command"),
    ],
    ids=[
        "deep-work_dir",
        "deep-work_dir-from-parameter",
        "wide-part",
        "deep-copy",
        "wide-copy",
        "deep-do",
    ],
)
def test_a_path_longer_than_the_system_takes_is_refused_by_the_dry_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fields: dict[str, str], line: int, what: str
) -> None:
    values = {"value": "1", "to": "copy.txt", "work_dir": "", "do_dir": ".", **fields}
    (tmp_path / "input.txt").write_text("in\n")
    path = tmp_path / "d.yaml"
    path.write_text(DEFINITION.format(**values))
    code = main(["run", "--dry-run", str(path), "--outpath", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{path}:{line}:" in err and f"error: the {what} " in err
    assert "more than this system takes" in err
    assert not list(tmp_path.glob("x*")) and not list(tmp_path.glob("y*"))


def test_a_path_within_the_limits_still_runs(tmp_path: Path) -> None:
    (tmp_path / "input.txt").write_text("in\n")
    path = tmp_path / "d.yaml"
    deep = "x/" * 100 + "y" * 200
    path.write_text(
        DEFINITION.format(value="1", to="copy.txt", work_dir=f"work_dir: {deep}", do_dir=".")
    )
    assert main(["run", str(path), "--outpath", str(tmp_path / "runs"), "-q"]) == 0
    assert (tmp_path / deep / "copy.txt").read_text() == "in\n"


def test_an_outpath_longer_than_the_system_takes_is_refused_before_it_is_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "d.yaml"
    path.write_text(f"name: t\noutpath: {DEEP}runs\nsteps:\n  s: {{do: 'true'}}\n")
    assert main(["run", "--dry-run", str(path)]) == 2
    assert f"{path}:1:1: error: the outpath " in capsys.readouterr().err
    assert main(["run", "--dry-run", str(path), "--outpath", "x/" * 3000]) == 2
    assert "the outpath" in capsys.readouterr().err
