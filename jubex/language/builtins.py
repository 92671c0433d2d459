"""What expressions may call, and the limits that keep one expression from eating the machine.

Every function here either is a Python built-in that cannot reach beyond its arguments, or
wraps one with a size check made *before* the work is done (``range``, ``**``, ``*`` on
sequences, ``str.format``, widths). The limits are generous for real benchmark definitions.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from jubex.errors import JubexError
from jubex.language.values import format_size, parse_value

MAX_ITEMS = 1_000_000
MAX_DIGITS = 10_000
MAX_WIDTH = 10_000
_MAX_BITS = int(MAX_DIGITS * math.log2(10))
_MAX_FACTORIAL = 3_000
_SEQUENCES = (str, bytes, list, tuple)
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d+))?")


class Refused(Exception):
    """An operation that would exceed a limit; reported as an ExpressionError."""


def check_items(count: int, what: str = "the result") -> None:
    if count > MAX_ITEMS:
        raise Refused(f"{what} would have more than {MAX_ITEMS:,} items")


def check_width(width: object) -> None:
    if isinstance(width, int) and width > MAX_WIDTH:
        raise Refused(f"a width of {width} is more than the limit of {MAX_WIDTH:,}")


def check_spec(spec: str) -> None:
    """Refuse format specs with huge widths or precisions (``{x:>999999999}``)."""
    for number in re.findall(r"\d+", spec):
        check_width(int(number))


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
                check_width(int(number) if number else 0)
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


def _factorial(n: int) -> int:
    if isinstance(n, int) and n > _MAX_FACTORIAL:
        raise Refused(f"factorial({n}) would have more than {MAX_DIGITS:,} digits")
    return math.factorial(n)


def _choose(function: Callable[..., int]) -> Callable[..., int]:
    def bounded(n: int, k: int | None = None) -> int:
        if isinstance(n, int) and n > _MAX_FACTORIAL:
            raise Refused(f"{function.__name__}({n}, ...) is limited to n <= {_MAX_FACTORIAL:,}")
        return function(n) if k is None else function(n, k)

    bounded.__name__ = function.__name__
    return bounded


def _literal(value: object) -> object:
    """A text holding a Python literal (``"(2,2)"``, ``"[1, 2]"``) as that value; any other
    value, and a text that is no literal, unchanged."""
    if not isinstance(value, str) or len(value) > MAX_WIDTH:
        return value
    try:
        return ast.literal_eval(value.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return value


_PLAIN_WORD = re.compile(r"[\w@%+=:,./-]+", re.ASCII)
_ENVIRONMENT_REFERENCE = re.compile(r"(\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\})", re.ASCII)


def _quote(value: object) -> str:
    """A value as one shell word, so a text that may come from ``-p`` (``$(touch x)``, ``;``)
    stays text in a command. A plain word is written as it is (dry runs read as before);
    anything else goes between double quotes with ``\\ " ` $`` escaped, except a reference to
    an environment variable (``$SCRATCH``, ``${USER}``): a target path a platform names by its
    variables must still be expanded by the job's shell, and a reference runs no command."""
    text = str(value)
    if _PLAIN_WORD.fullmatch(text):
        return text
    parts = _ENVIRONMENT_REFERENCE.split(text)  # odd indices: the references
    escaped = (p if i % 2 else re.sub(r'([\\"`$])', r"\\\1", p) for i, p in enumerate(parts))
    return '"' + "".join(escaped) + '"'


def _format_value(value: object, spec: str = "") -> str:
    check_spec(spec)
    return format(value, spec)


class MathNamespace:
    """``math.sqrt(x)`` as JUBE files write it: a fixed set of functions, nothing else."""

    __slots__ = ()
    sqrt, log, log2, log10, log1p = (
        math.sqrt,
        math.log,
        math.log2,
        math.log10,
        math.log1p,
    )
    exp, expm1 = math.exp, math.expm1
    ceil, floor, trunc, fabs, isqrt = math.ceil, math.floor, math.trunc, math.fabs, math.isqrt
    gcd, lcm, hypot, pow, fmod, modf = (
        math.gcd,
        math.lcm,
        math.hypot,
        math.pow,
        math.fmod,
        math.modf,
    )
    frexp, ldexp, copysign, remainder = math.frexp, math.ldexp, math.copysign, math.remainder
    isclose, isfinite, isinf, isnan = math.isclose, math.isfinite, math.isinf, math.isnan
    sin, cos, tan, asin, acos, atan, atan2 = (
        math.sin,
        math.cos,
        math.tan,
        math.asin,
        math.acos,
        math.atan,
        math.atan2,
    )
    sinh, cosh, tanh, degrees, radians = math.sinh, math.cosh, math.tanh, math.degrees, math.radians
    fsum, dist = math.fsum, math.dist
    factorial = staticmethod(_factorial)
    comb, perm = staticmethod(_choose(math.comb)), staticmethod(_choose(math.perm))
    prod = staticmethod(_prod)
    pi, e, tau, inf, nan = math.pi, math.e, math.tau, math.inf, math.nan


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
    "map": map,
    "filter": filter,
    "chr": chr,
    "ord": ord,
    "hex": hex,
    "oct": oct,
    "bin": bin,
    "repr": repr,
    "format": _format_value,
    "isinstance": isinstance,
    "literal": _literal,
    "quote": _quote,
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
