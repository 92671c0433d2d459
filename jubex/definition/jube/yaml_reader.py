"""JUBE's YAML spelling into the element tree, by the rules JUBE itself converts it with.

A key names a child element where JUBE's format allows one there (``step`` → ``use``,
``do``), and an attribute otherwise; ``_`` is an element's text; a list makes one element
per item. Without a ``benchmark`` key the document *is* the benchmark. The YAML itself is
read by jubex's one reader (:mod:`jubex.definition.yaml_tree`), with ``!include
FILE[:SELECTION]`` followed; scalars become texts as :class:`_JubeBuilder` says.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from jubex.definition.jube.nodes import Node
from jubex.definition.tree import Map, Seq
from jubex.definition.yaml_tree import TreeBuilder, compose
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
#: what JUBE's loader (PyYAML's YAML 1.1) reads as a boolean, which JUBE writes ``True``/``False``
_JUBE_BOOLEANS = {
    word: str(truth)
    for truth, words in ((True, "yes on true"), (False, "no off false"))
    for lower in words.split()
    for word in (lower, lower.title(), lower.upper())
}

Located = tuple[Any, Loc]
Entry = tuple[str, Loc, Located]


def read_yaml(text: str, file: str, include_path: Sequence[Path] = ()) -> Node:
    """The ``<jube>`` element a JUBE YAML document stands for."""
    try:
        located = _Includes(list(include_path)).read(text, Path(file))
    except RecursionError:  # each file is bounded, a chain of includes only by the stack
        raise DefinitionError("included files nest collections too deeply", Loc(file)) from None
    return _document(located, file)


class _Includes:
    """Reads a file and every file its ``!include`` tags name, each into the located tree."""

    def __init__(self, include_path: list[Path]) -> None:
        self.include_path = include_path
        self.stack: list[Path] = []

    def read(self, text: str, path: Path) -> Located | None:
        """The tree of one file (``None`` when it holds no document), includes followed."""
        file = str(path)
        node = compose(text, file)
        if node is None:
            return None
        self.stack.append(path.resolve())
        try:
            builder = _JubeBuilder(file, text, self)
            value = builder.value(node)
        finally:
            self.stack.pop()
        if builder.errors:
            raise builder.errors[0]
        return value, builder.loc(node)

    def include(self, spec: str, loc: Loc) -> Located:
        """What ``!include FILE[:SELECTION]`` stands for."""
        name, _, rest = spec.strip().partition(":")
        selection, _, comprehension = rest.partition(":")
        if comprehension.strip():
            raise DefinitionError(
                f"'!include {spec}' filters with a Python comprehension, which jubex does not run",
                loc,
                'select with subscripts only, e.g. !include data.yaml:["dos"]',
            )
        path = self.find(name.strip(), Path(loc.file).parent, loc)
        if path.resolve() in self.stack:
            raise DefinitionError(f"!include cycle through '{path}'", loc)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise DefinitionError(f"cannot read included file '{path}': {exc}", loc) from None
        located = self.read(text, path)
        if located is None:
            raise DefinitionError(f"included file '{path}' is empty", loc)
        for key in _subscripts(selection, loc):
            located = _subscript(located, key, loc)
        return located

    def find(self, name: str, home: Path, loc: Loc) -> Path:
        folders = [*self.include_path, home]
        for folder in folders:
            if (folder / name).is_file():
                return folder / name
        searched = ", ".join(str(f) for f in folders)
        raise DefinitionError(f"included file '{name}' not found (searched: {searched})", loc)


class _JubeBuilder(TreeBuilder):
    """The one reader, with JUBE's ``!include`` and JUBE's texts for scalars.

    JUBE turns every value into text with Python's ``str``, after PyYAML's YAML 1.1 loader
    read it: jubex keeps the text as written instead (``2.50`` stays ``2.50``), except for
    nulls (empty) and the YAML 1.1 booleans (``yes``, ``on``, ``true``, ... written plain),
    which JUBE turns into ``True`` and ``False``.
    """

    tag_hint = "JUBE files know only !include"

    def __init__(self, file: str, text: str, includes: _Includes) -> None:
        super().__init__(file, text)
        self.includes = includes

    def tagged(self, node: yaml.Node) -> Any:
        if node.tag != "!include" or not isinstance(node, yaml.ScalarNode):
            return super().tagged(node)
        value, _ = self.includes.include(str(node.value), self.loc(node))
        return value

    def scalar(self, node: yaml.ScalarNode) -> Any:
        value = super().scalar(node)
        if value is None:
            return ""
        if isinstance(value, bool):
            return str(value)
        if not node.style and node.value in _JUBE_BOOLEANS:  # plain, not quoted
            return _JUBE_BOOLEANS[node.value]
        return node.value


def _document(located: Located | None, file: str) -> Node:
    root = Node("jube", Loc(file, 1, 1))
    if located is None:
        return root
    value, loc = located
    if not isinstance(value, Map):
        for item in _items(located):
            root.children += _elements("benchmark", item)
        return root
    pairs = _pairs(value)
    inside = []
    nested = "benchmark" in value
    for key, key_loc, entry in pairs:
        if (key in _BESIDE) if nested else (key in _OUTSIDE):
            for item in _items(entry):
                root.children += _elements(key, item)
        elif nested:
            root.attrs[key], root.attr_locs[key] = _text(entry), key_loc
        else:
            inside.append((key, key_loc, entry))
    if not nested:
        root.children.append(_element("benchmark", inside, loc))
    return root


def _elements(tag: str, located: Located) -> list[Node]:
    """One element per text when ``_`` (or the value itself) is a list, as JUBE does."""
    value, loc = located
    if isinstance(value, Map):
        pairs = _pairs(value)
        if tag in CHILDREN:
            return [_element(tag, pairs, loc)]
        texts: list[Located | None] = [v for k, _, v in pairs if k == "_"] or [None]
        base = _element(tag, [p for p in pairs if p[0] != "_"], loc)
    else:
        texts, base = [located], Node(tag, loc)
    result = []
    for text in texts:
        for item in _items(text) if text is not None else [None]:
            copy = base.copy()
            copy.text = "" if item is None else _text(item)
            if item is not None:
                copy.loc = item[1]
            result.append(copy)
    return result


def _element(tag: str, pairs: list[Entry], loc: Loc) -> Node:
    result = Node(tag, loc)
    for key, key_loc, value in pairs:
        if key in CHILDREN.get(tag, ()):
            for item in _items(value):
                for inner in _items(item):
                    result.children += _elements(key, inner)
        else:
            text = _attribute(tag, value)
            if text is not None:
                result.attrs[key] = text
                result.attr_locs[key] = key_loc
    return result


def _attribute(tag: str, located: Located) -> str | None:
    """An attribute as JUBE's YAML sets it: an element with children of its own sets it
    once per item of a list (the last stays; an empty list sets none), any other element
    sets the list's Python text (``['a', 'b']``)."""
    value, _ = located
    if isinstance(value, Seq) and tag in CHILDREN:
        items = _items(located)
        return _text(items[-1], joined=True) if items else None
    return _text(located, joined=True)


def _items(located: Located) -> list[Located]:
    value, _ = located
    if isinstance(value, Seq):
        return [(item, value.value_loc(index)) for index, item in enumerate(value)]
    return [located]


def _pairs(value: Map) -> list[Entry]:
    return [(key, value.key_loc(key), (value[key], value.value_loc(key))) for key in value]


def _text(located: Located, *, joined: bool = False) -> str:
    value, loc = located
    if joined and isinstance(value, Map | Seq):  # JUBE's YAML gives str(value), e.g. analyzer:
        return str(_plain(value))
    if isinstance(value, Map | Seq):
        raise DefinitionError("expected a text here, not a list or mapping", loc)
    return value


def _plain(value: object) -> object:
    if isinstance(value, Map):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, Seq):
        return [_plain(item) for item in value]
    return value


def _subscript(located: Located, key: object, loc: Loc) -> Located:
    value, _ = located
    if isinstance(value, Map) and isinstance(key, str) and key in value:
        return value[key], value.value_loc(key)
    if isinstance(value, Seq) and isinstance(key, int) and -len(value) <= key < len(value):
        return value[key], value.value_loc(key % len(value))
    raise DefinitionError(f"the included data has no entry {key!r}", loc)


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
