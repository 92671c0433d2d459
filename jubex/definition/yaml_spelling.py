"""The concise YAML spelling: YAML text into the located tree, every key with its line.

The YAML 1.2 core schema is used for plain scalars: only ``true``/``false`` are booleans,
so ``yes``, ``no``, ``on``, ``off``, ``1:30`` and ``2024-01-01`` stay text, as a benchmarker
writing an option value or a duration means them. Duplicate keys are errors, not a silent
last-one-wins.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from jubex.definition.tree import Map, Seq
from jubex.errors import DefinitionError, Loc

_CORE = "tag:yaml.org,2002:"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """A safe loader (libyaml's parser where installed) resolving plain scalars by YAML 1.2."""

    yaml_implicit_resolvers: dict = {}  # noqa: RUF012 (PyYAML's class-level table)


for _tag, _regex, _first in (
    ("null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+.0123456789",
    ),
    ("merge", r"^<<$", "<"),
):
    _Loader.add_implicit_resolver(_CORE + _tag, re.compile(_regex), list(_first))
_Loader.add_implicit_resolver(_CORE + "null", re.compile(r"^$"), [""])


def read_yaml(text: str, file: str) -> tuple[Any, list[DefinitionError]]:
    """The tree of a YAML document and the problems found while reading it.

    A syntax error is raised (nothing after it can be trusted); duplicate keys and
    unsupported tags are collected so that one run reports them all.
    """
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Loc(file, mark.line + 1, mark.column + 1) if mark else Loc(file)
        problem = exc.problem or exc.context or "unreadable YAML"
        raise DefinitionError(f"YAML syntax: {problem}", where) from None
    except yaml.YAMLError as exc:
        raise DefinitionError(f"YAML syntax: {exc}", Loc(file)) from None
    if node is None:
        return Map(Loc(file, 1, 1)), []
    composer = _Composer(file)
    return composer.value(node), composer.errors


class _Composer:
    """Turns PyYAML nodes into Map/Seq/scalars, recording each node's start."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.errors: list[DefinitionError] = []

    def loc(self, node: yaml.Node) -> Loc:
        return Loc(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def value(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node)
        if isinstance(node, yaml.SequenceNode):
            seq = Seq(self.loc(node))
            for item in node.value:
                seq.add(self.value(item), self.loc(item), self.text(item))
            return seq
        return self.scalar(node)

    def text(self, node: yaml.Node) -> str:
        return node.value if isinstance(node, yaml.ScalarNode) and node.value else ""

    def mapping(self, node: yaml.MappingNode) -> Map:
        result = Map(self.loc(node))
        explicit: set[str] = set()
        for key_node, value_node in node.value:
            if key_node.tag == _CORE + "merge":
                self.merge(result, value_node, explicit)
                continue
            key = str(key_node.value)
            if key in explicit:
                first = result.key_loc(key)
                self.errors.append(
                    DefinitionError(
                        f"duplicate key '{key}' (first given at line {first.line})",
                        self.loc(key_node),
                    )
                )
                continue
            explicit.add(key)
            result.put(
                key,
                self.value(value_node),
                self.loc(key_node),
                self.loc(value_node),
                self.text(value_node),
            )
        return result

    def merge(self, into: Map, node: yaml.Node, explicit: set[str]) -> None:
        """``<<: *base``: the merged entries give way to keys written in the mapping itself."""
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                self.errors.append(
                    DefinitionError("'<<' merges only mappings (or a list of them)", self.loc(node))
                )
                continue
            merged = self.mapping(source)
            for key in merged:
                if key not in explicit and key not in into:
                    into.take(merged, key)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        value, tag = node.value, node.tag
        if tag == _CORE + "str":
            return value
        if tag == _CORE + "null":
            return None
        if tag == _CORE + "bool":
            return value.lower() == "true"
        if tag == _CORE + "int":
            return int(value, 0) if value[:2] in ("0o", "0x") else int(value)
        if tag == _CORE + "float":
            return float(value.lower().replace(".inf", "inf").replace(".nan", "nan"))
        self.errors.append(
            DefinitionError(f"unsupported YAML tag '{tag}'; write plain values", self.loc(node))
        )
        return value
