"""argparse's parser, whose errors name the closest valid command, flag or value."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import NoReturn

from jubex.errors import did_you_mean

_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


class Parser(argparse.ArgumentParser):
    """A mistyped command or value of a flag with choices gets the closest one named; the
    subcommands' parsers are of this class too (argparse makes them of the parent's)."""

    def error(self, message: str) -> NoReturn:
        found = _CHOICE.search(message)
        if found:
            choices = [c.strip().strip("'") for c in found[2].split(",")]
            hint = did_you_mean(found[1], choices)
            message += f" ({hint})" if hint else ""
        super().error(message)

    def unrecognized(self, words: Sequence[str]) -> NoReturn:
        """Refuse the words no argument took, each flag with the closest flag of this parser."""
        flags = list(self._option_string_actions)
        hints = []
        for word in words:
            flag = word.split("=", 1)[0]
            hint = did_you_mean(flag, flags) if flag.startswith("-") else ""
            hints.append(f"{word} ({hint})" if hint else word)
        self.error(f"unrecognized arguments: {' '.join(hints)}")


def subparser(parser: argparse.ArgumentParser, name: str | None) -> Parser | None:
    """The parser of subcommand ``name``, if there is one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            chosen: Parser = action.choices[name]
            return chosen
    return None
