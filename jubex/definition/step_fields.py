"""The fields of a step (and the few helpers other parts share) read from the checked tree:
commands, iterations, packs, resources and environment, each with its place in the file."""

from __future__ import annotations

from typing import Any

from jubex.definition.model import Do, Resources
from jubex.definition.tree import Map, Seq, text_of
from jubex.errors import Loc


def iterations_of(spec: Map) -> int:
    """``iterations: N``, or the most a point may get: ``{min, max, until}``'s ``max``."""
    value = spec.get("iterations", 1)
    return int(value["max"]) if isinstance(value, Map) else int(value)


def pack_of(value: int | Map) -> tuple[int, str | None, int]:
    """``pack: N`` or ``pack: {size: N, time: T, nodes: K}`` as (size, time, nodes)."""
    if isinstance(value, Map):
        return int(value["size"]), optional(value, "time"), int(value.get("nodes", 0))
    return int(value), None, 0


def optional(holder: Map, key: str) -> str | None:
    return text_of(holder, key) if holder.get(key) is not None else None


def environment_of(spec: Map | None) -> dict[str, str]:
    return {key: text_of(spec, key) for key in spec} if spec else {}


def resources_of(spec: Map | None) -> Resources:
    if not spec:
        return Resources()
    fields = {key: text_of(spec, key) for key in spec if key != "extra"}
    return Resources(**fields, extra=environment_of(spec.get("extra")))


def entries(tree: Map, key: str) -> list[tuple[Any, Loc, str]]:
    """A key's one entry or list of entries, each with its place and its text as written."""
    value = tree[key]
    if not isinstance(value, list):
        return [(value, tree.value_loc(key), text_of(tree, key))]
    return [
        (
            item,
            value.value_loc(i) if isinstance(value, Seq) else tree.value_loc(key),
            text_of(value, i),
        )
        for i, item in enumerate(value)
    ]


def dos_of(spec: Map) -> list[Do]:
    if "do" not in spec:
        return []
    result = []
    for item, loc, text in entries(spec, "do"):
        if not isinstance(item, Map):
            result.append(Do(text, loc=loc))
            continue
        result.append(
            Do(
                text_of(item, "cmd"),
                active=item.get("active", "true"),
                shared=item.get("shared", False),
                done_file=optional(item, "done_file"),
                error_file=optional(item, "error_file"),
                break_file=optional(item, "break_file"),
                work_dir=optional(item, "work_dir"),
                stdout=optional(item, "stdout"),
                stderr=optional(item, "stderr"),
                tag=item.get("tag"),
                loc=loc,
            )
        )
    return result
