"""Values from JSON output: a dotted path with ``[i]``, ``[*]`` and ``["key"]`` steps."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

_STEP = re.compile(r"\.?([^.\[\]\"]+)|\[(-?\d+|\*)\]|\[\"([^\"]*)\"\]")

#: one step of a path: a key, an index, or None for every element
Step = str | int | None


def parse_path(text: str) -> list[Step]:
    """``a.b[0]["x.y"][*]`` -> ``["a", "b", 0, "x.y", None]``; ValueError naming the position."""
    steps: list[Step] = []
    pos = 0
    while pos < len(text):
        match = _STEP.match(text, pos)
        if not match or match.end() == pos:
            raise ValueError(f'expected names, [index], [*] or ["key"] at position {pos + 1}')
        key, index, quoted = match.groups()
        steps.append(key if key is not None else quoted if quoted is not None else _index(index))
        pos = match.end()
    return steps


def _index(text: str) -> int | None:
    return None if text == "*" else int(text)


def pick(node: object, path: Sequence[Step]) -> list[object]:
    """The scalars at ``path`` (a list at the end gives its scalars); none when absent."""
    nodes = [node]
    for step in path:
        nxt: list[object] = []
        for item in nodes:
            if step is None and isinstance(item, list):
                nxt.extend(item)
            elif isinstance(step, int) and isinstance(item, list):
                nxt.extend(item[step:][:1] if -len(item) <= step else ())
            elif isinstance(step, str) and isinstance(item, dict) and step in item:
                nxt.append(item[step])
        nodes = nxt
    flat: list[object] = []
    for item in nodes:
        flat.extend(item if isinstance(item, list) else [item])
    return [v for v in flat if v is not None and not isinstance(v, (dict, list))]


def load(text: str) -> object:
    """The JSON document in ``text`` (programs may print lines before it), or None."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text, start)[0]
    except ValueError:
        return None
