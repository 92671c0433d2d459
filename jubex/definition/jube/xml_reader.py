"""JUBE's XML spelling into the element tree, parsed as safely as jubex's own XML."""

from __future__ import annotations

from lxml import etree

from jubex.definition.jube.nodes import Node
from jubex.definition.xml_spelling import parse_xml
from jubex.errors import DefinitionError, Loc


def read_xml(data: bytes, file: str) -> Node:
    """The root element of a JUBE XML file; comments and processing instructions are gone."""
    return _node(parse_xml(data, file), file)


#: attributes one element may have: JUBE's have at most a dozen, and lxml hands them over
#: in time that grows with their square (100,000 took 80 s)
MAX_ATTRIBUTES = 1000


def _node(element: etree._Element, file: str) -> Node:
    loc = Loc(file, element.sourceline or 0)
    count = len(element.attrib)
    if count > MAX_ATTRIBUTES:
        raise DefinitionError(
            f"<{element.tag!s}> has {count:,} attributes, more than the {MAX_ATTRIBUTES:,} an "
            "element may have",
            loc,
        )
    children = [_node(child, file) for child in element if isinstance(child.tag, str)]
    return Node(str(element.tag), loc, dict(element.attrib), element.text or "", children)
