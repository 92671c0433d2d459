"""A JUBE input file as JUBE prepares it: tags applied, includes followed, tag rules checked.

JUBE removes every element whose ``tag`` expression fails *while reading*, before any set
is built; ``<selection><tag>`` adds tags as if given on the command line; ``<include>``
copies elements of another file in place. Files are searched on the command line's include
path, then in ``<include-path>``, then in ``JUBE_INCLUDE_PATH``, then next to the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jubex.definition.jube.nodes import Node, check_tag_expression, prune, select, split_list
from jubex.definition.jube.nodes import tag_names as mentioned_tags
from jubex.definition.jube.xml_reader import read_xml
from jubex.definition.jube.yaml_reader import read_yaml
from jubex.definition.source_file import read_bytes
from jubex.definition.tags import tag_matches
from jubex.errors import DefinitionError, DefinitionWarning, JubexError, Loc, UsageError

ENV_INCLUDE_PATH = "JUBE_INCLUDE_PATH"
_TAG = re.compile(r"[\w.\-]+")


def read_tree(path: Path, include_path: Sequence[Path] = ()) -> Node:
    """The raw element tree of a JUBE file, XML or YAML told apart by content as JUBE does."""
    file = str(path)
    data, is_xml = read_bytes(path)
    if is_xml:
        return read_xml(data, file)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DefinitionError(f"not UTF-8 text (byte {exc.start})", Loc(file)) from None
    return read_yaml(text, file, include_path)


@dataclass
class Selected:
    """What the file's root says to each of its benchmarks, worked out once for all of them:
    each of N benchmarks passing over the root's N children made reading them quadratic."""

    #: the benchmarks ``<selection>`` leaves, in the file's order, and their names (one
    #: tuple shared by every benchmark read)
    benchmarks: list[Node]
    names: tuple[str, ...]
    index: dict[str, int]
    #: the root's own sets, which every benchmark sees
    sets: list[Node]
    #: what checking the root and its ``<selection>`` elements found
    errors: list[JubexError]
    warnings: list[DefinitionWarning]


@dataclass
class JubeFile:
    """The prepared tree of the main file and what reading it found out."""

    path: Path
    root: Node
    tags: frozenset[str]
    include_path: list[Path]
    known_tags: set[str] = field(default_factory=set)
    dropped: list[Node] = field(default_factory=list)
    tag_docs: dict[str, str] = field(default_factory=dict)
    selected: Selected | None = None


class Sources:
    """Reads the main file and every file it names, each once, with the same tags."""

    def __init__(self, tags: Iterable[str], include_path: Sequence[Path]) -> None:
        self.tags = frozenset(tags)
        self.cli_path = [Path(p) for p in include_path]
        self.env_path = [Path(p) for p in os.environ.get(ENV_INCLUDE_PATH, "").split(":") if p]
        self.include_path: list[Path] = []
        self.raw: dict[Path, Node] = {}
        self.prepared: dict[Path, Node] = {}
        self.mentioned: dict[Path, set[str]] = {}

    def main(self, path: Path) -> JubeFile:
        raw = self.tree(path)
        tags = self.tags
        while True:
            dropped: list[Node] = []
            tree = prune(raw, tags, dropped)
            self.include_path = [*self.cli_path, *self._declared_path(tree, path), *self.env_path]
            self.include_path.append(path.parent)
            tree = self._expanded(tree, tags, (path.resolve(),), dropped)
            added = _selection_tags(tree) - tags
            if not added:
                break
            tags = tags | added
        self.tags = tags
        known = mentioned_tags(raw) | _selection_tags(tree)
        known |= {n for c in raw.walk() if c.tag == "check_tags" for n in _TAG.findall(c.value)}
        docs = _tag_docs(tree)
        _check_tags(tree, tags)
        known |= set(docs)
        return JubeFile(path, tree, tags, self.include_path, known, dropped, docs)

    def mentioned_tags(self) -> set[str]:
        """The tags every file read so far mentions: included ones and ``<use from>`` ones."""
        for key, raw in self.raw.items():
            if key not in self.mentioned:  # each file walked once, however many benchmarks
                self.mentioned[key] = mentioned_tags(raw)
        return set().union(*self.mentioned.values())

    def tree(self, path: Path) -> Node:
        key = path.resolve()
        if key not in self.raw:
            self.raw[key] = read_tree(path, [*self.cli_path, *self.env_path])
        return self.raw[key]

    def find(self, name: str, loc: Loc, home: Path | None = None) -> Path:
        """A file on the include path (and, for nested references, next to the naming file)."""
        folders = list({f.resolve(): f for f in [*self.include_path, *([home] if home else [])]})
        candidate = Path(os.path.expandvars(os.path.expanduser(name)))
        if candidate.is_absolute() and candidate.is_file():
            return candidate
        for folder in folders:
            if (folder / candidate).is_file():
                return folder / candidate
        searched = ", ".join(str(f) for f in folders)
        raise DefinitionError(f"file '{name}' not found (searched: {searched})", loc)

    def external(self, name: str, loc: Loc, home: Path | None = None) -> tuple[Node, Path]:
        """Another file's tree, prepared like the main one: for ``init_with`` and ``use from``."""
        path = self.find(name, loc, home)
        key = path.resolve()
        if key not in self.prepared:
            self.prepared[key] = self._expanded(
                prune(self.tree(path), self.tags), self.tags, (key,), []
            )
        return self.prepared[key], path

    def _declared_path(self, tree: Node, path: Path) -> list[Path]:
        found = []
        for holder in tree.all("include-path"):
            texts = [holder.value] if holder.value else []
            for child in holder.children:
                if child.tag != "path" or not child.value:
                    raise DefinitionError(
                        "<include-path> holds <path> elements with a directory each", child.loc
                    )
                texts.append(child.value)
            for text in texts:
                found.append(path.parent / os.path.expandvars(os.path.expanduser(text)))
        return found

    def _expanded(
        self, node: Node, tags: frozenset[str], stack: tuple[Path, ...], dropped: list[Node]
    ) -> Node:
        """The tree with every ``<include>`` replaced by the elements it names."""
        children: list[Node] = []
        for child in node.children:
            if child.tag != "include":
                children.append(self._expanded(child, tags, stack, dropped))
                continue
            name = child.get("from")
            if not name:
                raise DefinitionError("<include> needs a from attribute naming a file", child.loc)
            path = self.find(name, child.where("from"), stack[-1].parent)
            if path.resolve() in stack:
                chain = " -> ".join(str(p) for p in (*stack, path.resolve()))
                raise DefinitionError(f"include cycle: {chain}", child.loc)
            included = prune(self.tree(path), tags, dropped)
            nested = (*stack, path.resolve())
            for found in select(included, child.get("path") or ".", child.where("path")):
                children.append(self._expanded(found, tags, nested, dropped))
        return Node(node.tag, node.loc, node.attrs, node.text, children, node.attr_locs)


def _selection_tags(tree: Node) -> set[str]:
    return {
        name
        for selection in tree.all("selection")
        for tag in selection.all("tag")
        for name in split_list(tag.value)
    }


def _tag_docs(tree: Node) -> dict[str, str]:
    """``<tags><tag name="x">what x does</tag></tags>``: descriptions must not be empty."""
    docs: dict[str, str] = {}
    for holder in tree.all("tags"):
        for tag in holder.all("tag"):
            name = tag.get("name")
            if not name or not tag.value:
                raise DefinitionError(
                    "<tag> in <tags> needs a name attribute and a description", tag.loc
                )
            docs[name] = " ".join(tag.value.split())
        if (holder.get("forced") or "").lower() == "true":
            missing = sorted(mentioned_tags(tree) - set(docs))
            if missing:
                raise DefinitionError(
                    f'<tags forced="true"> but tag(s) {", ".join(missing)} have no description',
                    holder.loc,
                )
    return docs


def _check_tags(tree: Node, tags: frozenset[str]) -> None:
    """Every ``<check_tags>`` (at the top or in ``<tags>``) must hold for the given tags."""
    checks = [*tree.all("check_tags"), *(c for t in tree.all("tags") for c in t.all("check_tags"))]
    for check in checks:
        check_tag_expression(check.value, check.loc)
        if check.value and not tag_matches(check.value, tags, check.loc):
            raise UsageError(
                f"the file requires the tag combination '{check.value}'",
                check.loc,
                "switch tags on with --tag (| is or, + is and, ! is not)",
            )
