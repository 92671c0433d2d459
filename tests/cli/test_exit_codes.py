"""Exit codes that script: 0 ok, 1 a benchmark or comparison failed, 2 bad input or usage,
the same in every command; a file that is not there is said one way everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from jubex.cli.main import main

REPO = Path(__file__).resolve().parents[2]
FAILING = """\
name: half
parameters:
  n: [1, 2]
steps:
  run:
    do: test $n -eq 1
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "nope.yaml"],
        ["run", "nope.yaml", "--dry-run"],
        ["validate", "nope.yaml"],
        ["info", "nope.yaml"],
        ["parse", "ior", "nope.yaml"],
        ["convert", "nope.yaml"],
    ],
)
def test_a_missing_file_is_bad_input_said_one_way(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err == "error: no such file: 'nope.yaml'\n"


@pytest.mark.parametrize("command", [["validate"], ["info"], ["run", "--dry-run"], ["run"]])
def test_an_invalid_definition_is_bad_input(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nsteps:\n  run:\n    do: echo\n    iterations: many\n")
    assert main([*command, str(path)]) == 2
    captured = capsys.readouterr()
    assert f"{path}:5:17: error: steps.run.iterations" in captured.out + captured.err


@pytest.mark.parametrize("command", [["info"], ["run", "--dry-run"], ["run"]])
def test_a_platform_file_given_as_a_study_is_named_as_such(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "site.yaml"
    path.write_text("extends: slurm\nscheduler_options: {partition: batch}\n")
    assert main([*command, str(path)]) == 2
    said = capsys.readouterr().err
    assert "is a platform file, not a study definition" in said and "unknown key" not in said
    assert f"-P {path}" in said


def test_status_exits_one_when_workpackages_failed_as_run_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "half.yaml").write_text(FAILING)
    assert main(["run", "half.yaml", "-q"]) == 1
    assert main(["status"]) == 1
    assert main(["status", "-f", "json"]) == 1
    (tmp_path / "half.yaml").write_text(FAILING.replace("-eq 1", "-ge 1"))
    assert main(["run", "half.yaml", "-q"]) == 0
    assert main(["status"]) == 0
    capsys.readouterr()


def test_the_docs_and_the_help_list_the_same_codes(capsys: pytest.CaptureFixture[str]) -> None:
    docs = (REPO / "docs" / "running.md").read_text()
    main(["help", "exit-codes"])
    page = capsys.readouterr().out
    for code, meaning in (
        (0, "ok"),
        (1, "a benchmark or a comparison failed"),
        (2, "bad input or usage"),
        (4, "`compare` only: inconclusive"),
    ):
        assert f"| {code} | {meaning}" in docs and f"  {code}  " in page
