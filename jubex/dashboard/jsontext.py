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


def dumps(value: object, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(value, sort_keys=True, separators=(",", ":"), default=default)``."""
    if orjson is not None:
        try:
            data = orjson.dumps(value, default=default, option=_OPTIONS)
        except TypeError:  # a type, a key or an integer only the standard library writes
            data = b""
        if data and _same(data, value):
            return data.decode()
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=default)


def _same(data: bytes, value: object) -> bool:
    """Whether orjson's text of ``value`` is the standard library's."""
    if not data.isascii() or b"\x7f" in data or b"0.0000" in data:
        return False
    if b"e" in data and b"e-" in data:  # one look for a letter, which most texts lack
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
    if orjson is not None and not _LONG_NUMBER(text):  # orjson reads beyond 64 bits as floats
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:  # NaN, a lone surrogate: read by the standard library
            pass
    return json.loads(text)


_LONG_NUMBER = re.compile("[0-9]{19}").search


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
