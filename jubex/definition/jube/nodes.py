"""JUBE's element tree: what both of JUBE's spellings are read into before the model is built.

JUBE itself turns its YAML into XML and reads only XML; keeping that shape here means one
reader serves both, with the same element and attribute names the JUBE documentation uses.
Every element and attribute remembers its file and line, so every later error can name them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from jubex.definition.tags import tag_matches
from jubex.errors import DefinitionError, Loc

#: JUBE's separator for lists in attributes and texts (``<use>a,b</use>``, ``depend="a,b"``)
SEPARATOR = ","
_PREDICATE = r"\[@([A-Za-z_][\w-]*)(?:\s*=\s*(?:'([^']*)'|\"([^\"]*)\"))?\]"
_STEP = re.compile(rf"(\*|[A-Za-z_][\w.-]*)((?:{_PREDICATE})*)")


@dataclass
class Node:
    """One element: tag, attributes (texts as written), text, children, and where it stood."""

    tag: str
    loc: Loc
    attrs: dict[str, str] = field(default_factory=dict)
    text: str = ""
    children: list[Node] = field(default_factory=list)
    attr_locs: dict[str, Loc] = field(default_factory=dict)

    def get(self, name: str, default: str | None = None) -> str | None:
        """An attribute stripped of surrounding blanks, as JUBE reads nearly all of them."""
        value = self.attrs.get(name)
        return default if value is None else value.strip()

    def where(self, name: str) -> Loc:
        """The place of an attribute (YAML knows its line), else of the element."""
        return self.attr_locs.get(name, self.loc)

    @property
    def value(self) -> str:
        return self.text.strip()

    def all(self, tag: str) -> list[Node]:
        return [child for child in self.children if child.tag == tag]

    def walk(self) -> Iterator[Node]:
        """This element and every element below it, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def copy(self) -> Node:
        return Node(
            self.tag,
            self.loc,
            dict(self.attrs),
            self.text,
            [c.copy() for c in self.children],
            dict(self.attr_locs),
        )


def split_list(text: str | None) -> list[str]:
    """``a, b,,c`` as ``["a", "b", "c"]``: JUBE's comma lists, blanks and empty items dropped."""
    return [part.strip() for part in (text or "").split(SEPARATOR) if part.strip()]


def check_tag_expression(expr: str, loc: Loc) -> None:
    """JUBE 2.7 refuses the old comma lists in tag expressions; so does jubex, with the rewrite."""
    if "," in expr:
        raise DefinitionError(
            f"tag expression '{expr}' uses a comma, which JUBE 2.7 no longer accepts",
            loc,
            "write a|b for 'a or b', a+b for 'a and b', !a for 'not a'",
        )


def holds(node: Node, tags: Iterable[str]) -> bool:
    """Whether an element's ``tag`` expression holds for the given tags (no tag: it does)."""
    expr = node.get("tag")
    if expr is None or not expr:
        return True
    check_tag_expression(expr, node.where("tag"))
    return tag_matches(expr, tags, node.where("tag"))


def prune(node: Node, tags: Iterable[str], dropped: list[Node] | None = None) -> Node:
    """A copy without the elements whose tag expression fails, as JUBE removes them on reading."""
    tags = frozenset(tags)
    kept = []
    for child in node.children:
        if holds(child, tags):
            kept.append(prune(child, tags, dropped))
        elif dropped is not None:
            dropped.append(child)
    return Node(node.tag, node.loc, dict(node.attrs), node.text, kept, dict(node.attr_locs))


def tag_names(node: Node) -> set[str]:
    """Every tag name an element or its descendants mention in a ``tag`` attribute."""
    names: set[str] = set()
    for element in node.walk():
        expr = element.attrs.get("tag")
        if expr:
            names.update(re.findall(r"[\w.\-']+", expr))
    return names


def select(root: Node, path: str, loc: Loc) -> list[Node]:
    """The elements an ``<include path="...">`` names: JUBE's ElementPath, in its common form.

    Steps are tag names or ``*``, separated by ``/``; ``.`` is the element itself; a step may
    carry predicates ``[@attr]`` and ``[@attr='value']``. Anything else is refused by name.
    """
    found = [root]
    for step in [s for s in path.strip().split("/") if s != "."]:
        match = _STEP.fullmatch(step)
        if not match:
            raise DefinitionError(
                f"include path '{path}' uses '{step}', which jubex does not read",
                loc,
                "write a path of element names, '*' and [@attr='value'] filters, e.g. dos/do",
            )
        tag = match.group(1)
        wanted = [(a, v1 or v2 or None) for a, v1, v2 in re.findall(_PREDICATE, match.group(2))]
        found = [
            child
            for parent in found
            for child in parent.children
            if (tag == "*" or child.tag == tag)
            and all(
                child.attrs.get(a) is not None and v in (None, child.attrs[a]) for a, v in wanted
            )
        ]
    return found
