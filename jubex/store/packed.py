"""A workpackage's analysed values packed into one JSON text: one store row, not hundreds.

The text is an object with a key per name and record (``write_bw`` for record 0,
``write_bw@1`` for record 1, in the order the values were found) holding the unit and then
every value in order: ``{"write_bw": ["MiB/s", 1020.1, 1018.4, 1022.0], ...}``. SQLite reads
a first value where it lies (``json_extract(data, '$."write_bw"[1]')``), so a table of
10,000 rows reads its few columns without decoding the rest in Python.

JSON has no NaN and no infinity: NaN is kept as ``null`` (as SQLite keeps a NaN bound as a
REAL), an infinity as ``±9e999``, which SQLite and Python both read back as an infinity.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from jubex.store.measurement import Measurement, Value

_PLAIN = frozenset({float, int, str, type(None)})
_INFINITY = '"\\u0000inf"'
_MINUS_INFINITY = '"\\u0000-inf"'


class Packed(NamedTuple):
    """What the store keeps of one workpackage's values."""

    data: str
    #: the keys of ``data`` (name and record), in order
    keys: tuple[str, ...]
    #: how many values there are
    found: int
    #: the unit of each name that has one (the first seen)
    units: dict[str, str]


def key(name: str, record: int) -> str:
    """The key of a name's values in one record (:func:`pack` spells it out inline): a name
    that holds ``@`` itself says its record even when it is 0 (``a@b@0``)."""
    return f"{name}@{record}" if record or "@" in name else name


def name_record(key: str) -> tuple[str, int]:
    """The name and record of a key."""
    name, at, record = key.rpartition("@")
    if at and record.isascii() and record.isdigit():
        return name, int(record)
    return key, 0


def pack(measurements: Sequence[Measurement]) -> Packed:
    """The values of one workpackage, in the order found, grouped by name and record.

    All values of one name in one record share a unit (the unit of the first of them):
    analysers give a name one unit, converting rates into it.
    """
    grouped: dict[str, list[object]] = {}
    units: dict[str, str] = {}
    for name, value, unit, record in measurements:
        stored = f"{name}@{record}" if record or "@" in name else name
        found = grouped.get(stored)
        if found is None:
            found = grouped[stored] = [unit]
            if unit and name not in units:
                units[name] = unit
        found.append(value if type(value) in _PLAIN else _stored(value))
    try:
        data = json.dumps(grouped, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        data = _dumps_non_finite(grouped)
    return Packed(data, tuple(grouped), len(measurements), units)


def unpack(data: str) -> Iterator[Measurement]:
    """The values of :func:`pack`, grouped by name and record, each group in order."""
    for stored, (unit, *values) in json.loads(data).items():
        name, number = name_record(stored)
        for value in values:
            yield Measurement(name, value, unit, number)


#: how a caller names the first value of a name in a record (:func:`key` by default)
Label = Callable[[str, int], str]


def first_values(
    rows: Iterable[tuple[int, str | None]], names: Sequence[str] | None, label: Label = key
) -> dict[int, dict[str, Value]]:
    """The first value of each name and record per workpackage, from rows of (wp, data),
    under ``label(name, record)``."""
    found: dict[int, dict[str, Value]] = {}
    wanted = None if names is None else set(names)
    for wp, data in rows:
        if data is None:
            continue
        values = {}
        for stored, group in json.loads(data).items():
            name, record = name_record(stored)
            if wanted is None or name in wanted:
                values[label(name, record)] = group[1]
        if values:
            found[wp] = values
    return found


def _stored(value: object) -> Value:
    """What the store keeps of a value that is not a plain number or text."""
    if isinstance(value, bool):
        return str(value)  # a bool keeps its word (``True``), not 1
    if isinstance(value, (int, float, str)):
        return value
    return str(value)


def _dumps_non_finite(grouped: dict[str, list[object]]) -> str:
    """The JSON text of values some of which are NaN or infinite (rare)."""

    def finite(value: object) -> object:
        if isinstance(value, float) and not math.isfinite(value):
            if math.isnan(value):
                return None
            return "\0inf" if value > 0 else "\0-inf"
        return value

    text = json.dumps(
        {name: [finite(v) for v in values] for name, values in grouped.items()},
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return text.replace(_INFINITY, "9e999").replace(_MINUS_INFINITY, "-9e999")
