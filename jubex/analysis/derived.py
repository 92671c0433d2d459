"""Patterns computed, not matched: from other patterns' values and the parameters.

An ``expr`` pattern is an expression of the safe language (or, in a JUBE file, a Python
snippet run by the separate interpreter); shell patterns (:mod:`jubex.analysis.scripted`)
run a command. They are evaluated after the matched ones, each after those it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from jubex.analysis import typed
from jubex.definition.model import Pattern
from jubex.errors import DefinitionError, JubexError, Loc
from jubex.language.expr import Expr, compile_expr
from jubex.language.python import PythonExpr
from jubex.store.measurement import Value


class DerivedPattern(Protocol):
    """A pattern computed from other patterns' values and the parameters, not matched."""

    pattern: Pattern
    loc: Loc
    names: set[str]

    def evaluate(self, env: Mapping[str, object]) -> object: ...


class ExprPattern:
    """A ``mode: expr`` pattern: an expression over other patterns and parameters."""

    def __init__(self, pattern: Pattern, file: str) -> None:
        self.pattern = pattern
        self.loc = pattern.loc or Loc(file)
        self.expr: Expr | PythonExpr = (
            PythonExpr(pattern.regex, self.loc)
            if pattern.mode == "python"
            else compile_expr(pattern.regex, self.loc)
        )
        self.names = set(self.expr.names)
        self.default = None
        if pattern.default is not None:
            self.default = typed_default(
                pattern, lambda v: typed.convert(v, pattern.type), self.loc
            )

    def evaluate(self, env: Mapping[str, object]) -> object:
        if any(env.get(name) is None for name in self.names):
            return self.default
        try:
            value = self.expr.evaluate(env)
        except JubexError:
            return self.default
        return as_pattern_type(self.pattern, value, self.default)


def as_pattern_type(pattern: Pattern, value: object, default: object) -> object:
    """A computed value as its pattern's type, or the pattern's default when it is none."""
    if pattern.type == "str":
        return value
    try:
        return typed.convert(value, pattern.type)
    except (ValueError, OverflowError, JubexError):
        return default


def typed_default(pattern: Pattern, convert: Callable[[object], Value], loc: Loc) -> Value:
    """A pattern's default as its type, checked once: a bad default is a definition error.

    ``nan`` is a number's default of either type, as in JUBE, kept as the word JUBE shows
    (a float NaN would be stored as no value at all)."""
    if pattern.type in ("int", "float") and pattern.default == "nan":
        return "nan"
    try:
        return convert(pattern.default)
    except (ValueError, OverflowError, JubexError):
        raise DefinitionError(
            f"default '{pattern.default}' of pattern '{pattern.name}' is not a {pattern.type}",
            loc,
        ) from None


def ordered(derived: Sequence[DerivedPattern]) -> list[DerivedPattern]:
    """Derived patterns so that each comes after the derived patterns it uses."""
    by_name = {d.pattern.name: d for d in derived}
    done: dict[str, DerivedPattern] = {}
    visiting: list[str] = []

    def visit(item: DerivedPattern) -> None:
        name = item.pattern.name
        if name in done:
            return
        if name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(name) :], name])
            raise DefinitionError(
                f"derived patterns depend on each other in a cycle: {cycle}", item.loc
            )
        visiting.append(name)
        for used in sorted(item.names & by_name.keys()):
            visit(by_name[used])
        visiting.pop()
        done[name] = item

    for item in derived:
        visit(item)
    return list(done.values())
