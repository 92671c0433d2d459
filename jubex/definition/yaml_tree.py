"""YAML text into the located tree: the one reader of definitions, JUBE's YAML and platforms.

Plain scalars are resolved by the YAML 1.2 core schema: only ``true``/``false`` are
booleans, so ``yes``, ``no``, ``on``, ``off``, ``1:30``, ``1_000`` and ``2024-01-01`` stay
text, as a benchmarker writing an option value or a duration means them; ``0o17`` and
``0x10`` are integers, ``1e3`` and ``.inf`` floats. Duplicate keys are errors, not a silent
last-one-wins, and so are tags outside the core schema (``!!python/...`` is never run or
read as text). Aliases may not repeat more than :data:`MAX_REPEATED` values, nothing may
nest deeper than :data:`MAX_DEPTH` levels, a list may not hold more than
:data:`~jubex.definition.tree.MAX_LISTED` values nor a mapping more than :data:`MAX_KEYS`
keys, nor a file write more than :data:`MAX_WRITTEN`, so a hostile file costs little to
refuse.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.events import AliasEvent
from yaml.resolver import BaseResolver

from jubex.definition.tree import MAX_LISTED, Map, Seq, too_long
from jubex.errors import DefinitionError, Loc
from jubex.language.values import MAX_DIGITS

CORE = "tag:yaml.org,2002:"
#: how deep collections may nest, aliases followed (definitions need about ten levels)
MAX_DEPTH = 100
#: how many values the aliases of one document may repeat (a billion laughs needs far more)
MAX_REPEATED = 100_000
#: how many values (keys, values and items) one document may write: each costs some 80 µs
#: through reading and checking, so two lists of the most values a list may hold fit in
#: about 2 s; ten such lists took 8 s, 100,000 parameters 62 s
MAX_WRITTEN = 20_000
#: how many keys one mapping may hold: a parameter costs some 600 µs through the checks and
#: the expansion (10,000 parameters took 6 s); a real set holds tens
MAX_KEYS = 1_000
#: what libyaml (from PyYAML 6.0.4) says of a document nested past its own limit of 1,000
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"

try:
    from yaml._yaml import CParser as _Parser  # libyaml's parser where installed

    _PARSERS: tuple[type[Any], ...] = (_Parser,)
except ImportError:  # pragma: no cover - PyYAML without libyaml
    _PARSERS = (yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser)


#: the core schema's plain scalars: each kind, what it looks like, and how it is read
_RESOLVED = {
    "null": re.compile(r"^(?:~|null|Null|NULL|)$"),
    "bool": re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    "int": re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    "float": re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
}
_CONVERT = {
    "null": lambda text: None,
    "bool": lambda text: text.lower() == "true",
    "int": lambda text: int(text, 0) if text[:2] in ("0o", "0x") else int(text),
    "float": lambda text: float(text.lower().replace(".inf", "inf").replace(".nan", "nan")),
}
_FIRST = {"null": "~nN", "bool": "tTfF", "int": "-+0123456789", "float": "-+.0123456789"}
_SCALAR_TAGS = frozenset(CORE + kind for kind in ("str", *_RESOLVED))


class _CoreResolver(BaseResolver):
    """The YAML 1.2 core schema's plain scalars, and ``<<`` as the merge key."""

    yaml_implicit_resolvers: dict = {}  # noqa: RUF012 (PyYAML's class-level table)


for _kind, _regex in _RESOLVED.items():
    _CoreResolver.add_implicit_resolver(CORE + _kind, _regex, list(_FIRST[_kind]))
_CoreResolver.add_implicit_resolver(CORE + "null", _RESOLVED["null"], [""])
_CoreResolver.add_implicit_resolver(CORE + "merge", re.compile(r"^<<$"), ["<"])


class _Loader(Composer, *_PARSERS, _CoreResolver):  # type: ignore[misc]
    """libyaml's parser under PyYAML's Python composer, which is told to count as it goes.

    The composer is PyYAML's own rather than libyaml's: that one recurses in C and brings
    the interpreter down on a deep enough document; this one stops at :data:`MAX_DEPTH`.
    """

    def __init__(self, text: str) -> None:
        reader, *stages = _PARSERS  # the first one takes the text
        reader.__init__(self, text)
        for stage in stages:
            stage.__init__(self)
        Composer.__init__(self)
        _CoreResolver.__init__(self)
        self.depth = 0
        self.sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (values, levels)
        self.written = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node:
        mark = self.peek_event().start_mark
        if self.depth >= MAX_DEPTH:
            raise _refusal(f"collections nest deeper than {MAX_DEPTH} levels", mark)
        if isinstance(parent, yaml.SequenceNode) and index == MAX_LISTED:
            # refused before the rest is read: counting it would cost as much as reading it
            refused = too_long(MAX_LISTED, None, exact=False)
            raise _refusal(refused.message, parent.start_mark, refused.hint)
        if isinstance(parent, yaml.MappingNode) and index is None and len(parent.value) == MAX_KEYS:
            raise _refusal(
                f"a mapping of more than {MAX_KEYS:,} keys, the most one may hold",
                parent.start_mark,
                "a parameter of several values spans a space: p: [1, 2, 4]",
            )
        alias = self.check_event(AliasEvent)
        self.depth += 1
        try:
            # the stub says index is an int: a mapping's value passes its key node
            node = super().compose_node(parent, index)  # type: ignore[arg-type]
        finally:
            self.depth -= 1
        assert node is not None  # the stub's Optional: PyYAML's composer returns a node
        if alias:
            if id(node) not in self.sizes:
                raise _refusal("an alias refers to a collection that holds it", mark)
        else:
            self.measure(node, mark)
        return node

    def measure(self, node: yaml.Node, mark: yaml.Mark) -> None:
        """Record how many values and levels a node stands for, aliases expanded."""
        if isinstance(node, yaml.ScalarNode):
            if "\0" in node.value:
                raise _refusal("a NUL character (\\0) cannot reach a path or a command", mark)
            children: list[yaml.Node] = []
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            children = node.value
        sizes = [self.sizes[id(child)] for child in children]
        values = 1 + sum(size for size, _ in sizes)
        levels = 1 + max((level for _, level in sizes), default=0)
        self.written += 1
        if self.written > MAX_WRITTEN:
            raise _refusal(
                f"the file writes more than {MAX_WRITTEN:,} values (keys, values and items), "
                "the most a file may write",
                mark,
                "a range counts up to 1,000,000 values without listing them; split a study "
                "into files",
            )
        if values - self.written > MAX_REPEATED:
            raise _refusal(f"aliases repeat more than {MAX_REPEATED} values", mark)
        if levels > MAX_DEPTH:
            raise _refusal(f"aliases nest collections deeper than {MAX_DEPTH} levels", mark)
        self.sizes[id(node)] = (values, levels)


class _Refused(yaml.composer.ComposerError):
    """A document that is valid YAML but would cost too much to read."""

    hint = ""


def _refusal(problem: str, mark: yaml.Mark, hint: str = "") -> _Refused:
    refused = _Refused(None, None, problem, mark)
    refused.hint = hint
    return refused


def compose(text: str, file: str) -> yaml.Node | None:
    """The node graph of a one-document YAML text (``None`` when it has none).

    A syntax error or a refused document is raised: nothing after it can be trusted.
    """
    try:
        return yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Loc(file, mark.line + 1, mark.column + 1) if mark else Loc(file)
        problem = exc.problem or exc.context or "unreadable YAML"
        if problem == _LIBYAML_TOO_DEEP:  # libyaml's own limit, met before the composer's
            problem = f"collections nest deeper than {MAX_DEPTH} levels"
        if isinstance(exc, _Refused) or exc.problem == _LIBYAML_TOO_DEEP:
            hint = exc.hint if isinstance(exc, _Refused) else ""
            raise DefinitionError(f"{problem}; jubex refuses such a file", where, hint) from None
        raise DefinitionError(f"YAML syntax: {problem}", where) from None
    except yaml.YAMLError as exc:
        raise DefinitionError(f"YAML syntax: {exc}", Loc(file)) from None


def read_yaml(text: str, file: str) -> tuple[Any, list[DefinitionError]]:
    """The tree of a YAML document (an empty one is an empty mapping) and its problems.

    Duplicate keys and unknown tags are collected so that one run reports them all.
    """
    node = compose(text, file)
    if node is None:
        return Map(Loc(file, 1, 1)), []
    builder = TreeBuilder(file, text)
    return builder.value(node), builder.errors


class TreeBuilder:
    """Turns composed nodes into Map/Seq/scalars, recording where each key and value stood.

    Readers with tags of their own (JUBE's ``!include``) extend :meth:`tagged`; readers
    whose scalars mean something else (JUBE's texts) extend :meth:`scalar`.
    """

    #: what to write instead of a tag this reader does not know
    tag_hint = "write plain values"

    def __init__(self, file: str, text: str) -> None:
        self.file = file
        self.lines = text.splitlines()
        self.errors: list[DefinitionError] = []

    def loc(self, node: yaml.Node) -> Loc:
        """Where a node starts; a block text (``|``, ``>``) starts on the line below."""
        mark = node.start_mark
        if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
            below = self.lines[mark.line + 1] if mark.line + 1 < len(self.lines) else ""
            return Loc(self.file, mark.line + 2, len(below) - len(below.lstrip(" ")) + 1)
        return Loc(self.file, mark.line + 1, mark.column + 1)

    def value(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode) and node.tag == CORE + "map":
            return self.mapping(node)
        if isinstance(node, yaml.SequenceNode) and node.tag == CORE + "seq":
            return self.sequence(node)
        if isinstance(node, yaml.ScalarNode) and node.tag in _SCALAR_TAGS:
            return self.scalar(node)
        return self.tagged(node)

    def tagged(self, node: yaml.Node) -> Any:
        """A node with a tag this reader does not know: reported, its value not read."""
        tag = node.tag.replace(CORE, "!!", 1)
        self.errors.append(
            DefinitionError(f"unknown YAML tag '{tag}'", self.loc(node), self.tag_hint)
        )
        return None

    def text(self, node: yaml.Node) -> str:
        return node.value if isinstance(node, yaml.ScalarNode) and node.value else ""

    def sequence(self, node: yaml.SequenceNode) -> Seq:
        seq = Seq(self.loc(node))
        for item in node.value:
            seq.add(self.value(item), self.loc(item), self.text(item))
        return seq

    def mapping(self, node: yaml.MappingNode) -> Map:
        result = Map(self.loc(node))
        explicit: set[str] = set()
        for key_node, value_node in node.value:
            if key_node.tag == CORE + "merge":
                self.merge(result, value_node, explicit)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.errors.append(
                    DefinitionError(
                        "a key must be a text, not a list or mapping", self.loc(key_node)
                    )
                )
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
        merged = self.value(node)
        for source in merged if isinstance(merged, Seq) else [merged]:
            if not isinstance(source, Map):
                self.errors.append(
                    DefinitionError("'<<' merges only mappings (or a list of them)", self.loc(node))
                )
                continue
            for key in source:
                if key not in explicit and key not in into:
                    into.take(source, key)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        """The core schema's value of a scalar; an explicit tag it does not fit is reported."""
        kind = node.tag[len(CORE) :]
        if kind == "str":
            return node.value
        if kind == "int" and len(node.value) > MAX_DIGITS:
            self.errors.append(
                DefinitionError(
                    f"a number of more than {MAX_DIGITS:,} digits", self.loc(node), "quote it"
                )
            )
            return None
        if _RESOLVED[kind].match(node.value):
            return _CONVERT[kind](node.value)
        self.errors.append(
            DefinitionError(f"'{node.value}' is not a YAML {kind}", self.loc(node), self.tag_hint)
        )
        return None
