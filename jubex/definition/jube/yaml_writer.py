"""A small block-style YAML writer that can put ``# comments`` in front of entries.

PyYAML cannot write comments, and ``jubex convert`` must flag what it could not carry over
right where it happened. Texts that YAML could read as anything but that text are quoted
(JSON's quoting is valid YAML); texts of several lines are written as literal blocks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_PLAIN = re.compile(r"[A-Za-z_/$~][\w./$~+=@%-]*(?: [\w./$~+=@%-]+)*")
_RESERVED = frozenset(["true", "false", "yes", "no", "on", "off", "null"])


@dataclass
class Flagged:
    """A value with the notes to write as comments above its key."""

    value: object
    notes: list[str] = field(default_factory=list)


def dump(data: dict[str, object], header: list[str] | None = None) -> str:
    lines = [f"# {line}" if line else "#" for line in header or []]
    lines += _mapping(data, 0)
    return "\n".join(lines) + "\n"


def scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text, ensure_ascii=False)


def _mapping(data: dict[str, object], indent: int) -> list[str]:
    lines: list[str] = []
    pad = " " * indent
    for key, value in data.items():
        if isinstance(value, Flagged):
            lines += [f"{pad}# jubex: {note}" for note in value.notes]
            value = value.value
        lines += _entry(f"{pad}{scalar(key)}:", value, indent)
    return lines


def _entry(prefix: str, value: object, indent: int) -> list[str]:
    """``prefix`` followed by the value: inline when it is short, else on indented lines."""
    if isinstance(value, dict):
        return [f"{prefix} {{}}"] if not value else [prefix, *_mapping(value, indent + 2)]
    if isinstance(value, list):
        if not value or all(not isinstance(v, dict | list) and "\n" not in str(v) for v in value):
            return [f"{prefix} [{', '.join(scalar(v) for v in value)}]"]
        return [prefix, *_sequence(value, indent + 2)]
    if isinstance(value, str) and "\n" in value:
        pad = " " * (indent + 2)
        return [f"{prefix} |-", *(f"{pad}{line}" if line else "" for line in value.split("\n"))]
    return [f"{prefix} {scalar(value)}"]


def _sequence(items: list[object], indent: int) -> list[str]:
    lines: list[str] = []
    pad = " " * indent
    for item in items:
        if isinstance(item, dict) and item:
            inner = _mapping(item, indent + 2)
            lines.append(f"{pad}- {inner[0].lstrip()}")
            lines += inner[1:]
        else:
            lines += _entry(f"{pad}-", item, indent)
    return lines
