"""Typed parameter values that remember how they were written.

A value is substituted into commands as the user wrote it (``007``, ``4KiB``, ``30m``) but
compares and computes as the number it means. The classes below subclass ``int`` and
``float`` so that arithmetic needs no special cases: it yields plain numbers, and only the
written form survives in ``str()``.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from jubex.errors import DefinitionError, Loc

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_SPECIAL_FLOAT = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
#: the longest number a value may write: Python refuses to convert longer ones (the limit
#: keeps text-to-integer conversion from costing quadratic time)
MAX_DIGITS = 4300
_TOO_LONG = 10**MAX_DIGITS
_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1}}}")
_SIZE = re.compile(r"([+-]?(?:\d+\.\d*|\.\d+|\d+))\s*([A-Za-z]*)")
_BOOLS = {"true": True, "false": False}
_TYPED_BOOLS = {**_BOOLS, "yes": True, "no": False, "on": True, "off": False, "1": True, "0": False}
_PREFIXES = "KMGTP"


def _size_units() -> dict[str, tuple[int, str]]:
    """Every accepted unit spelling: its factor and the style it belongs to."""
    units: dict[str, tuple[int, str]] = {"B": (1, "")}
    for power, letter in enumerate(_PREFIXES, start=1):
        for case in (letter, letter.lower()):
            units[case] = (1024**power, "ior")
            units[case + "i"] = units[case + "iB"] = (1024**power, "iec")
        units[("k" if letter == "K" else letter) + "B"] = (1000**power, "si")
    return units


_UNITS = _size_units()
_DURATION_UNITS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
}
_DURATION_PART = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]+)")
_CLOCK = re.compile(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?")


class Int(int):
    """An integer written in a way ``str(int)`` would not reproduce (``007``, ``+5``)."""

    text: str

    def __new__(cls, value: int, text: str | None = None) -> Int:
        self = super().__new__(cls, value)
        self.text = str(value) if text is None else text
        return self

    def __reduce__(self) -> tuple[type[Int], tuple[int, str]]:
        return type(self), (int(self), self.text)

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


class Float(float):
    """A float written in a way ``str(float)`` would not reproduce (``1.50``, ``1e3``)."""

    text: str

    def __new__(cls, value: float, text: str | None = None) -> Float:
        self = super().__new__(cls, value)
        self.text = str(value) if text is None else text
        return self

    def __reduce__(self) -> tuple[type[Float], tuple[float, str]]:
        return type(self), (float(self), self.text)

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


class Bool(int):
    """``true``/``false`` as written; 1 or 0 in arithmetic and truth tests (``bool`` is final)."""

    text: str

    def __new__(cls, value: bool, text: str | None = None) -> Bool:
        self = super().__new__(cls, bool(value))
        self.text = str(bool(value)) if text is None else text
        return self

    def __reduce__(self) -> tuple[type[Bool], tuple[bool, str]]:
        return type(self), (bool(self), self.text)

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


class Size(int):
    """A number of bytes written with a unit (``4KiB``, ``1m``, ``2GB``)."""

    text: str

    def __new__(cls, nbytes: int, text: str | None = None) -> Size:
        self = super().__new__(cls, nbytes)
        self.text = str(nbytes) if text is None else text
        return self

    def __reduce__(self) -> tuple[type[Size], tuple[int, str]]:
        return type(self), (int(self), self.text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Size({int(self)}, {self.text!r})"

    @property
    def style(self) -> str:
        """The unit family the text uses: ``iec``, ``si``, ``ior`` or ``""`` (plain bytes)."""
        match = _SIZE.fullmatch(self.text.strip())
        unit = match.group(2) if match else ""
        return _UNITS.get(unit, (1, ""))[1]


class Duration(float):
    """A time span in seconds, written as ``90s``, ``30min``, ``1:30:00`` or ``1-12:00:00``."""

    text: str

    def __new__(cls, seconds: float, text: str | None = None) -> Duration:
        self = super().__new__(cls, seconds)
        self.text = _plain_number(seconds) if text is None else text
        return self

    def __reduce__(self) -> tuple[type[Duration], tuple[float, str]]:
        return type(self), (float(self), self.text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Duration({float(self)}, {self.text!r})"

    @property
    def seconds(self) -> int:
        """Whole seconds, rounded up: a limit must never be shorter than asked for."""
        return math.ceil(self)

    @property
    def minutes(self) -> int:
        """Whole minutes, rounded up (schedulers that count in minutes)."""
        return math.ceil(self / 60)

    @property
    def hms(self) -> str:
        """``hh:mm:ss`` with hours beyond 24 (PBS ``walltime``)."""
        minutes, secs = divmod(self.seconds, 60)
        hours, minutes = divmod(minutes, 60)
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"

    @property
    def slurm(self) -> str:
        """``[d-]hh:mm:ss`` as Slurm's ``--time`` reads it."""
        days, rest = divmod(self.seconds, 86400)
        clock = Duration(rest).hms
        return f"{days}-{clock}" if days else clock


def _plain_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _error(text: str, what: str, loc: Loc | None, hint: str = "") -> DefinitionError:
    return DefinitionError(f"'{text}' is not {what}", loc, hint)


def _int(text: str) -> int:
    value = int(text)
    return value if str(value) == text else Int(value, text)


def _float(text: str) -> float:
    value = float(text)
    return value if str(value) == text else Float(value, text)


def _size(text: str, loc: Loc | None, plain: bool) -> Size | None:
    """The size a text means; None when it is no size; an error when it is ambiguous."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        return None
    number, unit = match.groups()
    if not unit:
        if not plain:
            return None
    elif unit not in _UNITS:
        if len(unit) == 2 and unit[0].upper() in _PREFIXES and unit[1] in "bB":
            letter = unit[0].upper()
            si = "k" if letter == "K" else letter
            raise DefinitionError(
                f"size '{text}' is ambiguous",
                loc,
                f"write {number}{si}B for 1000-based or {number}{letter}iB / "
                f"{number}{letter.lower()} for 1024-based units",
            )
        return None
    exact = Fraction(number) * _UNITS.get(unit, (1, ""))[0]
    if exact.denominator != 1:
        raise _error(text, "a whole number of bytes", loc, "use a smaller unit")
    return Size(int(exact), text)


def _duration(text: str, loc: Loc | None) -> Duration:
    stripped = text.strip()
    if _FLOAT.fullmatch(stripped) and "e" not in stripped.lower():
        return Duration(float(stripped), text)
    clock = _CLOCK.fullmatch(stripped)
    if clock and (":" in stripped or "-" in stripped):
        return Duration(_clock_seconds(clock, text, loc), text)
    parts = _DURATION_PART.findall(stripped)
    if parts and "".join(n + u for n, u in parts) == re.sub(r"\s+", "", stripped):
        total = 0.0
        for number, unit in parts:
            factor = _DURATION_UNITS.get(unit.lower())
            if factor is None:
                break
            total += float(number) * factor
        else:
            return Duration(total, text)
    raise _error(
        text,
        "a duration",
        loc,
        "write seconds (90, 90s), 30m / 30min, 2h, 1d, 1h30m, mm:ss, hh:mm:ss or d-hh:mm:ss",
    )


def _clock_seconds(match: re.Match[str], text: str, loc: Loc | None) -> int:
    """Seconds of ``mm:ss``, ``hh:mm:ss`` and Slurm's ``d-hh[:mm[:ss]]``."""
    days, first, second, third = match.groups()
    fields = [int(f) for f in (first, second, third) if f is not None]
    if days is not None:
        hours, minutes, secs = [*fields, 0, 0][:3]
    elif len(fields) == 3:
        hours, minutes, secs = fields
    else:
        hours, (minutes, secs) = 0, fields
    if any(f >= 60 for f in fields[1:]) or (days is not None and hours >= 24):
        raise _error(
            text,
            "a valid clock time",
            loc,
            "hours after a day count go up to 23, minutes and seconds up to 59",
        )
    return ((int(days or 0) * 24 + hours) * 60 + minutes) * 60 + secs


def _auto(text: str, loc: Loc | None) -> object:
    stripped = text.strip()
    if _INT.fullmatch(stripped):
        return _int(text) if stripped == text else Int(int(stripped), text)
    if _FLOAT.fullmatch(stripped):
        return _float(text) if stripped == text else Float(float(stripped), text)
    flag = _BOOLS.get(stripped.lower())
    if flag is not None:
        return Bool(flag, text)
    size = _size(text, loc, plain=False)
    return text if size is None else size


def misspelt_size(text: str) -> str | None:
    """The right spelling of a text that is a size with a unit jubex does not know (``4kib``
    -> ``4KiB``); None for any other text. Auto-typed, such a value would stay a text and
    fail only where it is compared with sizes."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        return None
    number, unit = match.groups()
    if unit in _UNITS or not re.fullmatch(r"[kmgtp]i?b", unit, re.IGNORECASE):
        return None
    letter = unit[0].upper()
    return f"{number}{letter}iB" if unit[1:2].lower() == "i" else None


def size_spellings(text: str) -> list[str]:
    """Every whole-number text that means the same size as ``text`` (``1MiB``: ``1m``,
    ``1M``, ``1024KiB``, ``1048576``, ...), so that what compares texts finds a size however
    it was written, as expressions compare sizes; ``[text]`` for a text that is no size
    with a unit."""
    try:
        size = _size(text, None, plain=False)
    except DefinitionError:
        return [text]
    if size is None or size.style == "":
        return [text]
    nbytes = int(size)
    found = {text, str(nbytes)}
    found.update(f"{nbytes // factor}{unit}" for unit, (factor, _) in _UNITS.items()
                 if nbytes % factor == 0)  # fmt: skip
    return sorted(found)


def parse_value(text: str, type: str = "auto", loc: Loc | None = None) -> object:
    """The typed value of a parameter text; its ``str()`` is always ``text`` itself."""
    plain = text.isdecimal() and text.isascii() and len(text) < 19
    if plain and type in ("auto", "int") and (text[0] != "0" or text == "0"):
        return int(text)  # the common case (a range's million values), fast
    if type != "str" and len(text) > MAX_DIGITS and _LONG_NUMBER.search(text):
        _refuse_long(text, loc)
    stripped = text.strip()
    if type == "auto":
        return _auto(text, loc)
    if type == "str":
        return text
    if type == "int":
        if not _INT.fullmatch(stripped):
            raise _error(text, "an integer", loc, "write digits, e.g. 16")
        return Int(int(stripped), text) if stripped != text else _int(text)
    if type == "float":
        if not (_FLOAT.fullmatch(stripped) or _SPECIAL_FLOAT.fullmatch(stripped)):
            raise _error(text, "a number", loc, "write e.g. 2.5 or 1e-3")
        return Float(float(stripped), text) if stripped != text else _float(text)
    if type == "bool":
        flag = _TYPED_BOOLS.get(stripped.lower())
        if flag is None:
            raise _error(text, "a boolean", loc, "write true/false, yes/no, on/off or 1/0")
        return Bool(flag, text)
    if type == "size":
        size = _size(text, loc, plain=True)
        if size is None:
            raise _error(
                text, "a size", loc, "write bytes or a unit: 4KiB (1024), 4kB (1000), 4k (IOR)"
            )
        return size
    if type == "duration":
        return _duration(text, loc)
    raise DefinitionError(
        f"unknown value type '{type}'", loc, "use auto, int, float, str, bool, size or duration"
    )


_STYLES = {
    "iec": [(1024**p, f"{c}iB") for p, c in enumerate(_PREFIXES, start=1)],
    "ior": [(1024**p, c.lower()) for p, c in enumerate(_PREFIXES, start=1)],
    "si": [(1000**p, "kB" if c == "K" else f"{c}B") for p, c in enumerate(_PREFIXES, start=1)],
}


def format_size(nbytes: int, style: str = "iec") -> str:
    """The shortest exact text for a byte count: the largest unit that divides it."""
    units = _STYLES.get(style)
    if units is None:
        raise DefinitionError(f"unknown size style '{style}'", hint="use iec, ior or si")
    nbytes = int(nbytes)
    for factor, unit in reversed(units):
        if nbytes and nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return str(nbytes) if style == "ior" else f"{nbytes}B"


def _refuse_long(text: str, loc: Loc | None) -> None:
    raise DefinitionError(
        f"'{text[:40]}...' holds a number of more than {MAX_DIGITS:,} digits",
        loc,
        "give the parameter type: str to keep it as text",
    )


def coerce(value: object, type: str, loc: Loc | None = None) -> object:
    """A computed value in the parameter's declared type (``auto`` keeps it as computed)."""
    if isinstance(value, int) and abs(value) >= _TOO_LONG:
        raise DefinitionError(
            f"a computed value has more than the {MAX_DIGITS:,} digits a number may have",
            loc,
            "compute a smaller number",
        )
    if type == "auto":
        return value
    if type == "str":
        return value if isinstance(value, str) else str(value)
    if type == "bool" and isinstance(value, (bool, Bool)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, (bool, Bool)):
        kind = value.__class__
        if type == "int":
            if isinstance(value, int):
                return value if kind in (int, Int) else int(value)
            if value.is_integer():
                return int(value)
        if type == "float":
            return value if isinstance(value, float) else Float(float(value), str(value))
        if type == "size" and isinstance(value, int):
            return value if kind is Size else Size(value)
        if type == "duration":
            return value if kind is Duration else Duration(value)
    return parse_value(str(value), type, loc)
