"""Derived patterns the shell computes: JUBE's ``shell`` and ``perl`` pattern modes.

As in JUBE, such a pattern is evaluated once per result line, after the other patterns:
``$name`` in its command is replaced by the value of that pattern or parameter (a name the
analysis does not know is left to the shell), the command runs with ``/bin/sh -c`` and what
it prints, stripped, is the value, converted to the pattern's type. A name whose value is
missing gives the pattern's ``default`` (else missing) without running anything; a command
that fails gives the ``default`` too, and without one it is a definition error naming the
command and what the interpreter said.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from jubex.analysis import typed
from jubex.analysis.derived import as_pattern_type, typed_default
from jubex.definition.model import Pattern
from jubex.errors import DefinitionError, Loc
from jubex.language.shell import run_snippet
from jubex.language.template import Template


class ShellPattern:
    """A ``mode: shell`` pattern: a command over other patterns and parameters."""

    def __init__(self, pattern: Pattern, file: str) -> None:
        self.pattern = pattern
        self.loc = pattern.loc or Loc(file)
        self.command = Template(pattern.regex, self.loc, shell=True)
        self.names = set(self.command.names)
        self.home = Path(file).resolve().parent if file else None
        self.default: object = None
        if pattern.default is not None:
            self.default = typed_default(
                pattern, lambda v: typed.convert(v, pattern.type), self.loc
            )
        self._outputs: dict[str, str] = {}

    def evaluate(self, env: Mapping[str, object]) -> object:
        if any(name in env and env[name] is None for name in self.names):
            return self.default
        command = self.command.render(env)
        output = self._outputs.get(command)
        if output is None:
            try:
                output = run_snippet(command, f"pattern '{self.pattern.name}'", self.loc, self.home)
            except DefinitionError:
                if self.pattern.default is None:
                    raise
                return self.default
            output = self._outputs[command] = output.strip()
        return as_pattern_type(self.pattern, output, self.default)
