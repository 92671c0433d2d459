"""Value lists written as ranges: ``linear("1", "16", "3")``, ``geometric("4KiB", "4MiB")``.

Arithmetic is exact (fractions), so ``0.1`` steps land on ``0.3`` and a stop is included
exactly when the range hits it. The texts returned look like the start: sizes keep its unit
family, zero-padded integers keep their width, decimals their number of places.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import overload

from jubex.errors import DefinitionError, Loc
from jubex.language.values import MAX_DIGITS, Bool, Size, format_size, parse_value

MAX_VALUES = 1_000_000
#: a geometric range this long is a mistake (doubling 1 B to 1 EiB takes 61 values); the cap
#: also keeps exact arithmetic with fractional factors fast
MAX_GEOMETRIC = 1_000
_PADDED = re.compile(r"[+-]?0\d+")


class _Style:
    """How the start of a range is written, so that every value is written alike."""

    def __init__(self, texts: tuple[str, ...], values: tuple[object, ...], step: bool) -> None:
        sizes = [
            (t, v) for t, v in zip(texts, values, strict=True) if isinstance(v, Size) and v.style
        ]
        self.size = any(isinstance(v, Size) for v in values)
        self.size_style = sizes[0][1].style if sizes else "iec"
        self.upper = bool(sizes) and self.size_style == "ior" and sizes[0][0].strip()[-1].isupper()
        start = texts[0].strip()
        self.width = len(start.lstrip("+-")) if _PADDED.fullmatch(start) else 0
        written = (texts[0], texts[2]) if step else (texts[0],)
        self.places = 0 if self.size else max(_places(t) for t in written)

    def text(self, value: Fraction, what: str, loc: Loc | None) -> str:
        if self.size:
            if value.denominator != 1:
                raise DefinitionError(
                    f"{what} reaches {float(value)} bytes, not a whole number", loc
                )
            text = format_size(int(value), self.size_style)
            return text.upper() if self.upper else text
        places = max(self.places, _needed_places(value))
        if places == 0 and self.width:
            return f"{int(value):0{self.width + (value < 0)}d}"
        return _decimal(value, places)


def _places(text: str) -> int:
    """Decimal places a number text is written with (``1.50`` → 2, ``1e-3`` → 3)."""
    mantissa, _, exponent = text.strip().lower().partition("e")
    places = len(mantissa.partition(".")[2]) - int(exponent or 0)
    return max(places, 0)


def _needed_places(value: Fraction) -> int:
    """Places that write ``value`` exactly: the larger power of 2 or 5 in its denominator."""
    denominator = value.denominator
    twos = (denominator & -denominator).bit_length() - 1
    denominator >>= twos
    low, high = 0, int(denominator.bit_length() / math.log2(5)) + 1
    while low < high:
        middle = (low + high + 1) // 2
        if denominator % 5**middle == 0:
            low = middle
        else:
            high = middle - 1
    if denominator != 5**low:
        return 12
    return max(twos, low)


def _decimal(value: Fraction, places: int) -> str:
    if places == 0:
        return str(round(value))
    return _point(round(value * 10**places), places)


def _point(scaled: int, places: int) -> str:
    """``scaled / 10**places`` written with exactly ``places`` decimals."""
    sign = "-" if scaled < 0 else ""
    digits = f"{abs(scaled):0{places + 1}d}"
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _numbers(
    texts: tuple[str, ...], what: str, loc: Loc | None
) -> tuple[tuple[object, ...], tuple[Fraction, ...]]:
    """The parsed values and their exact numbers; an error for anything else."""
    values = tuple(parse_value(t, "auto", loc) for t in texts)
    exact: list[Fraction] = []
    for text, value in zip(texts, values, strict=True):
        if isinstance(value, (bool, Bool)) or not isinstance(value, (int, float)):
            raise DefinitionError(
                f"{what} bound '{text}' is not a number or size", loc, "write e.g. 4, 0.5 or 4KiB"
            )
        if isinstance(value, float):
            _check_exponent(str(value).strip(), what, loc)
        exact.append(Fraction(str(value).strip()) if isinstance(value, float) else Fraction(value))
    return values, tuple(exact)


def _check_exponent(text: str, what: str, loc: Loc | None) -> None:
    """A bound written with an exponent is exact only with as many digits as it says:
    ``1e-9999999`` would be a fraction of ten million digits (13 s of CPU to make). Refused
    past the digits a number may have."""
    try:
        exponent = Decimal(text).as_tuple().exponent
    except InvalidOperation:
        return
    if isinstance(exponent, int) and abs(exponent) > MAX_DIGITS:
        raise DefinitionError(
            f"{what}: the bound '{text[:40]}' needs {abs(exponent):,} digits, more than the "
            f"{MAX_DIGITS:,} a number may have",
            loc,
        )


def linear(start: str, stop: str, step: str = "1", loc: Loc | None = None) -> Linear:
    """``start, start+step, ...`` up to ``stop`` (included when hit); ``step`` may be < 0."""
    texts = (start, stop, step)
    what = f"range {start}..{stop} step {step}"
    values, (first, last, delta) = _numbers(texts, what, loc)
    if delta == 0:
        raise DefinitionError(f"{what} never ends: the step is 0", loc)
    count = (last - first) // delta + 1
    if count <= 0:
        raise DefinitionError(
            f"{what} is empty: the step goes away from the stop",
            loc,
            "swap start and stop or change the sign of the step",
        )
    _check_count(count, what, loc)
    return Linear(texts, _Style(texts, values, step=True), first, delta, int(count), loc)


class Linear(Sequence[str]):
    """The texts of a linear range, each written when it is read: the range is counted
    from its bounds, and a million values cost nothing until a command reads them (the
    dry run reads the first thousand)."""

    __slots__ = ("_count", "_delta", "_first", "_loc", "_scaled", "_style", "bounds")

    def __init__(
        self,
        bounds: tuple[str, str, str],
        style: _Style,
        first: Fraction,
        delta: Fraction,
        count: int,
        loc: Loc | None,
    ) -> None:
        #: start, stop and step as written: what a look for ``$name`` in the texts reads
        self.bounds = bounds
        self._style, self._first, self._delta, self._count, self._loc = (
            style,
            first,
            delta,
            count,
            loc,
        )
        self._scaled = _scaled(style, first, delta, count)
        for index in range(min(count, 2)):  # a size that is no whole number: said at once
            self[index]

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._count)))
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("range index out of range")
        if self._scaled is not None:
            return self._scaled(index)
        what = f"range {self.bounds[0]}..{self.bounds[1]} step {self.bounds[2]}"
        return self._style.text(self._first + index * self._delta, what, self._loc)

    def __iter__(self) -> Iterator[str]:
        return map(self.__getitem__, range(self._count))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(other) == self._count and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash((self.bounds, self._count))

    def __deepcopy__(self, memo: dict[int, object]) -> Linear:
        return self  # never changes: a copied definition shares it

    def __repr__(self) -> str:
        start, stop, step = self.bounds
        return f"Linear({start!r}, {stop!r}, {step!r}: {self._count:,} values)"


def _scaled(
    style: _Style, first: Fraction, delta: Fraction, count: int
) -> Callable[[int], str] | None:
    """How to write the ``index``-th value of a plain-number range with the start's places,
    in integer arithmetic; None when places do not fit (then each is an exact fraction)."""
    if style.size:
        return None
    scale = 10**style.places
    low, step = first * scale, delta * scale
    if low.denominator != 1 or step.denominator != 1:
        return None
    base, stride, places, width = int(low), int(step), style.places, style.width
    if places:
        return lambda index: _point(base + index * stride, places)
    if width:
        return lambda index: f"{base + index * stride:0{width + (base + index * stride < 0)}d}"
    return lambda index: str(base + index * stride)


def geometric(start: str, stop: str, factor: str = "2", loc: Loc | None = None) -> list[str]:
    """``start, start*factor, ...`` up to ``stop`` (included when hit); ascending only."""
    texts = (start, stop, factor)
    what = f"range {start}..{stop} factor {factor}"
    parsed, (first, last, times) = _numbers(texts, what, loc)
    if times <= 1:
        raise DefinitionError(f"{what} never ends: the factor must be greater than 1", loc)
    if first <= 0:
        raise DefinitionError(f"{what} never ends: a geometric range starts above 0", loc)
    if first > last:
        raise DefinitionError(f"{what} is empty: the start is beyond the stop", loc)
    growth = _log(times)  # 0.0 for a factor within a float's precision of 1
    steps = _log(last / first) / growth if growth else math.inf
    _check_count(int(min(steps, MAX_GEOMETRIC)) + 1, what, loc, MAX_GEOMETRIC)
    values = [first]
    while values[-1] * times <= last:
        values.append(values[-1] * times)
    style = _Style(texts, parsed, step=False)
    return [style.text(v, what, loc) for v in values]


def _log(value: Fraction) -> float:
    """The natural logarithm of a positive fraction of any size (no float overflow)."""
    return math.log(value.numerator) - math.log(value.denominator)


def _check_count(
    count: int | Fraction, what: str, loc: Loc | None, limit: int = MAX_VALUES
) -> None:
    if count > limit:
        raise DefinitionError(
            f"{what} has more than {limit:,} values",
            loc,
            "use a larger step or factor; such a sweep would never finish",
        )
