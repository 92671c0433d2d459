"""The operator tables of the expression compiler, and the constructs it refuses (with a hint).

Each operator checks its operands' types when the expression runs; ``+``, ``*``, ``%``,
``**`` and ``<<`` go through :mod:`jubex.language.builtins`, which bounds the result first.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable

from jubex.language import builtins as safe

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
COMPARE: dict[type, Callable[..., object]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: operator.contains(b, a),
    ast.NotIn: lambda a, b: not operator.contains(b, a),
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
