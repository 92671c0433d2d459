"""JUBE's XML spelling into the element tree, parsed as safely as jubex's own XML."""

from __future__ import annotations

from lxml import etree

from jubex.definition.jube.nodes import Node
from jubex.definition.xml_spelling import parse_xml
from jubex.errors import Loc


def read_xml(data: bytes, file: str) -> Node:
    """The root element of a JUBE XML file; comments and processing instructions are gone."""
    return _node(parse_xml(data, file), file)


def _node(element: etree._Element, file: str) -> Node:
    loc = Loc(file, element.sourceline or 0)
    children = [_node(child, file) for child in element if isinstance(child.tag, str)]
    return Node(str(element.tag), loc, dict(element.attrib), element.text or "", children)
