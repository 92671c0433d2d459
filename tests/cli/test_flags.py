"""One flag style: every option explained, the same letter meaning the same thing everywhere."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from jubex.cli.main import COMMANDS, build_parser

Jubex = Callable[..., CompletedProcess[str]]

#: short option -> the one destination it may have in any command
SHORT = {
    "-t": "tag",
    "-P": "platform",
    "-p": "parameter",
    "-T": "table",
    "-f": "format",
    "-i": "run_id",
    "-o": "output",
    "-w": "workpackage",
}

DEFINITION = """
name: flags
tags: [big]
parameters:
  x: [1, 2]
  y: {values: [3], tag: big}
steps:
  work:
    do: echo "x=$x"
"""


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_command_is_registered_and_every_option_has_help() -> None:
    commands = _subparsers()
    assert set(commands) == set(COMMANDS)
    unexplained = [
        f"{name} {action.option_strings or action.dest}"
        for name, sub in commands.items()
        for action in sub._actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert unexplained == []


def test_a_short_option_means_the_same_in_every_command() -> None:
    for name, sub in _subparsers().items():
        for action in sub._actions:
            for option in action.option_strings:
                if option in SHORT:
                    assert action.dest == SHORT[option], (name, option, action.dest)


def test_no_option_takes_an_open_list_of_values() -> None:
    """``nargs='+'`` would swallow the positional FILE after it."""
    for name, sub in _subparsers().items():
        for action in sub._actions:
            if action.option_strings:
                assert action.nargs not in ("+", "*"), (name, action.option_strings)


def test_json_is_a_format_not_a_flag() -> None:
    for name, sub in _subparsers().items():
        options = {o for a in sub._actions for o in a.option_strings}
        assert "--json" not in options, name
        assert "--style" not in options, name


def test_a_tag_before_the_file_does_not_swallow_it(tmp_path: Path, jubex: Jubex) -> None:
    (tmp_path / "d.yaml").write_text(DEFINITION)
    done = jubex(tmp_path, "run", "-t", "big", "d.yaml", "--dry-run", "-f", "json")
    assert done.returncode == 0, done.stderr
    points = [wp["parameters"] for wp in json.loads(done.stdout)["workpackages"]]
    assert [(p["x"], p.get("y")) for p in points] == [("1", "3"), ("2", "3")]
    listed = jubex(tmp_path, "info", "-t", "big,nosuch", "d.yaml")
    assert listed.returncode == 2
    assert "nosuch" in listed.stderr


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory, jubex: Jubex) -> Path:
    home = tmp_path_factory.mktemp("flags")
    (home / "d.yaml").write_text(DEFINITION)
    done = jubex(home, "run", "d.yaml", "-q", "--no-result")
    assert done.returncode == 0, done.stderr
    return home / "runs"


def test_runs_prints_json(ran: Path, jubex: Jubex) -> None:
    done = jubex(ran.parent, "runs", "runs", "-f", "json")
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    assert (run["id"], run["name"], run["workpackages"], run["finished"], run["failed"]) == (
        "000000",
        "flags",
        2,
        2,
        0,
    )


def test_log_prints_json(ran: Path, jubex: Jubex) -> None:
    done = jubex(ran.parent, "log", "runs/000000", "-w", "1", "-f", "json")
    assert done.returncode == 0, done.stderr
    events = json.loads(done.stdout)["events"]
    assert {e["workpackage"] for e in events} == {1}
    assert events[-1]["state"] == "done"
    assert all(isinstance(e["time"], float) for e in events)


def test_the_old_spellings_are_refused(ran: Path, jubex: Jubex) -> None:
    assert jubex(ran.parent, "platform", "local", "--json").returncode == 2
    assert jubex(ran.parent, "result", "runs/000000", "-s", "csv").returncode == 2
    assert jubex(ran.parent, "status", "runs/000000", "-f", "text").returncode == 2
