"""The pretty table's frame written as plain text, for the tables rich would lay out the
same way: no cell wider than one terminal column per character, no cell to wrap.

rich takes about a millisecond per row to lay out a table whose cells are known not to
wrap (a history of 1,000 runs has 40,000 rows: most of its time); the frame it draws here
is simple (a centred title, padded columns one space apart, a rule under the header), so
it is written directly, character for character as rich writes it. Whatever rich might
measure otherwise (wide or combining characters, control characters, a table narrower
than its title) is left to rich.
"""

from __future__ import annotations

from collections.abc import Sequence

#: characters beyond ASCII that a table's cells hold and rich counts one column wide
NARROW = frozenset("—→±µ×−…≤≥°")


def _simple(text: str) -> bool:
    """Whether every character of ``text`` takes exactly one terminal column."""
    if text.isascii():
        return text.isprintable()
    return all(c in NARROW or (c.isascii() and c.isprintable()) for c in text)


def framed(
    title: str, head: Sequence[str], body: Sequence[Sequence[str]], right: Sequence[bool]
) -> list[str] | None:
    """The lines of the pretty table (trailing spaces stripped), as rich draws a
    ``box.SIMPLE_HEAD`` table without edges; None where rich must lay it out itself."""
    if not head or not body or not all(map(_simple, [title, *head])) or not any(body[-1]):
        return None  # (rich drops a last row that is empty in every column)
    widths = [len(label) for label in head]
    for row in body:
        for i, cell in enumerate(row):
            if not _simple(cell):
                return None
            if len(cell) > widths[i]:
                widths[i] = len(cell)
    width = sum(widths) + 3 * len(widths) - 1
    if width < len(title):
        return None  # rich widens the columns to the title
    left = (width - len(title.rstrip())) // 2  # rich centres the title without its trailing spaces
    lines = [" " * left + title, _line(head, widths, right), "─" * width]
    lines += [_line(row, widths, right) for row in body]
    return lines


def _line(cells: Sequence[str], widths: Sequence[int], right: Sequence[bool]) -> str:
    padded = (c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True))
    return (" " + "   ".join(padded)).rstrip()
