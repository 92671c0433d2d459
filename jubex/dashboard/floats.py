"""Rows of finite numbers written as ``repr`` writes them, many rows at once.

A history's downloads hold every repetition of every run at full precision: 4.5 million
numbers for a group of 10,000 runs × 50 metrics. ``repr`` of a float (the shortest text
that reads back as the same float, found by David Gay's algorithm over big integers)
costs 0.4 µs, half of what writing the downloads cost. orjson, where it is installed
(``jubex[dashboard]``), writes the same shortest digits twenty times faster, and its
text of a finite float is ``repr``'s except below 1e-4 in magnitude (orjson writes
``0.00001`` and ``1e-7`` where ``repr`` writes ``1e-05`` and ``1e-07``). A row whose
text holds a negative exponent or a small number written out is written by ``repr``
itself: the texts are ``repr``'s with or without orjson, and a test compares them on
arbitrary floats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from jubex.dashboard.jsontext import orjson  # None where it is not installed: repr alone

#: the characters of orjson's text of rows of finite numbers without an exponent
_NUMBERS = b"0123456789.,+-[]"


def finite_texts(rows: Sequence[Sequence[object]]) -> list[str | None]:
    """Each row's numbers as ``",".join(map(repr, row))`` writes them, where they are all
    finite floats or integers; None for a row that holds anything else (None, NaN, an
    infinity, a text), which its writer writes its own way."""
    if orjson is None or not rows:
        return [_finite_text(row) for row in rows]
    try:
        data = orjson.dumps(rows)
    except TypeError:  # an integer beyond 64 bits, or something orjson does not write
        return [_finite_text(row) for row in rows]
    # what is left once the numbers, separators and brackets are taken out (each a pass of
    # C over the bytes): nothing, an exponent's e, or the null of None, NaN and
    # infinities; anything else (a text, true) and a list in a row (a bracket too many)
    # send every row to repr
    left = data.translate(None, _NUMBERS)
    if data.count(b"[") != len(rows) + 1 or left.replace(b"null", b"").replace(b"e", b""):
        return [_finite_text(row) for row in rows]
    found = data.decode()[2:-2].split("],[")
    texts: list[str | None] = list(found)
    if b"n" in left:  # a None, NaN or infinity in some row (orjson's null): those rows are None
        for index in [i for i, got in enumerate(found) if "null" in got]:
            texts[index] = None
    # a number below 1e-4 (orjson writes 0.00001 and 1e-7, repr 1e-05 and 1e-07), or any
    # exponent: those rows, found by a look at each, by repr
    if b"e" in left or data.find(b".0000") >= 0:
        for index in [i for i, got in enumerate(found) if "e" in got or ".0000" in got]:
            texts[index] = _finite_text(rows[index])
    return texts


def _finite_text(row: Sequence[object]) -> str | None:
    """:func:`finite_texts` of one row, by ``repr``."""
    if not set(map(type, row)) <= {float, int}:
        return None
    if not all(math.isfinite(v) for v in row if type(v) is float):
        return None
    return ",".join(map(repr, row))
