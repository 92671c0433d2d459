"""``jubex validate`` refuses exactly what ``jubex run --dry-run`` refuses: the repository's
examples and test definitions, and one definition per mistake a run used to find late."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main
from jubex.platform.load import find_platform

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "jube" / "corpus"
SHIPPED = sorted(
    [
        *REPO.glob("examples/*.yaml"),
        *REPO.glob("examples/*.xml"),
        *(p for p in CORPUS.glob("*.*ml") if ".expected." not in p.name),
        *CORPUS.glob("bad/*.*ml"),
    ]
)

#: what only running a command can tell: validate and the dry run run none of the
#: definition's commands (unless --allow-code), the run does
RUNS_COMMANDS = {CORPUS / "bad" / "perl.xml"}

MISTAKES = {
    "where": ("where: 'nx < 2'", "where: 'nx' is not a parameter (did you mean 'n'?)"),
    "column": ("results: {t: {columns: [n, nope]}}", "table 't': 'nope' is neither"),
    "group": ("results: {t: {group_by: [m], columns: [n]}}", "table 't': 'm' is neither"),
    "platform": ("platform: nosuch", "no platform 'nosuch'"),
    "size": ("", "parameter 'n': '4kib' is not a size: jubex spells the unit KiB"),
    "shell": ("", "$sizee is neither a parameter nor set by a command"),
}


def _definition(tmp_path: Path, mistake: str) -> Path:
    extra, _ = MISTAKES[mistake]
    values = "[4kib, 1m]" if mistake == "size" else "[1, 2]"
    command = "echo $n $sizee" if mistake == "shell" else "echo $n; x=1; echo $x $HOME"
    path = tmp_path / f"{mistake}.yaml"
    path.write_text(
        f"name: {mistake}\nparameters:\n  n: {values}\n{extra}\nsteps:\n  s:\n    do: '{command}'\n"
    )
    return path


def _exit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO)))
def test_validate_accepts_what_the_dry_run_accepts(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    valid, said = _exit(capsys, "validate", str(path))
    dry, ran = _exit(capsys, "run", str(path), "--dry-run", "-f", "json")
    assert (valid == 0) == (dry == 0), f"validate:\n{said}\ndry run:\n{ran}"
    if path in RUNS_COMMANDS:
        allowed = _exit(capsys, "validate", "--allow-code", str(path))[0]
        assert (valid, allowed) == (0, 2)


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_validate_info_and_run_refuse_the_same_mistake(
    mistake: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(_definition(tmp_path, mistake))
    message = MISTAKES[mistake][1]
    for argv in (["validate", path], ["info", path], ["run", path, "--dry-run"]):
        code, said = _exit(capsys, *argv)
        assert code == 2 and message in said, (argv, said)
    code, said = _exit(capsys, "run", path, "--outpath", str(tmp_path / "runs"))
    assert code == 2 and message in said
    assert not (tmp_path / "runs").exists()


def test_a_correct_definition_is_valid_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "right.yaml"
    path.write_text(
        "name: right\nparameters:\n  n: [4KiB, 1m]\nsteps:\n  s:\n"
        "    do: |\n      for f in a b; do echo $f $n; done\n      x=1; echo $x '$y' $$z $HOME\n"
    )
    assert _exit(capsys, "validate", str(path)) == (
        0,
        "1 file(s) valid: 0 error(s), 0 warning(s)\n",
    )
    assert _exit(capsys, "run", str(path), "--dry-run")[0] == 0


@pytest.mark.parametrize("name", ["local", "slurm", "pbs", "polaris", "juwels-booster"])
def test_validate_accepts_the_shipped_platform_files(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = find_platform(name)
    assert _exit(capsys, "validate", str(path)) == (
        0,
        "1 file(s) valid: 0 error(s), 0 warning(s)\n",
    )


def test_validate_checks_a_platform_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "site.yaml"
    path.write_text("name: site\nextends: slurm\nresources: {nodez: 2}\n")
    code, said = _exit(capsys, "validate", str(path))
    assert code == 2 and f"{path}:3" in said and "nodez" in said


SUFFIX = (
    "name: b\nparameters:\n  n: [1]\n  s: ['{s}']\nsteps:\n  st:\n    suffix: $s\n    do: echo $n\n"
)
TWO = """<?xml version="1.0"?>
<jube>
  <benchmark name="one" outpath="runs">
    <parameterset name="p"><parameter name="n">1</parameter></parameterset>
    <step name="s"><use>p</use><do>echo $n</do></step>
  </benchmark>
  <benchmark name="two" outpath="runs">
    <parameterset name="p"><parameter name="m" type="int">many</parameter></parameterset>
    <step name="s"><use>p</use><do>echo $m</do></step>
  </benchmark>
</jube>
"""
#: a definition, the selection flags, what validate and run must both refuse (None: both
#: accept)
SELECTED = {
    "suffix from a value": (SUFFIX.format(s="/../../../escaped1"), [], "climbs out"),
    "suffix from -p": (SUFFIX.format(s="a"), ["-p", "s=/../../../escaped1"], "climbs out"),
    "harmless -p": (SUFFIX.format(s="a"), ["-p", "s=b"], None),
    "platform": (SUFFIX.format(s="a"), ["-P", "nosuch"], "no platform 'nosuch'"),
    "unknown tag": (SUFFIX.format(s="a"), ["-t", "x,y"], "is not known"),
    "benchmark": (TWO, ["-b", "two"], "many"),
    "other benchmark": (TWO, ["-b", "one"], None),
}


@pytest.mark.parametrize("case", sorted(SELECTED))
def test_validate_takes_the_selection_of_run_and_refuses_what_it_refuses(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, flags, refused = SELECTED[case]
    path = tmp_path / ("d.xml" if text.startswith("<?xml") else "d.yaml")
    path.write_text(text)
    valid, said = _exit(capsys, "validate", str(path), *flags)
    dry, ran = _exit(capsys, "run", str(path), "--dry-run", *flags)
    if refused is None:
        assert (valid, dry) == (0, 0), f"validate:\n{said}\ndry run:\n{ran}"
        return
    assert valid != 0 and refused in said, said
    assert dry != 0 and refused in ran, ran


def test_validate_says_when_it_rendered_only_the_first_workpackages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(
        "name: big\nparameters:\n  n: {range: {start: 0, stop: 1001, step: 1}}\n"
        "steps:\n  s:\n    suffix: $n\n    do: echo $n\n"
    )
    code, said = _exit(capsys, "validate", str(path))
    assert code == 0
    assert "validate rendered the first 1,000 workpackages as run would" in said
    path.write_text(path.read_text().replace("1001", "999"))  # 1,000 at the most
    assert "rendered the first" not in _exit(capsys, "validate", str(path))[1]
