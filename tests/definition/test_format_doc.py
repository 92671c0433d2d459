"""The examples of docs/format.md read without a problem, so the reference cannot drift."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jubex.definition.schema_check import check_tree
from jubex.definition.xml_spelling import parse_xml, read_xml
from jubex.definition.yaml_tree import read_yaml

DOC = (Path(__file__).resolve().parents[2] / "docs" / "format.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC, re.S)


def test_the_xml_example_reads_into_a_schema_valid_tree() -> None:
    (xml,) = blocks("xml")
    tree, errors = read_xml(parse_xml(xml.encode(), "doc.xml"), "doc.xml")
    assert errors == [] and check_tree(tree) == []


@pytest.mark.parametrize("text", [b for b in blocks("yaml") if not b.lstrip().startswith("#")])
def test_the_yaml_fragments_are_schema_valid(text: str) -> None:
    tree, errors = read_yaml(text, "doc.yaml")
    assert errors == [] and check_tree(tree, fragment=True) == []
