"""How a table's cells read as text: the rule for one cell, and the same rule applied to
a whole column at once.

A history of 1,000 runs is a table of 40,000 rows and 14 columns: called cell by cell,
the rule costs about 1.5 s there. A column holds one or two kinds of value (numbers of one
type, text, missing values), so :func:`column_texts` works out the rule once per kind and
applies it with one call over the column; a column of ``mean ± std`` pairs or of values
whose precision was printed keeps the rule cell by cell.
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from jubex.results.tables.columns import Header, PlusMinus

#: a fixed-point format spec (``.2f``, ``>10,.1f``): its decimals
_FIXED = re.compile(r"^(.*\.)(\d+)f$")
_BOOLS = {True: "true", False: "false"}


def format_value(
    value: object, spec: str | None, missing: str, *, floats_only: bool = False
) -> str:
    """How a cell reads: formatted numbers, sizes as written, ``missing`` for no value.

    With ``floats_only``, ``spec`` (a column's chosen decimals) leaves whole numbers be.
    """
    if value is None:
        return missing
    if isinstance(value, PlusMinus):
        shown = format_value(value.value, spec, missing, floats_only=floats_only)
        if value.spread is None:
            return f"{shown} ± {missing}" if missing and value.value is not None else shown
        spread = format_value(value.spread, spec, missing, floats_only=floats_only)
        return f"{shown} ± {spread}"
    if isinstance(value, bool):
        return "true" if value else "false"
    takes_spec = type(value) is float if floats_only else isinstance(value, int | float)
    if takes_spec and spec:
        try:
            return format(value, spec)
        except ValueError:
            pass
    if type(value) is float:
        return _plain_float(value)
    return str(value)  # parameters (sizes, durations, ...) read as they were written


def _plain_float(value: float) -> str:
    """Six significant digits without an exponent across the range benchmarks report."""
    size = abs(value)
    if size == 0 or not math.isfinite(value):
        return str(value) if size else "0"
    if not 1e-3 <= size < 1e12:
        return f"{value:.6g}"
    digits = max(0, 5 - math.floor(math.log10(size)))
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def column_spec(values: Iterable[object], kinds: set[type] | None = None) -> str | None:
    """Decimals for a column of numbers without a declared format: the same in every row,
    four significant digits for the largest value and two for the smallest, without the
    trailing zeros every row would show. (``kinds``: the values' types, where known.)"""
    values = values if isinstance(values, list | tuple) else list(values)
    kinds = set(map(type, values)) if kinds is None else kinds
    floats: Iterable[Any] = values if kinds == {float} else _floats(values, kinds)
    sizes = set(map(abs, floats))  # each size once
    sizes -= {0.0, math.inf}
    total = sum(sizes)
    if total != total:  # a nan: not a size
        sizes = {x for x in sizes if x == x}
    if not sizes:
        return None
    big, small = max(sizes), min(sizes)
    if not 1e-4 <= big < 1e12:
        return ".4g"
    decimals = max(3 - math.floor(math.log10(big)), 1 - math.floor(math.log10(small)))
    decimals = min(max(decimals, 0), 6)
    # 1.500, 2.500 -> 1.5, 2.5 (a text cut by its last 0 is the text of one decimal less)
    while decimals and all(f"{x:.{decimals}f}".endswith("0") for x in sizes):
        decimals -= 1
    return f".{decimals}f"


def _floats(values: Sequence[object], kinds: set[type]) -> list[float]:
    """The values of type float, a pair's value for a pair."""
    if not any(issubclass(kind, PlusMinus) for kind in kinds):
        return [v for v in values if type(v) is float] if float in kinds else []
    unpaired = (v.value if isinstance(v, PlusMinus) else v for v in values)
    return [x for x in unpaired if type(x) is float]


def cell_text(value: object, header: Header, missing: str) -> str:
    """A cell as a person reads it in its column's own format (a page, not a terminal
    table): a measured value with no more decimals than it has (:func:`printed_spec`)."""
    spec = header.format
    if header.printed and not header.jube:
        spec = printed_spec(spec, value)
    return format_value(value, spec, missing)


def printed_spec(spec: str | None, value: object) -> str | None:
    """``spec`` with no more decimals than a measured ``value`` has: IOR prints rates from
    3600 MiB/s on without decimals, and its 3683 reads 3683, not 3683.0, in any column
    format -- a table does not claim a precision the program never printed."""
    if spec is None or type(value) is not float or not math.isfinite(value):
        return spec
    fixed = _FIXED.match(spec)
    if fixed is None:
        return spec
    exponent = decimal.Decimal(repr(value)).normalize().as_tuple().exponent
    decimals = max(0, -exponent) if isinstance(exponent, int) else 0
    return spec if decimals >= int(fixed[2]) else f"{fixed[1]}{decimals}f"


def column_texts(
    values: Sequence[object],
    spec: str | None,
    missing: str,
    *,
    floats_only: bool = False,
    printed: bool = False,
    unformatted: bool = False,
    kinds: set[type] | None = None,
) -> list[str]:
    """:func:`format_value` of each of a column's values (with :func:`printed_spec` where
    ``printed``; a float without ``spec`` written as Python writes it where
    ``unformatted``), one call per kind of value where the column holds no pairs.
    (``kinds``: the values' types, where known.)"""

    def text(value: object) -> str:
        if unformatted and not spec and type(value) is float:
            return str(value)
        shown = printed_spec(spec, value) if printed else spec
        return format_value(value, shown, missing, floats_only=floats_only)

    kinds = set(map(type, values)) if kinds is None else kinds
    paired = any(issubclass(kind, PlusMinus) for kind in kinds)
    odd_spec = spec is not None and ("{" in spec or "}" in spec)
    if paired or odd_spec or (printed and spec and float in kinds):
        return list(map(text, values))
    present = kinds - {type(None)}
    if not present:
        return [missing] * len(values)
    if kinds == {str}:
        return cast(list[str], list(values))
    rules = {kind: _rule(kind, spec, floats_only, unformatted) for kind in present}
    try:
        if len(present) == 1:
            (rule,) = rules.values()
            if len(kinds) == 1:
                return list(map(rule, values))
            return [missing if v is None else rule(v) for v in values]
        return [missing if v is None else rules[type(v)](v) for v in values]
    except ValueError:  # a spec numbers do not take: the rule falls back cell by cell
        return list(map(text, values))


def _rule(
    kind: type, spec: str | None, floats_only: bool, unformatted: bool
) -> Callable[[Any], str]:
    """What :func:`format_value` does to a present value of ``kind`` (not a pair)."""
    if kind is bool:
        return _BOOLS.__getitem__
    takes_spec = kind is float if floats_only else issubclass(kind, int | float)
    if takes_spec and spec:
        return ("{:" + spec + "}").format
    if kind is float and not (unformatted and not spec):
        return _plain_float
    return str


def exact_value(value: object) -> str:
    """A cell for a program to read: a number in full (the shortest text that reads back
    as the same float), not rounded for the eye; empty for a missing value."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if type(value) is float:
        return repr(value)
    return str(value)


def exact_texts(values: Sequence[object], kinds: set[type] | None = None) -> list[str]:
    """:func:`exact_value` of each of a column's values, one call per kind of value.
    (``kinds``: the values' types, where known.)"""
    kinds = set(map(type, values)) if kinds is None else kinds
    if kinds == {str}:
        return cast(list[str], list(values))
    rules = {kind: _exact_rule(kind) for kind in kinds}
    if len(rules) == 1:
        return list(map(rules.popitem()[1], values))
    if len(kinds) == 2 and type(None) in kinds:
        (rule,) = (rules[kind] for kind in kinds if kind is not type(None))
        return ["" if v is None else rule(v) for v in values]
    return [rules[type(v)](v) for v in values]


def _exact_rule(kind: type) -> Callable[[Any], str]:
    """What :func:`exact_value` does to a value of ``kind``."""
    if kind is type(None):
        return lambda _: ""
    if kind is bool:
        return _BOOLS.__getitem__
    return repr if kind is float else str
