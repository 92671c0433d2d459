"""What expressions may call, and the limits that keep one expression from eating the machine.

Every function here either is a Python built-in that cannot reach beyond its arguments, or
wraps one with a size check made *before* the work is done (``range``, ``**``, ``*`` on
sequences, ``str.format``, widths). The limits are generous for real benchmark definitions.
"""

from __future__ import annotations

import math
import operator
import re
import string
from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from jubex.errors import JubexError
from jubex.language.values import format_size, parse_value

MAX_ITEMS = 1_000_000
MAX_DIGITS = 10_000
MAX_WIDTH = 10_000
_MAX_BITS = int(MAX_DIGITS * math.log2(10))
_SEQUENCES = (str, bytes, list, tuple)
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d+))?")


class Refused(Exception):
    """An operation that would exceed a limit; reported as an ExpressionError."""


def check_items(count: int, what: str = "the result") -> None:
    if count > MAX_ITEMS:
        raise Refused(f"{what} would have more than {MAX_ITEMS:,} items")


def _check_width(width: object) -> None:
    if isinstance(width, int) and width > MAX_WIDTH:
        raise Refused(f"a width of {width} is more than the limit of {MAX_WIDTH:,}")


def check_spec(spec: str) -> None:
    """Refuse format specs with huge widths or precisions (``{x:>999999999}``)."""
    for number in re.findall(r"\d+", spec):
        _check_width(int(number))


def add(a: object, b: object) -> object:
    result = operator.add(a, b)
    if isinstance(result, _SEQUENCES):
        check_items(len(result))
    return result


def mul(a: object, b: object) -> object:
    if isinstance(a, int) and isinstance(b, int):
        if a.bit_length() + b.bit_length() > _MAX_BITS:
            raise Refused(f"the product would have more than {MAX_DIGITS:,} digits")
    elif isinstance(a, _SEQUENCES) and isinstance(b, int):
        check_items(len(a) * b, "the repetition")
    elif isinstance(b, _SEQUENCES) and isinstance(a, int):
        check_items(len(b) * a, "the repetition")
    return operator.mul(a, b)


def power(base: object, exponent: object) -> object:
    if (
        isinstance(base, int)
        and isinstance(exponent, int)
        and exponent > 0
        and abs(base) > 1
        and exponent * math.log10(abs(base)) > MAX_DIGITS
    ):
        raise Refused(f"the power would have more than {MAX_DIGITS:,} digits")
    return operator.pow(base, exponent)


def lshift(a: object, b: object) -> object:
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b > _MAX_BITS:
        raise Refused(f"the shift would give more than {MAX_DIGITS:,} digits")
    return operator.lshift(a, b)


def mod(a: object, b: object) -> object:
    if isinstance(a, str):
        for star_or_width, precision in _PERCENT_FIELD.findall(a):
            if "*" in (star_or_width, precision):
                raise Refused("'*' widths in %-formatting are not supported; write the number")
            for number in (star_or_width, precision):
                _check_width(int(number) if number else 0)
    return operator.mod(a, b)


def _pow(base: object, exponent: object, modulus: object = None) -> object:
    if modulus is None:
        return power(base, exponent)
    if not (isinstance(base, int) and isinstance(exponent, int) and isinstance(modulus, int)):
        raise TypeError("pow() with a modulus needs whole numbers")
    return pow(base, exponent, modulus)


def _range(*args: int) -> range:
    result = range(*args)
    check_items(len(result), "the range")
    return result


def _sum(values: Iterable[float], start: object = 0) -> object:
    if not isinstance(start, (int, float)):
        raise Refused("sum() adds numbers; join texts with ''.join(...) and lists with [*a, *b]")
    return sum(values, start)


def _prod(values: Iterable[object], start: object = 1) -> object:
    result = start
    for value in values:
        result = mul(result, value)
    return result


def _typed(kind: str) -> Callable[[object], object]:
    def convert(text: object) -> object:
        try:
            return parse_value(str(text), kind)
        except JubexError as exc:
            raise ValueError(f"{exc.message} ({exc.hint})" if exc.hint else exc.message) from None

    convert.__name__ = kind
    return convert


class MathNamespace:
    """``math.sqrt(x)`` as JUBE files write it: a fixed set of functions, nothing else."""

    __slots__ = ()
    sqrt, log, log2, log10, exp = math.sqrt, math.log, math.log2, math.log10, math.exp
    ceil, floor, trunc, fabs, isqrt = math.ceil, math.floor, math.trunc, math.fabs, math.isqrt
    gcd, hypot, pow = math.gcd, math.hypot, math.pow
    prod = staticmethod(_prod)
    pi, e, inf, nan = math.pi, math.e, math.inf, math.nan


MATH_NAMES = frozenset(n for n in dir(MathNamespace) if not n.startswith("_"))

FUNCTIONS: dict[str, object] = {
    "int": int,
    "float": float,
    "str": str,
    "bool": bool,
    "len": len,
    "min": min,
    "max": max,
    "sum": _sum,
    "abs": abs,
    "round": round,
    "range": _range,
    "sorted": sorted,
    "reversed": reversed,
    "enumerate": enumerate,
    "zip": zip,
    "any": any,
    "all": all,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
    "divmod": divmod,
    "pow": _pow,
    "sqrt": math.sqrt,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "exp": math.exp,
    "ceil": math.ceil,
    "floor": math.floor,
    "prod": _prod,
    "isqrt": math.isqrt,
    "gcd": math.gcd,
    "size": _typed("size"),
    "duration": _typed("duration"),
    "format_size": format_size,
    "math": MathNamespace(),
}


def _format(text: str, *args: object, **kwargs: object) -> str:
    """``str.format`` without attribute access or indexing in fields (``{0.__class__}``)."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return text.format(*args, **kwargs)
    for _, field, spec, _ in fields:
        if field is None:
            continue
        if (field and not (field.isdigit() or field.isidentifier())) or field.startswith("__"):
            raise Refused(
                f"format field '{{{field}}}' uses attribute access or indexing; "
                "pass the value itself, e.g. '{0}'.format(x[1])"
            )
        if spec and "{" in spec:
            raise Refused("nested fields in format specs are not supported; use an f-string")
        check_spec(spec or "")
    return text.format(*args, **kwargs)


def _padding(method: Callable[..., str]) -> Callable[..., str]:
    def pad(text: str, width: int, *rest: str) -> str:
        _check_width(width)
        return method(text, width, *rest)

    return pad


def _replace(text: str, old: str, new: str, count: int = -1) -> str:
    hits = text.count(old) if count < 0 else min(count, text.count(old))
    check_items(len(text) + hits * (len(new) - len(old)), "the replaced text")
    return text.replace(old, new, count)


def _join(text: str, parts: Iterable[str]) -> str:
    parts = list(parts)
    total = sum(len(p) for p in parts if isinstance(p, str)) + len(text) * len(parts)
    check_items(total, "the joined text")
    return text.join(parts)


STR_METHODS: dict[str, Callable[..., object]] = {
    **{
        name: getattr(str, name)
        for name in (
            "upper",
            "lower",
            "strip",
            "lstrip",
            "rstrip",
            "split",
            "rsplit",
            "startswith",
            "endswith",
            "count",
            "find",
            "title",
            "capitalize",
            "partition",
        )
    },
    "format": _format,
    "replace": _replace,
    "join": _join,
    "zfill": _padding(str.zfill),
    "ljust": _padding(str.ljust),
    "rjust": _padding(str.rjust),
    "center": _padding(str.center),
}


def str_method(name: str) -> Callable[..., object]:
    """A method of text values, refusing any other receiver with a clear message."""
    method = STR_METHODS[name]

    def call(receiver: object, *args: object, **kwargs: object) -> object:
        if not isinstance(receiver, str):
            raise TypeError(
                f".{name}() is a method of text values, not of {type(receiver).__name__} "
                f"'{receiver}'; write str(...).{name}()"
            )
        return method(receiver, *args, **kwargs)

    return call


def iterable(value: object) -> Iterable[object]:
    """``value`` to unpack with ``*``; the TypeError Python would raise for anything else."""
    if not isinstance(value, Iterable):
        raise TypeError(f"'{type(value).__name__}' object is not iterable")
    return value


@runtime_checkable
class _Subscriptable(Protocol):
    def __getitem__(self, key: object, /) -> object: ...


def item(container: object, key: object) -> object:
    """``container[key]``; the TypeError Python would raise for values without items."""
    if not isinstance(container, _Subscriptable):
        raise TypeError(f"'{type(container).__name__}' object is not subscriptable")
    return container[key]
