"""The plain tree both spellings read into, with the place of every key and value kept.

YAML and XML are turned into ordinary dicts, lists and scalars so that one JSON Schema and
one builder serve both. :class:`Map` and :class:`Seq` remember where each entry stood, and
the scalar's text exactly as written (``2.50`` stays ``2.50``, not ``2.5``), because the
model keeps texts and every later error must name file and line.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jubex.errors import DefinitionError, Loc
from jubex.language.ranges import MAX_VALUES

Path = tuple[str | int, ...]

#: values a list written out may hold (a YAML list, a text split at its separator, XML
#: ``<value>``s): each costs reading and checking (some 100 µs all told), and a range counts
#: up to a million values without listing them
MAX_LISTED = 10_000


def too_long(count: int, loc: Loc | None, *, exact: bool = True) -> DefinitionError:
    """The refusal of a list written out with ``count`` values (``exact=False``: more)."""
    said = (
        f"{count:,} values, more than the {MAX_LISTED:,}"
        if exact
        else f"more than {count:,} values, the most"
    )
    return DefinitionError(
        f"a list of {said} a list written out may hold",
        loc,
        f"a range of jubex's format (range: {{start: 1, stop: 20000, step: 1}}) counts up "
        f"to {MAX_VALUES:,} values without listing them",
    )


def listed(text: str, separator: str, loc: Loc | None) -> list[str]:
    """The values of a list written as one text (``1,2,4``), counted before it is split: a
    text of a million values is refused with the count (:data:`MAX_LISTED`)."""
    count = text.count(separator) + 1 if separator else 1
    if count > MAX_LISTED:
        raise too_long(count, loc)
    return split_top(text, separator)


class Map(dict):
    """A mapping that knows where it, each key and each value stood."""

    def __init__(self, loc: Loc, items: Iterable[tuple[str, Any]] = ()) -> None:
        super().__init__()
        self.loc = loc
        self.key_locs: dict[str, Loc] = {}
        self.value_locs: dict[str, Loc] = {}
        self.texts: dict[str, str] = {}
        for key, value in items:
            self.put(key, value, loc)

    def put(
        self, key: str, value: Any, key_loc: Loc, value_loc: Loc | None = None, text: str = ""
    ) -> None:
        self[key] = value
        self.key_locs[key] = key_loc
        self.value_locs[key] = value_loc or key_loc
        if text:
            self.texts[key] = text

    def take(self, other: Map, key: str) -> None:
        """Copy one entry of another map, with its places (merging keeps origins)."""
        self.put(
            key, other[key], other.key_locs[key], other.value_locs[key], other.texts.get(key, "")
        )

    def key_loc(self, key: str) -> Loc:
        return self.key_locs.get(key, self.loc)

    def value_loc(self, key: str) -> Loc:
        return self.value_locs.get(key, self.loc)


class Seq(list):
    """A list that knows where it and each item stood."""

    def __init__(self, loc: Loc) -> None:
        super().__init__()
        self.loc = loc
        self.item_locs: list[Loc] = []
        self.texts: dict[int, str] = {}

    def add(self, value: Any, loc: Loc, text: str = "") -> None:
        if text:
            self.texts[len(self)] = text
        self.append(value)
        self.item_locs.append(loc)

    def value_loc(self, index: int) -> Loc:
        return self.item_locs[index] if 0 <= index < len(self.item_locs) else self.loc


def text_of(container: Map | Seq | list, key: str | int) -> str:
    """The scalar as written; numbers and booleans of a tree built in code are spelt plainly."""
    written = getattr(container, "texts", {}).get(key)
    if written is not None:
        return written
    if isinstance(container, Map):
        value = container[key]
    elif isinstance(key, str):
        raise TypeError(f"a list has no entry {key!r}")
    else:
        value = container[key]
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def locate(root: Any, path: Iterable[str | int], *, key: bool = False) -> Loc | None:
    """The place of the entry at ``path``: of its key when ``key`` is set, else of its value.

    Where the path leaves the tree (a missing key), the deepest place found is the answer.
    """
    steps = list(path)
    node, where = root, getattr(root, "loc", None)
    for depth, step in enumerate(steps):
        last = depth == len(steps) - 1
        if isinstance(node, Map) and isinstance(step, str) and step in node:
            where = node.key_loc(step) if key and last else node.value_loc(step)
        elif isinstance(node, Seq) and isinstance(step, int) and step < len(node):
            where = node.value_loc(step)
        else:
            return where
        node = node[step]
    return where


def dotted(path: Iterable[str | int]) -> str:
    """``steps.run.do[1].cmd``: how messages name a place in the tree."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text or "the file"


def split_top(text: str, separator: str) -> list[str]:
    """Split at ``separator`` outside ``${...}``, brackets and quotes: expressions keep commas."""
    if not separator:
        return [text.strip()]
    parts, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        char = text[i]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i].strip())
            start = i + len(separator)
            i = start
            continue
        i += 1
    parts.append(text[start:].strip())
    return parts
