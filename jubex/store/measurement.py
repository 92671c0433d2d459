"""What the store keeps of an analysed output: named values that carry their unit."""

from __future__ import annotations

from dataclasses import dataclass

#: what one measured value can be: a number, a text, a flag, or missing (None)
Value = float | int | str | bool | None


@dataclass(frozen=True, slots=True)
class Measurement:
    """One extracted value. ``value is None`` means missing — never a silent zero.

    ``record`` numbers the independent records of one output (IOR tests in one script,
    fio jobs, IO500 phases); repeated names within a record are repeated matches
    (e.g. one bandwidth per IOR iteration) over which statistics are taken.
    """

    name: str
    value: Value
    unit: str = ""
    record: int = 0
