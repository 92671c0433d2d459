"""What the store keeps of an analysed output: named values that carry their unit."""

from __future__ import annotations

from typing import NamedTuple

#: what one measured value can be: a number, a text, a flag, or missing (None)
Value = float | int | str | bool | None


class Measurement(NamedTuple):
    """One extracted value. ``value is None`` means missing — never a silent zero.

    A named tuple: an analysis makes hundreds of them per output, and a tuple is made
    several times faster than a frozen dataclass.

    ``record`` numbers the independent records of one output (IOR tests in one script,
    fio jobs, IO500 phases); repeated names within a record are repeated matches
    (e.g. one bandwidth per IOR iteration) over which statistics are taken.
    """

    name: str
    value: Value
    unit: str = ""
    record: int = 0
