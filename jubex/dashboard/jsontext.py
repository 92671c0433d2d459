"""JSON texts as the standard library writes and reads them, by orjson where the two agree.

A site of 100,000 runs embeds some 5 GB of its pages' data as JSON, digests 100,000 runs'
fields to see which groups changed, and reads 100,000 runs' provenance. The standard
library's encoder costs some 10 ms a history page; orjson (``jubex[dashboard]``) writes the
same text in a tenth of that. The two differ in a few places, and there the standard
library's text is taken, so a site is the same with or without orjson: orjson writes
non-ASCII characters as they are (``ensure_ascii`` escapes them), numbers below 1e-4 in
other forms (``0.00001``, ``1e-7`` where ``repr`` writes ``1e-05``, ``1e-07``), NaN and the
infinities as ``null`` (``json`` writes ``NaN``), and it refuses what the standard library
writes in its own way (integers beyond 64 bits, subclasses, keys that are not texts) or
does not write at all. Reading, orjson refuses what only the standard library reads (NaN,
lone surrogates, numbers beyond a double) and reads integers beyond 64 bits as floats: a text
with a number of 19 digits or more is read by the standard library. Otherwise orjson reads
as ``json`` does. Tests compare both ways on arbitrary values.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

orjson: ModuleType | None
try:
    import orjson
except ImportError:  # the same texts, by the standard library alone
    orjson = None

_OPTIONS = (
    0
    if orjson is None
    else orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)

#: orjson's option to indent by two spaces (0: no orjson)
_INDENT = 0 if orjson is None else orjson.OPT_INDENT_2


def dumps(value: object, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(value, sort_keys=True, separators=(",", ":"), default=default)``."""
    found = _orjson_text(value, 0, default)
    if found is not None:
        return found
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=default)


def indented(value: object) -> str:
    """``json.dumps(value, indent=2, sort_keys=True)``: a run's provenance as its page shows
    it (a site of 100,000 runs writes 100,000 of them; the standard library's encoder
    indents in Python, some 18 µs for a provenance of 500 bytes, orjson 0.6 µs)."""
    found = _orjson_text(value, _INDENT)
    if found is not None:
        return found
    return json.dumps(value, indent=2, sort_keys=True)


def _orjson_text(
    value: object, option: int, default: Callable[[Any], Any] | None = None
) -> str | None:
    """orjson's text of ``value`` (sorted keys and ``option``) where it is the standard
    library's; None where it is not, or where orjson is not installed."""
    if orjson is None:
        return None
    try:
        data = orjson.dumps(value, default=default, option=_OPTIONS | option)
    except TypeError:  # a type, a key or an integer only the standard library writes
        return None
    return data.decode() if _same(data, value) else None


def _same(data: bytes, value: object) -> bool:
    """Whether orjson's text of ``value`` is the standard library's."""
    if not data.isascii() or b"\x7f" in data or b"0.0000" in data:
        return False
    # a negative exponent (not a text's "site-a"): looked for only where there is an e-
    if b"e" in data and b"e-" in data and _EXPONENT(data):
        return False
    return b"null" not in data or not _non_finite(value)


def _non_finite(value: object) -> bool:
    """Whether ``value`` holds NaN or an infinity (which orjson writes as ``null``)."""
    if type(value) is float:
        return not math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return any(map(_non_finite, value))
    if isinstance(value, dict):
        return any(map(_non_finite, value.values()))
    return False


def loads(text: str) -> Any:
    """``json.loads(text)``."""
    # orjson reads integers beyond 64 bits as floats: a text with 19 digits in a row by json
    if orjson is not None and _LONG not in text.translate(_DIGITS):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:  # NaN, a lone surrogate: read by the standard library
            pass
    return json.loads(text)


#: each ASCII character: a digit as 0, any other as a space (a number of 19 digits or more
#: is a run of as many zeros; one C pass, a fifth of a regular expression's search)
_DIGITS = str.maketrans({chr(c): "0" if chr(c).isdigit() else " " for c in range(128)})
_LONG = "0" * 19
_EXPONENT = re.compile(b"[0-9]e-").search


def script_json(value: object) -> str:
    """``value`` as JSON that cannot close the ``<script>`` element it is embedded in, as
    Jinja2's ``tojson`` writes it (with :func:`dumps`' separators)."""
    return (
        dumps(value)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("'", "\\u0027")
    )
