"""The pretty table's frame written as plain text, for the tables rich would lay out the
same way: no cell wider than one terminal column per character, no cell to wrap.

rich takes about a millisecond per row to lay out a table whose cells are known not to
wrap (a history of 1,000 runs has 40,000 rows: most of its time); the frame it draws here
is simple (a centred title, padded columns one space apart, a rule under the header), so
it is written directly, character for character as rich writes it. Whatever rich might
measure otherwise (wide or combining characters, control characters, a table narrower
than its title) is left to rich.

The cells come a column at a time, and each step (checking, measuring, padding) is one
call over a column rather than one per cell: 40,000 rows of 14 columns take a tenth of a
second, not seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat

#: characters beyond ASCII that a table's cells hold and rich counts one column wide
NARROW = frozenset("—→±µ×−…≤≥°")


def _simple(text: str) -> bool:
    """Whether every character of ``text`` takes exactly one terminal column."""
    if not text.isascii():
        for char in NARROW:
            text = text.replace(char, "")
    return text.isascii() and text.isprintable()


def framed(
    title: str, head: Sequence[str], columns: Sequence[Sequence[str]], right: Sequence[bool]
) -> list[str] | None:
    """The lines of the pretty table of these ``columns`` (trailing spaces stripped), as
    rich draws a ``box.SIMPLE_HEAD`` table without edges; None where rich must lay it out
    itself."""
    if not head or not columns[0] or not all(map(_simple, [title, *head])):
        return None
    if not any(column[-1] for column in columns):
        return None  # rich drops a last row that is empty in every column
    if not all(_simple("".join(column)) for column in columns):
        return None
    sizes = widths(head, columns)
    width = sum(sizes) + 3 * len(sizes) - 1
    if width < len(title):
        return None  # rich widens the columns to the title
    left = (width - len(title.rstrip())) // 2  # rich centres the title without its trailing spaces
    head_line = padded([[label] for label in head], sizes, right, "   ", " ")
    return [
        (" " * left + title).rstrip(),
        *head_line,
        "─" * width,
        *padded(columns, sizes, right, "   ", " "),
    ]


def widths(head: Sequence[str], columns: Sequence[Sequence[str]]) -> list[int]:
    """Each column's width: its longest cell or label."""
    return [
        max(len(label), max(map(len, column), default=0))
        for label, column in zip(head, columns, strict=True)
    ]


def padded(
    columns: Sequence[Sequence[str]],
    widths: Sequence[int],
    right: Sequence[bool],
    gap: str,
    indent: str = "",
) -> Iterator[str]:
    """Each row's cells padded to their column's width (right-aligned where ``right``),
    ``gap`` apart after an ``indent``, trailing spaces stripped: a line per row (none
    without columns). A column whose cells all have its width is taken as it is."""
    cells: list[Iterable[str]] = []
    for column, width, is_right in zip(columns, widths, right, strict=True):
        if len("".join(column)) != width * len(column):
            cells.append(map(str.rjust if is_right else str.ljust, column, repeat(width)))
        else:
            cells.append(column)
    if indent and cells:
        cells[0] = map(indent.__add__, cells[0])
    return map(str.rstrip, map(gap.join, zip(*cells, strict=True)))
