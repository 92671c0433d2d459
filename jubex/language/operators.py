"""The operator tables of the expression compiler, and the constructs it refuses (with a hint).

Each operator checks its operands' types when the expression runs; ``+``, ``*``, ``%``,
``**`` and ``<<`` go through :mod:`jubex.language.builtins`, which bounds the result first.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

from jubex.errors import JubexError
from jubex.language import builtins as safe
from jubex.language.values import Size, parse_value

BINARY: dict[type, Callable[..., object]] = {
    ast.Add: safe.add,
    ast.Sub: operator.sub,
    ast.Mult: safe.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: safe.mod,
    ast.Pow: safe.power,
    ast.LShift: safe.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
UNARY: dict[type, Callable[..., object]] = {
    ast.Not: operator.not_,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}


def _sized(compare: Callable[..., object]) -> Callable[[object, object], object]:
    """``compare``, where a size meets a text: the text read as a size (``transfer ==
    '1m'`` is true for 1 MiB; text and size never equal, a sweep filter would drop all)."""

    def sized(a: object, b: object) -> object:
        if isinstance(a, Size) and isinstance(b, str):
            b = _as_size(b)
        elif isinstance(b, Size) and isinstance(a, str):
            a = _as_size(a)
        return compare(a, b)

    return sized


def _as_size(text: str) -> object:
    """A text as the size it writes, or the text itself when it writes none."""
    try:
        value = parse_value(text, "size")
    except JubexError:
        return text
    return value if isinstance(value, Size) else text


def _contains(container: object, item: object) -> bool:
    """``item in container``; a size is in a list or tuple that writes it as text."""
    if isinstance(item, Size) and isinstance(container, list | tuple):
        return any(_sized(operator.eq)(item, other) for other in container)
    return operator.contains(container, item)  # type: ignore[arg-type]


COMPARE: dict[type, Callable[..., object]] = {
    ast.Eq: _sized(operator.eq),
    ast.NotEq: _sized(operator.ne),
    ast.Lt: _sized(operator.lt),
    ast.LtE: _sized(operator.le),
    ast.Gt: _sized(operator.gt),
    ast.GtE: _sized(operator.ge),
    ast.In: lambda a, b: _contains(b, a),
    ast.NotIn: lambda a, b: not _contains(b, a),
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
REFUSED: dict[type, tuple[str, str]] = {
    ast.Lambda: ("a lambda", "use a comprehension or a built-in such as sorted(xs)"),
    ast.NamedExpr: ("an assignment (:=)", "define another parameter for the intermediate value"),
    ast.Await: ("await", "expressions are evaluated at once"),
    ast.Yield: ("yield", "use a generator expression (x for x in xs)"),
    ast.YieldFrom: ("yield from", "use a generator expression (x for x in xs)"),
    ast.Attribute: (
        "attribute access",
        "only the methods listed in `jubex help expressions` (such as ','.join(xs), name.upper(), "
        "d.get(key, default)) and math.<function> are available; convert with str(x), "
        "int(x), float(x) instead",
    ),
    ast.MatMult: ("the @ operator", "use * or a comprehension"),
    ast.Starred: ("a starred expression here", "unpack only in calls, lists, tuples and sets"),
}
