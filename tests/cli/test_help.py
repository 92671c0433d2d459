"""``jubex help`` and ``--help``: every command and concept explained, from what the package
ships, and every command's ``--help`` ending with examples that its parser takes."""

from __future__ import annotations

import re
import shlex
from importlib import resources
from pathlib import Path

import pytest

from jubex.cli.help_topics import TOPICS
from jubex.cli.main import COMMANDS, build_parser, main

HELP = resources.files("jubex") / "data" / "help"


def _help(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["help", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_has_a_help_page_ending_with_examples(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command added later must bring its ``EXAMPLES`` too."""
    code, page, _ = _help(capsys, command)
    assert code == 0 and f"usage: jubex {command}" in page
    examples = page.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert examples and all(f"jubex {command}" in line for line in examples), page
    assert "exit status: 0 ok, 1 a benchmark or comparison failed, 2 bad input" in page
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0 and page.endswith(capsys.readouterr().out)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_example_is_a_command_line_its_parser_takes(command: str) -> None:
    parser = build_parser(command)
    (sub,) = (a for a in parser._actions if a.dest == "command")
    epilog = sub.choices[command].epilog  # type: ignore[attr-defined]
    for line in re.findall(r"^  (?:.*?\$\()?(jubex .*?)(?:\)\"| \| .*)?(?:  # .*)?$", epilog, re.M):
        args = parser.parse_args(shlex.split(line)[1:])  # a usage error exits: the test fails
        assert args.command == command


def test_the_listing_names_every_concept_and_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, listed, _ = _help(capsys)
    names = [line.split()[0] for line in listed.splitlines() if line.startswith("  ")]
    assert code == 0 and names == [*TOPICS, *COMMANDS]


@pytest.mark.parametrize("topic", list(TOPICS))
def test_every_concept_page_is_shipped_and_names_no_file_left_uninstalled(
    topic: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, page, _ = _help(capsys, topic)
    assert code == 0 and page.startswith((HELP / f"{topic}.txt").read_text())
    assert not re.search(r"docs/|\.md\b", page), page


def test_every_shipped_page_is_a_topic() -> None:
    shipped = {Path(str(page)).stem for page in HELP.iterdir() if str(page).endswith(".txt")}
    assert shipped == set(TOPICS)


def test_sharing_and_exit_codes_are_topics(capsys: pytest.CaptureFixture[str]) -> None:
    assert _help(capsys, "sharing")[0] == 0
    code, page, _ = _help(capsys, "exit-codes")
    assert code == 0 and all(f"\n  {n}  " in page for n in (0, 1, 2))


def test_a_mistyped_topic_gets_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _help(capsys, "sharign")
    assert code == 2 and "did you mean 'sharing'?" in err
    assert "did you mean 'report'?" in _help(capsys, "reprot")[2]


def test_the_expressions_page_lists_what_the_language_offers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Errors of expressions point here for the functions and methods there are."""
    from jubex.language import builtins, methods

    page = " ".join(_help(capsys, "expressions")[1].split())
    for name in [*builtins.FUNCTIONS, *methods.METHOD_NAMES]:
        assert re.search(rf"\b{name}[,;.]", page), name
