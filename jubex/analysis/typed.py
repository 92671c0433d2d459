"""Typed values from benchmark output: the conversions behind a pattern's ``type``.

Sizes and durations follow jubex's conventions for parameter values
(:func:`jubex.language.values.parse_value`), widened for what programs print: rounded sizes
(``8.76 GiB``), ``bytes``, and durations in ``ms``, ``us`` or ``ns``.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import SupportsFloat

from jubex.analysis import units
from jubex.errors import DefinitionError
from jubex.language.values import parse_value
from jubex.store.measurement import Value

_BOOLS = {"true": True, "yes": True, "on": True, "1": True}
_BOOLS |= {"false": False, "no": False, "off": False, "0": False}
_SPACES = re.compile(r"\s+")
_NUMBER_UNIT = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)([A-Za-z]*)")
_BYTES_WORD = re.compile(r"\s*bytes?$")


def convert(item: object, type_: str) -> Value:
    """One raw value as ``type_``; ValueError (or a JubexError) when it is not one."""
    if type_ == "str":
        # as found (a JSON number stays a number); what a value cannot be becomes its text
        return item if item is None or isinstance(item, str | int | float) else str(item)
    if type_ == "float":
        if not isinstance(item, str | SupportsFloat):  # a list or None an expression gave
            raise ValueError(f"{item!r} is not a float")
        return float(item)
    if type_ == "int":
        if isinstance(item, int):
            return int(item)
        text = str(item).strip()
        try:
            return int(text)
        except ValueError:
            return int(float(text))
    if type_ == "bool":
        if isinstance(item, bool):
            return item
        key = str(item).strip().lower()
        if key not in _BOOLS:
            raise ValueError(f"'{item}' is not a bool")
        return _BOOLS[key]
    text = _SPACES.sub("", _BYTES_WORD.sub("B", str(item).strip()))
    return size_bytes(text) if type_ == "size" else seconds(text)


def size_bytes(text: str) -> int:
    """Bytes, with jubex's size conventions; outputs round (``8.76 GiB``), so this may too."""
    try:
        return int(_number(text, "size"))
    except DefinitionError:
        match = _NUMBER_UNIT.fullmatch(text)
        if not match or not match[2]:
            raise
        factor = int(_number(f"1{match[2]}", "size"))
        return round(Fraction(match[1]) * factor)


def seconds(text: str) -> float:
    """Seconds; programs print ``ms``/``us``/``ns``, which definitions do not need."""
    match = _NUMBER_UNIT.fullmatch(text)
    if match and match[2]:
        try:
            return units.convert(float(match[1]), match[2], "s")
        except ValueError:
            pass
    return float(_number(text, "duration"))


def _number(text: str, type_: str) -> int | float:
    """A size (an int) or a duration (a float) as jubex's parameter values read it."""
    value = parse_value(text, type_)
    if not isinstance(value, int | float):
        raise ValueError(f"'{text}' is not a {type_}")
    return value
