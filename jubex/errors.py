"""Errors a person can act on: where the problem is, and what was expected.

Every error that reaches the command line is a :class:`JubexError`; the CLI prints
``str(error)`` and exits with ``error.exit_code``, the same in every command: 2 for bad
input or usage (an invalid definition, a mistyped flag, a file that is not there), 1 for
what stopped a benchmark from being run or recorded (a scheduler that failed, a full
disk). A failed benchmark or comparison exits 1 too, without an error. Nothing else may
escape as a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from jubex.plain import dataclass


@dataclass(frozen=True, slots=True)
class Loc:
    """A place in an input file (1-based line and column; 0 = unknown)."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        text = self.file
        if self.line:
            text += f":{self.line}"
            if self.column:
                text += f":{self.column}"
        return text


class JubexError(Exception):
    """A problem in the input or the environment, reported without a traceback."""

    exit_code = 1

    def __init__(self, message: str, loc: Loc | None = None, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.hint = hint

    def __str__(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        text = f"{where}error: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text

    def at(self, loc: Loc | None) -> JubexError:
        """Attach a location if the error has none yet (errors raised deep inside know no file)."""
        if self.loc is None and loc is not None:
            self.loc = loc
        return self


class UsageError(JubexError):
    """The command line itself is wrong."""

    exit_code = 2


class DefinitionError(JubexError):
    """A definition or platform file does not say what jubex expects."""

    exit_code = 2


class DefinitionWarning(DefinitionError):
    """Suspicious but not wrong (a likely misspelling): reported, never fatal."""

    exit_code = 0

    def __str__(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        hint = f" ({self.hint})" if self.hint else ""
        return f"{where}warning: {self.message}{hint}"


_WARNED: set[str] = set()


def warn(warning: DefinitionWarning) -> None:
    """Report a warning found while running (not while loading) on stderr, each once."""
    text = str(warning)
    if text not in _WARNED:
        _WARNED.add(text)
        print(text, file=sys.stderr, flush=True)


class ExpressionError(JubexError):
    """An expression is refused or cannot be evaluated."""

    exit_code = 2


class ErrorList(JubexError):
    """Several independent problems, reported together (``jubex validate`` lists all)."""

    def __init__(self, errors: Iterable[JubexError]) -> None:
        self.errors = list(errors)
        super().__init__(f"{len(self.errors)} problem(s)")
        self.exit_code = max((e.exit_code for e in self.errors), default=1)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


def no_such_file(path: object) -> UsageError:
    """The one wording of a file that is not there, whichever command was given it."""
    return UsageError(f"no such file: '{path}'")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A hint naming the closest known word, or an empty string."""
    import difflib  # only where a name is wrong

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""
