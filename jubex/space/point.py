"""The pieces a point of a parameter space is made of: derived values, values a snippet
split into several, and the point itself (constants visible through lookups)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from jubex.definition.model import Parameter
from jubex.errors import Loc
from jubex.language.values import coerce, parse_value


class Derived:
    """A value computed per point from other parameters (or once, from none).

    ``splits`` marks a JUBE snippet whose text result may hold its separator: such a result
    is several values (:class:`Several`), each a point of its own, as JUBE expands it.
    """

    __slots__ = ("deps", "fn", "splits")

    def __init__(
        self,
        fn: Callable[[Mapping[str, object]], object],
        deps: frozenset[str],
        splits: bool = False,
    ):
        self.fn = fn
        self.deps = deps
        self.splits = splits


class Several(tuple[object, ...]):
    """The typed values of a snippet whose result held its separator."""


def splitting(
    evaluate: Callable[[Mapping[str, object]], object],
    p: Parameter,
    loc: Loc | None,
    *,
    text: bool = False,
) -> Callable[[Mapping[str, object]], object]:
    """JUBE's reading of a snippet's result: text holding the separator is several values.
    ``text``: the result is always a text (a command's output, a variable), read as a value
    of the parameter's type like any text, not kept as computed."""
    kind, separator = p.type, p.separator or ""

    def split(env: Mapping[str, object]) -> object:
        value = evaluate(env)
        if isinstance(value, str) and separator and separator in value:
            return Several(parse_value(v.strip(), kind, loc) for v in value.split(separator))
        if text:
            return parse_value(str(value), kind, loc)
        return coerce(value, kind, loc)

    return split


class Point(dict[str, object]):
    """One point's parameters; constants (not parameters) are visible through lookups."""

    __slots__ = ("constants",)
    constants: Mapping[str, object]

    def __missing__(self, key: str) -> object:
        return self.constants[key]
