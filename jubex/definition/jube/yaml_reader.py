"""JUBE's YAML spelling into the element tree, by the rules JUBE itself converts it with.

A key names a child element where JUBE's format allows one there (``step`` → ``use``,
``do``), and an attribute otherwise; ``_`` is an element's text; a list makes one element
per item. Without a ``benchmark`` key the document *is* the benchmark. Scalars keep the
text as written (``2.50`` stays ``2.50``), except YAML 1.1 booleans and nulls, which read
as JUBE reads them (``True``, ``False``, empty). ``!include FILE[:SELECTION]`` is followed.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

import yaml

from jubex.definition.jube.nodes import Node
from jubex.errors import DefinitionError, Loc

#: the child elements each element may hold (the keys that are not attributes)
CHILDREN: dict[str, frozenset[str]] = {
    tag: frozenset(names.split())
    for tag, names in {
        "benchmark": "parameterset comment step fileset substituteset analyser result patternset",
        "analyse": "file",
        "analyser": "use analyse",
        "fileset": "link copy prepare",
        "include-path": "path",
        "parameterset": "parameter",
        "patternset": "pattern",
        "result": "use table syslog database",
        "selection": "not only tag",
        "step": "use do",
        "substituteset": "iofile sub",
        "syslog": "key",
        "table": "column",
        "tags": "check_tags tag",
        "database": "key",
    }.items()
}
#: top-level keys of a document without a ``benchmark`` key that stay outside the benchmark
_OUTSIDE = frozenset(["selection", "include-path", "check_tags", "tags"])
#: top-level keys next to a ``benchmark`` key
_BESIDE = _OUTSIDE | {"benchmark", "parameterset", "fileset", "substituteset", "patternset"}
_CORE = "tag:yaml.org,2002:"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's YAML 1.1 resolution, as JUBE loads its files."""


Located = tuple[yaml.Node, str]


def read_yaml(text: str, file: str, include_path: Sequence[Path] = ()) -> Node:
    """The ``<jube>`` element a JUBE YAML document stands for."""
    reader = _Reader(list(include_path))
    reader.stack.append(Path(file).resolve())
    return reader.document(_compose(text, file), file)


def _compose(text: str, file: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Loc(file, mark.line + 1, mark.column + 1) if mark else Loc(file)
        raise DefinitionError(f"YAML syntax: {exc.problem or exc.context}", where) from None
    except yaml.YAMLError as exc:
        raise DefinitionError(f"YAML syntax: {exc}", Loc(file)) from None


def _loc(node: yaml.Node, file: str) -> Loc:
    return Loc(file, node.start_mark.line + 1, node.start_mark.column + 1)


class _Reader:
    def __init__(self, include_path: list[Path]) -> None:
        self.include_path = include_path
        self.stack: list[Path] = []

    def document(self, node: yaml.Node | None, file: str) -> Node:
        root = Node("jube", Loc(file, 1, 1))
        if node is None:
            return root
        node, file = self.resolve(node, file)
        if not isinstance(node, yaml.MappingNode):
            for item in self.items((node, file)):
                root.children += self.elements("benchmark", item)
            return root
        pairs = self.pairs(node, file)
        inside = []
        nested = any(key == "benchmark" for key, *_ in pairs)
        for key, key_loc, value in pairs:
            if (key in _BESIDE) if nested else (key in _OUTSIDE):
                for item in self.items(value):
                    root.children += self.elements(key, item)
            elif nested:
                root.attrs[key], root.attr_locs[key] = self.scalar(value), key_loc
            else:
                inside.append((key, key_loc, value))
        if not nested:
            root.children.append(self.element("benchmark", inside, _loc(node, file)))
        return root

    def elements(self, tag: str, located: Located) -> list[Node]:
        """One element per text when ``_`` (or the value itself) is a list, as JUBE does."""
        node, file = self.resolve(*located)
        loc = _loc(node, file)
        if isinstance(node, yaml.MappingNode):
            pairs = self.pairs(node, file)
            if tag in CHILDREN:
                return [self.element(tag, pairs, loc)]
            texts = [v for k, _, v in pairs if k == "_"] or [None]
            base = self.element(tag, [p for p in pairs if p[0] != "_"], loc)
        else:
            texts, base = [(node, file)], Node(tag, loc)
        result = []
        for text in texts:
            for item in self.items(text) if text is not None else [None]:
                copy = base.copy()
                copy.text = "" if item is None else self.scalar(item)
                if item is not None:
                    copy.loc = _loc(*self.resolve(*item))
                result.append(copy)
        return result

    def element(self, tag: str, pairs: list[tuple[str, Loc, Located]], loc: Loc) -> Node:
        result = Node(tag, loc)
        for key, key_loc, value in pairs:
            if key in CHILDREN.get(tag, ()):
                for item in self.items(value):
                    for inner in self.items(item):
                        result.children += self.elements(key, inner)
            else:
                result.attrs[key] = self.scalar(value, joined=True)
                result.attr_locs[key] = key_loc
        return result

    def items(self, located: Located) -> list[Located]:
        node, file = self.resolve(*located)
        if isinstance(node, yaml.SequenceNode):
            return [(item, file) for item in node.value]
        return [(node, file)]

    def pairs(self, node: yaml.MappingNode, file: str) -> list[tuple[str, Loc, Located]]:
        """Key, place and value of each entry; merge keys followed, duplicates refused."""
        result: list[tuple[str, Loc, Located]] = []
        merged: list[tuple[str, Loc, Located]] = []
        for key_node, value_node in node.value:
            if key_node.tag == _CORE + "merge":
                for source, source_file in self.items((value_node, file)):
                    if isinstance(source, yaml.MappingNode):
                        merged += self.pairs(source, source_file)
                continue
            key = str(key_node.value)
            if any(key == seen for seen, *_ in result):
                raise DefinitionError(f"duplicate key '{key}'", _loc(key_node, file))
            result.append((key, _loc(key_node, file), (value_node, file)))
        written = {key for key, *_ in result}
        return result + [entry for entry in merged if entry[0] not in written]

    def scalar(self, located: Located, *, joined: bool = False) -> str:
        node, file = self.resolve(*located)
        if isinstance(node, yaml.SequenceNode) and joined:
            return ",".join(self.scalar((item, file)) for item in node.value)
        if not isinstance(node, yaml.ScalarNode):
            raise DefinitionError("expected a text here, not a list or mapping", _loc(node, file))
        if node.tag == _CORE + "bool":
            return "True" if node.value.lower() in ("true", "yes", "on", "y") else "False"
        if node.tag == _CORE + "null":
            return ""
        return str(node.value)

    def resolve(self, node: yaml.Node, file: str) -> Located:
        """The node itself, or what an ``!include`` stands for (followed again if needed)."""
        while node.tag == "!include":
            node, file = self.include(node, file)
        if node.tag.startswith("!"):
            raise DefinitionError(
                f"unknown YAML tag '{node.tag}'; JUBE files know only !include", _loc(node, file)
            )
        return node, file

    def include(self, node: yaml.Node, file: str) -> Located:
        loc = _loc(node, file)
        name, _, rest = str(node.value).strip().partition(":")
        selection, _, comprehension = rest.partition(":")
        if comprehension.strip():
            raise DefinitionError(
                f"'!include {node.value}' filters with a Python comprehension, which jubex "
                "does not run",
                loc,
                'select with subscripts only, e.g. !include data.yaml:["dos"]',
            )
        path = self.find(name.strip(), Path(file).parent, loc)
        if path.resolve() in self.stack:
            raise DefinitionError(f"!include cycle through '{path}'", loc)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise DefinitionError(f"cannot read included file '{path}': {exc}", loc) from None
        target = _compose(text, str(path))
        if target is None:
            raise DefinitionError(f"included file '{path}' is empty", loc)
        self.stack.append(path.resolve())
        try:
            located = self.resolve(target, str(path))
            for key in _subscripts(selection, loc):
                located = self.subscript(located, key, loc)
            return self.resolve(*located)
        finally:
            self.stack.pop()

    def subscript(self, located: Located, key: object, loc: Loc) -> Located:
        node, file = self.resolve(*located)
        if isinstance(node, yaml.MappingNode):
            for key_node, value in node.value:
                if key_node.value == key:
                    return value, file
        sequence = node.value if isinstance(node, yaml.SequenceNode) else []
        if isinstance(key, int) and -len(sequence) <= key < len(sequence):
            return sequence[key], file
        raise DefinitionError(f"the included data has no entry {key!r}", loc)

    def find(self, name: str, home: Path, loc: Loc) -> Path:
        folders = [*self.include_path, home]
        for folder in folders:
            if (folder / name).is_file():
                return folder / name
        searched = ", ".join(str(f) for f in folders)
        raise DefinitionError(f"included file '{name}' not found (searched: {searched})", loc)


def _subscripts(selection: str, loc: Loc) -> list[object]:
    """``["dos"][0]`` as ``["dos", 0]``; JUBE evaluates it as Python, jubex reads only keys."""
    if not selection.strip():
        return []
    try:
        tree = ast.parse("_" + selection.strip(), mode="eval").body
    except SyntaxError:
        tree = None
    keys: list[object] = []
    while isinstance(tree, ast.Subscript) and isinstance(tree.slice, ast.Constant):
        keys.insert(0, tree.slice.value)
        tree = tree.value
    if not (isinstance(tree, ast.Name) and tree.id == "_"):
        raise DefinitionError(
            f"'!include' selection '{selection}' is not a chain of subscripts",
            loc,
            'select with keys and indexes only, e.g. ["dos"] or ["sets"][0]',
        )
    return keys
